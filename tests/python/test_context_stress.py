"""Several Simulators and a renderer on one context, stepped at once from Python threads,
with scene swaps every few steps (batchsim.stress): no hang, and every worker sees exactly
what it sees alone. On CUDA each thread has its own stream. Before the fix, 4 Simulators
hung in their first step on an H100: unlocked submits to the one queue from several
threads, and several streams signalling one timeline out of order (docs/env.md)."""

import threading

import pytest

import batchsim
from batchsim import stress


@pytest.fixture(scope="module")
def split(procgen_dataset):
    return procgen_dataset[0] / "pointnav" / "train"


def check_stress(split, context, steps: int) -> None:
    report = stress.run(
        split, context, workers=3, steps=steps, swap_every=3, timeout_s=240, check_alone=True
    )
    assert [len(d) for d in report.digests] == [steps] * 3
    # The workers saw different things (their own seeds), so equal digests mean something.
    assert len({d[-1] for d in report.digests}) == 3


def test_workers_on_one_cpu_context_match_their_runs_alone(split, cpu_context):
    check_stress(split, cpu_context, steps=24)


def test_workers_on_one_cuda_context_with_their_own_streams(split, cuda_context):
    check_stress(split, cuda_context, steps=200)


def test_a_stuck_worker_is_reported_as_a_hang(split, cpu_context, monkeypatch):
    release = threading.Event()
    monkeypatch.setattr(stress, "_step_renderer", lambda worker, plan: release.wait(30))
    try:
        with pytest.raises(stress.StressHang, match=r"worker 2 \(renderer\) did not finish"):
            stress.run(split, cpu_context, workers=3, steps=2, timeout_s=2)
    finally:
        release.set()


def test_a_worker_that_differs_alone_is_reported(split, cpu_context, monkeypatch):
    calls = []
    real = stress._step_simulator

    def drifting(worker, plan):  # the second run of worker 0 (alone) sees another seed
        calls.append(worker.index)
        if worker.index == 0 and calls.count(0) == 2:
            worker.index = 1
        real(worker, plan)

    monkeypatch.setattr(stress, "_step_simulator", drifting)
    with pytest.raises(stress.StressMismatch, match=r"worker 0 \(sim\) saw other results"):
        stress.run(split, cpu_context, workers=2, steps=2, check_alone=True)


def test_bad_arguments_are_refused(split, cpu_context):
    with pytest.raises(ValueError, match="expected >= 1, >= 1, >= 3, got 0"):
        stress.run(split, cpu_context, workers=0)
    assert issubclass(batchsim.WaitTimeoutError, TimeoutError)
