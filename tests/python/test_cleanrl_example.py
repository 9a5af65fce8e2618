"""examples/cleanrl_ppo.py end to end on the test dataset, tiny: two PPO updates, then the
policy, random and forward-only agents on every val episode, a curve and the JSON."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("matplotlib")


def test_cleanrl_example_runs(procgen_dataset, tmp_path, run_example):
    root, _ = procgen_dataset
    out = run_example(
        "cleanrl_ppo.py",
        *("--data", root, "--num-envs", 4, "--num-steps", 16, "--total-timesteps", 128),
        *("--max-episode-steps", 20, "--eval-envs", 8),
        *("--curve", tmp_path / "curve.png", "--json", tmp_path / "eval.json"),
        cwd=tmp_path,  # its runs/ folder goes there
    )
    assert "update 2/2 frames 128" in out
    results = json.loads((tmp_path / "eval.json").read_text())
    for agent in ("policy", "random", "forward"):
        assert results[agent]["episodes"] == 20  # every val episode, once
        success, spl = results[agent]["success"], results[agent]["spl"]
        assert 0.0 <= spl["mean"] <= success["mean"] <= 1.0
        assert success["method"] == "wilson"
        assert success["low"] <= success["mean"] <= success["high"]
    assert (tmp_path / "curve.png").stat().st_size > 0
    # CleanRL's TensorBoard run: runs/{exp_name}__{seed}__{time}, its scalars by CleanRL's names.
    (run,) = (tmp_path / "runs").iterdir()
    assert run.name.startswith("cleanrl_ppo__1__")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run))
    events.Reload()
    assert {"losses/policy_loss", "charts/SPS", "charts/success"} <= set(events.Tags()["scalars"])
    assert [e.step for e in events.Scalars("charts/SPS")] == [64, 128]


def test_cleanrl_help_explains_every_flag(run_example):
    out = run_example("cleanrl_ppo.py", "--help")
    for flag in ("--cuda", "--capture-video", "--exp-name", "--torch-deterministic", "--backend"):
        assert flag in out
    assert out.count("(default: ") >= 20  # each flag says what it is and its default
    assert "--backend BACKEND" in out and "(default: compute)" in out


def test_cleanrl_capture_video(procgen_dataset, tmp_path, run_example):
    pytest.importorskip("moviepy")
    root, _ = procgen_dataset
    run_example(
        "cleanrl_ppo.py",
        *("--data", root, "--num-envs", 2, "--num-steps", 16, "--total-timesteps", 32),
        *("--max-episode-steps", 10, "--eval-envs", 8, "--capture-video"),
        cwd=tmp_path,
    )
    (folder,) = (tmp_path / "videos").iterdir()
    assert list(folder.glob("*.mp4"))  # episodes of 10 steps: at least one video written
