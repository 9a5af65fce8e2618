"""The whole machine by default: how many processes `batchsim train` starts, how many
simulation threads each takes (affinity, torchrun's and Slurm's variables, busy cores), the
learning-rate rule against the global batch, and the launcher itself on 2 Gloo CPU processes,
including a resume onto another number of processes."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import launched

torch = pytest.importorskip("torch")

from batchsim.train import cpus, launch  # noqa: E402
from batchsim.train.checkpoint import read_checkpoint  # noqa: E402
from batchsim.train.presets import make_config  # noqa: E402
from batchsim.train.schedule import lr_factor, scaled_lr  # noqa: E402

TINY = [
    "sim.num_envs=4",
    "render.width=16",
    "render.height=16",
    "rollout_steps=8",
    "hidden_size=32",
    "device=cpu",
    "checkpoint_every=0",
]
FRAMES_PER_RANK_UPDATE = 4 * 8


@pytest.fixture(scope="module")
def split(procgen_dataset):
    root, _ = procgen_dataset
    return root / "pointnav" / "train" / "train.json.gz"


# -- threads ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cores", "processes", "busy", "threads"),
    [
        (64, 1, 0.0, 64),
        (64, 4, 0.0, 16),
        (64, 4, 0.6, 16),  # under a core busy: noise
        (64, 4, 5.0, 16),  # under a tenth of the cores: noise
        (64, 4, 32.4, 8),  # another training: its cores are left to it
        (64, 1, 64.0, 1),  # never fewer than one
        (2, 4, 0.0, 1),
        (16, 3, 0.0, 5),
    ],
)
def test_threads_share_the_idle_cores_among_the_local_processes(cores, processes, busy, threads):
    assert cpus.threads_for(cores, processes, busy) == threads


def test_local_processes_come_from_torchrun_not_omp_num_threads():
    assert cpus.local_processes({"LOCAL_WORLD_SIZE": "4", "OMP_NUM_THREADS": "1"}) == 4
    assert cpus.local_processes({"OMP_NUM_THREADS": "1"}) == 1
    choice = cpus.default_threads(sample=False, environ={"OMP_NUM_THREADS": "1"})
    assert choice.threads == len(os.sched_getaffinity(0)) == choice.cores


def test_a_launchers_choice_wins():
    environ = {cpus.THREADS_VARIABLE: "3", "LOCAL_WORLD_SIZE": "2"}
    assert cpus.default_threads(environ=environ).threads == 3
    with pytest.raises(ValueError, match="BATCHSIM_SIM_THREADS: expected a positive integer"):
        cpus.default_threads(environ={cpus.THREADS_VARIABLE: "0"})


DEFAULT_IN_A_FRESH_PROCESS = """
import json, os, sys
os.sched_setaffinity(0, {int(c) for c in sys.argv[1].split(",")})
from batchsim.train import cpus
choice = cpus.default_threads(sample=False)
print(json.dumps([choice.threads, choice.cores, choice.local_processes]))
"""


@pytest.mark.parametrize(
    ("affinity", "torchrun", "expected"),
    [("0", {}, [1, 1, 1]), ("0,1", {"LOCAL_WORLD_SIZE": "2"}, [1, 2, 2]), ("0,1", {}, [2, 2, 1])],
)
def test_the_default_follows_affinity_and_torchrun_variables(affinity, torchrun, expected):
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs 2 cores")
    env = {k: v for k, v in os.environ.items() if k != "LOCAL_WORLD_SIZE"}
    env |= {"OMP_NUM_THREADS": "1", **torchrun}  # torchrun sets OMP_NUM_THREADS=1
    out = subprocess.run(
        [sys.executable, "-c", DEFAULT_IN_A_FRESH_PROCESS, affinity],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout) == expected


SPIN = """
import os, time
os.sched_setaffinity(0, {0})
end = time.time() + 30
while time.time() < end:
    pass
