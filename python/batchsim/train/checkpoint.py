"""Checkpoints: everything a run needs to continue exactly (policy, optimizer, counters, the
random generators, the running episode metrics) plus its config, written atomically: a
kill at any moment leaves the previous checkpoint loadable."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import torch

from batchsim._files import write_atomically
from batchsim.errors import InvalidArgumentError
from batchsim.train.config import TrainConfig
from batchsim.train.models import build_policy

CHECKPOINT = "checkpoint.pt"
# TrainConfig fields that fix the policy's shape or what it sees: a checkpoint trained with
# other values would not load (shape mismatch) or would load and see the wrong inputs.
POLICY_FIELDS = (
    "sensors",
    "resolution",
    "encoder",
    "hidden_size",
    "rnn",
    "rnn_layers",
    "depth_bins",
    "max_depth",
    "cpca_steps",
    "value_normalization",
)
# Fields whose weight > 0 adds a head (its parameters) to the policy: a checkpoint must
# have the same heads, whatever their weights.
HEAD_FIELDS = ("inverse_dynamics_coef", "temporal_distance_coef")


def write_checkpoint(state: dict, path: str | os.PathLike) -> None:
    """torch.save to a temporary file in the same folder, fsync, then an atomic rename."""
    write_atomically(path, lambda f: torch.save(state, f))


def read_checkpoint(path: str | os.PathLike) -> dict:
    """A checkpoint written by `batchsim train`; a clear error for anything else."""
    path = Path(path)
    if path.is_dir():
        path = path / CHECKPOINT
    if not path.is_file():
        raise FileNotFoundError(
            f"checkpoint: expected a file written by batchsim train, got {path}"
        )
    state = torch.load(path, map_location="cpu", weights_only=False)
    missing = {"config", "policy", "updates"} - set(state if isinstance(state, dict) else {})
    if missing:
        raise ValueError(f"checkpoint {path}: expected keys {sorted(missing)} are missing")
    return state


def config_of(state: dict) -> TrainConfig:
    fields = {f.name for f in dataclasses.fields(TrainConfig)}
    config = TrainConfig(**{k: v for k, v in state["config"].items() if k in fields})
    config.sensors = tuple(config.sensors)
    return config


def check_compatible(saved: TrainConfig, wanted: TrainConfig, origin: str = "checkpoint") -> None:
    """InvalidArgumentError (a ValueError) naming every POLICY_FIELDS value where the
    checkpoint's config (`saved`) and this run's (`wanted`) differ, and every HEAD_FIELDS
    head that one has and the other not, before any weights load."""
    differ = [
        f"{name}: checkpoint has {getattr(saved, name)!r}, this run asks for "
        f"{getattr(wanted, name)!r}"
        for name in POLICY_FIELDS
        if _normalised(getattr(saved, name)) != _normalised(getattr(wanted, name))
    ]
    differ += [
        f"{name}: checkpoint has {getattr(saved, name)!r} ({_head(saved, name)}), this run "
        f"asks for {getattr(wanted, name)!r} ({_head(wanted, name)})"
        for name in HEAD_FIELDS
        if _head(saved, name) != _head(wanted, name)
    ]
    if differ:
        raise InvalidArgumentError(
            f"{origin} does not fit this configuration (its policy was trained with other "
            "inputs or another network): " + "; ".join(differ)
        )


def world_change_notice(state: dict, world: int, peak_lr: float) -> str:
    """What resuming `state` on `world` ranks changes, for a warning."""
    saved = len(state["ranks"])
    return (
        f"checkpoint written by {saved} process(es), resumed by {world}: the weights, the "
        f"optimiser state and the schedule continue from frame {state['frames']:,}; each "
        f"update now holds {world}/{saved} of the frames it did, the peak learning rate "
        f"follows the new global minibatch ({peak_lr:.3g}), and processes the checkpoint "
        "has no state for start their random streams from the seed, so the run is not the "
        f"one {saved} process(es) would have continued"
    )


def _head(config: TrainConfig, name: str) -> str:
    return "a head" if getattr(config, name) > 0 else "no head"


def _normalised(value):
    return tuple(value) if isinstance(value, list) else value


def load_policy(path: str | os.PathLike, device: str | torch.device = "cpu"):
    """(Policy with the checkpoint's weights on `device`, its TrainConfig)."""
    return policy_of(read_checkpoint(path), device)


def policy_of(state: dict, device: str | torch.device = "cpu"):
    """(Policy with the weights of a checkpoint's or snapshot's `state`, its TrainConfig)."""
    config = config_of(state)
    policy = build_policy(config)
    policy.load_state_dict(state["policy"])
    return policy.to(device).eval(), config
