"""`batchsim import-dataset` / batchsim.datasets.import_dataset over a folder laid out like
Habitat's scene_datasets: real models from Debian's assimp-testmodels (glTF with external
buffer and texture, OBJ with materials, PLY), procedural GLBs with Habitat .navmesh files
beside them, and broken files; then Habitat PointNav episodes run on what it wrote, and
re-runs reuse scenes by their files' sizes and mtimes, hashing only where those changed."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

import batchsim
from batchsim.cli import main
from batchsim.datasets import import_dataset, load_pointnav
from batchsim.train.config import TrainConfig
from habitat_layout import gibson_scenes, habitat_split

MODELS = Path(os.environ.get("BATCHSIM_ASSIMP_MODELS", "/usr/share/assimp/models"))
pytestmark = pytest.mark.skipif(not MODELS.is_dir(), reason="assimp-testmodels not installed")

GOOD = {  # relative path -> (navmesh source, triangles, textures); None: not checked
    "box/BoxTextured.gltf": ("habitat", 12, 1),
    "gibson/apartment.glb": ("habitat", None, None),
    "gibson/office.glb": ("habitat", None, None),
    "objects/spider.obj": ("baked", None, 4),
    "objects/cube_uv.ply": ("baked", 12, 0),
}
BROKEN = {
    "broken/empty.glb": "empty file (0 bytes)",
    "broken/corrupt.glb": "(expected glTF 2, or 1)",
}


def plane_navmesh(path: Path, size: float) -> None:
    """A Habitat .navmesh of a size x size floor from the origin at y = 0."""
    corners = np.array([[0, 0, 0], [size, 0, 0], [size, 0, size], [0, 0, size]], np.float32)
    batchsim.NavMesh.bake(corners, np.array([[0, 2, 1], [0, 3, 2]])).save(path)


def box_floor_navmesh(path: Path) -> None:
    """A Habitat .navmesh of the Box model's 1 m floor (at y = -0.5): a navmesh must lie within
    its model's bounds. region_min_size=1 keeps its 0.64 m² after the agent's radius."""
    corners = np.array([[-1, -1, -1], [1, -1, -1], [1, -1, 1], [-1, -1, 1]], np.float32) / 2
    settings = batchsim.navmesh_settings(region_min_size=1)
    batchsim.NavMesh.bake(corners, np.array([[0, 2, 1], [0, 3, 2]]), settings).save(path)


def copy_files(source: Path, names: list[str], target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy(source / name, target / name)


@pytest.fixture(scope="module")
def src(procgen_dataset, tmp_path_factory) -> Path:
    """SRC in Habitat's layout, good and broken scenes, plus files that are not scenes."""
    root = tmp_path_factory.mktemp("import") / "scene_datasets"
    copy_files(MODELS / "glTF2/BoxTextured-glTF", BOX_FILES, root / "box")
    box_floor_navmesh(root / "box/BoxTextured.navmesh")
    obj_files = ["spider.obj", "spider.mtl", "SpiderTex.jpg", "drkwood2.jpg", "engineflare1.jpg"]
    copy_files(
        MODELS / "OBJ", [*obj_files, "wal67ar_small.jpg", "wal69ar_small.jpg"], root / "objects"
    )
    copy_files(MODELS / "PLY", ["cube_uv.ply"], root / "objects")
    gibson_scenes(procgen_dataset[0], root)
    (root / "broken").mkdir()
    (root / "broken/empty.glb").write_bytes(b"")
    (root / "broken/corrupt.glb").write_bytes(b"glTF" + bytes(range(256)) * 8)
    (root / "gibson/apartment.semantic.glb").write_bytes(b"")  # excluded by default
    (root / "README.txt").write_text("not a model")
    return root


@pytest.fixture(scope="module")
def first_run(src, tmp_path_factory):
    out = tmp_path_factory.mktemp("import") / "packed"
    return out, import_dataset(src, out, workers=2, show_progress=False)


def test_first_run_imports_good_scenes_and_lists_broken_ones(first_run):
    out, results = first_run
    by_scene = {r.scene: r for r in results}
    assert sorted(by_scene) == sorted([*GOOD, *BROKEN])
    for scene, (navmesh, triangles, textures) in GOOD.items():
        result = by_scene[scene]
        assert (result.status, result.navmesh, result.error) == ("imported", navmesh, "")
        packed = batchsim.Scene.load(out / Path(scene).with_suffix(".bsscene"))
        assert packed.has_navmesh and packed.triangle_count == result.triangles > 0
        assert result.file_bytes == packed.file_bytes
        assert triangles in (None, result.triangles) and textures in (None, result.textures)
    for scene, message in BROKEN.items():
        assert by_scene[scene].status == "failed" and message in by_scene[scene].error
    assert not (out / "broken").exists() or not any((out / "broken").iterdir())
    assert (out / "batchsim-import.json").is_file()


def test_habitat_navmesh_beside_a_model_is_embedded_as_is(src, first_run):
    out, _ = first_run
    for scene in ("gibson/apartment", "gibson/office", "box/BoxTextured"):
        embedded = batchsim.Scene.load(out / f"{scene}.bsscene").navmesh()
        assert embedded.to_bytes() == (src / f"{scene}.navmesh").read_bytes()


