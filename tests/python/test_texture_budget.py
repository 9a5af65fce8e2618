"""Texture budgets and BC1 compression at import, on a real model from Debian's
assimp-testmodels (spider.obj: four JPEG textures, 128 to 768 texels a side)."""

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import batchsim
from batchsim.cli import main
from batchsim.datasets import import_dataset
from batchsim.datasets.import_dataset import ImportSettings

MODELS = Path(os.environ.get("BATCHSIM_ASSIMP_MODELS", "/usr/share/assimp/models"))
pytestmark = pytest.mark.skipif(not MODELS.is_dir(), reason="assimp-testmodels not installed")
SPIDER = MODELS / "OBJ/spider.obj"
SPIDER_FILES = ["spider.obj", "spider.mtl", "SpiderTex.jpg", "drkwood2.jpg", "engineflare1.jpg"]
SPIDER_FILES += ["wal67ar_small.jpg", "wal69ar_small.jpg"]


def chain_bytes(width: int, height: int, levels: int, fmt: str) -> int:
    """Independent of the importer: RGBA8 texels, or 8-byte BC1 blocks of 4x4 (partial ones
    whole), summed over the mip levels."""
    total = 0
    for _ in range(levels):
        total += width * height * 4 if fmt == "rgba8" else -(-width // 4) * -(-height // 4) * 8
        width, height = max(width // 2, 1), max(height // 2, 1)
    return total


def textures(scene) -> list[dict]:
    return [scene.texture(i) for i in range(scene.texture_count)]


@pytest.fixture(scope="module")
def rgba8(tmp_path_factory):
    out = tmp_path_factory.mktemp("budget") / "rgba8.bsscene"
    return batchsim.import_scene(SPIDER, out, bake_navmesh=False)


def test_bc1_takes_an_eighth_and_decodes_close_to_the_source(rgba8, tmp_path):
    bc1 = batchsim.import_scene(
        SPIDER, tmp_path / "bc1.bsscene", bake_navmesh=False, texture_format="bc1"
    )
    for plain, packed in zip(textures(rgba8), textures(bc1), strict=True):
        size = (plain["width"], plain["height"], plain["mip_count"])
        assert (packed["width"], packed["height"], packed["mip_count"]) == size
        assert plain["bytes"] == chain_bytes(*size, "rgba8")
        assert packed["bytes"] == chain_bytes(*size, "bc1")
        assert packed["format"] == "bc1"
        error = np.abs(packed["pixels"][..., :3].astype(int) - plain["pixels"][..., :3]).mean()
        assert 0 < error < 8, f"{plain['name']}: mean error {error:.2f} levels"
    assert bc1.texture_bytes == sum(t["bytes"] for t in textures(bc1))
    assert rgba8.texture_bytes / 8 <= bc1.texture_bytes < rgba8.texture_bytes / 7


def test_a_budget_halves_the_largest_texture_first_and_deterministically(rgba8, tmp_path):
    before = {t["name"]: t for t in textures(rgba8)}
    budget = rgba8.texture_bytes - 1  # one round: the 768-texel texture loses its top level
    paths = [tmp_path / "a.bsscene", tmp_path / "b.bsscene"]
    for path in paths:
        scene = batchsim.import_scene(
            SPIDER, path, bake_navmesh=False, texture_budget_mib=budget / 2**20
        )
    assert paths[0].read_bytes() == paths[1].read_bytes()
    after = {t["name"]: t for t in textures(scene)}
    assert (after["drkwood2.jpg"]["width"], after["drkwood2.jpg"]["height"]) == (384, 384)
    # Its old level 1, untouched: dropping a level resamples nothing.
    wood = [t["name"] for t in textures(rgba8)].index("drkwood2.jpg")
    np.testing.assert_array_equal(
        after["drkwood2.jpg"]["pixels"], rgba8.texture(wood, level=1)["pixels"]
    )
    for name in set(before) - {"drkwood2.jpg"}:
        np.testing.assert_array_equal(after[name]["pixels"], before[name]["pixels"])
    assert scene.texture_bytes <= budget


def test_a_scene_over_its_budget_is_refused_and_nothing_is_written(tmp_path):
    out = tmp_path / "spider.bsscene"
    with pytest.raises(
        batchsim.InvalidArgumentError,
        match=r"scene 'spider.obj' is over its texture budget: its 4 textures "
        r"take .* even at 32 texels a side",
    ):
        batchsim.import_scene(SPIDER, out, bake_navmesh=False, texture_budget_mib=0.01)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"texture_format": "bc7"}, "texture format: expected 'rgba8' or 'bc1', got 'bc7'"),
        ({"texture_budget_mib": 0}, "texture_budget_mib must be a positive number of MiB"),
        ({"texture_budget_mib": float("nan")}, "texture_budget_mib must be a positive"),
        ({"texture_budget_mib": float("inf")}, "texture_budget_mib must be a positive"),
    ],
)
def test_bad_texture_options(tmp_path, options, message):
    with pytest.raises(batchsim.InvalidArgumentError, match=message):
        batchsim.import_scene(SPIDER, tmp_path / "s.bsscene", bake_navmesh=False, **options)


def test_cli_reports_texture_bytes_and_format(tmp_path, capsys):
    out = tmp_path / "spider.bsscene"
    args = ["import", str(SPIDER), str(out), "--no-navmesh", "--texture-format", "bc1"]
    assert main(args) == 0
    assert "4 textures (0.5 MiB, bc1)" in capsys.readouterr().out
    assert main([*args, "--texture-budget-mib", "0.001"]) == 2
    assert "over its texture budget" in capsys.readouterr().err


def test_import_dataset_lists_scenes_over_the_budget_as_failed(tmp_path):
    src = tmp_path / "src"
    (src / "objects").mkdir(parents=True)
    for name in SPIDER_FILES:
        shutil.copy(MODELS / "OBJ" / name, src / "objects" / name)
    shutil.copy(MODELS / "PLY/cube_uv.ply", src / "objects/cube_uv.ply")
    settings = ImportSettings(texture_budget_mib=0.01)
    results = {
        r.scene: r
        for r in import_dataset(
            src, tmp_path / "out", workers=1, settings=settings, show_progress=False
        )
    }
    assert results["objects/spider.obj"].status == "failed"
    assert "over its texture budget" in results["objects/spider.obj"].error
    assert results["objects/cube_uv.ply"].status == "imported"  # no textures: within any budget
    written = sorted(p.name for p in (tmp_path / "out").rglob("*.bsscene"))
    assert written == ["cube_uv.bsscene"]
