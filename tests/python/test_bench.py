"""`batchsim bench` and benchmarks/bench_*.py as a user runs them, with tiny settings on the
tests' small procedural dataset (each benchmark run takes a second or two on lavapipe)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from batchsim.bench import BENCHMARKS, data, plot, render

REPO = Path(__file__).resolve().parents[2]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
HEADER = ("machine", "cpu_count", "platform", "python", "versions", "vulkan", "cuda", "date")


def batchsim(*args, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "batchsim", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def check_header(record: dict, args: list[str]) -> None:
    for key in HEADER:
        assert key in record, key
    assert {"batchsim", "numpy", "torch"} <= set(record["versions"])
    assert {"name", "driver_info", "api_version"} <= set(record["vulkan"])
    assert "available" in record["cuda"]
    assert record["command"].endswith(shlex.join(args))
    assert isinstance(record["config"], dict)


def check_spread(figures: dict, key: str) -> None:
    assert figures["min"] <= figures[key] <= figures["max"]


@pytest.fixture(scope="module")
def render_record(procgen_dataset, tmp_path_factory):
    """One `batchsim bench render` run: (its arguments, JSON path, PNG path, stdout)."""
    folder, _ = procgen_dataset
    out = tmp_path_factory.mktemp("bench")
    args = [
        "--views", "2", "4", "--resolution", "16", "--outputs", "depth",
        "--modes", "batched", "naive", "--backends", "raster", "compute",
        "--steps", "1", "--runs", "2", "--warmup", "0", "--scenes", "1",
        "--plot", out / "render.png", "--out", out / "render.json", "--data", folder,
    ]  # fmt: skip
    result = batchsim("bench", "render", *args)
    assert result.returncode == 0, result.stderr
    return [str(a) for a in args], out / "render.json", out / "render.png", result.stdout


def test_bench_help_lists_every_benchmark():
    result = batchsim("bench", "--help")
    assert result.returncode == 0, result.stderr
    for name, line in BENCHMARKS.items():
        assert f"{name}  " in result.stdout and line in result.stdout


def test_an_unknown_benchmark_is_a_usage_error():
    result = batchsim("bench", "nope")
    assert result.returncode == 2
    assert "invalid choice: 'nope'" in result.stderr and "render" in result.stderr


def test_a_benchmarks_help_shows_its_own_options():
    result = batchsim("bench", "render", "--help")
    assert result.returncode == 0, result.stderr
    assert "usage: batchsim bench render" in result.stdout
    assert "--backends" in result.stdout and "--plot" in result.stdout


def test_bench_render_records_both_backends_and_modes(render_record, procgen_dataset):
    args, json_path, png_path, stdout = render_record
    record = json.loads(json_path.read_text())
    assert json.loads(stdout) == record
    assert record["benchmark"] == "render"
    check_header(record, args)
    assert record["config"]["views"] == [2, 4] and record["config"]["backends"] == [
        "raster",
        "compute",
    ]
    # --data used as it is (through JSON: a freshly made manifest holds tuples, not lists)
    assert record["dataset"]["config"] == json.loads(json.dumps(procgen_dataset[1]["config"]))
    results = record["results"]
    assert sorted((r["backend"], r["views"]) for r in results) == [
        ("compute", 2),
        ("compute", 4),
        ("raster", 2),
        ("raster", 4),
    ]
    for r in results:
        for mode in ("batched", "naive"):
            check_spread(r[mode], "frames_per_s")
        assert r["batched_over_naive"] > 0
        # one primary ray per pixel of a 16 x 16 frame
        assert r["batched"]["rays_per_s"] == pytest.approx(r["batched"]["frames_per_s"] * 256)
        if r["gpu_ms"] is not None and r["gpu_ms"]["draw_ms"] > 0:
            draw_s = r["gpu_ms"]["draw_ms"] / 1e3
            assert r["gpu_rays_per_s"] == pytest.approx(r["views"] * 256 / draw_s)
    ratios = record["compute_over_raster"]
    assert [(r["views"], r["outputs"]) for r in ratios] == [(2, "depth"), (4, "depth")]
    assert all(r["ratio"] > 0 for r in ratios)
    assert png_path.read_bytes().startswith(PNG_MAGIC)


def test_bench_sim_records_rates_and_plots_them(procgen_dataset, tmp_path):
    folder, _ = procgen_dataset
    args = [
        "--num-envs", "4", "8", "--threads", "1", "--geodesic", "corridor",
        "--actions", "random", "--steps", "2", "--runs", "2", "--warmup", "0",
        "--scenes-resident", "1", "--data", folder,
        "--out", tmp_path / "sim.json", "--plot", tmp_path / "sim.png",
    ]  # fmt: skip
    result = batchsim("bench", "sim", *args)
    assert result.returncode == 0, result.stderr
    record = json.loads((tmp_path / "sim.json").read_text())
    assert record["benchmark"] == "sim"
    check_header(record, [str(a) for a in args])
    assert [r["num_envs"] for r in record["results"]] == [4, 8]
    for r in record["results"]:
        check_spread(r, "env_steps_per_s")
    assert (tmp_path / "sim.png").read_bytes().startswith(PNG_MAGIC)


def test_bench_procgen_records_disk_and_load(tmp_path):
    args = ["--num-scenes", "3", "--episodes-per-scene", "2", "--workers", "1", "--no-glb"]
    args += ["--data", tmp_path / "data", "--out", tmp_path / "procgen.json"]
    result = batchsim("bench", "procgen", *args)
    assert result.returncode == 0, result.stderr
    record = json.loads((tmp_path / "procgen.json").read_text())
    assert record["config"]["write_glb"] is False and record["config"]["compress"] is True
    disk = record["disk"]
    packed = sorted((tmp_path / "data" / "scene_datasets" / "procgen").glob("*.bsscene"))
    assert disk["bsscene_mb"] == pytest.approx(sum(p.stat().st_size for p in packed) / 3e6)
    assert disk["glb_mb"] == 0 and disk["dataset_mb_per_scene"] > disk["bsscene_mb"]
    assert disk["gb_for_10000_scenes"] == pytest.approx(disk["dataset_mb_per_scene"] * 10)
    check_spread(record["load_seconds"], "median")
    assert record["load_seconds"]["min"] > 0


def test_bench_env_records_the_env_and_both_simulators(procgen_dataset, tmp_path):
    folder, _ = procgen_dataset
    args = [
        "--envs", "2", "--resolution", "16", "--steps", "2", "--runs", "2", "--warmup", "1",
        "--threads", "1", "--scenes-resident", "1", "--data", folder, "--profile",
        "--actions", "drawn", "same", "policy", "--double-buffer", "--halves", "shared",
        "--device", "cpu",  # CPU tensors of actions on a GPU machine too (action_wait_us)
        "--out", tmp_path / "env.json", "--plot", tmp_path / "env.png",
    ]  # fmt: skip
    result = batchsim("bench", "env", *args)
    assert result.returncode == 0, result.stderr
    record = json.loads((tmp_path / "env.json").read_text())
    check_header(record, [str(a) for a in args])
    assert record["double_buffer"] and record["halves"] == "shared"
    assert [r["actions"] for r in record["results"]] == ["drawn", "same", "policy"]
    for r in record["results"]:
        ratio = r["env"]["frames_per_s"] / r["simulator"]["frames_per_s"]
        assert r["env_over_simulator"] == pytest.approx(ratio)
        assert r["double_buffer_over_simulator"] > 0
        halves = r["env_halves"]["frames_per_s"] / r["simulator"]["frames_per_s"]
        assert r["halves_over_simulator"] == pytest.approx(halves)
        for path in ("env", "simulator", "simulator_double_buffer", "env_halves"):
            figures = r[path]
            check_spread(figures, "frames_per_s")
            low, high = figures["spread"]["step_ms"]
            assert 0 < low <= high
            assert figures["action_wait_us"] == 0  # CPU tensors: no device copy to wait for
            # Every step's submissions are part of it: the medians keep the order.
            assert 0 < figures["cxx_submit_ms"] <= figures["cxx_step_ms"]
        renders = r["env_halves"]["gpu_renders"]
        if renders is not None:  # None where the queue has no timestamps
            assert renders["render_ms"] > 0 and renders["idle_ms"] >= 0
            assert 0 <= renders["overlap_ms"] <= renders["render_ms"] * 10
    profile = record["results"][0]["env_profile"]
    assert 0 < len(profile) <= 15
    own = [row["own_us_per_step"] for row in profile]
    assert own == sorted(own, reverse=True) and own[0] > 0
    for row in profile:
        assert row["calls_per_step"] > 0
        assert row["cumulative_us_per_step"] >= row["own_us_per_step"] * (1 - 1e-9)
    assert (tmp_path / "env.png").read_bytes().startswith(PNG_MAGIC)


def test_bench_scaling_sweeps_n_and_k_with_memory(three_scene_split, tmp_path):
    args = [
        "--envs", "2", "6", "--resident", "1", "3", "--k-for-n", "2", "--n-for-k", "6",
        "--sensors", "depth", "rgb", "--resolution", "12", "--steps", "1", "--runs", "2",
        "--warmup", "0", "--threads", "1", "--split", three_scene_split,
        "--out", tmp_path / "scaling.json", "--plot", tmp_path / "scaling.png",
    ]  # fmt: skip
    result = batchsim("bench", "scaling", *args)
    assert result.returncode == 0, result.stderr
    record = json.loads((tmp_path / "scaling.json").read_text())
    check_header(record, [str(a) for a in args])
    pairs = {(r["num_envs"], r["scenes_resident"]) for r in record["results"]}
    assert pairs == {(2, 2), (6, 2), (6, 1), (6, 3)}  # N at K = 2, then K at N = 6
    assert len(record["results"]) == 2 * len(pairs)  # depth and rgb each
    for r in record["results"]:
        check_spread(r, "frames_per_s")
        assert r["scene_memory_mib"] > 0 and r["backend"] in ("raster", "compute")
    assert (tmp_path / "scaling.png").read_bytes().startswith(PNG_MAGIC)


def test_plot_module_plots_a_saved_record(render_record, tmp_path):
    _, json_path, _, _ = render_record
    record = tmp_path / "saved.json"
    record.write_text(json_path.read_text())
    result = subprocess.run(
        [sys.executable, "-m", "batchsim.bench.plot", str(record)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "saved.png").read_bytes().startswith(PNG_MAGIC)


def test_plot_refuses_a_record_without_an_n_sweep(tmp_path, capsys):
    record = tmp_path / "export.json"
    record.write_text(json.dumps({"benchmark": "export_round_trip", "results": []}))
    assert plot.main([str(record)]) == 2
    assert "sweep N" in capsys.readouterr().err
    assert not (tmp_path / "export.png").exists()


def test_plot_without_matplotlib_names_the_train_extra(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
    with pytest.raises(ImportError, match=r"batchsim\[train\]"):
        plot.pyplot()
    with pytest.raises(SystemExit) as exit:  # refused before measuring anything
        render.parse_args(["--plot", "out.png"], "batchsim bench render")
    assert exit.value.code == 2
    assert "batchsim[train]" in capsys.readouterr().err


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_each_benchmark_has_one_door(name, capsys):
    # `batchsim bench NAME` is the only entry: no script in benchmarks/ restates it.
    from batchsim.cli import main

    assert not (REPO / "benchmarks" / f"bench_{name.replace('-', '_')}.py").exists()
    with pytest.raises(SystemExit) as exit:
        main(["bench", name, "--help"])
    assert exit.value.code == 0
    assert f"usage: batchsim bench {name}" in capsys.readouterr().out


def test_default_data_is_in_the_checkout_else_in_the_user_cache(monkeypatch, tmp_path):
    if Path(data.__file__).is_relative_to(REPO):  # not when testing an installed batchsim
        assert data.default_data() == REPO / "build" / "bench-data" / "procgen"
    monkeypatch.setattr(data, "checkout_root", lambda: None)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert data.default_data() == tmp_path / "batchsim" / "bench-data" / "procgen"
    monkeypatch.delenv("XDG_CACHE_HOME")
    expected = Path(os.path.expanduser("~/.cache/batchsim/bench-data/procgen"))
    assert data.default_data() == expected


def test_bench_train_records_frames_per_second_and_its_breakdown(procgen_dataset, tmp_path):
    folder, _ = procgen_dataset
    split = folder / "pointnav" / "train"
    args = [
        "--preset", "demo", "--warmup", "1", "--updates", "2", "--out", tmp_path / "train.json",
        f"dataset={split}", "sim.num_envs=4", "render.width=16", "render.height=16",
        "rollout_steps=4", "hidden_size=32", "device=cpu", "sim.num_threads=1",
    ]  # fmt: skip
    result = batchsim("bench", "train", *args)
    assert result.returncode == 0, result.stderr
    record = json.loads((tmp_path / "train.json").read_text())
    check_header(record, [str(a) for a in args])
    assert record["benchmark"] == "train" and record["timed_updates"] == 2
    assert record["frames_per_update"] == 16 and record["num_envs_per_rank"] == 4
    assert record["frames_per_s_min"] <= record["frames_per_s_median"] > 0
    breakdown = record["median_seconds_per_update"]
    assert set(breakdown) == {"collect_s", "inference_s", "sim_wait_s", "update_s"}
    assert 0 < breakdown["inference_s"] <= breakdown["collect_s"]


def test_profile_train_writes_both_phases_tables(procgen_dataset, tmp_path):
    folder, _ = procgen_dataset
    out = tmp_path / "profile.txt"
    args = [
        "--preset", "demo", "--warmup", "1", "--out", out,
        f"dataset={folder / 'pointnav' / 'train'}", "sim.num_envs=4", "render.width=16",
        "render.height=16", "rollout_steps=4", "hidden_size=32", "device=cpu", "sim.num_threads=1",
    ]  # fmt: skip
    script = REPO / "benchmarks" / "profile_train.py"
    result = subprocess.run(
        [sys.executable, str(script), *map(str, args)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "collect: wall" in result.stdout and "update: wall" in result.stdout
    tables = out.read_text()
    assert tables.count("==== ") == 2 and "aten::" in tables


@pytest.mark.parametrize("closed_loop", [False, True])
def test_halves_pipeline_steps_each_half_as_its_own_env(procgen_dataset, closed_loop):
    # The pipelined order (one half handed over while the other is waited for) must step
    # each half exactly as that half alone, stepped in order, with its halves of the rows.
    import numpy as np
    import torch

    from batchsim.bench.env_halves import HalvesPipeline
    from batchsim.env import BatchNavEnv

    folder, _ = procgen_dataset
    split = folder / "pointnav" / "train"
    options = dict(device="cpu", resolution=(8, 8), num_threads=1, scenes_resident=1, seed=3)
    pipeline = HalvesPipeline(split, 6, closed_loop, **options)
    pipeline.reset(seed=3)
    alone = [BatchNavEnv(split, 3, **{**options, "seed": 3 + h}) for h in (0, 1)]
    for env in alone:
        env.reset(seed=3)
    rows = torch.from_numpy(np.random.default_rng(2).choice(4, (12, 6), p=[0.1, 0.6, 0.15, 0.15]))
    for row in rows:
        pipeline.step(row)
    pipeline.finish()
    for half, env in enumerate(alone):
        for row in rows:
            env.step(row[3 * half : 3 * half + 3])
        piped = pipeline.envs[half].sim
        np.testing.assert_array_equal(piped.camera_position, env.sim.camera_position)
        np.testing.assert_array_equal(piped.episode_index, env.sim.episode_index)
        np.testing.assert_array_equal(piped.reward, env.sim.reward)
    assert pipeline.envs[1].sim.stats()["steps"] == 12
    pipeline.close()


def test_render_timeline_measures_renders_overlaps_and_idle_gaps():
    from batchsim.bench.env_halves import render_timeline

    def renders(*spans):  # pass_times of renders spanning (start, end), draw_ms = its length
        return [{"draw_ms": b - a, "start_ms": a, "end_ms": b} for a, b in spans]

    # Half 0 renders 0-2 and 5-7; half 1 renders 1-4 and 9-10 (ms on one clock).
    first, second = renders((0.0, 2.0), (5.0, 7.0)), renders((1.0, 4.0), (9.0, 10.0))
    timeline = render_timeline(first, second)
    assert timeline["render_ms"] == pytest.approx(2.0)  # of 2, 3, 2, 1
    assert timeline["passes_ms"] == {"draw_ms": pytest.approx(2.0)}
    assert timeline["overlap_ms"] == pytest.approx(0.5)  # 1 ms (1-2) and 0 ms
    assert timeline["idle_ms"] == pytest.approx(1.0)  # gaps 0 (1 < 2), 1 (4-5), 2 (7-9)
    assert render_timeline([], second) is None
