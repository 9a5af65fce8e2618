"""Scenes checked before a run (datasets.scene_check) and scene files that go bad during one:
every bad scene listed at once before, a clear error naming the file at the swap during."""

from __future__ import annotations

import os
import shutil
import struct
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import batchsim
from batchsim.datasets import load_pointnav, write_pointnav
from batchsim.datasets.scene_check import check_scenes, scene_problems
from batchsim.datasets.scenes import simulator_scene_file

HEADER = 64  # packed_scene.hpp: header bytes, then 32-byte section table entries
ENTRY = 32
VERTICES = 2  # section kind


def copied_split(procgen_dataset, out: Path, names: list[str]) -> Path:
    """A split of len(names) scenes, each a copy of the train split's scene with its episodes,
    named out/scenes/<name>.bsscene (scene_id out/scenes/<name>.glb)."""
    train = load_pointnav(procgen_dataset[0] / "pointnav" / "train")
    source = simulator_scene_file(train, train.scene_ids[0])
    (out / "scenes").mkdir(parents=True)
    by_scene = {}
    for name in names:
        shutil.copy(source, out / "scenes" / f"{name}.bsscene")
        scene_id = str(out / "scenes" / f"{name}.glb")
        by_scene[scene_id] = [replace(e, scene_id=scene_id) for e in train.episodes[:8]]
    return write_pointnav(out / "pointnav", "split", by_scene).parent


def section(path: Path, kind: int) -> tuple[int, int]:
    """(offset, size) of the section of `kind` in a packed scene file."""
    data = path.read_bytes()
    (count,) = struct.unpack_from("<I", data, 12)
    for i in range(count):
        entry_kind, _, offset, size = struct.unpack_from("<IIQQ", data, HEADER + ENTRY * i)
        if entry_kind == kind:
            return offset, size
    raise AssertionError(f"no section {kind} in {path}")


