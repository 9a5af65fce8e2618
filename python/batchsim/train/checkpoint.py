"""Checkpoints: everything a run needs to continue exactly (policy, optimizer, counters, the
random generators, the running episode metrics) plus its config, written atomically: a
kill at any moment leaves the previous checkpoint loadable."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import torch

from batchsim._files import write_atomically
from batchsim.errors import InvalidArgumentError
from batchsim.train.config import TrainConfig
from batchsim.train.models import Policy, input_channels

CHECKPOINT = "checkpoint.pt"
# TrainConfig fields that fix the policy's shape or what it sees: a checkpoint trained with
# other values would not load (shape mismatch) or would load and see the wrong inputs.
POLICY_FIELDS = (
    "sensors",
    "resolution",
    "encoder",
    "hidden_size",
    "rnn",
    "rnn_layers",
    "depth_bins",
    "max_depth",
    "cpca_steps",
)


def write_checkpoint(state: dict, path: str | os.PathLike) -> None:
    """torch.save to a temporary file in the same folder, fsync, then an atomic rename."""
    write_atomically(path, lambda f: torch.save(state, f))


def read_checkpoint(path: str | os.PathLike) -> dict:
    """A checkpoint written by `batchsim train`; a clear error for anything else."""
    path = Path(path)
    if path.is_dir():
        path = path / CHECKPOINT
    if not path.is_file():
        raise FileNotFoundError(
            f"checkpoint: expected a file written by batchsim train, got {path}"
        )
    state = torch.load(path, map_location="cpu", weights_only=False)
    missing = {"config", "policy", "updates"} - set(state if isinstance(state, dict) else {})
    if missing:
        raise ValueError(f"checkpoint {path}: expected keys {sorted(missing)} are missing")
    return state


def config_of(state: dict) -> TrainConfig:
    fields = {f.name for f in dataclasses.fields(TrainConfig)}
    config = TrainConfig(**{k: v for k, v in state["config"].items() if k in fields})
    config.sensors = tuple(config.sensors)
    return config


def check_compatible(saved: TrainConfig, wanted: TrainConfig, origin: str = "checkpoint") -> None:
    """InvalidArgumentError (a ValueError) naming every POLICY_FIELDS value where the
    checkpoint's config (`saved`) and this run's (`wanted`) differ, before any weights load."""
    differ = [
        f"{name}: checkpoint has {getattr(saved, name)!r}, this run asks for "
        f"{getattr(wanted, name)!r}"
        for name in POLICY_FIELDS
        if _normalised(getattr(saved, name)) != _normalised(getattr(wanted, name))
    ]
    if differ:
        raise InvalidArgumentError(
            f"{origin} does not fit this configuration (its policy was trained with other "
            "inputs or another network): " + "; ".join(differ)
        )


def _normalised(value):
    return tuple(value) if isinstance(value, list) else value


def load_policy(path: str | os.PathLike, device: str | torch.device = "cpu"):
    """(Policy with the checkpoint's weights on `device`, its TrainConfig)."""
    return policy_of(read_checkpoint(path), device)


def policy_of(state: dict, device: str | torch.device = "cpu"):
    """(Policy with the weights of a checkpoint's or snapshot's `state`, its TrainConfig)."""
    config = config_of(state)
    policy = Policy(
        config.encoder,
        input_channels(config.sensors, config.depth_bins),
        hidden=config.hidden_size,
        layers=config.rnn_layers,
        rnn=config.rnn,
        cpca_steps=config.cpca_steps,
    )
    policy.load_state_dict(state["policy"])
    return policy.to(device).eval(), config