"""


def test_busy_cores_count_other_programs_not_this_job():
    spinner = subprocess.Popen([sys.executable, "-c", SPIN])
    try:
        time.sleep(0.5)  # the interpreter is up and spinning on core 0
        seen = cpus.busy_cores([0], seconds=0.5)
        excluded = cpus.busy_cores([0], seconds=0.5, exclude=[spinner.pid])
    finally:
        spinner.kill()
        spinner.wait()
    assert seen > 0.7  # the spinner owns core 0, whatever else runs there
    # Excluded, its share leaves core 0: at least 0.3 of a core even when other work on the
    # machine takes half of core 0 from it (seen with 4 builds on the 2-core VM: 0.48).
    assert excluded < seen - 0.3


def test_busy_cores_subtract_the_excluded_processes_ticks(monkeypatch):
    """The arithmetic on fake counters: 2 cores' busy ticks less this job's, per second."""
    hz = os.sysconf("SC_CLK_TCK")
    cpu_ticks = iter([1000, 1000 + 2 * hz])  # both cores busy for one second
    job_ticks = iter([50, 50 + hz // 2])  # this job used half a core of it
    monkeypatch.setattr(cpus, "_cpu_busy_ticks", lambda cores: next(cpu_ticks))
    monkeypatch.setattr(cpus, "_process_ticks", lambda pids: next(job_ticks))
    monkeypatch.setattr(cpus.time, "sleep", lambda s: None)
    clock = iter([10.0, 11.0])
    monkeypatch.setattr(cpus.time, "monotonic", lambda: next(clock))
    assert cpus.busy_cores([0, 1], seconds=1.0, exclude=[123]) == pytest.approx(1.5, abs=0.02)


def test_busy_cores_warn_with_the_numbers():
    choice = cpus.ThreadChoice(threads=8, cores=64, local_processes=4, busy_cores=32.4)
    with pytest.warns(RuntimeWarning, match=r"32\.4 of this process's 64 cores.*8 thread.*of 16"):
        cpus.warn_busy(choice)


# -- processes ---------------------------------------------------------------------------------


def test_processes_wanted_on_the_cpu():
    assert launch.processes_wanted(0, "cpu") == 1
    assert launch.processes_wanted(2, "cpu") == 2
    with pytest.raises(ValueError, match=r"num_gpus: expected 0 \(every GPU\) or more, got -1"):
        launch.processes_wanted(-1, "cpu")
    if not torch.cuda.is_available():
        assert launch.processes_wanted(0, None) == 1


def test_slurm_tasks_become_torch_distributed_ranks():
    environ = {
        "SLURM_NTASKS": "8",
        "SLURM_PROCID": "5",
        "SLURM_LOCALID": "1",
        "SLURM_NODEID": "1",
        "SLURM_TASKS_PER_NODE": "4(x2)",
        "SLURM_STEP_NODELIST": "gpu[03-04]",
        "SLURM_JOB_ID": "123456",
    }
    assert launch.under_launcher(environ)
    assert launch.adopt_slurm(environ)
    assert {k: environ[k] for k in ("WORLD_SIZE", "RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE")} == {
        "WORLD_SIZE": "8",
        "RANK": "5",
        "LOCAL_RANK": "1",
        "LOCAL_WORLD_SIZE": "4",
    }
    assert (environ["MASTER_ADDR"], environ["MASTER_PORT"]) == ("gpu03", str(20000 + 3456))
    assert not launch.adopt_slurm(environ)  # torchrun's (or our) variables stay
    assert not launch.adopt_slurm({"SLURM_NTASKS": "1", "SLURM_PROCID": "0"})
    assert not launch.under_launcher({"SLURM_NTASKS": "1"})


@pytest.mark.parametrize(
    ("nodelist", "host"),
    [("gpu[03-05,07],cpu1", "gpu03"), ("node7", "node7"), ("a1,b2", "a1"), ("", "localhost")],
)
def test_first_host_of_a_slurm_node_list(nodelist, host):
    assert launch.first_host(nodelist) == host


# -- the learning-rate rule -------------------------------------------------------------------


def test_the_peak_rate_follows_the_global_minibatch():
    one = scaled_lr(2.5e-4, 4096 * 32 // 2)
    assert one == pytest.approx(4e-3)  # the GPU preset on one GPU: 65,536 frames
    assert scaled_lr(2.5e-4, 4 * 4096 * 32 // 2) == pytest.approx(2 * one)  # 4 GPUs: sqrt(4)


def test_the_schedule_is_the_same_in_frames_on_any_number_of_ranks():
    total, warmup = 1_000_000, 100_000
    for frames in (0, 50_000, 100_000, 400_000, 550_000, 999_999, 1_000_000):
        after = [lr_factor(frames, total, warmup, per_update) for per_update in (10, 40)]
        if frames >= warmup:  # the cosine depends on the frames alone
            assert after[0] == after[1]
    assert lr_factor(550_000, total, warmup, 40) == pytest.approx(0.5)
    assert lr_factor(0, total, warmup, 40_000) == pytest.approx(0.4)  # a 40% warm-up step
    assert lr_factor(total, total, warmup, 40) == pytest.approx(0.0, abs=1e-12)


def test_the_old_warmup_field_names_its_replacement():
    with pytest.raises(ValueError, match="warmup_updates was replaced by warmup_frames"):
        make_config("demo", overrides=["warmup_updates=5"])


# -- the launcher on 2 Gloo CPU processes -----------------------------------------------------


def _train(tmp_path: Path, split, gpus: int, total_frames: int, resume: bool = False):
    command = [sys.executable, "-m", "batchsim", "train", "--preset", "demo", "--quiet"]
    command += ["--gpus", str(gpus), *(["--resume"] if resume else [])]
    command += [f"dataset={split}", f"log_dir={tmp_path / 'run'}", *TINY]
    command += [f"total_frames={total_frames}"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    env.pop("WORLD_SIZE", None)
    return launched.run(command, env, timeout=600)


def _rows(tmp_path: Path) -> list[dict]:
    with open(tmp_path / "run" / "metrics.csv") as f:
        return list(csv.DictReader(f))


def test_the_launcher_runs_two_gloo_ranks_and_resumes_on_one(split, tmp_path):
    two = 2 * FRAMES_PER_RANK_UPDATE
    done = _train(tmp_path, split, gpus=2, total_frames=3 * two)
    assert done.returncode == 0, done.stderr
    assert "2 processes through torch.distributed.run" in done.stderr
    assert "OMP_NUM_THREADS" not in done.stderr  # torchrun's warning: the launcher set it
    rows = _rows(tmp_path)
    assert [int(r["frames"]) for r in rows] == [two, 2 * two, 3 * two]
    config = make_config("demo", overrides=[*TINY, f"total_frames={3 * two}"])
    peak = scaled_lr(config.base_lr, two // config.minibatches)  # the global minibatch
    factor = lr_factor(0, 3 * two, config.warmup_frames, two)
    assert float(rows[0]["lr"]) == pytest.approx(peak * factor)
    assert len(read_checkpoint(tmp_path / "run")["ranks"]) == 2

    resumed = _train(tmp_path, split, 1, 3 * two + 2 * FRAMES_PER_RANK_UPDATE, resume=True)
    assert resumed.returncode == 0, resumed.stderr
    assert "written by 2 process(es), resumed by 1" in resumed.stderr
    rows = _rows(tmp_path)
    assert [int(r["frames"]) for r in rows[3:]] == [3 * two + 32, 3 * two + 64]
    peak_one = scaled_lr(config.base_lr, FRAMES_PER_RANK_UPDATE // config.minibatches)
    factor = lr_factor(3 * two, 3 * two + 64, config.warmup_frames, FRAMES_PER_RANK_UPDATE)
    assert float(rows[3]["lr"]) == pytest.approx(peak_one * factor)
    assert len(read_checkpoint(tmp_path / "run")["ranks"]) == 1