def test_second_run_reuses_scenes_until_an_input_changes(src, first_run, capsys):
    out, _ = first_run
    outputs = {s: out / Path(s).with_suffix(".bsscene") for s in GOOD}
    written = {s: p.stat().st_mtime_ns for s, p in outputs.items()}
    assert main(["import-dataset", str(src), str(out), "--workers", "2", "--quiet"]) == 1
    table = capsys.readouterr().out
    for scene in GOOD:
        assert f"{scene} " in table and _row(table, scene).split()[1] == "reused"
    assert "empty file (0 bytes)" in _row(table, "broken/empty.glb")
    assert {s: p.stat().st_mtime_ns for s, p in outputs.items()} == written
    # A texture the glTF names is an input: touching it re-imports that scene alone.
    with (src / "box/CesiumLogoFlat.png").open("ab") as png:
        png.write(b"\0")  # after IEND: the image decodes as before
    results = {r.scene: r.status for r in import_dataset(src, out, workers=2, show_progress=False)}
    assert results.pop("box/BoxTextured.gltf") == "imported"
    assert {results[s] for s in GOOD if s in results} == {"reused"}


def _row(table: str, scene: str) -> str:
    return next(line for line in table.splitlines() if line.startswith(scene + " "))


def test_habitat_episodes_run_on_the_imported_scenes(src, first_run, cpu_context, tmp_path):
    pytest.importorskip("torch")
    out, _ = first_run
    # Not the box: its navmesh, its own 1 m floor, is too small for episodes to start on.
    scenes = ("gibson/apartment.glb", "gibson/office.glb", "objects/spider.obj")
    split = habitat_split(out, tmp_path / "pointnav/gibson/v1", scenes)
    dataset = load_pointnav(split, scenes_dir=out)
    table = batchsim.datasets.episode_table(dataset)
    relative = [s.removeprefix("data/scene_datasets/") for s in table.scene_ids]
    assert table.scene_paths == [out / Path(s).with_suffix(".bsscene") for s in relative]
    config = TrainConfig(scenes_dir=str(out))
    assert batchsim.datasets.episode_table(config.load_split(str(split))).scene_paths == (
        table.scene_paths
    )
    env = batchsim.BatchNavEnv(dataset, 3, context=cpu_context, resolution=(16, 16))
    env.reset(seed=0)
    for _ in range(4):
        obs, reward, *_ = env.step(np.ones(3, np.int64))
        assert np.isfinite(reward.cpu().numpy()).all()
    assert obs["depth"].shape == (3, 1, 16, 16)
    env.close()


