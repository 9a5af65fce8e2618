"""Checkpoints are safe to read and to write, each class by one test: a file that is not a
checkpoint (empty, truncated, random, the wrong object) raises FormatError naming it for
--resume, eval and video; a pickle that would run code is refused, weights-only; our own
checkpoints, snapshots and older formats still load; a failed write (a full disk) raises
FileIoError and keeps the previous checkpoint. --resume needs a checkpoint unless asked to
start where there is none, and names every other setting that makes a resumed run another
(issue 40, part B)."""

from __future__ import annotations

import errno
import os
import pickle
import shutil
import warnings
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from batchsim.cli import main  # noqa: E402
from batchsim.errors import FileIoError, FormatError, MissingFileError  # noqa: E402
from batchsim.train import checkpoint as checkpoints  # noqa: E402
from batchsim.train.checkpoint import (  # noqa: E402
    CHECKPOINT,
    ResumeChangeWarning,
    load_policy,
    read_checkpoint,
    write_checkpoint,
)
from batchsim.train.run import train  # noqa: E402
from batchsim.train.snapshots import list_snapshots, read_counters  # noqa: E402


@pytest.fixture(scope="module")
def tiny_config(tiny_train_config, train_split):
    """This file's tiny runs (conftest's tiny_train_config) validate on their train split and
    take no snapshot but the first and the last."""
    return lambda log_dir, **fields: tiny_train_config(
        log_dir, **{"val_dataset": train_split, "snapshot_every_s": 1000, **fields}
    )


@pytest.fixture(scope="module")
def run_dir(tiny_config, tmp_path_factory):
    """A finished tiny run: its checkpoint and its two snapshots (start and end)."""
    log_dir = tmp_path_factory.mktemp("checkpoint-safety") / "run"
    train(tiny_config(log_dir), show_progress=False, stop_on_signals=False).close()
    return log_dir


