"""The per-environment outputs as the C++ table declares them once (src/sim/outputs.hpp,
``_core.output_table()``), and what Python derives from it: SimOutputs' fields (a generated
block in batchsim/sim.py), the env's observation, step and info keys, and the docs' tables
(scripts/output_table.py writes and checks the generated blocks)."""

from __future__ import annotations

import dataclasses
import math

from batchsim import _core


@dataclasses.dataclass(frozen=True)
class OutputSpec:
    """One row of the C++ output table."""

    name: str
    """SimOutputs' field and the Simulator.results key."""
    dtype: str
    """numpy's name: float32, int32, int64 or bool."""
    columns: int
    """The array is [N] for 1, [N, columns] otherwise."""
    staged: bool
    """Copied to the device every step: a key of Simulator.results."""
    env: str
    """Where BatchNavEnv shows it: observation, step, info_ended, info or none."""
    env_key: str
    """Its name in the env (the name unless renamed)."""
    range: str
    """The values' range: any, or polar ([distance >= 0, angle in [-pi, pi]])."""
    doc: str
    """What it holds, in a line."""

    @property
    def shape(self) -> str:
        """The array's shape and dtype as the docs write it: ``[N, 2] float32``."""
        return f"[N{'' if self.columns == 1 else f', {self.columns}'}] {self.dtype}"

    @property
    def bounds(self) -> tuple[list[float], list[float]]:
        """Each column's (low, high), for an observation space."""
        if self.range == "polar":
            return [0.0, -math.pi], [math.inf, math.pi]
        return [-math.inf] * self.columns, [math.inf] * self.columns


OUTPUTS: tuple[OutputSpec, ...] = tuple(OutputSpec(**row) for row in _core.output_table())


def env_outputs(role: str) -> tuple[OutputSpec, ...]:
    """The outputs the env shows as ``role`` (observation, step, info_ended, info)."""
    return tuple(spec for spec in OUTPUTS if spec.env == role)


__all__ = ["OUTPUTS", "OutputSpec", "env_outputs"]