def flip_byte(path: Path) -> None:
    """Flips a vertex byte; the file is replaced at once (a loader reading it meanwhile reads
    the old one whole), as an editor or a re-import would."""
    offset, size = section(path, VERTICES)
    data = bytearray(path.read_bytes())
    data[offset + size // 2] ^= 0x40
    temporary = path.with_suffix(".tmp")
    temporary.write_bytes(bytes(data))
    os.replace(temporary, path)


def truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def set_version(path: Path, version: int) -> None:
    data = bytearray(path.read_bytes())
    struct.pack_into("<I", data, 8, version)
    path.write_bytes(bytes(data))


def test_every_bad_scene_is_listed_in_one_error(procgen_dataset, tmp_path):
    names = ["good_a", "missing", "truncated", "flipped", "old_version", "good_b"]
    split = copied_split(procgen_dataset, tmp_path, names)
    scenes = tmp_path / "scenes"
    (scenes / "missing.bsscene").unlink()
    truncate(scenes / "truncated.bsscene")
    flip_byte(scenes / "flipped.bsscene")
    set_version(scenes / "old_version.bsscene", 2)

    with pytest.raises(batchsim.SceneCheckError) as info:
        check_scenes(split, show_progress=False)
    message = str(info.value)
    assert message.startswith("4 of 6 scenes of ")
    reasons = {Path(p.path or p.scene_id).stem: p.reason for p in info.value.problems}
    assert sorted(reasons) == ["flipped", "missing", "old_version", "truncated"]
    assert "has no packed scene: tried" in reasons["missing"]
    assert "(truncated?)" in reasons["truncated"]
    assert "section 'vertices' checksum mismatch" in reasons["flipped"]
    assert "unsupported version 2" in reasons["old_version"]
    assert "re-import the scene" in reasons["old_version"]
    for name in reasons:  # every bad file is named in the one message
        assert f"{name}." in message


def test_a_good_dataset_passes_and_counts_its_scenes(procgen_dataset, tmp_path):
    split = copied_split(procgen_dataset, tmp_path, ["a", "b", "c"])
    assert check_scenes(split, show_progress=False) == 3
    assert scene_problems(split, show_progress=False, workers=1) == []


def test_a_scene_without_a_navmesh_is_reported(procgen_dataset, tmp_path):
    split = copied_split(procgen_dataset, tmp_path, ["bare"])
    train = load_pointnav(procgen_dataset[0] / "pointnav" / "train")
    model = simulator_scene_file(train, train.scene_ids[0]).with_suffix(".glb")
    batchsim.import_scene(model, tmp_path / "scenes" / "bare.bsscene", bake_navmesh=False)
    problems = scene_problems(split, show_progress=False)
    assert [p.reason for p in problems] == ["has no navmesh (re-import it with `batchsim import`)"]


# One slot cycling through the split's scenes every 12 steps, episodes of at most 10.
SWAPPING = dict(
    resolution=(16, 16),
    scenes_resident=1,
    steps_per_scene=12,
    task=batchsim.TaskConfig(max_episode_steps=10),
)


def swapping_simulator(split: Path, context) -> batchsim.Simulator:
    return batchsim.Simulator(split, 4, context=context, **SWAPPING)


@pytest.mark.parametrize("damage", ["delete", "flip"])
def test_a_scene_that_goes_bad_during_the_run_fails_at_its_swap(
    procgen_dataset, tmp_path, cpu_context, damage
):
    split = copied_split(procgen_dataset, tmp_path, ["s0", "s1", "s2"])
    sim = swapping_simulator(split, cpu_context)
    sim.reset(seed=0)
    for path in (tmp_path / "scenes").glob("*.bsscene"):  # the resident one is in memory
        path.unlink() if damage == "delete" else flip_byte(path)
    rng = np.random.default_rng(0)
    with pytest.raises(batchsim.Error) as info:
        for _ in range(200):
            sim.step(rng.integers(1, 4, sim.num_envs))
    message = str(info.value)
    assert message.startswith("scene swap failed: scene ")
    assert "(was the file changed or deleted during the run?)" in message
    assert str(tmp_path / "scenes" / "s") in message  # names the file
    expected = "does not exist" if damage == "delete" else "checksum mismatch"
    assert expected in message
    with pytest.raises(batchsim.Error, match="scene swap failed"):  # again, not a hang
        sim.step(rng.integers(1, 4, sim.num_envs))
    sim.close()


def test_the_swap_error_reaches_step_wait_and_the_env(procgen_dataset, tmp_path, cpu_context):
    split = copied_split(procgen_dataset, tmp_path, ["s0", "s1", "s2"])
    env = batchsim.BatchNavEnv(split, 4, context=cpu_context, **SWAPPING)
    env.reset(seed=0)
    for path in (tmp_path / "scenes").glob("*.bsscene"):
        path.unlink()
    with pytest.raises(batchsim.MissingFileError, match="scene swap failed"):
        for _ in range(200):
            env.step_async(np.ones(4, np.int64))
            env.step_wait()
    env.close()


def test_commands_refuse_a_bad_dataset_before_building_anything(procgen_dataset, tmp_path, capsys):
    from batchsim.cli import main

    split = copied_split(procgen_dataset, tmp_path, ["good", "bad"])
    assert main(["check-dataset", "--quiet", str(split)]) == 0
    assert "2 scenes pass" in capsys.readouterr().out
    truncate(tmp_path / "scenes" / "bad.bsscene")
    commands = {
        "check-dataset": ["check-dataset", "--quiet", str(split)],
        "train": ["train", "--quiet", f"dataset={split}", f"log_dir={tmp_path / 'run'}"],
        "eval": [
            "eval",
            "--agents",
            "random",
            "--split",
            str(split),
            "--envs",
            "2",
            "--no-progress",
        ],
    }
    for name, argv in commands.items():
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"batchsim {name}: error: 1 of 2 scenes of "), err
        assert "bad.bsscene': file is " in err
    assert not (tmp_path / "run").exists()  # refused before the run made its folder
    assert main([*commands["eval"], "--skip-scene-check"]) == 2  # fails later, at the load
    assert "bad.bsscene" in capsys.readouterr().err
