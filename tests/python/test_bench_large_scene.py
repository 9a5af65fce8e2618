"""`batchsim bench large-scene` on a tiny building (20k triangles, 4 textures), and the
building generator it measures."""

from __future__ import annotations

import argparse
import json
import math

import pytest

from batchsim.bench import building, building_textures, large_scene

TRIANGLES, TEXTURES, RESIDENT = 20_000, 4, (1, 2)


@pytest.fixture(scope="module")
def record(tmp_path_factory):
    out = tmp_path_factory.mktemp("large-scene") / "large_scene.json"
    args = [
        "--triangles", TRIANGLES, "--textures", TEXTURES, "--texture-mb", 2,
        "--backends", "raster", "--resident", *RESIDENT, "--envs", 4, "--resolution", 32,
        "--steps", 2, "--runs", 2, "--warmup", 1, "--repeats", 2, "--load-repeats", 3,
        "--procedural-triangles", 10_000, "--swap-backend", "raster", "--swap-envs", 4,
        "--swap-episodes", 4, "--swap-episode-steps", 4, "--steps-per-scene", 8,
        "--swaps", 2, "--threads", 2, "--out", out,
    ]  # fmt: skip
    assert large_scene.main([str(a) for a in args], prog="batchsim bench large-scene") == 0
    return json.loads(out.read_text())


def positive(value) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value) and value > 0


def test_the_record_has_every_section(record):
    assert record["benchmark"] == "large-scene"
    for key in ("machine", "versions", "vulkan", "cuda", "date", "config", "device", "export"):
        assert key in record, key
    assert {"scene", "import", "load", "render", "slots"} <= set(record)
    assert record["config"]["triangles"] == TRIANGLES


def test_the_imported_scene_is_the_size_asked_for(record):
    scene, imported = record["scene"], record["import"]
    assert abs(imported["triangles"] - TRIANGLES) <= 0.02 * TRIANGLES
    assert imported["triangles"] == scene["triangles"]
    assert imported["textures"] == scene["textures"] == TEXTURES
    assert sum(scene["texture_sizes"].values()) == TEXTURES
    assert 0.9 * 2e6 <= scene["decoded_texture_bytes"] <= 2e6
    # Stored mip chains: more than level 0 (RGBA8 adds a third), never the decoded size x2.
    assert 0 < imported["texture_level0_rgba8_bytes"] <= scene["decoded_texture_bytes"]
    assert positive(imported["texture_bytes"])
    assert imported["texture_options"] == {"texture_format": "rgba8"}
    assert imported["navmesh"]["islands"] == 3  # one a storey
    assert len(imported["navmesh"]["floor_heights"]) == 3
    for key in ("file_bytes", "vertices", "chunks", "bvh_nodes", "bvh_depth"):
        assert positive(imported[key]), key


def test_times_and_rates_are_finite_and_positive(record):
    assert positive(record["scene"]["generate_s"])
    imported = record["import"]
    for figure in (imported, imported["no_bake"], imported["bake"]):
        assert positive(figure["seconds"])
        assert figure["spread_s"][0] <= figure["seconds"] <= figure["spread_s"][1]
    load = record["load"]
    assert positive(load["mb_per_s"]) and positive(load["seconds"])
    assert load["file_mb"] == pytest.approx(imported["file_bytes"] / 1e6)
    assert imported["compress"] is True and load["format_version"] == 5
    assert load["loaded_mb"] > load["file_mb"]  # compressed by default


def test_render_runs_at_each_k(record):
    renders = record["render"]
    assert [(r["backend"], r["resident"]) for r in renders] == [("raster", k) for k in RESIDENT]
    for r in renders:
        assert r["views"] == 4 and r["outputs"] == "depth+rgb"
        assert positive(r["frames_per_s"]) and r["min"] <= r["frames_per_s"] <= r["max"]
        assert positive(r["scene_bytes"]) and positive(r["upload_s"])
        assert r["gpu_bytes"] == r["resident"] * r["scene_bytes"]


def test_slot_costs_of_both_scenes(record):
    slots = record["slots"]
    for name in ("large", "procedural"):
        s = slots[name]
        assert positive(s["file_mb"]) and positive(s["scene_bytes"])
        for part in ("load", "upload"):
            assert positive(s[part]["seconds"]) and positive(s[part]["s_per_mb"])
        swaps = s["swaps"]
        assert swaps["steps"] == 8 * 3
        assert swaps["loads"] >= 2 and swaps["scene_swaps"] >= 2
        assert swaps["bytes_read"] >= swaps["loads"] * s["file_mb"] * 1e6 * 0.99
        assert positive(swaps["step_s"]) and swaps["max_step_s"] >= swaps["step_s"]
        assert swaps["excess_s_per_load"] >= 0
    ratios = slots["large_over_procedural"]
    assert ratios["size"] == pytest.approx(
        slots["large"]["file_mb"] / slots["procedural"]["file_mb"]
    )
    assert positive(ratios["load_s_per_mb"]) and positive(ratios["upload_s_per_mb"])


def test_the_building_is_deterministic(tmp_path):
    a, b = tmp_path / "a.glb", tmp_path / "b.glb"
    options = dict(triangles=3000, textures=3, texture_mb=1, floors=1, rooms=2, image_format="png")
    stats = building.write_building(a, **options, seed=4)
    building.write_building(b, **options, seed=4)
    assert a.read_bytes() == b.read_bytes()
    assert abs(stats["triangles"] - 3000) <= 30 and stats["images"] == {"image/png": 3}
    building.write_building(b, **options, seed=5)
    assert a.read_bytes() != b.read_bytes()


def test_too_few_triangles_for_the_plan_is_refused():
    with pytest.raises(ValueError, match="too few"):
        building.Plan(1000, 4).patch_cells()


def test_default_textures_are_mixed_and_fill_the_budget():
    sizes = building_textures.texture_sizes(200, 300.0, seed=0)
    total = sum(w * h * 4 for w, h in sizes)
    assert 0.99 * 300e6 <= total <= 300e6
    assert len(set(sizes)) >= 8 and max(sizes) >= (1536, 1536)
    assert any(w & (w - 1) for w, _ in sizes)  # some are not powers of two


def test_texture_options_go_to_import_scene():
    plain = argparse.Namespace(texture_budget_mib=None, texture_format="rgba8")
    assert large_scene.texture_options(plain) == {"texture_format": "rgba8"}
    bc1 = argparse.Namespace(texture_budget_mib=64.0, texture_format="bc1")
    assert large_scene.texture_options(bc1) == {"texture_format": "bc1", "texture_budget_mib": 64.0}
