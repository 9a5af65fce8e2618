"""Checkpoints: everything a run needs to continue exactly (policy, optimizer, counters, the
random generators, the running episode metrics) plus its config, written atomically: a
kill at any moment, or a failed write (a full disk), leaves the previous checkpoint loadable.

Checkpoints are read weights-only (torch.load(weights_only=True)): tensors, plain Python
values and the few types of SAFE_GLOBALS, nothing that names code to run, so a checkpoint
from elsewhere cannot run code when loaded. What is not a checkpoint (empty, truncated,
random or malicious) raises FormatError naming the file."""

from __future__ import annotations

import dataclasses
import os
import pathlib
import pickle
import re
import zipfile
from pathlib import Path

import torch

from batchsim._files import open_regular, write_atomically
from batchsim.errors import (
    Error,
    FileIoError,
    FormatError,
    InvalidArgumentError,
    MissingFileError,
)
from batchsim.train import sim_parts
from batchsim.train.config import TrainConfig
from batchsim.train.models import build_policy
from batchsim.train.presets import config_from_state

CHECKPOINT = "checkpoint.pt"
# TrainConfig fields that fix the policy's shape or what it sees: a checkpoint trained with
# other values would not load (shape mismatch) or would load and see the wrong inputs.
POLICY_FIELDS = (
    "render.depth",
    "render.rgb",
    "render.width",
    "render.height",
    "encoder",
    "hidden_size",
    "rnn",
    "rnn_layers",
    "depth_bins",
    "max_depth",
    "cpca_steps",
    "value_normalization",
)
# Fields whose weight > 0 adds a head (its parameters) to the policy: a checkpoint must
# have the same heads, whatever their weights.
HEAD_FIELDS = ("inverse_dynamics_coef", "temporal_distance_coef")
# Fields that change nothing a resumed run computes (where it logs, evaluates or how many
# threads step it; a change of processes has its own notice): every other field changed
# over a resume makes it another run (resume_changes).
RESUME_NEUTRAL_FIELDS = (
    "log_dir",
    "val_dataset",
    "eval_every",
    "eval_envs",
    "eval_episodes_per_scene",
    "real_buildings",
    "real_episodes",
    "snapshot_every_s",
    "sim.num_threads",
    "auto_threads",
    "num_gpus",
    "extra",
)
# Types beyond tensors and plain values that a checkpoint may hold: paths (a TrainConfig
# given pathlib paths, written before config_state() made them strings).
SAFE_GLOBALS = [pathlib.PosixPath, pathlib.PurePosixPath]
_UNREADABLE = (
    pickle.UnpicklingError,
    RuntimeError,
    EOFError,
    ValueError,
    KeyError,
    IndexError,
    TypeError,
    AttributeError,
    zipfile.BadZipFile,
)


class ResumeChangeWarning(UserWarning):
    """A resumed run has settings other than its checkpoint's that change what it computes."""


def config_state(config: TrainConfig) -> dict:
    """The config as a checkpoint stores it: its fields, paths as strings, its simulator
    parts as nested mappings of plain values (weights-only loading reads nothing else)."""
    state = {}
    for f in dataclasses.fields(TrainConfig):
        value = getattr(config, f.name)
        if f.name in sim_parts.PARTS:
            value = sim_parts.plain(value)
        state[f.name] = os.fspath(value) if isinstance(value, os.PathLike) else value
    return state


def settings(config: TrainConfig) -> dict[str, object]:
    """{name: value} of every setting: TrainConfig's own fields and its parts' leaves by
    their dotted paths (sim.task.forward_noise)."""
    found: dict[str, object] = {}
    for f in dataclasses.fields(TrainConfig):
        value = getattr(config, f.name)
        is_part = f.name in sim_parts.PARTS
        found |= sim_parts.leaves(f.name, value) if is_part else {f.name: value}
    return found


def write_checkpoint(state: dict, path: str | os.PathLike) -> None:
    """torch.save to a temporary file in the same folder, fsync, then an atomic rename;
    FileIoError naming the path when the write fails (a full disk), the previous file kept."""
    write_atomically(path, lambda f: _save(state, f))


def _save(state: dict, f) -> None:
    try:
        torch.save(state, f)
    except RuntimeError as exc:  # torch's writer reports a failed write (ENOSPC) this way
        raise OSError(f"torch.save failed, the disk may be full ({_first_line(exc)})") from exc


def read_checkpoint(path: str | os.PathLike) -> dict:
    """A checkpoint written by `batchsim train` (or a snapshot), loaded weights-only;
    MissingFileError, FileIoError or FormatError naming the file for anything else."""
    path = Path(path)
    if path.is_dir():
        path = path / CHECKPOINT
    if not path.exists():
        raise MissingFileError(f"checkpoint: expected a file written by batchsim train, got {path}")
    state = _load(path)
    missing = {"config", "policy", "updates"} - set(state if isinstance(state, dict) else {})
    if missing:
        raise FormatError(f"checkpoint {path}: expected keys {sorted(missing)} are missing")
    return state


