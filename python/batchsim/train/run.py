"""`batchsim train`: runs the Trainer for config.total_frames with a progress bar (frames/s,
success, SPL), writes every update's statistics to <log_dir>/metrics.csv and checkpoints
(policy, optimizer, config, counters) to <log_dir>/checkpoint.pt, each atomically."""

from __future__ import annotations

import csv
import dataclasses
import os
import tempfile
from pathlib import Path

import torch

from batchsim._progress import progress_bar
from batchsim.train.config import TrainConfig
from batchsim.train.trainer import Trainer

COLUMNS = (
    "update",
    "frames",
    "success",
    "spl",
    "episodes",
    "frames_per_s",
    "collect_s",
    "update_s",
    "lr",
    "policy_loss",
    "value_loss",
    "entropy",
    "clip_fraction",
    "approx_kl",
)


def save_checkpoint(trainer: Trainer, path: Path) -> None:
    """The policy, optimizer and counters, written to a temporary file then renamed."""
    state = {
        "config": dataclasses.asdict(trainer.config),
        "policy": trainer.policy.state_dict(),
        "optimizer": trainer.optimizer.state_dict(),
        "updates": trainer.updates,
        "frames": trainer.frames,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, delete=False, suffix=".tmp") as tmp:
        torch.save(state, tmp)
    os.replace(tmp.name, path)


def _append_row(path: Path, row: dict) -> None:
    new = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, COLUMNS, extrasaction="ignore")
        if new:
            writer.writeheader()
        writer.writerow(row)


def train(config: TrainConfig, show_progress: bool = True) -> Trainer:
    log_dir = Path(config.log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    trainer = Trainer(config)
    bar = progress_bar(
        total=config.total_updates * config.frames_per_update,
        unit="frame",
        desc="train",
        disable=not show_progress,
    )
    while trainer.updates < config.total_updates:
        stats = trainer.train_step()
        _append_row(
            log_dir / "metrics.csv", {"update": trainer.updates, "frames": trainer.frames, **stats}
        )
        bar.update(config.frames_per_update)
        shown = {"fps": f"{stats['frames_per_s']:,.0f}"}
        if "success" in stats:
            shown |= {"success": f"{stats['success']:.2f}", "spl": f"{stats['spl']:.2f}"}
        bar.set_postfix(shown)
        if config.checkpoint_every and trainer.updates % config.checkpoint_every == 0:
            save_checkpoint(trainer, log_dir / "checkpoint.pt")
    bar.close()
    save_checkpoint(trainer, log_dir / "checkpoint.pt")
    return trainer
