"""benchmarks/bench_learner.py: every variant of the update runs and is reported (a tiny
rollout on the CPU; the figures that matter come from a GPU)."""

import importlib.util
import json
from pathlib import Path

import pytest

pytest.importorskip("torch")

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_learner.py"


def test_every_variant_is_timed(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("bench_learner", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "learner.json"
    argv = ["--device", "cpu", "--envs", "2", "--steps", "4", "--resolution", "16"]
    assert module.main([*argv, "--updates", "1", "--out", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["frames_per_update"] == 8
    assert set(record["results"]) == set(module.VARIANTS)
    for result in record["results"].values():
        assert "error" not in result and result["median_s"] > 0
