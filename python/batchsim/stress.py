"""Several Simulators and renderers on one GPU context, stepped at once from Python threads:
the stress that once deadlocked two Simulators on a shared CUDA-export context.

    report = batchsim.stress.run(dataset, context, workers=4, steps=200, swap_every=5)

Each worker owns a Simulator (scenes swapped every ``swap_every`` steps, random actions and
resets) or a BatchRenderer (random poses in two resident scenes) on ``context``, and on CUDA
its own stream. Every step it records a digest of what it saw. A worker that does not finish
within ``timeout_s`` is a hang (:class:`StressHang`, naming it and its last step); with
``check_alone=True`` every worker is run again alone and its digests must be the
concurrent run's, bit for bit (:class:`StressMismatch`). `scripts/stress_context.py` runs it
for minutes."""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from batchsim import _core
from batchsim.datasets import episode_table
from batchsim.renderer import BatchRenderer
from batchsim.simulator import Simulator

_DLPACK_CPU = 1  # kDLCPU


class StressHang(RuntimeError):
    """A worker did not finish in time: the shared context hung."""


class StressMismatch(RuntimeError):
    """A worker saw other results on the shared context than alone."""


@dataclass
class StressReport:
    workers: int
    steps: int
    seconds: float
    digests: list[list[str]] = field(default_factory=list)  # per worker, per step


@dataclass
class _Worker:
    index: int
    kind: str  # "sim" or "renderer"
    digests: list[str] = field(default_factory=list)
    error: BaseException | None = None


def run(
    dataset,
    context: _core.Context,
    *,
    workers: int = 4,
    steps: int = 100,
    swap_every: int = 5,
    num_envs: int = 4,
    resolution: int = 16,
    timeout_s: float = 300.0,
    check_alone: bool = False,
) -> StressReport:
    """Steps ``workers`` workers (Simulators, every third one a BatchRenderer) at once."""
    if workers < 1 or steps < 1 or swap_every < 3:
        raise ValueError(
            "workers, steps, swap_every: expected >= 1, >= 1, >= 3, got "
            f"{workers}, {steps}, {swap_every}"
        )
    plan = dict(dataset=dataset, context=context, steps=steps, swap_every=swap_every)
    plan |= dict(num_envs=num_envs, resolution=resolution)
    started = time.perf_counter()
    team = [_Worker(i, "renderer" if i % 3 == 2 else "sim") for i in range(workers)]
    _run_together(team, plan, timeout_s)
    report = StressReport(workers, steps, time.perf_counter() - started)
    report.digests = [worker.digests for worker in team]
    if check_alone:
        for worker in team:
            alone = _Worker(worker.index, worker.kind)
            _run_together([alone], plan, timeout_s)
            if alone.digests != worker.digests:
                step = _first_difference(alone.digests, worker.digests)
                raise StressMismatch(
                    f"worker {worker.index} ({worker.kind}) saw other results at step {step} "
                    "with the others stepping on the same context than alone"
                )
    return report


def _first_difference(a: list[str], b: list[str]) -> int:
    return next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )


def _run_together(team: list[_Worker], plan: dict, timeout_s: float) -> None:
    threads = [threading.Thread(target=_guarded, args=(w, plan), daemon=True) for w in team]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout_s
    for worker, thread in zip(team, threads, strict=True):
        thread.join(max(0.0, deadline - time.monotonic()))
        if thread.is_alive():
            raise StressHang(
                f"worker {worker.index} ({worker.kind}) did not finish within {timeout_s:.0f} s "
                f"(last step done: {len(worker.digests) - 1}) with {len(team)} workers on one "
                "context"
            )
    for worker in team:
        if worker.error is not None:
            raise RuntimeError(f"worker {worker.index} ({worker.kind}) failed") from worker.error


def _guarded(worker: _Worker, plan: dict) -> None:
    try:
        with _own_stream(plan["context"]):
            (_step_simulator if worker.kind == "sim" else _step_renderer)(worker, plan)
    except BaseException as error:  # reported by _run_together, in the main thread
        worker.error = error


def _own_stream(context: _core.Context):
    """On CUDA, a stream of this thread's own (the case that deadlocked); else nothing."""
    if not context.torch_device.startswith("cuda"):
        return contextlib.nullcontext()
    import torch

    return torch.cuda.stream(torch.cuda.Stream(context.torch_device))


def _step_simulator(worker: _Worker, plan: dict) -> None:
    rng = np.random.default_rng(worker.index)
    sim = Simulator(
        plan["dataset"],
        plan["num_envs"],
        context=plan["context"],
        seed=worker.index,
        resolution=plan["resolution"],
        scenes_resident=1,
        steps_per_scene=plan["swap_every"],
        # A slot swaps its scene only at an episode end, so episodes must be shorter.
        task=_core.TaskConfig().replace(max_episode_steps=plan["swap_every"] - 2),
    )
    try:
        sim.reset(seed=worker.index)
        for _ in range(plan["steps"]):
            if rng.random() < 0.05:
                sim.reset_envs(rng.random(sim.num_envs) < 0.5)
            sim.step(rng.integers(0, 4, sim.num_envs, dtype=np.int32))
            worker.digests.append(_digest(sim.depth, sim.outputs.position))
    finally:
        sim.close()


def _step_renderer(worker: _Worker, plan: dict) -> None:
    rng = np.random.default_rng(worker.index)
    size, views = plan["resolution"], 8
    config = _core.RendererConfig(views=views, width=size, height=size, places=2, rgb=False)
    renderer = BatchRenderer(plan["context"], config)
    scene_paths = episode_table(plan["dataset"]).scene_paths[:2]
    for place, path in enumerate(scene_paths):
        renderer.set_scene(place, _core.Scene.load(path))
    for _ in range(plan["steps"]):
        positions = rng.uniform(-2.0, 2.0, (views, 3)).astype(np.float32)
        positions[:, 1] = 1.2
        rotations = np.tile(np.float32([0, 0, 0, 1]), (views, 1))
        places = rng.integers(0, len(scene_paths), views, dtype=np.uint32)
        renderer.render(positions, rotations, places)
        worker.digests.append(_digest(renderer.depth, positions))


def _digest(depth: _core.Tensor, *arrays) -> str:
    """A hash of the depth images (copied to the host after the thread's stream is done)
    and the given host arrays."""
    hasher = hashlib.sha1(_host(depth).tobytes())
    for array in arrays:
        hasher.update(np.ascontiguousarray(array).tobytes())
    return hasher.hexdigest()


def _host(tensor: _core.Tensor) -> np.ndarray:
    if tensor.__dlpack_device__()[0] == _DLPACK_CPU:
        return np.from_dlpack(tensor).copy()
    import torch

    return torch.from_dlpack(tensor).cpu().numpy()  # on this thread's current stream


__all__ = ["StressHang", "StressMismatch", "StressReport", "run"]
