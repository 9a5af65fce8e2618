"""Issue 40, hangs: a named pipe (FIFO) where batchsim reads a file blocked open() for ever
(a glTF buffer, an OBJ material library, a split file). Every reader now refuses anything
but a regular file, by name and without blocking. Each case runs in a thread with a time
limit; a reader that does block is released by opening its pipe for writing, so a failing
test fails rather than hangs."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

import batchsim
from batchsim.datasets import load_pointnav

# Far above the milliseconds a refusal takes, far below a hang.
LIMIT_S = 30.0

SQUARE_OBJ = "v 0 0 0\nv 4 0 0\nv 4 0 4\nv 0 0 4\nf 1 3 2\nf 1 4 3\n"
GLTF_WITH_BUFFER = (
    '{"asset":{"version":"2.0"},"buffers":[{"uri":"%s","byteLength":36}],'
    '"bufferViews":[{"buffer":0,"byteLength":36}],"accessors":[{"bufferView":0,'
    '"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,0,1]}],'
    '"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"nodes":[{"mesh":0}],'
    '"scenes":[{"nodes":[0]}],"scene":0}'
)


def outcome_within(call, pipes: list[Path]) -> BaseException | None:
    """What call() raised (None if it returned) within LIMIT_S; fails the test if it
    blocked, after releasing it by writing nothing into each pipe."""
    result: list[BaseException | None] = []

    def run():
        try:
            call()
            result.append(None)
        except BaseException as exc:  # handed to the test
            result.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(LIMIT_S)
    if thread.is_alive():
        for pipe in pipes:  # a blocked reader gets end-of-file
            os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(LIMIT_S)
        pytest.fail(f"blocked for {LIMIT_S} s on a named pipe")
    return result[0]


def gltf_with_piped_buffer(folder: Path) -> tuple[Path, Path]:
    (folder / "model.gltf").write_text(GLTF_WITH_BUFFER % "data.bin")
    return folder / "model.gltf", folder / "data.bin"


def obj_with_piped_library(folder: Path) -> tuple[Path, Path]:
    (folder / "model.obj").write_text("mtllib look.mtl\n" + SQUARE_OBJ)
    return folder / "model.obj", folder / "look.mtl"


def obj_with_piped_texture(folder: Path) -> tuple[Path, Path]:
    (folder / "model.obj").write_text("mtllib look.mtl\nusemtl a\n" + SQUARE_OBJ)
    (folder / "look.mtl").write_text("newmtl a\nmap_Kd colour.png\n")
    return folder / "model.obj", folder / "colour.png"


MODELS = [gltf_with_piped_buffer, obj_with_piped_library, obj_with_piped_texture]


@pytest.mark.parametrize("make", MODELS, ids=lambda make: make.__name__)
def test_a_pipe_a_model_names_is_refused_by_name(tmp_path, make):
    model, pipe = make(tmp_path)
    os.mkfifo(pipe)
    error = outcome_within(lambda: batchsim.import_scene(model, tmp_path / "out.bsscene"), [pipe])
    assert isinstance(error, batchsim.InvalidArgumentError), error
    assert pipe.name in str(error) and "named pipe (FIFO)" in str(error)
    assert str(model.name) in str(error)
    assert not (tmp_path / "out.bsscene").exists()


def test_pipes_and_devices_given_as_inputs_are_refused_by_name(tmp_path):
    """The inputs batchsim opens itself: a split file, a packed scene, a navmesh, a
    model; /dev/zero (a character device, which never ends) as well."""
    split = tmp_path / "split"
    split.mkdir()
    pipes = {name: tmp_path / name for name in ("s.bsscene", "n.navmesh", "m.glb")}
    pipes["split"] = split / "split.json.gz"
    for pipe in pipes.values():
        os.mkfifo(pipe)
    readers = {
        "split": lambda: load_pointnav(split),
        "s.bsscene": lambda: batchsim.Scene.load(pipes["s.bsscene"]),
        "n.navmesh": lambda: batchsim.NavMesh.load(pipes["n.navmesh"]),
        "m.glb": lambda: batchsim.import_scene(pipes["m.glb"], tmp_path / "out.bsscene"),
    }
    for name, read in readers.items():
        error = outcome_within(read, list(pipes.values()))
        assert isinstance(error, batchsim.InvalidArgumentError), (name, error)
        assert str(pipes[name]) in str(error) and "named pipe (FIFO)" in str(error), error
    with pytest.raises(batchsim.InvalidArgumentError, match=r"/dev/zero.* is a character device"):
        batchsim.Scene.load("/dev/zero")
    with pytest.raises(batchsim.MissingFileError, match="does not exist"):
        batchsim.Scene.load(tmp_path / "absent.bsscene")


def test_pipes_given_to_training_commands_are_refused_by_name(tmp_path):
    """The files a user hands `batchsim train`, `eval` and the curve tools: a --config
    file, a checkpoint, a held-out curve's JSON, a run's metrics."""
    pytest.importorskip("torch")
    from batchsim.train.checkpoint import read_checkpoint
    from batchsim.train.curve import _read_heldout, read_csv
    from batchsim.train.presets import config_file_values

    pipes = {name: tmp_path / name for name in ("c.json", "checkpoint.pt", "h.json", "m.csv")}
    for pipe in pipes.values():
        os.mkfifo(pipe)
    readers = {
        "c.json": lambda: config_file_values(pipes["c.json"]),
        "checkpoint.pt": lambda: read_checkpoint(tmp_path),  # a run folder: its checkpoint.pt
        "h.json": lambda: _read_heldout(pipes["h.json"]),
        "m.csv": lambda: read_csv(pipes["m.csv"]),
    }
    for name, read in readers.items():
        error = outcome_within(read, list(pipes.values()))
        assert isinstance(error, batchsim.InvalidArgumentError), (name, error)
        assert str(pipes[name]) in str(error) and "named pipe (FIFO)" in str(error), error


def test_an_import_past_its_time_limit_is_stopped_and_listed_as_failed(tmp_path, capsys):
    """import-dataset's workers: a job that never returns is killed at its limit while the
    others finish; the CLI lists such a model as failed, with the reason."""
    from batchsim.cli import main
    from batchsim.datasets.import_workers import run_with_time_limit
    from hang_jobs import double_or_hang

    limit = 3.0
    started = time.monotonic()
    outcomes = dict(
        run_with_time_limit(
            double_or_hang, [-1, 1, 2, -2, 3], 2, limit, lambda job, why, s: (why, s)
        )
    )
    assert time.monotonic() - started < 6 * limit  # two hung jobs, one after the other
    assert [outcomes[j] for j in (1, 2, 3)] == [2, 4, 6]
    for hung in (-1, -2):
        reason, seconds = outcomes[hung]
        assert "time limit of 3 s" in reason and limit <= seconds < 3 * limit

    src = tmp_path / "src"
    src.mkdir()
    (src / "floor.obj").write_text(SQUARE_OBJ)
    status = main(["import-dataset", str(src), str(tmp_path / "out"), "--quiet",
                   "--model-time-limit", "0.001"])  # fmt: skip
    table = capsys.readouterr().out
    assert status == 1 and "floor.obj  failed" in table and "time limit of 0.001 s" in table
