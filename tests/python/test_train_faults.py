"""No lost training: `python -m batchsim train` killed with SIGKILL at random moments (during
rollouts, updates and checkpoint writes, and at random times) always leaves a checkpoint
that loads, each --resume-or-start continues from it, and the run that ends after all the kills
holds bit for bit the weights, optimiser and counters of a run never killed. SIGINT and
SIGTERM stop after the current update with a checkpoint and the resume command; a second
signal ends the process at once.

BATCHSIM_FAULT_KILLS sets how many SIGKILLs the kill test makes (default 12); it prints
"fault injection: K kills made, S survived" (pytest -s shows it); docs/train.md,
"Fault injection", describes the test."""

from __future__ import annotations

import collections
import contextlib
import os
import random
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from batchsim.train.checkpoint import read_checkpoint  # noqa: E402
from batchsim.train.signals import PHASE_PREFIX, PHASES_VARIABLE  # noqa: E402

FRAMES_PER_UPDATE = 32  # num_envs 4 x rollout_steps 8
KILLS = int(os.environ.get("BATCHSIM_FAULT_KILLS", "12"))
DEMO = ("--preset", "demo", "--quiet")

# Run as `python -c`: torch.save writes a random share of the checkpoint into the
# temporary file, then the process SIGKILLs itself, on the Nth checkpoint of this launch.
KILL_IN_WRITE = """
import io, os, signal, sys, torch
from batchsim.cli import main
nth, share = int(sys.argv[1]), float(sys.argv[2])
real_save, count = torch.save, [0]
def save(obj, f, *args, **kwargs):
    count[0] += 1
    if count[0] < nth:
        return real_save(obj, f, *args, **kwargs)
    data = io.BytesIO()
    real_save(obj, data, *args, **kwargs)
    f.write(data.getvalue()[: int(len(data.getvalue()) * share)])
    f.flush()
    os.kill(os.getpid(), signal.SIGKILL)
torch.save = save
sys.exit(main(sys.argv[3:]))
"""


@pytest.fixture
def overrides(tiny_train_overrides):
    """overrides(log_dir, updates): conftest's tiny run of `updates` updates, a checkpoint
    after each."""
    return lambda log_dir, updates: tiny_train_overrides(
        log_dir,
        total_frames=FRAMES_PER_UPDATE * updates,
        entropy_coef=0.05,
        checkpoint_every=1,
    )


def environment() -> dict:
    python_path = os.pathsep.join(p for p in sys.path if p)
    return {**os.environ, "PYTHONPATH": python_path, PHASES_VARIABLE: "1"}


def launch(args: list[str], in_write: tuple[int, float] | None = None) -> subprocess.Popen:
    """`python -m batchsim train ARGS`, or with in_write (nth, share) the KILL_IN_WRITE
    wrapper; stderr is a pipe of phase lines and messages."""
    if in_write is None:
        command = [sys.executable, "-m", "batchsim", "train", *args]
    else:
        nth, share = in_write
        command = [sys.executable, "-c", KILL_IN_WRITE, str(nth), str(share), "train", *args]
    return subprocess.Popen(
        command,
        env=environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(process: subprocess.Popen, wanted: str, nth: int = 1) -> list[str]:
    """Reads stderr up to the nth line that starts with `wanted`; returns the lines read.
    Fails if the process ends first."""
    lines, seen = [], 0
    for line in process.stderr:
        lines.append(line.rstrip("\n"))
        if line.startswith(wanted):
            seen += 1
            if seen == nth:
                return lines
    process.wait()
    raise AssertionError(f"exited {process.returncode} before {wanted!r}:\n" + "\n".join(lines))


def first_rollout(lines: list[str]) -> int | None:
    for line in lines:
        if line.startswith(f"{PHASE_PREFIX} rollout "):
            return int(line.split()[-1])
    return None


def checkpoint_updates(log_dir: Path) -> int:
    """The checkpoint's update count (0: none written yet); read_checkpoint raises if the
    file does not load."""
    if not (log_dir / "checkpoint.pt").exists():
        return 0
    return read_checkpoint(log_dir)["updates"]


def kill_once(rng: random.Random, args: list[str]) -> tuple[str, list[str]]:
    """Launches a resume and SIGKILLs it at a random moment; returns (how, stderr lines)."""
    how = rng.choice(("rollout", "update", "checkpoint", "checkpoint-written", "in-write", "time"))
    if how == "in-write":
        process = launch(args, in_write=(1, rng.random()))
        lines = [line.rstrip("\n") for line in process.stderr]
        process.wait()
        assert process.returncode == -signal.SIGKILL, "\n".join(lines)
        return how, lines
    process = launch(args)
    if how == "time":
        # from launch: the kill may fall in start-up, loading or training
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=rng.uniform(0.5, 5.0))
        lines = []
    else:
        lines = wait_for(process, f"{PHASE_PREFIX} {how} ")
    process.kill()
    lines += [line.rstrip("\n") for line in process.stderr]
    process.wait()
    assert process.returncode == -signal.SIGKILL, "\n".join(lines)
    return how, lines


