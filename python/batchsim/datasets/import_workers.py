"""Worker processes with a time limit per job, for import-dataset: one model whose import
never ends (a file system that stopped answering, an importer stuck in a loop) is killed
and reported, and the others go on. concurrent.futures cannot stop one running task, so
each worker here is a spawned process that takes one job at a time over a pipe and is
replaced when it is killed or dies."""

from __future__ import annotations

import dataclasses
import math
import multiprocessing
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any

# Far beyond any import measured (an MP3D house imports and bakes in minutes), far short of
# a night: a model whose import hangs fails after this long instead of stopping the run.
DEFAULT_MODEL_TIME_LIMIT_S = 3600.0
# A killed worker that has not exited after this long is left to the operating system.
JOIN_TIMEOUT_S = 5.0


@dataclasses.dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    pipe: Connection
    job: Any = None
    started: float = 0.0

    def stop(self, kill: bool) -> None:
        if kill:
            self.process.kill()
        else:
            try:
                self.pipe.send(None)  # asks it to return
            except OSError:
                self.process.kill()
        self.process.join(JOIN_TIMEOUT_S)
        self.pipe.close()


def _serve(pipe: Connection, work: Callable[[Any], Any]) -> None:
    """A worker's loop: work(job) for each job received, until None."""
    while (job := pipe.recv()) is not None:
        pipe.send(work(job))


def run_with_time_limit(
    work: Callable[[Any], Any],
    jobs: Sequence[Any],
    workers: int,
    time_limit_s: float | None,
    failed: Callable[[Any, str, float], Any],
) -> Iterator[tuple[Any, Any]]:
    """Yields (job, work(job)) as each job finishes, in `workers` spawned processes (work
    must be a module-level function, jobs and results picklable). A job still running
    after `time_limit_s` seconds (None: no limit) has its process killed and yields
    failed(job, reason, seconds), as does a job whose process dies."""
    if time_limit_s is not None and not time_limit_s > 0:
        raise ValueError(f"time_limit_s: expected seconds > 0 or None, got {time_limit_s!r}")
    context = multiprocessing.get_context("spawn")  # the caller may hold devices and threads
    pending, busy = deque(jobs), []
    idle: list[_Worker] = []
    try:
        while pending or busy:
            while pending and len(busy) < workers:
                busy.append(_hand(pending.popleft(), idle, context, work))
            wait([w.pipe for w in busy], _until_next_deadline(busy, time_limit_s))
            for worker in list(busy):
                outcome = _outcome(worker, time_limit_s, failed)
                if outcome is None:
                    continue
                busy.remove(worker)
                result, alive = outcome
                if alive:
                    idle.append(worker)
                else:
                    worker.stop(kill=True)
                yield worker.job, result
    finally:
        for worker in busy:
            worker.stop(kill=True)
        for worker in idle:
            worker.stop(kill=False)


def _start(context, work: Callable[[Any], Any]) -> _Worker:
    ours, theirs = context.Pipe()
    process = context.Process(target=_serve, args=(theirs, work), daemon=True)
    process.start()
    theirs.close()  # the worker's end lives in the worker: its death reads as end-of-file
    return _Worker(process, ours)


def _hand(job, idle: list[_Worker], context, work: Callable[[Any], Any]) -> _Worker:
    """An idle worker (a fresh one if none is left alive) running `job`."""
    while idle:
        worker = idle.pop()
        try:
            worker.pipe.send(job)
        except OSError:  # it died while idle
            worker.stop(kill=True)
            continue
        worker.job, worker.started = job, time.monotonic()
        return worker
    worker = _start(context, work)
    worker.pipe.send(job)
    worker.job, worker.started = job, time.monotonic()
    return worker


def _until_next_deadline(busy: list[_Worker], time_limit_s: float | None) -> float | None:
    if time_limit_s is None:
        return None
    first = min(worker.started for worker in busy)
    return max(0.0, first + time_limit_s - time.monotonic())


def _outcome(worker: _Worker, time_limit_s: float | None, failed) -> tuple[Any, bool] | None:
    """(result, whether the worker can take another job) once its job is over, else None."""
    seconds = time.monotonic() - worker.started
    if worker.pipe.poll():
        try:
            return worker.pipe.recv(), True
        except (EOFError, OSError):
            reason = "the worker process importing it died (a crash in the importer, or no memory)"
            return failed(worker.job, reason, seconds), False
    if time_limit_s is not None and seconds >= time_limit_s:
        reason = (
            f"still running after the time limit of {_seconds(time_limit_s)} per model: "
            "stopped (a hung read or importer; --model-time-limit raises the limit)"
        )
        return failed(worker.job, reason, seconds), False
    return None


def _seconds(value: float) -> str:
    return f"{value:g} s" if math.isfinite(value) else "inf"
