"""Compressed packed scenes (format 5) against uncompressed ones (format 4) of the same model:
the same arrays, the same renders, the same simulation; older files still load; the import
and procgen options that choose them."""

from __future__ import annotations

import shutil
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

import batchsim
from batchsim.cli import main
from batchsim.procgen import build_scene_files, generate_scene, write_scene
from batchsim.procgen.build import DatasetConfig, current_manifest
from test_render import navmesh_cameras


@pytest.fixture(scope="module")
def twin_folder(tmp_path_factory) -> Path:
    """office.glb, a procedural office, imported into packed.bsscene (compressed, the
    default) and plain.bsscene (compress=False)."""
    folder = tmp_path_factory.mktemp("twins")
    glb = write_scene(generate_scene(3, "office", 20_000), folder, "office")
    batchsim.import_scene(glb, folder / "packed.bsscene")
    batchsim.import_scene(glb, folder / "plain.bsscene", compress=False)
    return folder


@pytest.fixture(scope="module")
def twin_scenes(twin_folder) -> tuple[batchsim.Scene, batchsim.Scene]:
    """(compressed, uncompressed) scenes of twin_folder."""
    return tuple(batchsim.Scene.load(twin_folder / f"{n}.bsscene") for n in ("packed", "plain"))


def test_compressed_scene_holds_the_same_arrays(twin_scenes):
    packed, plain = twin_scenes
    assert (packed.format_version, plain.format_version) == (5, 4)
    assert packed.file_bytes * 3 < plain.file_bytes
    assert plain.loaded_bytes == plain.file_bytes
    assert packed.file_bytes < packed.loaded_bytes < plain.file_bytes  # no header, no table
    for name in ("positions", "normals", "uvs", "colors", "indices", "bvh4_nodes"):
        ours, theirs = getattr(packed, name)(), getattr(plain, name)()
        assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs), name
    assert packed.materials() == plain.materials()
    for key, value in plain.chunks().items():
        assert np.array_equal(packed.chunks()[key], value), key
    assert packed.texture_count == plain.texture_count > 0
    for index in range(plain.texture_count):
        for level in (0, 2):
            ours, theirs = packed.texture(index, level), plain.texture(index, level)
            assert np.array_equal(ours.pop("pixels"), theirs.pop("pixels"))
            assert ours == theirs
    for name in ("source", "triangle_count", "bvh_node_count", "bvh_depth", "floor_heights"):
        assert getattr(packed, name) == getattr(plain, name), name
    assert np.array_equal(packed.bounds, plain.bounds)
    ours, theirs = packed.navmesh(), plain.navmesh()
    assert (ours.num_islands, ours.navigable_area) == (theirs.num_islands, theirs.navigable_area)


def test_compressed_scene_renders_identically(twin_scenes, cpu_context, backend):
    packed, plain = twin_scenes
    positions, rotations = navmesh_cameras(plain, 6, seed=4)
    config = batchsim.RendererConfig(views=6, width=32, height=24, places=2, backend=backend)
    renderer = batchsim.BatchRenderer(cpu_context, config)
    renderer.set_scene(0, packed)
    renderer.set_scene(1, plain)
    outputs = []
    for place in (0, 1):
        renderer.render(positions, rotations, np.full(6, place, np.uint32))
        outputs.append((np.from_dlpack(renderer.depth).copy(), np.from_dlpack(renderer.rgb).copy()))
    (depth, rgb), (plain_depth, plain_rgb) = outputs
    assert (depth > 0).mean() > 0.5  # the views see the building
    assert np.array_equal(depth, plain_depth) and np.array_equal(rgb, plain_rgb)


def test_compressed_dataset_simulates_identically(procgen_dataset, cpu_context, tmp_path):
    """The cached dataset (compressed by default) against a copy whose scenes are imported
    again uncompressed: the same observations, rewards and metrics, step for step."""
    root, manifest = procgen_dataset
    assert manifest["packed_scene_version"] == 5
    copy = tmp_path / "plain"
    shutil.copytree(root, copy)
    for glb in (copy / "scene_datasets" / "procgen").glob("*.glb"):
        batchsim.import_scene(glb, glb.with_suffix(".bsscene"), compress=False)
        assert batchsim.Scene.load(glb.with_suffix(".bsscene")).format_version == 4
    runs = []
    for folder in (root, copy):
        env = batchsim.BatchNavEnv(
            folder / "pointnav" / "train",
            3,
            context=cpu_context,
            sensors=("depth", "rgb"),
            resolution=(12, 16),
        )
        obs, _ = env.reset(seed=7)
        trace = [{k: v.cpu().numpy().copy() for k, v in obs.items()}]
        actions = np.random.default_rng(0).integers(0, 4, (25, 3))
        for step in actions:
            obs, reward, terminated, truncated, info = env.step(step)
            trace.append({k: v.cpu().numpy().copy() for k, v in obs.items()})
            outcome = {"reward": reward, "terminated": terminated, "truncated": truncated}
            outcome["spl"] = info["spl"]  # the env reuses these tensors: copied below
            trace.append({k: v.cpu().numpy().copy() for k, v in outcome.items()})
        env.close()
        runs.append(trace)
    for ours, theirs in zip(*runs, strict=True):
        assert ours.keys() == theirs.keys()
        for key in ours:
            assert np.array_equal(ours[key], theirs[key]), key


