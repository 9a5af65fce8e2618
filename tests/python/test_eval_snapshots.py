"""`batchsim eval --snapshots`: every policy snapshot of a run on the same episodes, the
baselines once, and where SPL and success first reach a threshold (interpolated between
snapshots); the held-out curves drawn by `python -m batchsim.train.curve --heldout`."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from batchsim.cli import main  # noqa: E402
from batchsim.datasets import load_pointnav  # noqa: E402
from batchsim.train import snapshots  # noqa: E402
from batchsim.train.curve import first_reaching  # noqa: E402
from batchsim.train.models import build_policy  # noqa: E402
from batchsim.train.presets import make_config  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def test_split(procgen_dataset):
    root, _ = procgen_dataset
    return root / "pointnav" / "test"


@pytest.fixture(scope="module")
def run_dir(procgen_dataset, tmp_path_factory):
    """Three snapshots: A and B hold the same weights at other counters; C always calls
    STOP, so each episode ends where it began."""
    root, _ = procgen_dataset
    log_dir = tmp_path_factory.mktemp("run")
    overrides = [
        "render.width=16",
        "render.height=16",
        "hidden_size=16",
        "sim.task.max_episode_steps=30",
        "device=cpu",
    ]
    overrides += [
        f"log_dir={log_dir}",
        "sim.num_threads=1",
        f"val_dataset={root / 'pointnav' / 'val'}",
    ]
    config = make_config("demo", overrides=overrides)
    torch.manual_seed(3)
    policy = build_policy(config)  # as the snapshots are loaded (checkpoint.policy_of)
    for updates, elapsed_s in ((0, 40.0), (5, 100.0)):
        counters = {"updates": updates, "frames": updates * 1024, "wall_s": elapsed_s - 30}
        counters |= {"elapsed_s": elapsed_s, "world": 2}
        snapshots.write_snapshot(
            snapshots.snapshot_path(log_dir, updates), policy, config, counters
        )
    with torch.no_grad():
        policy.actor.weight.zero_()
        policy.actor.bias.copy_(torch.tensor([50.0, 0.0, 0.0, 0.0]))  # action 0: STOP
    counters = {"updates": 9, "frames": 9216, "wall_s": 110.0, "elapsed_s": 160.0, "world": 2}
    snapshots.write_snapshot(snapshots.snapshot_path(log_dir, 9), policy, config, counters)
    return log_dir


def test_every_snapshot_and_the_baselines_run_the_same_episodes(
    run_dir, test_split, tmp_path, capsys
):
    out = tmp_path / "curve.json"
    args = ["eval", "--snapshots", str(run_dir), "--split", str(test_split), "--envs", "4"]
    assert main([*args, "--device", "cpu", "--reach", "0.5", "--json", str(out)]) == 0
    captured = capsys.readouterr()
    curve = json.loads(out.read_text())
    episodes = load_pointnav(test_split).episodes
    assert curve["split"] == str(test_split) and curve["threshold"] == 0.5 and curve["seed"] == 0
    points = curve["snapshots"]
    assert [p["snapshot"] for p in points] == [f"snapshot-{u:08d}.pt" for u in (0, 5, 9)]
    assert [(p["updates"], p["frames"], p["elapsed_s"], p["world"]) for p in points] == [
        (0, 0, 40.0, 2),
        (5, 5120, 100.0, 2),
        (9, 9216, 160.0, 2),
    ]
    measures = ("success", "spl", "softspl", "distance_to_goal")
    for point in points:
        assert all(point[m]["episodes"] == len(episodes) for m in measures)
    assert all(points[0][m] == points[1][m] for m in measures)  # same weights, same seed
    # STOP at once: the agent ends where it started, at the episode's geodesic distance
    stopped = points[2]["distance_to_goal"]["mean"]
    assert stopped == pytest.approx(np.mean([e.geodesic_distance for e in episodes]), rel=1e-3)
    assert points[2]["success"]["mean"] == 0.0 and stopped != points[0]["distance_to_goal"]["mean"]
    assert set(curve["baselines"]) == {"random", "forward"}
    assert curve["baselines"]["forward"]["success"]["mean"] == 0.0  # never calls STOP
    assert curve["baselines"]["random"]["spl"]["episodes"] == len(episodes)
    for measure in ("spl", "success"):
        assert curve["reach"][measure] == first_reaching(points, measure, 0.5)
    lines = captured.out.splitlines()
    assert [line.split()[0] for line in lines[:3]] == [p["snapshot"] for p in points]
    assert "5,120 frames" in lines[1] and "1.67 min" in lines[1]  # 100 s elapsed
    assert "snapshot 3/3 (9,216 frames) test" in captured.err and "random test" in captured.err


def test_snapshots_default_to_the_runs_val_split_and_bad_input_is_refused(
    run_dir, tmp_path, capsys
):
    args = ["eval", "--snapshots", str(run_dir), "--envs", "4", "--device", "cpu"]
    assert (
        main([*args, "--agents", "policy", "--no-progress", "--json", str(tmp_path / "c.json")])
        == 0
    )
    curve = json.loads((tmp_path / "c.json").read_text())
    assert curve["split"].endswith("val") and curve["baselines"] == {}
    assert not capsys.readouterr().err
    refusals = {
        "expected snapshot-*.pt files": ["--snapshots", str(tmp_path)],
        "expected no --checkpoint": ["--snapshots", str(run_dir), "--checkpoint", str(run_dir)],
        "--reach: expected a value in [0, 1], got 1.5": [
            "--snapshots",
            str(run_dir),
            "--reach",
            "1.5",
        ],
    }
    for message, bad in refusals.items():
        assert main(["eval", *bad]) == 2
        assert message in capsys.readouterr().err


def point(name, frames, elapsed_s, spl, success=None):
    success = spl if success is None else success
    return {
        "snapshot": name,
        "frames": frames,
        "elapsed_s": elapsed_s,
        "spl": {"mean": spl, "ci95": 0.02},
        "success": {"mean": success, "ci95": 0.03},
    }


CURVE = [point("a", 0, 10, 0.1), point("b", 100, 70, 0.5), point("c", 200, 130, 0.9)]
CURVE.append(point("d", 300, 190, 0.6))


def test_first_reaching_interpolates_between_consecutive_snapshots():
    reached = first_reaching(CURVE, "spl", 0.75)
    # between b (0.5) and c (0.9): (0.75 - 0.5) / (0.9 - 0.5) = 0.625 of the way
    assert reached == {
        "frames": pytest.approx(162.5),
        "elapsed_s": pytest.approx(107.5),
        "minutes": pytest.approx(107.5 / 60),
        "first_at_or_above": "c",
    }
    exactly = first_reaching(CURVE, "spl", 0.5)  # reached exactly at b: b's own counters
    assert (exactly["frames"], exactly["elapsed_s"], exactly["first_at_or_above"]) == (100, 70, "b")
    assert first_reaching(CURVE, "spl", 0.95) is None  # never
    at_first = first_reaching(CURVE, "spl", 0.1)  # the first snapshot already
    assert (at_first["frames"], at_first["elapsed_s"], at_first["first_at_or_above"]) == (
        0,
        10,
        "a",
    )
    shuffled = first_reaching(CURVE[::-1], "spl", 0.75)  # by frames, whatever the order
    assert shuffled["frames"] == pytest.approx(162.5)
    dip = [point("a", 0, 0, 0.8), point("b", 50, 5, 0.2), point("c", 90, 9, 0.9)]
    assert first_reaching(dip, "spl", 0.75)["frames"] == 0  # a later dip does not undo it


def heldout_json(tmp_path, name: str, speed: float) -> str:
    points = [
        point(f"s{i}", i * 1000, 30 + i * 60 / speed, min(0.9, 0.2 * i * speed)) for i in range(6)
    ]
    curve = {
        "run": name,
        "split": "data/procgen/pointnav/test",
        "threshold": 0.75,
        "snapshots": points,
        "baselines": {"random": {m: {"mean": 0.01, "ci95": 0.01} for m in ("spl", "success")}},
        "reach": {m: first_reaching(points, m, 0.75) for m in ("spl", "success")},
    }
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(curve))
    return str(path)


def test_the_curve_module_draws_held_out_curves(tmp_path):
    pytest.importorskip("matplotlib")
    from batchsim.train.curve import main as curve

    curves = [heldout_json(tmp_path, name, speed) for name, speed in (("one", 1), ("two", 2))]
    out = tmp_path / "heldout.png"
    assert curve(["--heldout", *curves, "--labels", "1 GPU", "2 GPUs", "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == PNG and out.stat().st_size > 20_000
    with pytest.raises(ValueError, match="labels: expected one per curve"):
        curve(["--heldout", *curves, "--labels", "1 GPU", "--out", str(out)])
    (tmp_path / "empty.json").write_text('{"snapshots": []}')
    with pytest.raises(ValueError, match="expected `batchsim eval --snapshots` JSON"):
        curve(["--heldout", str(tmp_path / "empty.json"), "--out", str(out)])
    with pytest.raises(SystemExit):  # run folders or curves, not both
        curve([str(tmp_path), "--heldout", *curves, "--out", str(out)])
