"""The half-batch pipeline as a path of `batchsim bench env` (``--halves``): two BatchNavEnv of
N / 2 (:func:`batchsim.make_env_halves`, on one context or a context each, and on CUDA each
on its own torch stream), driven as a pipelined trainer drives them: one half's actions
are handed over, then the other half's step is waited for, so that one half simulates while
the other renders and a half's actions wait only for its own render. One call of
``step(row)`` advances both halves once: N frames."""

from __future__ import annotations

import contextlib

import torch

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

    def reset(self, seed: int) -> None:
        for env in self.envs:
            env.reset(seed=seed)

    def step(self, row) -> None:
        halves = (row[: self.half], row[self.half :])
        for half in (1, 0):  # the docstring's order: hand over one half, wait for the other
            self._start(half, halves[half])
            self._wait(1 - half)

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
