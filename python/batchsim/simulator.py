"""Simulator: a BatchSim with the batch renderer behind every step (the C++ ``env::Simulator``).

One call advances all N environments on the C++ threads, uploads the scenes the simulation
swapped in, and renders every environment's camera in one GPU submission. Python does no
work per environment, so a trainer can run it in the madrona pattern: write ``actions`` in
place, call ``step()``, read the persistent outputs::

    sim = batchsim.Simulator("data/procgen/pointnav/train", 1024, sensors=("depth",))
    sim.reset(seed=0)
    depth = torch.from_dlpack(sim.depth)        # [N, 1, H, W] float32, no copy
    for _ in range(100):
        sim.actions[:] = policy(depth, sim.pointgoal)
        sim.step()

Composition mirrors C++: ``sim.sim`` is the :class:`batchsim.BatchSim` inside (its arrays,
``sim.outputs``, read as ``sim.reward`` etc.; it steps and resets only through the
Simulator, the one door that renders each step), ``sim.renderer`` the
:class:`batchsim.BatchRenderer` (the same class users make, on the same stream). The
observations are batchsim.Tensor objects (DLPack) on the context's device: ``depth``
[N, 1, H, W] float32 (metres along the view axis, 0 where nothing) and ``rgb``
[N, H, W, 4] uint8 (sRGB, alpha 255), None for a sensor not asked for.

Lifetimes: every output is rewritten in place by the next reset/step; with CUDA export the
GPU writes the observations in stream order (the current torch stream, or ``stream=``), so
work queued on that stream after ``step()`` returns sees them complete.

``step_async()`` starts a step on a C++ thread and returns at once; ``step_wait()`` joins
it. Between the two, no output may be read and no action written: the step is using them.

``double_buffer=True`` (a RenderOptions field) splits every step in two halves of the batch:
the GPU renders the first half while the CPU simulates the second (the paper's double
buffering). The results are the one-submission step's, bit for bit (the raster backend may
resolve an exact depth tie either way, as it does from run to run); with final_views a half
keeps its own ended episodes' final views. reset() renders everything at once; with one
environment there is nothing to split.

Actions as a CUDA tensor (a policy's output) are never waited for on the calling thread:
their shape and dtype are checked at once, their values are copied to pinned memory on the
stream (``stream=``, else torch's current one) and read by the step's thread once that copy
is done. So a value out of range raises from ``step()`` or, for ``step_async()``, from
``step_wait()``, with the same message as for host actions. Host actions (numpy, lists, CPU
tensors) are checked in full before the step starts.
"""

from __future__ import annotations

import contextlib
import os
import re
from typing import Any

import numpy as np

from batchsim import _core
from batchsim._lifetime import Lifetime, Released, while_open
from batchsim._streams import consumer_stream
from batchsim._value_fields import check_seed
from batchsim.actions import PinnedActions, check_actions, check_mask, is_cuda_tensor
from batchsim.datasets import PointNavDataset, episode_table
from batchsim.errors import InvalidArgumentError
from batchsim.options import (
    SENSORS,
    RenderOptions,
    SimConfig,
    sensors_of,
    simulator_configs,
)
from batchsim.renderer import BatchRenderer
from batchsim.sim import BatchSim, SimOutputFields

# The devices a Simulator (and the trainer, which hands its own to its simulators) takes
# by name: the one rule both check against.
DEVICE_PATTERN = r"cpu|cuda(:\d+)?"
DEVICE_WORDS = "'cpu', 'cuda' or 'cuda:N'"


def make_context(device: str | None) -> _core.Context:
    """A Context for ``device``: "cpu" (host tensors), "cuda" / "cuda:N" (CUDA tensors on
    that GPU) or None (the GPU CUDA calls cuda:0, which CUDA_VISIBLE_DEVICES picks, else the
    best Vulkan device; CUDA export where it is an NVIDIA GPU)."""
    if device is None:
        return _core.Context()
    device = str(device)
    if not re.fullmatch(DEVICE_PATTERN, device):
        raise InvalidArgumentError(
            f"device: expected None or {DEVICE_WORDS}, got {device!r} (a Vulkan device by "
            "index, uuid or name: pass context=batchsim.Context(device=...))"
        )
    if device == "cpu":
        return _core.Context(export="cpu")
    return _core.Context(device="cuda:0" if device == "cuda" else device, export="cuda")


def context_for(device: str | None, context: _core.Context | None) -> _core.Context:
    """``context`` if given, else make_context(device); InvalidArgumentError when both are
    given and the context's tensors live elsewhere than ``device`` says."""
    if context is None:
        return make_context(device)
    if device is not None:
        wanted = str(device)
        wanted = "cuda:0" if wanted == "cuda" else wanted
        if wanted != context.torch_device:
            raise InvalidArgumentError(
                f"device: {device!r} conflicts with the context given, whose tensors are on "
                f"{context.torch_device!r}; pass one of device= and context="
            )
    return context


