"""Checkpoints: everything a run needs to continue exactly (policy, optimizer, counters, the
random generators, the running episode metrics) plus its config, written atomically: a
kill at any moment leaves the previous checkpoint loadable."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import torch

from batchsim._files import write_atomically
from batchsim.train.config import TrainConfig
from batchsim.train.models import Policy, input_channels

CHECKPOINT = "checkpoint.pt"


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


def load_policy(path: str | os.PathLike, device: str | torch.device = "cpu"):
    """(Policy with the checkpoint's weights on `device`, its TrainConfig)."""
    state = read_checkpoint(path)
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
