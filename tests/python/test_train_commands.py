"""`batchsim eval` prints a table and writes JSON for several agents on the same episodes;
the learning-curve PNG is drawn from a run's logs; `torchrun` with 2 ranks (Gloo on the
CPU) trains one simulator per rank and counts both ranks' frames."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import launched

torch = pytest.importorskip("torch")

from batchsim.cli import main  # noqa: E402
from batchsim.train.checkpoint import read_checkpoint  # noqa: E402
from batchsim.train.snapshots import list_snapshots, read_counters  # noqa: E402

TINY = [
    "sim.num_envs=4",
    "render.width=16",
    "render.height=16",
    "rollout_steps=8",
    "hidden_size=32",
    "total_frames=64",
    "device=cpu",
    "sim.num_threads=1",
    "sim.task.max_episode_steps=30",
    "eval_envs=4",
]


@pytest.fixture(scope="module")
def splits(procgen_dataset):
    root, _ = procgen_dataset
    return root / "pointnav" / "train" / "train.json.gz", root / "pointnav" / "val"


@pytest.fixture(scope="module")
def run_dir(splits, tmp_path_factory):
    train, val = splits
    log_dir = tmp_path_factory.mktemp("run")
    args = ["train", "--preset", "demo", "--quiet", f"dataset={train}", f"val_dataset={val}"]
    assert main([*args, *TINY, "eval_every=1", f"log_dir={log_dir}"]) == 0
    return log_dir


def test_eval_reports_every_agent_on_the_same_episodes(run_dir, tmp_path, capsys):
    out = tmp_path / "eval.json"
    code = main(
        [
            "eval",
            "--checkpoint",
            str(run_dir),
            "--agents",
            "policy,random,forward",
            "--envs",
            "4",
            "--device",
            "cpu",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[:3] == ["agent", "episodes", "success"]
    assert [line.split()[0] for line in table[1:4]] == ["policy", "random", "forward"]
    results = json.loads(out.read_text())
    episodes = {a: results[a]["spl"]["episodes"] for a in results}
    assert len(set(episodes.values())) == 1 and episodes["policy"] > 0
    assert results["forward"]["success"]["mean"] == 0.0  # it never calls STOP
    for summary in results.values():
        for measure in ("success", "spl", "softspl", "distance_to_goal"):
            assert summary[measure]["ci95"] >= 0


def test_eval_rejects_bad_input(run_dir, capsys):
    assert main(["eval", "--checkpoint", str(run_dir), "--agents", "oracle"]) == 2
    assert "--agents: expected names from" in capsys.readouterr().err
    assert main(["eval", "--agents", "policy", "--split", str(run_dir)]) == 2
    assert "needs --checkpoint" in capsys.readouterr().err
    assert main(["eval", "--checkpoint", str(run_dir / "nothing.pt")]) == 2
    assert "expected a file written by batchsim train" in capsys.readouterr().err


def test_validation_during_training_and_the_learning_curve(run_dir):
    pytest.importorskip("matplotlib")
    from batchsim.train.curve import plot_learning_curve

    rows = (run_dir / "val.csv").read_text().splitlines()
    assert rows[0].startswith("update,frames,wall_s,elapsed_s,success,spl") and len(rows) == 3
    png = plot_learning_curve(run_dir, run_dir / "curve.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


def test_the_curve_module_compares_runs(run_dir, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from batchsim.train.curve import main as curve

    out = tmp_path / "compare.png"
    assert curve([str(run_dir), str(run_dir), "--labels", "a", "b", "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10_000
    with pytest.raises(ValueError, match="labels: expected one per run"):
        curve([str(run_dir), str(run_dir), "--labels", "a", "--out", str(out)])
    with pytest.raises(FileNotFoundError, match=r"no metrics\.csv or val\.csv to compare"):
        curve([str(run_dir), str(tmp_path), "--out", str(out)])


def test_the_curve_module_plots_training_columns_per_update(run_dir, tmp_path):
    pytest.importorskip("matplotlib")
    from batchsim.train.curve import main as curve

    out = tmp_path / "early.png"
    args = [str(run_dir), "--columns", "stop_fraction", "entropy", "--updates", "2"]
    assert curve([*args, "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10_000
    with pytest.raises(ValueError, match=r"no columns \['colour'\]"):
        curve([str(run_dir), "--columns", "colour", "--out", str(out)])


def torchrun_train(
    placement: list[str], rendezvous: list[str], flags: list[str], overrides: list[str]
) -> list[str]:
    """The command line of `batchsim train --preset demo --quiet` under torchrun."""
    torchrun = [sys.executable, "-m", "torch.distributed.run", *placement, *rendezvous]
    return [*torchrun, "-m", "batchsim", "train", "--preset", "demo", "--quiet", *flags, *overrides]


def _two_nodes(node_dirs: list[Path], train, total_frames: int, resume: bool, port: int):
    """Two single-process torchrun "nodes" on this machine, each with its own log_dir as if
    on separate filesystems; returns their completed processes."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    processes = []
    for node, log_dir in enumerate(node_dirs):
        command = torchrun_train(
            ["--nnodes=2", f"--node-rank={node}", "--nproc-per-node=1"],
            ["--master-addr=127.0.0.1", f"--master-port={port}"],
            ["--resume"] if resume else [],
            [f"dataset={train}", *TINY, f"total_frames={total_frames}", f"log_dir={log_dir}"],
        )
        processes.append(
            subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        )
    results = []
    try:
        for process in processes:
            out, err = process.communicate(timeout=300)
            results.append((process.returncode, out.decode(), err.decode()))
    finally:  # a hung rendezvous must not outlive the test, nor leave its ranks behind
        for process in processes:
            launched.stop(process)
    return results