class Simulator(SimOutputFields):
    """N PointNav environments stepped and rendered together.

    dataset: a PointNavDataset or a split path. num_envs, config, render, fields: a
    :class:`SimConfig` and a :class:`RenderOptions` (their defaults when None) with keyword
    ``fields`` changed, each in the struct that has it: BatchSim's fields, and
    ``sensors`` ("depth" and/or "rgb"), ``resolution`` ((height, width) or one int),
    ``hfov_degrees``, ``backend`` ("raster", "compute" or "auto": the device's best,
    ``batchsim doctor`` names it; both give the same images), ``final_views``,
    ``double_buffer``.
    device: "cpu", "cuda:N" or None (see :func:`make_context`); or pass a ``context`` to
    share one between simulators. A field given both in ``config``/``render`` and as a
    keyword, or a ``device`` other than the context's, raises InvalidArgumentError.
    """

    def __init__(
        self,
        dataset: PointNavDataset | str | os.PathLike,
        num_envs: int | None = None,
        *,
        config: SimConfig | None = None,
        render: RenderOptions | None = None,
        device: str | None = None,
        context: _core.Context | None = None,
        **fields: Any,
    ):
        self._lifetime = Lifetime("Simulator")  # first: close() and __del__ read it
        if num_envs is not None:
            fields["num_envs"] = num_envs
        configs = simulator_configs(config, render, **fields)
        table = episode_table(dataset)
        self.context = context_for(device, context)
        self._core = _core.Simulator(self.context, *configs, table.episode_set())
        self.render_options = configs.render
        self.sim = BatchSim.of(self._core.sim, table, owner="Simulator")
        self.outputs = self.sim.outputs
        self._renderer = BatchRenderer.of(self._core.renderer)
        self._pinned_actions = PinnedActions(self.num_envs)

    # ---- what it is ----

    @property
    def sensors(self) -> tuple[str, ...]:
        return sensors_of(self.render_options)

    @property
    def resolution(self) -> tuple[int, int]:
        """(height, width) of every view."""
        return self.render_options.height, self.render_options.width

    @property
    def device(self) -> str:
        """Where the observations live: "cuda:N" or "cpu"."""
        return self.context.torch_device

    @property
    def num_envs(self) -> int:
        return self.sim.num_envs

    @property
    def config(self) -> SimConfig:
        return self.sim.config

    @property
    def mode(self) -> str:
        return self.sim.mode

    @property
    def episodes(self) -> list:
        return self.sim.episodes

    @property
    def scene_paths(self) -> list:
        return self.sim.scene_paths

    @property
    def scenes_resident(self) -> int:
        return self.sim.scenes_resident

    @property
    def finished(self) -> bool:
        """Evaluation: every episode has run and every environment has parked."""
        return self.sim.finished

    @while_open
    def stats(self) -> dict[str, Any]:
        return self.sim.stats()

    @property
    def max_episode_geodesic(self) -> float:
        """Training's limit on the geodesic distance of new episodes (m); inf: none."""
        return self.sim.max_episode_geodesic

    @while_open
    def set_max_episode_geodesic(self, metres: float) -> None:
        """BatchSim.set_max_episode_geodesic: training's new episodes of at most ``metres``
        geodesic; ``math.inf`` lifts the limit. Not while an asynchronous step runs."""
        self._require_idle("set_max_episode_geodesic()")  # the step draws under the limit
        self.sim._apply_geodesic_limit(metres)

    # ---- observations ----

    def _open_renderer(self, name: str) -> BatchRenderer:
        self._lifetime.check(name)  # names what was read, not the part close() released
        return self._renderer

    @property
    def renderer(self) -> BatchRenderer:
        """The renderer inside, as a :class:`batchsim.BatchRenderer` (made once): its render()
        and submit() order their work on torch's current stream, as that class's do."""
        return self._open_renderer("renderer")

    @property
    def depth(self) -> _core.Tensor | None:
        """[N, 1, H, W] float32 metres along the view axis; 0 where nothing."""
        return self._open_renderer("depth").depth

    @property
    def rgb(self) -> _core.Tensor | None:
        """[N, H, W, 4] uint8 sRGB, alpha 255."""
        return self._open_renderer("rgb").rgb

    @property
    def final_depth(self) -> _core.Tensor | None:
        """With final_views, in a step where episodes ended: the views before the autoreset."""
        return self._core.final_depth

    @property
    def final_rgb(self) -> _core.Tensor | None:
        return self._core.final_rgb

    @property
    def results(self) -> dict[str, _core.Tensor]:
        """The per-environment results as batchsim.Tensor objects on the views' device (no
        copy per step: the render submission writes them, in stream order with the views):
        the outputs the C++ table stages (docs/sim.md's table; ``batchsim._outputs.OUTPUTS``
        where ``staged``) and, with final_views, final_pointgoal [N, 2] float32. The host
        arrays of the same names (``outputs``) hold the same values."""
        return self._core.results

    @property
    def final_pointgoal(self) -> np.ndarray | None:
        """[N, 2] float32 with final_views: each env's pointgoal before the autoreset."""
        return self._core.final_pointgoal

    @property
    def last_step_seconds(self) -> float:
        """C++ wall time of the last step: simulation, scene uploads and rendering."""
        return self._core.last_step_seconds

    @property
    def last_action_wait_seconds(self) -> float:
        """How long the last step waited for its CUDA actions' copy (0 for host actions)."""
        return self._core.last_action_wait_seconds

    @property
    def last_submit_seconds(self) -> float:
        """Of last_step_seconds, the time handing the renders to the GPU (scene sync, pose
        upload, submission; a wait for a batch's previous render included)."""
        return self._core.last_submit_seconds

    # ---- stepping ----

    def _stream(self, stream: int | None) -> int:
        return consumer_stream(self.device, stream)

    def _require_idle(self, what: str) -> None:
        """The one check that no asynchronous step is running, for every call that would race
        it (the core asserts it after this; the env's calls come through here too)."""
        if self._core.stepping:
            raise InvalidArgumentError(
                f"{what} while an asynchronous step is running: call step_wait() first"
            )

    @while_open
    def reset(self, seed: int | None = None, stream: int | None = None) -> None:
        """Starts an episode in every environment (a seed reseeds them first) and renders."""
        self._require_idle("reset()")
        self._core.reset(check_seed(seed), self._stream(stream))

    @while_open
    def reset_envs(self, mask, stream: int | None = None) -> None:
        """Starts a new episode where mask ([N] bool) is True, then renders every view."""
        self._require_idle("reset_envs()")
        self._core.reset_envs(check_mask(mask, self.num_envs), self._stream(stream))

    @while_open
    def step(self, actions=None, stream: int | None = None) -> None:
        """Advances every environment by ``actions`` (or ``outputs.actions``) and renders."""
        self._step(actions, stream, "step()", background=False)

    @while_open
    def step_async(self, actions=None, stream: int | None = None) -> None:
        """Starts step() on a C++ thread and returns; step_wait() joins it (and raises
        for CUDA actions out of range: see the module docstring)."""
        self._step(actions, stream, "step_async()", background=True)

    def _step(self, actions, stream: int | None, what: str, background: bool) -> None:
        """The one step path: refused while a step runs, actions checked once (host ones in
        full, into ``outputs.actions``; CUDA ones by metadata, their values staged for the
        core to check), then one core call."""
        self._require_idle(what)  # the running step reads the actions and pinned buffer
        pending = None
        if is_cuda_tensor(actions):
            pending = self._pinned_actions.stage(actions, stream)
        elif actions is not None:
            self.outputs.actions[:] = check_actions(actions, self.num_envs)
        self._core.step(self._stream(stream), pending=pending, background=background)

    @property
    def stepping(self) -> bool:
        """True from step_async() until step_wait()."""
        return self._core.stepping

    @while_open
    def step_wait(self) -> None:
        """Waits for the step step_async() started; raises what it raised."""
        self._core.step_wait()

    def close(self) -> None:
        """Waits for a running step and releases the GPU and scene memory (once nothing
        else holds this simulator's arrays or tensors). A call from another thread waits
        for close(); every call after it raises ClosedError; a second close() does nothing."""
        with self._lifetime.lock:  # a call in flight (another thread's) ends first
            if self._lifetime.closed:
                return
            self._num_envs = self.num_envs
            try:
                self._core.step_wait()  # raises what a running asynchronous step raised
            finally:
                self._lifetime.closed = True
                released: Any = Released("Simulator")
                self._core = self.sim = self.outputs = self._pinned_actions = released
                self._renderer = released

    def __del__(self):
        # A running step reads the pinned actions and waits on their event: it must end
        # before they are freed with this object (close() waits too).
        lifetime = getattr(self, "_lifetime", None)
        if lifetime is not None and not lifetime.closed and hasattr(self, "_core"):
            with contextlib.suppress(Exception):  # the step's error has nobody to go to
                self._core.step_wait()

    @property
    def closed(self) -> bool:
        return self._lifetime.closed

    def __repr__(self) -> str:
        if self.closed:
            return f"Simulator(closed, num_envs={self._num_envs})"
        height, width = self.resolution
        return (
            f"Simulator(num_envs={self.num_envs}, sensors={list(self.sensors)}, "
            f"resolution={height}x{width}, device={self.device!r}, mode={self.mode!r}, "
            f"scenes={len(self.scene_paths)}, scenes_resident={self.scenes_resident})"
        )


__all__ = ["SENSORS", "Simulator", "make_context"]
