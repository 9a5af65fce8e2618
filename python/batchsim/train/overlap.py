"""The PPO update of rollout k overlapped with the collection of rollout k+1
(`TrainConfig.overlap_update`).

Strictly on-policy PPO (the default) alternates: collect a rollout with the policy's current
weights, then update them on it, with the simulator idle during the update and the learner
idle during the collection. Overlapped, the update of rollout k runs on a worker thread (on
CUDA, on its own stream) while the main thread collects rollout k+1 into a second storage
with a frozen copy of the weights the update started from (`ActingCopy`).

Staleness: rollout k+1 is collected by the policy as it was before update k, and is trained
from the weights after it, so the behaviour policy lags the learner by exactly one update.
PPO's importance ratio already divides by the behaviour policy's stored log-probabilities,
and its clip bounds how far the lag moves a step; the first epoch's ratio simply does not
start at 1. This is the one-update policy lag of asynchronous PPO variants (e.g. APPO).

Determinism: the update's random draws (minibatch order, CPC|A's samples) come from their
own generator, so the two threads never draw from one stream in a timing-dependent order;
an overlapped run is reproducible, and its checkpoints (taken with nothing pending, see
Trainer.drain) resume exactly like a strict run's."""

from __future__ import annotations

import copy
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import nullcontext

import torch

# Seeds the update's generator apart from the rollouts' (torch's default) stream.
UPDATE_SEED_OFFSET = 0x7570_6461


class ActingCopy:
    """A frozen copy of the policy that rollouts act with while the learner changes the
    original; `refresh()` copies the learner's weights in, in place (CUDA graphs captured on
    the copy keep reading its tensors)."""

    def __init__(self, policy: torch.nn.Module):
        self.source = policy
        self.policy = copy.deepcopy(policy).requires_grad_(False)

    @torch.no_grad()
    def refresh(self) -> None:
        for mine, theirs in zip(self.policy.parameters(), self.source.parameters(), strict=True):
            mine.copy_(theirs)
        for mine, theirs in zip(self.policy.buffers(), self.source.buffers(), strict=True):
            mine.copy_(theirs)


class BackgroundUpdate:
    """Runs one update at a time on a worker thread. On CUDA it runs on its own stream,
    after everything the caller had queued when it started (the rollout it reads), and
    result() makes the caller's stream wait for it (the weights it wrote)."""

    def __init__(self, device: torch.device):
        self.device = device
        cuda = device.type == "cuda"
        self.stream = torch.cuda.Stream(device) if cuda else None
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ppo-update")
        self._pending: Future | None = None

    def start(self, update) -> None:
        if self._pending is not None:
            raise RuntimeError("an update is already running: call result() first")
        if self.stream is not None:
            self.stream.wait_stream(torch.cuda.current_stream(self.device))
        self._pending = self._worker.submit(self._run, update)

    def _run(self, update):
        with torch.cuda.stream(self.stream) if self.stream is not None else nullcontext():
            return update()

    def result(self):
        """The update's return value (or its exception), once it has finished."""
        pending, self._pending = self._pending, None
        try:
            return pending.result()
        finally:
            if self.stream is not None:
                torch.cuda.current_stream(self.device).wait_stream(self.stream)

    def close(self) -> None:
        self._worker.shutdown(wait=True)


def update_generator(device: torch.device, seed: int) -> torch.Generator:
    """The overlapped update's own random stream."""
    generator = torch.Generator(device)
    generator.manual_seed(seed ^ UPDATE_SEED_OFFSET)
    return generator