def _load(path: Path):
    try:
        with open_regular(path, "checkpoint") as f, torch.serialization.safe_globals(SAFE_GLOBALS):
            return torch.load(f, map_location="cpu", weights_only=True)
    except Error:  # open_regular: not a regular file, or none there
        raise
    except OSError as exc:
        raise FileIoError(f"checkpoint {path}: cannot read: {exc}") from None
    except _UNREADABLE as exc:
        code = re.search(r"GLOBAL ([\w.]+)", str(exc))
        if code:
            raise FormatError(
                f"checkpoint {path}: refused: it names Python code to run when loaded "
                f"({code.group(1)}); batchsim loads checkpoints weights-only (tensors and plain "
                "values), so a file from elsewhere cannot run code"
            ) from None
        raise FormatError(
            f"checkpoint {path}: not a checkpoint batchsim can read (empty, truncated, corrupt "
            f"or not written by batchsim train): {type(exc).__name__}: {_first_line(exc)}"
        ) from None


def _first_line(exc: BaseException) -> str:
    """torch's point, without its advice: the weights-only unpickler's own complaint (its
    message first suggests weights_only=False, which a file from elsewhere must not get),
    else the first sentence."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    for i, line in enumerate(lines):
        if "WeightsUnpickler error" in line:
            words = [line.split("error:", 1)[1].strip(), *lines[i + 1 : i + 2]]
            return " ".join(w for w in words if w)[:200]
    if not lines:
        return "the file ends early" if isinstance(exc, EOFError) else "no message"
    return lines[0].split(". ")[0][:200]


def resume_changes(saved: TrainConfig, wanted: TrainConfig) -> list[str]:
    """ "field: checkpoint X, now Y" for every field outside POLICY_FIELDS, HEAD_FIELDS
    (check_compatible refuses those) and RESUME_NEUTRAL_FIELDS that differs."""
    skipped = {*POLICY_FIELDS, *HEAD_FIELDS, *RESUME_NEUTRAL_FIELDS}
    before, now = settings(saved), settings(wanted)
    return [
        f"{name}: checkpoint {before[name]!r}, now {now[name]!r}"
        for name in before
        if name not in skipped and _normalised(before[name]) != _normalised(now[name])
    ]


def config_of(state: dict) -> TrainConfig:
    """The TrainConfig of a checkpoint's state, in this version's shape or a flat older one."""
    return config_from_state(state["config"])


def check_compatible(saved: TrainConfig, wanted: TrainConfig, origin: str = "checkpoint") -> None:
    """InvalidArgumentError (a ValueError) naming every POLICY_FIELDS value where the
    checkpoint's config (`saved`) and this run's (`wanted`) differ, and every HEAD_FIELDS
    head that one has and the other not, before any weights load."""
    before, now = settings(saved), settings(wanted)
    differ = [
        f"{name}: checkpoint has {before[name]!r}, this run asks for {now[name]!r}"
        for name in POLICY_FIELDS
        if _normalised(before[name]) != _normalised(now[name])
    ]
    differ += [
        f"{name}: checkpoint has {getattr(saved, name)!r} ({_head(saved, name)}), this run "
        f"asks for {getattr(wanted, name)!r} ({_head(wanted, name)})"
        for name in HEAD_FIELDS
        if _head(saved, name) != _head(wanted, name)
    ]
    if differ:
        raise InvalidArgumentError(
            f"{origin} does not fit this configuration (its policy was trained with other "
            "inputs or another network): " + "; ".join(differ)
        )


def world_change_notice(state: dict, world: int, peak_lr: float) -> str:
    """What resuming `state` on `world` ranks changes, for a warning."""
    saved = len(state["ranks"])
    return (
        f"checkpoint written by {saved} process(es), resumed by {world}: the weights, the "
        f"optimiser state and the schedule continue from frame {state['frames']:,}; each "
        f"update now holds {world}/{saved} of the frames it did, the peak learning rate "
        f"follows the new global minibatch ({peak_lr:.3g}), and processes the checkpoint "
        "has no state for start their random streams from the seed, so the run is not the "
        f"one {saved} process(es) would have continued"
    )


def _head(config: TrainConfig, name: str) -> str:
    return "a head" if getattr(config, name) > 0 else "no head"


def _normalised(value):
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return tuple(value) if isinstance(value, list) else value


def load_policy(path: str | os.PathLike, device: str | torch.device = "cpu"):
    """(Policy with the checkpoint's weights on `device`, its TrainConfig)."""
    return policy_of(read_checkpoint(path), device)


def policy_of(state: dict, device: str | torch.device = "cpu"):
    """(Policy with the weights of a checkpoint's or snapshot's `state`, its TrainConfig)."""
    config = config_of(state)
    policy = build_policy(config)
    policy.load_state_dict(state["policy"])
    return policy.to(device).eval(), config
