"""`batchsim eval` shows a progress bar per agent and split on stderr (episodes done of the
split's total, success so far) and evaluates several splits in one call, a table per split
and one JSON holding all."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")

from batchsim.cli import main
from batchsim.datasets import load_pointnav


@pytest.fixture(scope="module")
def splits(procgen_dataset):
    root, _ = procgen_dataset
    return root / "pointnav" / "val", root / "pointnav" / "test" / "test.json.gz"


@pytest.fixture(scope="module")
def run_dir(procgen_dataset, tmp_path_factory):
    """A tiny run: its config (16 px views, 30-step episodes) keeps the baselines quick."""
    root, _ = procgen_dataset
    log_dir = tmp_path_factory.mktemp("run")
    tiny = [
        "sim.num_envs=4",
        "render.width=16",
        "render.height=16",
        "rollout_steps=8",
        "hidden_size=16",
    ]
    tiny += ["total_frames=32", "device=cpu", "sim.num_threads=1", "sim.task.max_episode_steps=30"]
    dataset = root / "pointnav" / "train"
    args = ["train", "--preset", "demo", "--quiet", f"dataset={dataset}", f"log_dir={log_dir}"]
    assert main([*args, *tiny]) == 0
    return log_dir


def count(split) -> int:
    return len(load_pointnav(split).episodes)


def test_one_split_shows_a_progress_bar_and_keeps_its_format(splits, run_dir, tmp_path, capsys):
    val, _ = splits
    out = tmp_path / "eval.json"
    args = ["eval", "--checkpoint", str(run_dir), "--split", str(val), "--agents"]
    args += ["random,forward", "--envs", "4"]
    assert main([*args, "--device", "cpu", "--json", str(out)]) == 0
    captured = capsys.readouterr()
    table = captured.out.splitlines()
    assert table[0].split()[:3] == ["agent", "episodes", "success"]
    assert [line.split()[0] for line in table[1:3]] == ["random", "forward"]
    n = count(val)
    assert [int(line.split()[1]) for line in table[1:3]] == [n, n]
    for agent in ("random", "forward"):  # tqdm: "<agent> val: 100%|...| n/n ... success=..."
        assert f"{agent} val" in captured.err and f"{n}/{n}" in captured.err
    assert "success=" in captured.err
    results = json.loads(out.read_text())
    assert set(results) == {"random", "forward"}  # {agent: summary}, as before
    assert results["forward"]["success"]["episodes"] == n


def test_several_splits_give_a_table_each_and_json_holding_all(splits, run_dir, tmp_path, capsys):
    val, test = splits
    out = tmp_path / "eval.json"
    common = ["eval", "--checkpoint", str(run_dir), "--agents", "forward", "--envs", "4"]
    repeated = ["--split", str(val), "--split", str(test), "--json", str(out)]
    assert main([*common, *repeated, "--device", "cpu"]) == 0
    first = capsys.readouterr()
    tables = first.out.split("\n\n")
    assert tables[0].startswith(f"split {val}\nagent") and f"split {test}\nagent" in tables[1]
    assert "forward val" in first.err and "forward test" in first.err
    assert main([*common, "--split", str(val), str(test), "--no-progress"]) == 0
    second = capsys.readouterr()
    assert second.out == first.out.replace(f"wrote {out}\n", "") and not second.err
    results = json.loads(out.read_text())
    assert list(results) == [str(val), str(test)]
    for split in (val, test):
        summary = results[str(split)]["forward"]
        assert summary["success"]["episodes"] == count(split)
        assert summary["success"]["mean"] == 0.0 and summary["spl"]["ci95"] >= 0


def test_a_missing_second_split_is_an_error_before_any_run(splits, capsys):
    val, _ = splits
    assert main(["eval", "--split", str(val), "nowhere", "--agents", "forward"]) == 2
    assert "no such split: nowhere" in capsys.readouterr().err


def test_episodes_per_scene_runs_the_first_k_of_each_scene(three_scene_split, run_dir, tmp_path):
    """The protocol's val1k and test1k: the first K episodes of each scene, in file order."""
    split = load_pointnav(three_scene_split)
    first = split.first_per_scene(2)
    expected = []  # an independent reference: the first two of each scene_id, in order
    for scene in dict.fromkeys(e.scene_id for e in split.episodes):
        expected += [e for e in split.episodes if e.scene_id == scene][:2]
    assert first.episodes == expected and len(expected) == 2 * len(split.scene_ids)
    assert split.first_per_scene(10_000).episodes == split.episodes
    with pytest.raises(ValueError, match="episodes per scene: expected >= 1, got 0"):
        split.first_per_scene(0)
    out = tmp_path / "eval.json"
    args = ["eval", "--checkpoint", str(run_dir), "--split", str(three_scene_split)]
    args += ["--agents", "forward", "--envs", "2", "--device", "cpu", "--no-progress"]
    assert main([*args, "--episodes-per-scene", "2", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["forward"]["success"]["episodes"] == len(expected)
    with pytest.raises(SystemExit) as exited:  # refused by argparse, status 2
        main([*args, "--episodes-per-scene", "-1"])
    assert exited.value.code == 2