def test_bad_sources_are_clear_errors(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty/notes.txt").write_text("no models here")
    with pytest.raises(batchsim.MissingFileError, match=r"no scene models \(.glb, .gltf"):
        import_dataset(tmp_path / "empty", tmp_path / "out")
    with pytest.raises(batchsim.MissingFileError, match="no such folder"):
        import_dataset(tmp_path / "missing", tmp_path / "out")
    with pytest.raises(batchsim.InvalidArgumentError, match="expected a folder"):
        import_dataset(tmp_path / "empty/notes.txt", tmp_path / "out")
    assert main(["import-dataset", str(tmp_path / "empty"), str(tmp_path / "out")]) == 2
    assert "no scene models" in capsys.readouterr().err
    twins = tmp_path / "twins"
    copy_files(MODELS / "PLY", ["cube_uv.ply"], twins)
    shutil.copy(MODELS / "OBJ/box.obj", twins / "cube_uv.obj")
    with pytest.raises(batchsim.InvalidArgumentError, match="would both become"):
        import_dataset(twins, tmp_path / "out")
    (tmp_path / "out").mkdir()
    (tmp_path / "out/batchsim-import.json").write_text("{not json")
    with pytest.raises(batchsim.FormatError, match="delete it or pass --force"):
        import_dataset(twins, tmp_path / "out", exclude=["*.obj"], show_progress=False)
    results = import_dataset(twins, tmp_path / "out", exclude=["*.obj"], force=True)
    assert [(r.scene, r.status) for r in results] == [("cube_uv.ply", "imported")]


# ---- re-runs: sizes and mtimes decide where they can, the content hash where they cannot


def backdate(path: Path, hours: float = 1.0) -> int:
    """Sets the mtime of `path` (every file under it, for a folder) `hours` into the past
    and returns it: files changed in the last seconds are hashed on every run (RECENT_NS)."""
    when = time.time_ns() - int(hours * 3600e9)
    for file in [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]:
        os.utime(file, ns=(when, when))
    return when


@pytest.fixture
def rerun(procgen_dataset, tmp_path, monkeypatch):
    """(src, out, hashed): a glTF with an external buffer and texture and a GLB with a Habitat
    navmesh, imported once; then hashed[i] lists the scenes that run i after it sent to the
    worker processes, the only place where inputs are hashed."""
    src = tmp_path / "scene_datasets"
    copy_files(MODELS / "glTF2/BoxTextured-glTF", BOX_FILES, src / "box")
    box_floor_navmesh(src / "box/BoxTextured.navmesh")
    gibson_scenes(procgen_dataset[0], src, names=("apartment",))
    backdate(src)
    out = tmp_path / "packed"
    first = import_dataset(src, out, workers=2, show_progress=False)
    assert [(r.status, r.hashed) for r in first] == [("imported", True)] * 2
    module = importlib.import_module("batchsim.datasets.import_dataset")
    run_jobs, hashed = module.run_jobs, []

    def spy(jobs, *args):
        hashed.append(sorted(job.scene for job in jobs))
        return run_jobs(jobs, *args)

    monkeypatch.setattr(module, "run_jobs", spy)
    return src, out, hashed


BOX, APARTMENT = "box/BoxTextured.gltf", "gibson/apartment.glb"
BOX_FILES = ["BoxTextured.gltf", "BoxTextured0.bin", "CesiumLogoFlat.png"]


def again(src: Path, out: Path, **options) -> dict[str, tuple[str, bool]]:
    """scene -> (status, hashed) of one more run."""
    results = import_dataset(src, out, workers=2, show_progress=False, **options)
    return {r.scene: (r.status, r.hashed) for r in results}


def manifest(out: Path) -> dict:
    return json.loads((out / "batchsim-import.json").read_bytes())["scenes"]


def test_a_second_run_reuses_unchanged_scenes_without_hashing(rerun):
    src, out, hashed = rerun
    before = (out / "batchsim-import.json").read_bytes()
    assert again(src, out) == {BOX: ("reused", False), APARTMENT: ("reused", False)}
    assert hashed == [[]]  # no scene went to a worker: nothing was hashed
    assert (out / "batchsim-import.json").read_bytes() == before
    files = manifest(out)[BOX]["inputs"]["files"]
    assert [f[:2] for f in files] == [
        ["model", "BoxTextured.gltf"],
        ["reference", "BoxTextured0.bin"],
        ["reference", "CesiumLogoFlat.png"],
        ["navmesh", "BoxTextured.navmesh"],
    ]
    png = (src / "box/CesiumLogoFlat.png").stat()
    assert files[2][2:] == [png.st_size, png.st_mtime_ns]


def test_a_touched_input_is_hashed_and_its_scene_still_reused(rerun):
    src, out, hashed = rerun
    touched = backdate(src / "box/CesiumLogoFlat.png", hours=2)  # same bytes, other mtime
    assert again(src, out) == {BOX: ("reused", True), APARTMENT: ("reused", False)}
    assert hashed == [[BOX]]
    assert manifest(out)[BOX]["inputs"]["files"][2][3] == touched  # the stats are refreshed
    assert again(src, out) == {BOX: ("reused", False), APARTMENT: ("reused", False)}
    # A file changed in the last seconds is not trusted by its mtime, nor one dated in the
    # future (here, so that no timing matters): hashed, and again on every run until it ages.
    backdate(src / "gibson/apartment.navmesh", hours=-1)
    assert again(src, out)[APARTMENT] == ("reused", True)
    assert "inputs" not in manifest(out)[APARTMENT]
    assert again(src, out)[APARTMENT] == ("reused", True)


def test_changed_content_is_imported_again(rerun):
    src, out, hashed = rerun
    gltf = src / "box/BoxTextured.gltf"
    text = gltf.read_bytes()
    gltf.write_bytes(text.replace(b'"COLLADA2GLTF"', b'"COLLADA2GLTX"'))  # same size
    assert gltf.stat().st_size == len(text)
    backdate(gltf, hours=2)
    assert again(src, out) == {BOX: ("imported", True), APARTMENT: ("reused", False)}
    assert hashed == [[BOX]]
    # Another navmesh (within the apartment's bounds): a new scene.
    plane_navmesh(src / "gibson/apartment.navmesh", 6.0)
    backdate(src / "gibson/apartment.navmesh", hours=3)
    assert again(src, out) == {BOX: ("reused", False), APARTMENT: ("imported", True)}


def test_rehash_hashes_every_scene(rerun, capsys):
    src, out, hashed = rerun
    argv = ["import-dataset", str(src), str(out), "--workers", "2", "--quiet", "--rehash"]
    assert main(argv) == 0
    assert hashed == [[BOX, APARTMENT]]
    table = capsys.readouterr().out
    assert [_row(table, scene).split()[1] for scene in (BOX, APARTMENT)] == ["reused"] * 2


def test_a_manifest_without_sizes_and_mtimes_is_hashed_once(rerun):
    src, out, hashed = rerun
    document = json.loads((out / "batchsim-import.json").read_bytes())
    for entry in document["scenes"].values():
        del entry["inputs"]  # as batchsim wrote it before it recorded them
    (out / "batchsim-import.json").write_text(json.dumps(document))
    assert again(src, out) == {BOX: ("reused", True), APARTMENT: ("reused", True)}
    assert again(src, out) == {BOX: ("reused", False), APARTMENT: ("reused", False)}
    assert hashed == [[BOX, APARTMENT], []]
