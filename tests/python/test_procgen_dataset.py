"""`batchsim procgen` end to end: scenes, Habitat-layout episodes, splits, cache, preview,
and worker processes that write the same bytes as one."""

import json
from pathlib import Path

import numpy as np
import pytest

import batchsim
from batchsim.cli import main
from batchsim.datasets import check_episode, load_pointnav
from batchsim.errors import InvalidArgumentError
from batchsim.procgen.build import DatasetConfig, build_dataset, ensure_dataset, split_scenes
from conftest import TEST_DATASET


def test_layout_and_disjoint_splits(procgen_dataset):
    out, manifest = procgen_dataset
    splits = manifest["splits"]
    assert [len(splits[s]) for s in ("train", "val", "test")] == [1, 1, 1]
    names = [n for s in splits.values() for n in s]
    assert len(names) == len(set(names)) == 3
    for split, scenes in splits.items():
        dataset = load_pointnav(
            out / "pointnav" / split / f"{split}.json.gz", scenes_dir=out / "scene_datasets"
        )
        assert {e.scene_name for e in dataset.episodes} == set(scenes)
        assert len(dataset) == 20 * len(scenes)
        dataset.check_scenes()  # every scene_id resolves, Habitat-style, to a GLB on disk
        for path in dataset.scene_paths().values():
            assert path.with_suffix(".bsscene").is_file()


def test_every_episode_satisfies_habitat_rules_through_the_navmesh(procgen_dataset):
    out, manifest = procgen_dataset
    dataset = load_pointnav(out / "pointnav/train", scenes_dir=out / "scene_datasets")
    for scene_id in dataset.scene_ids:
        navmesh = batchsim.Scene.load(
            dataset.scene_path(scene_id).with_suffix(".bsscene")
        ).navmesh()
        for episode in dataset.episodes_for(scene_id):
            assert check_episode(navmesh, episode) == []
            assert 1.0 <= episode.geodesic_distance <= 30.0
    for stats in manifest["scenes"].values():
        assert stats["mean_geodesic_euclid_ratio"] >= 1.0


def test_same_seed_same_bytes(tmp_path, procgen_dataset):
    out, _ = procgen_dataset
    config = DatasetConfig(**{**TEST_DATASET, "num_scenes": 3})
    build_dataset(tmp_path, config)
    files = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert files == sorted(
        p.relative_to(out) for p in out.rglob("*") if p.is_file() and p.name != "preview.png"
    )
    for relative in files:  # the manifest included: it holds no timings
        assert (tmp_path / relative).read_bytes() == (out / relative).read_bytes(), relative


def written_files(folder: Path) -> dict[Path, bytes]:
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_procgen_twice_writes_identical_files(tmp_path, capsys):
    args = ["procgen", "--num-scenes", "3", "--seed", "4", "--episodes-per-scene", "2"]
    for name in ("first", "second"):
        argv = [*args, "--triangle-budget", "20000", "--preview", "--out", str(tmp_path / name)]
        assert main(argv) == 0
        assert "generated in" in capsys.readouterr().out  # timings are printed, not written
    first, second = written_files(tmp_path / "first"), written_files(tmp_path / "second")
    assert Path("manifest.json") in first and Path("preview.png") in first
    assert first.keys() == second.keys()
    for relative, data in first.items():
        assert data == second[relative], relative
    assert main([*args, "--triangle-budget", "20000", "--out", str(tmp_path / "first")]) == 0
    assert "generated before" in capsys.readouterr().out  # reused, not regenerated
    assert written_files(tmp_path / "first") == first


def file_identity(path: Path) -> tuple[int, int]:
    """Inode and modification time: an atomic rewrite changes both."""
    stat = path.stat()
    return stat.st_ino, stat.st_mtime_ns


def test_cache_is_reused_until_the_config_changes(tmp_path):
    small = DatasetConfig(num_scenes=3, seed=1, episodes_per_scene=2, triangle_budget=20_000)
    first = ensure_dataset(tmp_path, small)
    written = file_identity(tmp_path / "manifest.json")
    assert ensure_dataset(tmp_path, small)["splits"] == first["splits"]
    assert file_identity(tmp_path / "manifest.json") == written  # not regenerated
    other = ensure_dataset(tmp_path, DatasetConfig(**{**small.__dict__, "seed": 2}))
    assert other["config"]["seed"] == 2
    assert json.loads((tmp_path / "manifest.json").read_text())["config"]["seed"] == 2


def test_episode_distance_limits(tmp_path):
    config = DatasetConfig(
        num_scenes=3, seed=1, episodes_per_scene=10, triangle_budget=20_000, max_geodesic=4.0
    )
    build_dataset(tmp_path, config)
    distances = [
        e.geodesic_distance
        for split in ("train", "val", "test")
        for e in load_pointnav(tmp_path / "pointnav" / split)
    ]
    assert len(distances) == 30 and min(distances) >= 1.0 and max(distances) <= 4.0
    with pytest.raises(InvalidArgumentError, match="min_geodesic < max_geodesic"):
        DatasetConfig(min_geodesic=5.0, max_geodesic=4.0).validate()


def test_split_assignment():
    names = [f"s{i}" for i in range(10)]
    splits = split_scenes(names, (0.8, 0.1, 0.1))
    assert [len(splits[k]) for k in ("train", "val", "test")] == [8, 1, 1]
    assert [n for k in ("train", "val", "test") for n in splits[k]] == names


def test_cli_procgen_with_preview(tmp_path, capsys):
    out = tmp_path / "ds"
    args = ["procgen", "--num-scenes", "3", "--seed", "9", "--episodes-per-scene", "3"]
    assert main([*args, "--triangle-budget", "20000", "--out", str(out), "--preview"]) == 0
    assert "9 episodes" in capsys.readouterr().out
    png = (out / "preview.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = np.frombuffer(png[16:24], ">u4")
    assert width > 100 and height > 100
    assert main([*args, "--num-scenes", "2", "--out", str(out)]) == 2
    assert "num_scenes must be >= 3" in capsys.readouterr().err


def test_worker_processes_write_the_same_bytes(tmp_path):
    config = DatasetConfig(num_scenes=3, seed=3, episodes_per_scene=4, triangle_budget=15_000)
    build_dataset(tmp_path / "one", config, workers=1)
    build_dataset(tmp_path / "two", config, workers=2)
    one = {p.relative_to(tmp_path / "one"): p for p in (tmp_path / "one").rglob("*") if p.is_file()}
    two = {p.relative_to(tmp_path / "two"): p for p in (tmp_path / "two").rglob("*") if p.is_file()}
    assert one.keys() == two.keys() and len(one) == 3 * 2 + 1 + 3 + 3
    for relative, path in one.items():
        assert path.read_bytes() == two[relative].read_bytes(), relative
