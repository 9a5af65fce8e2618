"""The half-batch pipeline as a path of `batchsim bench env` (``--halves``): two BatchNavEnv of
N / 2 (:func:`batchsim.make_env_halves`, on one context or a context each, and on CUDA each
on its own torch stream), driven as a pipelined trainer drives them: one half's actions
are handed over, then the other half's step is waited for, so that one half simulates while
the other renders and a half's actions wait only for its own render. One call of
``step(row)`` advances both halves once: N frames."""

from __future__ import annotations

import contextlib
import statistics

import torch

from batchsim.bench import report
from batchsim.env import make_env_halves, visual_observations


class HalvesPipeline:
    """``step(row)`` of [N] actions (torch or numpy) in the pipelined order; ``closed_loop``
    makes each half's actions depend on its last view, as a policy's do (the bench's policy
    mode). ``sim`` holds the first half's per-step C++ figures (``last_step_seconds`` and the
    like) as of its last finished step: read from its Simulator while the next runs, they
    would race with it."""

    def __init__(self, dataset, num_envs: int, closed_loop: bool = False, **options):
        self.envs = make_env_halves(dataset, num_envs, **options)
        self.half = num_envs // 2
        self.sim = FinishedStepFigures()
        cuda = self.envs[0].device.type == "cuda"
        self._streams = [torch.cuda.Stream(env.device) if cuda else None for env in self.envs]
        self._views = [_first_pixels(env) for env in self.envs] if closed_loop else None
        self._running = set()  # halves whose step has started and not been waited for
        # Each half's renders seen finished: pass_times (GPU ms per pass, start_ms, end_ms).
        self.renders: list[list[dict]] = [[], []]

    def reset(self, seed: int) -> None:
        for env in self.envs:
            env.reset(seed=seed)

    def step(self, row) -> None:
        halves = (row[: self.half], row[self.half :])
        for half in (1, 0):  # the docstring's order: hand over one half, wait for the other
            self._start(half, halves[half])
            self._wait(1 - half)

    def forget_renders(self) -> None:
        """Starts the render timeline afresh (after a warm-up, say)."""
        self.renders = [[], []]

    def finish(self) -> None:
        """Waits for the step still running between calls."""
        for half in sorted(self._running):
            self._wait(half)

    def close(self) -> None:
        self.finish()
        for env in self.envs:
            env.close()

    def _start(self, half: int, actions) -> None:
        with self._on(half):
            if self._views is not None:
                actions = actions + (self._views[half] < 0).to(actions.dtype)
            self.envs[half].step_async(actions)
        self._running.add(half)

    def _wait(self, half: int) -> None:
        if half in self._running:
            with self._on(half):
                self.envs[half].step_wait()
            self._running.discard(half)
            if half == 0:
                self.sim.take(self.envs[0].sim)
            self._note_render(half)

    def _note_render(self, half: int) -> None:
        times = self.envs[half].sim.renderer.pass_times(0)
        seen = self.renders[half]
        if times is not None and (not seen or seen[-1]["start_ms"] != times["start_ms"]):
            seen.append(times)

    def _on(self, half: int):
        stream = self._streams[half]
        return torch.cuda.stream(stream) if stream is not None else contextlib.nullcontext()


class FinishedStepFigures:
    """A Simulator's per-step timings, copied once its step is finished."""

    last_step_seconds = last_submit_seconds = last_action_wait_seconds = 0.0

    def take(self, sim) -> None:
        self.last_step_seconds = sim.last_step_seconds
        self.last_submit_seconds = sim.last_submit_seconds
        self.last_action_wait_seconds = sim.last_action_wait_seconds


def _first_pixels(env) -> torch.Tensor:
    """Each environment's first pixel of its first view (never negative)."""
    return next(iter(visual_observations(env.sim).values())).flatten(1)[:, 0]


def render_timeline(first: list[dict], second: list[dict]):
    """How the two halves' renders (their pass_times: start_ms and end_ms on one GPU clock)
    fell: the median render's GPU time and its passes' (`passes_ms`), how long the median
    render of the first half ran beside one of the second's, and the median GPU idle time
    between one render's end and the next start (both halves; medians, so the gaps between
    timed runs do not count). None without renders."""
    if not first or not second:
        return None
    names = report.pass_durations(first[0])
    passes = {k: statistics.median(r[k] for r in first + second) for k in names}
    first, second = _intervals(first), _intervals(second)
    merged = sorted(first + second)
    busy_until, gaps = merged[0][1], []
    for start, end in merged[1:]:
        gaps.append(max(0.0, start - busy_until))
        busy_until = max(busy_until, end)
    return {
        "render_ms": statistics.median(end - start for start, end in merged),
        "overlap_ms": statistics.median(_longest_overlap(r, second) for r in first),
        "idle_ms": statistics.median(gaps),
        "passes_ms": passes,
    }


def _intervals(renders: list[dict]) -> list[tuple[float, float]]:
    return [(r["start_ms"], r["end_ms"]) for r in renders]


def _longest_overlap(render: tuple[float, float], others: list[tuple[float, float]]) -> float:
    return max(max(0.0, min(render[1], end) - max(render[0], start)) for start, end in others)
