"""`batchsim train` under torchrun (2 ranks, Gloo on the CPU) stopped by SIGTERM the ways a
scheduler sends it: to the launcher alone (Kubernetes signals a container's first process;
Ctrl-C signals the terminal's process group, which holds torchrun alone, as torchrun starts
each rank in a session of its own), to every process of the job (Slurm's scancel and time
limit), or to one rank. torchrun (2.13) forwards a SIGTERM, SIGINT, SIGHUP or SIGQUIT it
gets to every rank's process group, so in the second case each rank gets two at once; it
waits --shutdown-timeout seconds (30 by default) before SIGKILL, then exits 1 itself.
Whichever way, the ranks agree to stop after the same update, rank 0 writes one checkpoint
atomically, every rank exits 0, rank 0 prints how to resume, and --resume continues."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from batchsim.train.checkpoint import read_checkpoint  # noqa: E402
from batchsim.train.signals import PHASE_PREFIX, PHASES_VARIABLE  # noqa: E402

UPDATES = 6
FRAMES_PER_UPDATE = 64  # 2 ranks x num_envs 4 x rollout_steps 8
TINY = [
    "sim.num_envs=4",
    "render.width=16",
    "render.height=16",
    "rollout_steps=8",
    "hidden_size=32",
    f"total_frames={FRAMES_PER_UPDATE * UPDATES}",
    "device=cpu",
    "sim.num_threads=1",
    "checkpoint_every=0",  # the stop's checkpoint is the only one
]

# What torchrun starts on each rank: `batchsim train` (the CLI's main), reporting the rank's
# exit code, updates and stop signal in RANK_REPORTS/rank<N>.json.
RANK_MAIN = """
import json, os, sys
from pathlib import Path
import batchsim.train.run as run
from batchsim.cli import main
seen, real_train = {}, run.train
def train(*args, **kwargs):
    trainer = real_train(*args, **kwargs)
    seen.update(updates=trainer.updates, stop_signal=trainer.stop_signal)
    return trainer
run.train = train
code = main(sys.argv[1:])
report = Path(os.environ["RANK_REPORTS"], "rank" + os.environ["RANK"] + ".json")
report.write_text(json.dumps(dict(seen, code=code)))
sys.exit(code)
"""


@pytest.fixture(scope="module")
def split(procgen_dataset):
    root, _ = procgen_dataset
    return root / "pointnav" / "train" / "train.json.gz"


def launch(tmp_path: Path, split, port: int, resume: bool) -> tuple[subprocess.Popen, Path]:
    """torchrun with 2 ranks, in a session of its own (so that a hang can be killed with its
    group); returns the launcher and the folder of the ranks' reports."""
    script = tmp_path / "rank_main.py"
    script.write_text(RANK_MAIN)
    reports = tmp_path / ("resumed" if resume else "stopped")
    reports.mkdir()
    torchrun = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node=2"]
    command = [*torchrun, f"--master-port={port}", str(script), "train", "--preset", "demo"]
    command += ["--quiet", *(["--resume"] if resume else [])]
    command += [f"dataset={split}", f"log_dir={tmp_path / 'run'}", *TINY]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    env |= {PHASES_VARIABLE: "1", "RANK_REPORTS": str(reports)}
    process = subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    return process, reports


def wait_for_both(process: subprocess.Popen, wanted: str) -> list[str]:
    """Reads stderr until two lines (one per rank) start with `wanted`."""
    lines = []
    for line in process.stderr:
        lines.append(line.rstrip("\n"))
        if sum(seen.startswith(wanted) for seen in lines) == 2:
            return lines
    process.wait()
    raise AssertionError(f"torchrun exited {process.returncode} first:\n" + "\n".join(lines))