def test_two_nodes_train_and_resume_from_rank_zeros_checkpoint(splits, tmp_path):
    """Multi-node under torchrun's static rendezvous: node 1 has no copy of the checkpoint,
    so resuming must hand it rank 0's (before, node 1 started afresh and the run hung)."""
    train, _ = splits
    node_dirs = [tmp_path / "node0", tmp_path / "node1"]
    for resume, frames in ((False, 64), (True, 128)):
        results = _two_nodes(node_dirs, train, frames, resume, port=29533)
        for code, _, err in results:
            assert code == 0, err[-3000:]
        assert f"trained {frames} frames in {frames // 64} updates" in results[0][1]
    log = (node_dirs[0] / "metrics.csv").read_text().splitlines()
    assert [line.split(",")[1] for line in log] == ["frames", "64", "128"]
    assert read_checkpoint(node_dirs[0])["frames"] == 128
    assert not (node_dirs[1] / "checkpoint.pt").exists()  # rank 0 alone writes


def test_validation_on_real_buildings_adds_real_columns(splits, tmp_path):
    if not Path(os.environ.get("BATCHSIM_ASSIMP_MODELS", "/usr/share/assimp/models")).is_dir():
        pytest.skip("assimp-testmodels not installed")
    train, val = splits
    real = tmp_path / "real"
    args = ["train", "--preset", "demo", "--quiet", f"dataset={train}", f"val_dataset={val}"]
    args += [*TINY, "eval_every=2", f"log_dir={tmp_path / 'run'}", f"real_buildings={real}"]
    assert main([*args, "real_episodes=4"]) == 0
    header, row = (tmp_path / "run" / "val.csv").read_text().splitlines()
    columns = dict(zip(header.split(","), map(float, row.split(",")), strict=True))
    assert {"success", "spl", "real_success", "real_spl", "real_distance_to_goal"} <= set(columns)
    assert 0 <= columns["real_spl"] <= columns["real_success"] <= 1
    assert columns["real_distance_to_goal"] > 0
    assert (real / "pointnav" / "real" / "real.json.gz").is_file()
    if importlib.util.find_spec("matplotlib") is not None:  # the curve draws the real line
        from batchsim.train.curve import plot_learning_curve

        png = plot_learning_curve(tmp_path / "run", tmp_path / "curve.png")
        assert png.stat().st_size > 10_000


SNAPSHOTS = ["snapshot_every_s=1e-6"]  # one at the start and after every update


def test_torchrun_two_ranks_train_together(splits, tmp_path):
    train, _ = splits
    log_dir = tmp_path / "ddp"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    command = torchrun_train(
        ["--nproc-per-node=2", "--master-port=29517"],
        [],
        [],
        [f"dataset={train}", *TINY, "total_frames=128", f"log_dir={log_dir}", *SNAPSHOTS],
    )
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "trained 128 frames in 2 updates" in result.stdout
    state = read_checkpoint(log_dir)
    assert len(state["ranks"]) == 2 and state["frames"] == 128
    frames = [line.split(",")[1] for line in (log_dir / "metrics.csv").read_text().splitlines()]
    assert frames == ["frames", "64", "128"]
    assert not Path(log_dir / "metrics.csv.tmp").exists()
    # rank 0 alone writes the snapshots, counting both ranks' frames
    counters = [read_counters(p)[0] for p in list_snapshots(log_dir)]
    assert [(c["updates"], c["frames"], c["world"]) for c in counters] == [
        (0, 0, 2),
        (1, 64, 2),
        (2, 128, 2),
    ]
    assert 0 < counters[0]["elapsed_s"] < counters[1]["elapsed_s"] < counters[2]["elapsed_s"]
