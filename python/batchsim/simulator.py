"""Simulator: PointNavSim with the batch renderer behind every step.

One call advances all N environments on the C++ threads, uploads the scenes the simulator
swapped in, and renders every environment's camera in one GPU submission. Python does no
work per environment, so a trainer can run it in the madrona pattern: write ``actions`` in
place, call ``step()``, read the persistent outputs::

    sim = batchsim.Simulator("data/procgen/pointnav/train", 1024, sensors=("depth",))
    sim.reset(seed=0)
    depth = torch.from_dlpack(sim.depth)        # [N, 1, H, W] float32, no copy
    for _ in range(100):
        sim.actions[:] = policy(depth, sim.pointgoal)
        sim.step()

Besides PointNavSim's arrays (host numpy views, see batchsim.sim), the observations are
batchsim.Tensor objects (DLPack) on the context's device: ``depth`` [N, 1, H, W] float32
(metres along the view axis, 0 where nothing) and ``rgb`` [N, H, W, 4] uint8 (sRGB, alpha
255), None for a sensor not asked for.

Lifetimes: every output is rewritten in place by the next reset/step; with CUDA export the
GPU writes the observations in stream order (the current torch stream, or ``stream=``), so
work queued on that stream after ``step()`` returns sees them complete.

``step_async()`` starts a step on a C++ thread and returns at once; ``step_wait()`` joins
it. Between the two, no output may be read and no action written: the step is using them.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from batchsim import _core
from batchsim.datasets import PointNavDataset
from batchsim.sim import PointNavSim

SENSORS = ("depth", "rgb")


def _check_sensors(sensors: Sequence[str]) -> tuple[str, ...]:
    if isinstance(sensors, str):
        sensors = (sensors,)
    chosen = tuple(dict.fromkeys(sensors))
    unknown = [s for s in chosen if s not in SENSORS]
    if not chosen or unknown:
        raise ValueError(
            f"sensors: expected a non-empty subset of {list(SENSORS)}, got {list(sensors)}"
        )
    return chosen


def _check_resolution(resolution) -> tuple[int, int]:
    if isinstance(resolution, int):
        resolution = (resolution, resolution)
    try:
        height, width = (int(v) for v in resolution)
    except (TypeError, ValueError):
        raise ValueError(
            f"resolution: expected (height, width) or one int, got {resolution!r}"
        ) from None
    return height, width


def make_context(device: str | None) -> _core.Context:
    """A Context for ``device``: "cpu" (host tensors), "cuda" / "cuda:N" (CUDA tensors on
    that GPU) or None (the best Vulkan device; CUDA export where it is an NVIDIA GPU)."""
    if device is None:
        return _core.Context()
    device = str(device)
    if device == "cpu":
        return _core.Context(export="cpu")
    if device == "cuda":
        device = "cuda:0"
    if device.startswith("cuda:"):
        return _core.Context(device=device, export="cuda")
    raise ValueError(f"device: expected 'cpu', 'cuda' or 'cuda:N', got {device!r}")


class Simulator(PointNavSim):
    """N PointNav environments stepped and rendered together.

    sensors: "depth" and/or "rgb". resolution: (height, width) of every view. hfov: the
    horizontal field of view in degrees. backend: the renderer's, "raster", "compute" (ray
    casting over per-scene BVHs) or "auto" (the device's best; ``batchsim doctor`` names
    it); both give the same images. device: "cpu", "cuda:N" or None (see
    :func:`make_context`); or pass a ``context`` to share one between simulators. The
    other options are PointNavSim's.
    """

    def __init__(
        self,
        dataset: PointNavDataset | str | os.PathLike,
        num_envs: int,
        *,
        sensors: Sequence[str] = ("depth",),
        resolution: int | tuple[int, int] = (64, 64),
        hfov: float = 90.0,
        backend: str = "auto",
        device: str | None = None,
        context: _core.Context | None = None,
        **options,
    ):
        self.sensors = _check_sensors(sensors)
        self.resolution = _check_resolution(resolution)
        self.hfov = float(hfov)
        self.backend = backend
        self.context = context if context is not None else make_context(device)
        super().__init__(dataset, num_envs, **options)

    def _build_core(self, scene_paths: list[str], columns: dict, options: dict):
        height, width = self.resolution
        self._core = _core.Simulator(
            self.context,
            scene_paths,
            **columns,
            **options,
            width=width,
            height=height,
            hfov=self.hfov,
            depth="depth" in self.sensors,
            rgb="rgb" in self.sensors,
            backend=self.backend,
        )
        return self._core.sim

    @property
    def device(self) -> str:
        """Where the observations live: "cuda:N" or "cpu"."""
        return self.context.torch_device

    @property
    def renderer(self) -> _core.BatchRenderer:
        return self._core.renderer

    @property
    def depth(self) -> _core.Tensor | None:
        """[N, 1, H, W] float32 metres along the view axis; 0 where nothing."""
        return self._core.renderer.depth

    @property
    def rgb(self) -> _core.Tensor | None:
        """[N, H, W, 4] uint8 sRGB, alpha 255."""
        return self._core.renderer.rgb

    @property
    def last_step_seconds(self) -> float:
        """C++ wall time of the last step: simulation, scene uploads and rendering."""
        return self._core.last_step_seconds

    def reset(self, seed: int | None = None, stream: int | None = None) -> None:
        """Starts an episode in every environment (a seed reseeds them first) and renders."""
        self._core.reset(seed, stream)

    def reset_envs(self, mask, stream: int | None = None) -> None:
        """Starts a new episode where mask ([N] bool) is True, then renders every view."""
        import numpy as np

        self._core.reset_envs(np.asarray(mask, dtype=bool), stream)

    def step(self, actions=None, stream: int | None = None) -> None:
        """Advances every environment by ``actions`` (or ``self.actions``) and renders."""
        self._core.step(actions, stream)

    def step_async(self, actions=None, stream: int | None = None) -> None:
        """Starts step() on a C++ thread and returns; step_wait() joins it."""
        self._core.step_async(actions, stream)

    @property
    def stepping(self) -> bool:
        """True from step_async() until step_wait()."""
        return self._core.stepping

    def step_wait(self) -> None:
        """Waits for the step step_async() started; raises what it raised."""
        self._core.step_wait()

    def close(self) -> None:
        """Waits for a running step and releases the GPU and scene memory (once nothing
        else holds this simulator's arrays or tensors)."""
        core = self.__dict__.pop("_core", None)
        if core is None:
            return
        core.step_wait()
        self._num_envs = self._sim.num_envs
        for name in list(self._sim.arrays()):
            self.__dict__.pop(name, None)
        del self._sim

    @property
    def closed(self) -> bool:
        return "_core" not in self.__dict__

    def __repr__(self) -> str:
        height, width = self.resolution
        if self.closed:
            return f"Simulator(closed, num_envs={self._num_envs})"
        return (
            f"Simulator(num_envs={self.num_envs}, sensors={list(self.sensors)}, "
            f"resolution={height}x{width}, device={self.device!r}, mode={self.mode!r}, "
            f"scenes={len(self.scene_paths)}, scenes_resident={self.scenes_resident})"
        )


__all__ = ["SENSORS", "Simulator", "make_context"]