def test_sigkill_at_random_moments_never_loses_the_run(overrides, tmp_path):
    updates = max(12, KILLS)  # more than the kills move on: one update or none each
    reference = launch([*DEMO, *overrides(tmp_path / "reference", updates)])
    log_dir = tmp_path / "killed"
    # The first launch has no checkpoint yet, nor has any killed before its first one.
    args = [*DEMO, "--resume-or-start", *overrides(log_dir, updates)]
    rng = random.Random(23)
    made, survived, before, kinds = 0, 0, 0, collections.Counter()
    for _ in range(KILLS):
        if before >= updates - 2:  # leave the last updates to the run that finishes
            break
        how, lines = kill_once(rng, args)
        made, kinds[how] = made + 1, kinds[how] + 1
        started_at = first_rollout(lines)
        # it continued from the last checkpoint (when it got as far as a rollout)
        assert started_at in (None, before + 1), (how, started_at, before)
        now = checkpoint_updates(log_dir)  # loads, or raises
        assert now >= before
        survived, before = survived + 1, now
    moments = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
    print(f"\nfault injection: {made} kills made, {survived} survived ({moments})")
    finished = subprocess.run(
        [sys.executable, "-m", "batchsim", "train", *args],
        env=environment(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert finished.returncode == 0, finished.stderr[-3000:]
    assert first_rollout(finished.stderr.splitlines()) in (None, before + 1)
    reference.communicate(timeout=300)
    assert reference.returncode == 0
    assert_same_run(tmp_path / "reference", log_dir, updates)
    assert not list(log_dir.glob(".checkpoint.pt.*.tmp"))  # killed writers' files cleared


def assert_same_run(expected_dir: Path, got_dir: Path, updates: int) -> None:
    expected, got = read_checkpoint(expected_dir), read_checkpoint(got_dir)
    assert got["updates"] == expected["updates"] == updates
    assert got["frames"] == expected["frames"] == updates * FRAMES_PER_UPDATE
    for name, tensor in expected["policy"].items():
        assert torch.equal(got["policy"][name], tensor), name
    assert_equal_nested(got["optimizer"], expected["optimizer"])
    got_rank, expected_rank = got["ranks"][0], expected["ranks"][0]
    assert got_rank["episodes"] == expected_rank["episodes"]
    assert torch.equal(got_rank["torch_rng"], expected_rank["torch_rng"])
    # The logs hold every update once, as the uninterrupted run's do.
    assert column(got_dir, 0) == column(expected_dir, 0) == [str(u + 1) for u in range(updates)]
    assert column(got_dir, 1) == column(expected_dir, 1)


def assert_equal_nested(got, expected) -> None:
    if isinstance(expected, torch.Tensor):
        assert torch.equal(got, expected)
    elif isinstance(expected, dict):
        assert got.keys() == expected.keys()
        for key in expected:
            assert_equal_nested(got[key], expected[key])
    elif isinstance(expected, list | tuple):
        assert len(got) == len(expected)
        for a, b in zip(got, expected, strict=True):
            assert_equal_nested(a, b)
    else:
        assert got == expected


def column(log_dir: Path, index: int) -> list[str]:
    rows = (log_dir / "metrics.csv").read_text().splitlines()[1:]
    return [row.split(",")[index] for row in rows]


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_stops_after_the_update_with_a_checkpoint_and_the_resume_command(
    overrides, tmp_path, number
):
    log_dir = tmp_path / "run"
    args = ["--preset", "demo", "--quiet", *overrides(log_dir, 4), "checkpoint_every=0"]
    process = launch(args)
    wait_for(process, f"{PHASE_PREFIX} update 2")
    process.send_signal(number)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err[-3000:]
    name = signal.Signals(number).name
    assert f"stopped by {name} after update 2 of 4" in err
    assert read_checkpoint(log_dir)["updates"] == 2  # the update in flight was finished
    command = out.splitlines()[-1].removeprefix("resume with: ")
    program = ["cd", os.getcwd(), "&&", sys.executable, "-m", "batchsim", "train"]
    assert shlex.split(command) == [*program, *args[:3], "--resume", *args[3:]]
    if number == signal.SIGTERM:  # the printed command itself resumes and finishes
        resumed = subprocess.run(
            command, shell=True, env=environment(), capture_output=True, text=True, timeout=300
        )
        assert resumed.returncode == 0, resumed.stderr[-3000:]
        assert first_rollout(resumed.stderr.splitlines()) == 3
        assert read_checkpoint(log_dir)["updates"] == 4
        assert column(log_dir, 0) == ["1", "2", "3", "4"]


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_second_signal_ends_the_process_at_once(overrides, tmp_path, number):
    log_dir = tmp_path / "run"
    process = launch([*DEMO, *overrides(log_dir, updates=6)])
    wait_for(process, f"{PHASE_PREFIX} rollout 3")
    process.send_signal(number)
    wait_for(process, "batchsim train: ")  # the first one was handled
    process.send_signal(number)
    _, err = process.communicate(timeout=120)
    assert process.returncode == -number  # the default action: 130 or 143 in a shell
    assert "stopped by" not in err
    assert read_checkpoint(log_dir)["updates"] >= 2  # the last checkpoint still loads