def _not_checkpoints(folder: Path, good: bytes) -> dict[str, Path]:
    files = {
        "empty": b"",
        "truncated": good[: len(good) // 2],
        "random": os.urandom(4096),
        "text": b"this is not a checkpoint\n",
    }
    paths = {name: folder / f"{name}.pt" for name in files}
    for name, data in files.items():
        paths[name].write_bytes(data)
    torch.save([1, 2, 3], folder / "list.pt")  # loads weights-only, but is no checkpoint
    torch.save({"policy": {}}, folder / "keys.pt")
    return paths | {"list": folder / "list.pt", "keys": folder / "keys.pt"}


def test_a_file_that_is_no_checkpoint_raises_format_error_naming_it(
    run_dir, train_split, tiny_config, tmp_path, capsys
):
    good = (run_dir / CHECKPOINT).read_bytes()
    for name, path in _not_checkpoints(tmp_path, good).items():
        for load in (read_checkpoint, load_policy):
            with pytest.raises(FormatError, match=str(path)):
                load(path)
        assert main(["eval", "--checkpoint", str(path), "--split", str(train_split)]) == 2, name
        assert main(["video", "--checkpoint", str(path), "--split", str(train_split)]) == 2, name
        errors = capsys.readouterr().err
        assert errors.count(f"checkpoint {path}") == 2, errors
        assert "Traceback" not in errors
    log_dir = tmp_path / "corrupt-run"  # --resume reads it before anything is built
    log_dir.mkdir()
    (log_dir / CHECKPOINT).write_bytes(good[:100])
    with pytest.raises(FormatError, match=f"checkpoint {log_dir / CHECKPOINT}: not a"):
        train(tiny_config(log_dir), show_progress=False, resume=True)


class _RunsCode:
    """Unpickled, it runs a shell command: what a checkpoint from elsewhere could hold."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


def test_a_checkpoint_that_would_run_code_is_refused(run_dir, tmp_path):
    marker = tmp_path / "code-ran"
    state = read_checkpoint(run_dir) | {"policy": _RunsCode(marker)}
    zipped, raw = tmp_path / "zipped.pt", tmp_path / "raw.pt"
    torch.save(state, zipped)
    raw.write_bytes(pickle.dumps(state, protocol=2))  # a plain pickle, no torch container
    for path in (zipped, raw):
        with pytest.raises(FormatError, match=rf"{path}: refused: .*posix\.system"):
            read_checkpoint(path)
        assert not marker.exists()
    torch.load(zipped, weights_only=False)  # the file really runs code when trusted
    assert marker.exists()


def test_our_checkpoints_snapshots_and_older_formats_load(run_dir, tmp_path):
    state = read_checkpoint(run_dir)
    assert state["updates"] == 2 and state["config"]["sim"]["num_envs"] == 4
    assert isinstance(state["config"]["log_dir"], str)  # config_state: paths as strings
    snapshots = list_snapshots(run_dir)
    assert len(snapshots) == 2
    counters, snapshot = read_counters(snapshots[-1])
    assert counters["updates"] == 2 and snapshot["policy"].keys() == state["policy"].keys()
    _, config = load_policy(snapshots[-1])
    assert config.hidden_size == 32
    # Older writes: the pre-zip container, and configs holding the pathlib paths given.
    legacy = tmp_path / "legacy.pt"
    torch.save(state, legacy, _use_new_zipfile_serialization=False)
    with_paths = tmp_path / "paths.pt"
    paths = {"log_dir": Path(state["config"]["log_dir"]), "dataset": Path("data/x")}
    torch.save(state | {"config": state["config"] | paths}, with_paths)
    for path in (legacy, with_paths):
        loaded = read_checkpoint(path)
        assert loaded["updates"] == 2
        for name, tensor in state["policy"].items():
            assert torch.equal(loaded["policy"][name], tensor), name
    assert load_policy(with_paths)[1].dataset == Path("data/x")


@pytest.mark.parametrize("failure", ["torch-writer", "enospc"])
def test_a_failed_checkpoint_write_keeps_the_previous_one(run_dir, tmp_path, monkeypatch, failure):
    path = tmp_path / CHECKPOINT
    shutil.copy(run_dir / CHECKPOINT, path)
    before = path.read_bytes()

    def full_disk(state, f):
        f.write(b"PK\x03\x04 half a checkpoint")
        if failure == "enospc":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        raise RuntimeError(  # what torch's writer raises when a write fails
            "[enforce fail at inline_container.cc:672] . PytorchStreamWriter failed writing "
            "file data/0: file write failed"
        )

    monkeypatch.setattr(checkpoints.torch, "save", full_disk)
    with pytest.raises(FileIoError, match=f"{path}: cannot write: .*unchanged"):
        write_checkpoint(read_checkpoint(path), path)
    assert path.read_bytes() == before  # the previous checkpoint, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == [CHECKPOINT]  # no temporary left


def test_resume_needs_a_checkpoint_unless_asked_to_start(tiny_config, run_dir, tmp_path, capsys):
    mistyped = run_dir.parent / "rnu"
    with pytest.raises(MissingFileError, match=rf"no checkpoint at {mistyped / CHECKPOINT}.*"):
        train(tiny_config(mistyped), show_progress=False, resume=True)
    assert not mistyped.exists()  # refused before anything was built or written
    words = ["train", "--preset", "demo", "--quiet", "--resume", f"log_dir={mistyped}"]
    assert main(words) == 2
    error = capsys.readouterr().err
    assert "--resume-or-start" in error and str(run_dir) in error  # the run nearby
    fresh = tmp_path / "fresh"
    trainer = train(tiny_config(fresh), show_progress=False, resume="if_present")
    trainer.close()
    assert read_checkpoint(fresh)["updates"] == 2


def test_resume_with_other_settings_names_each_change(tiny_config, run_dir, tmp_path):
    log_dir = tmp_path / "run"
    shutil.copytree(run_dir, log_dir)
    same = tiny_config(log_dir, **{"eval_every": 5, "sim.num_threads": 2})  # neutral fields
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResumeChangeWarning)
        train(same, show_progress=False, resume=True).close()
    other = tiny_config(log_dir, **{"sim.num_envs": 8, "sim.seed": 5, "eval_every": 5})
    with pytest.warns(ResumeChangeWarning) as caught:
        train(other, show_progress=False, resume=True).close()
    message = str(caught[0].message)
    assert "num_envs: checkpoint 4, now 8" in message and "seed: checkpoint 0, now 5" in message
    assert "eval_every" not in message and "no longer the one" in message