def test_files_of_older_versions_still_load(twin_folder, twin_scenes, tmp_path):
    """Format 4 (compress=False) loads; so does format 3, which is format 4 with RGBA8
    textures only: the same file with its version number and header checksum changed."""
    _, plain = twin_scenes
    data = bytearray((twin_folder / "plain.bsscene").read_bytes())
    assert struct.unpack_from("<I", data, 8) == (4,)
    struct.pack_into("<I", data, 8, 3)
    struct.pack_into("<I", data, 28, 0)
    struct.pack_into("<I", data, 28, zlib.crc32(data[:64]))
    (tmp_path / "v3.bsscene").write_bytes(bytes(data))
    old = batchsim.Scene.load(tmp_path / "v3.bsscene")
    assert old.format_version == 3 and old.loaded_bytes == old.file_bytes == len(data)
    assert np.array_equal(old.positions(), plain.positions())
    assert np.array_equal(old.texture(0)["pixels"], plain.texture(0)["pixels"])


def test_damaged_compressed_file_names_file_and_section(twin_folder, tmp_path):
    data = bytearray((twin_folder / "packed.bsscene").read_bytes())
    data[len(data) // 2] ^= 0x20
    bad = tmp_path / "bad.bsscene"
    bad.write_bytes(bytes(data))
    with pytest.raises(batchsim.FormatError, match=r"bad\.bsscene.*section '.*' checksum mismatch"):
        batchsim.Scene.load(bad)


def test_build_scene_files_options(tmp_path):
    stats = build_scene_files(
        2, tmp_path, "lean", "office", 20_000, write_glb=False, texture_format="bc1"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lean.bsscene"]
    scene = batchsim.Scene.load(tmp_path / "lean.bsscene")
    assert scene.format_version == 5 and scene.texture(0)["format"] == "bc1"
    assert stats["navigable_area"] > 0
    build_scene_files(2, tmp_path, "full", "office", 20_000, compress=False)
    assert (tmp_path / "full.glb").is_file()
    full = batchsim.Scene.load(tmp_path / "full.bsscene")
    assert full.format_version == 4 and full.texture(0)["format"] == "rgba8"
    assert np.array_equal(full.positions(), scene.positions())  # texture format aside, the same


def test_cli_procgen_lean_dataset_trains_from_packed_scenes_only(tmp_path, capsys):
    out = tmp_path / "lean"
    args = ["procgen", "--num-scenes", "3", "--seed", "2", "--episodes-per-scene", "3"]
    assert main([*args, "--triangle-budget", "20000", "--no-glb", "--out", str(out)]) == 0
    scenes = out / "scene_datasets" / "procgen"
    assert not list(scenes.glob("*.glb")) and len(list(scenes.glob("*.bsscene"))) == 3
    config = DatasetConfig(
        num_scenes=3, seed=2, episodes_per_scene=3, triangle_budget=20_000, write_glb=False
    )
    manifest = current_manifest(out, config)
    assert manifest is not None and manifest["config"]["write_glb"] is False
    assert manifest["generator_version"] == 9 and manifest["packed_scene_version"] == 5
    env = batchsim.BatchNavEnv(out / "pointnav" / "train", 2, device="cpu", resolution=(8, 8))
    env.reset(seed=0)
    env.close()
    # --no-compress is another dataset: regenerated, in format 4.
    assert main([*args, "--triangle-budget", "20000", "--no-compress", "--out", str(out)]) == 0
    assert "generated in" in capsys.readouterr().out
    assert all(batchsim.Scene.load(p).format_version == 4 for p in scenes.glob("*.bsscene"))
    assert len(list(scenes.glob("*.glb"))) == 3


def test_cli_import_no_compress(twin_folder, tmp_path, capsys):
    glb = twin_folder / "office.glb"
    assert main(["import", str(glb), str(tmp_path / "a.bsscene"), "--no-compress"]) == 0
    assert "MB loaded" in capsys.readouterr().out
    assert batchsim.Scene.load(tmp_path / "a.bsscene").format_version == 4
    assert main(["import", str(glb), str(tmp_path / "b.bsscene")]) == 0
    assert batchsim.Scene.load(tmp_path / "b.bsscene").format_version == 5
