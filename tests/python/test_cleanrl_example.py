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
    )
    assert "update 2/2 frames 128" in out
    results = json.loads((tmp_path / "eval.json").read_text())
    for agent in ("policy", "random", "forward"):
        assert results[agent]["episodes"] == 20  # every val episode, once
        (success, _), (spl, _) = results[agent]["success"], results[agent]["spl"]
        assert 0.0 <= spl <= success <= 1.0
    assert (tmp_path / "curve.png").stat().st_size > 0