def rank_pids(launcher: int) -> dict[int, int]:
    """{rank: pid} of the launcher's children, by the RANK in their environment."""
    out = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            if parent == launcher:
                environ = (stat.parent / "environ").read_bytes().split(b"\0")
                rank = next(int(v[5:]) for v in environ if v.startswith(b"RANK="))
                out[rank] = int(stat.parent.name)
        except (OSError, StopIteration):
            continue  # a process that ended meanwhile, or not a rank
    return out


def finish(process: subprocess.Popen, reports: Path) -> tuple[str, str, dict[int, dict]]:
    """stdout, stderr and each rank's report once torchrun exits; kills the job on a hang."""
    try:
        out, err = process.communicate(timeout=240)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    ranks = {int(p.stem[4:]): json.loads(p.read_text()) for p in reports.glob("rank*.json")}
    return out, err, ranks


def column(log_dir: Path, index: int) -> list[str]:
    return [row.split(",")[index] for row in (log_dir / "metrics.csv").read_text().splitlines()]


def send_sigterm(to: str, process: subprocess.Popen, ranks: dict[int, int]) -> list[str]:
    """SIGTERM to the launcher, to one rank, or to every process; returns stderr read."""
    if to == "launcher":
        os.kill(process.pid, signal.SIGTERM)
    elif to == "rank 1":
        os.kill(ranks[1], signal.SIGTERM)
    else:  # the ranks' handlers run first, then torchrun's echo comes: the order that kills
        for pid in ranks.values():
            os.kill(pid, signal.SIGTERM)
        lines = wait_for_both(process, "batchsim train: SIGTERM: stopping after this update")
        os.kill(process.pid, signal.SIGTERM)
        return lines
    return []


@pytest.mark.parametrize(
    ("to", "port"), [("launcher", 29541), ("everyone", 29543), ("rank 1", 29545)]
)
def test_sigterm_stops_every_rank_after_the_same_update(split, tmp_path, to, port):
    process, reports = launch(tmp_path, split, port, resume=False)
    seen = wait_for_both(process, f"{PHASE_PREFIX} update 2")
    ranks = rank_pids(process.pid)
    assert sorted(ranks) == [0, 1], ranks
    seen += send_sigterm(to, process, ranks)
    out, err, report = finish(process, reports)
    log = "\n".join(seen) + "\n" + err[-4000:]
    # torchrun turns the signal it got into its own failure; a rank's signal is the ranks' own
    assert process.returncode == (0 if to == "rank 1" else 1), log
    assert sorted(report) == [0, 1], log  # both ranks returned from main
    stopped_at = report[0]["updates"]
    for rank in (0, 1):
        assert report[rank] == {"updates": stopped_at, "stop_signal": signal.SIGTERM, "code": 0}
    assert 2 <= stopped_at < UPDATES  # the update in flight, or (if rank 0 had asked) the next
    assert f"stopped by SIGTERM after update {stopped_at} of {UPDATES}" in err, log
    assert "resume with (under the same launcher, e.g. torchrun): " in out, out
    log_dir = tmp_path / "run"
    assert read_checkpoint(log_dir)["updates"] == stopped_at
    assert sorted(p.name for p in log_dir.glob("*checkpoint*")) == ["checkpoint.pt"]  # no .tmp
    assert column(log_dir, 0)[1:] == [str(u) for u in range(1, stopped_at + 1)]

    if to != "everyone":
        return  # the hardest case also resumes
    process, reports = launch(tmp_path, split, port, resume=True)
    out, err, report = finish(process, reports)
    assert process.returncode == 0, err[-4000:]
    assert all(report[r] == {"updates": UPDATES, "stop_signal": None, "code": 0} for r in (0, 1))
    rollouts = [line for line in err.splitlines() if line.startswith(f"{PHASE_PREFIX} rollout")]
    assert rollouts[:2] == [f"{PHASE_PREFIX} rollout {stopped_at + 1}"] * 2
    assert read_checkpoint(log_dir)["updates"] == UPDATES
    assert column(log_dir, 0)[1:] == [str(u) for u in range(1, UPDATES + 1)]
