"""Policy snapshots for held-out learning curves: with `snapshot_every_s` > 0, rank 0 writes
the policy at the start, at the first update past every multiple of that many seconds of
elapsed time (batchsim.train.elapsed) and at the end, as
<log_dir>/snapshots/snapshot-<updates, 8 digits>.pt. Each holds the weights, the config and
the counters (updates, frames, wall_s, elapsed_s, world), no optimiser: a few MB, and
`batchsim eval --snapshots` evaluates them all afterwards on a split the run never saw,
which costs the run no training time. A snapshot also loads wherever a checkpoint does
(`batchsim eval --checkpoint`, load_policy).

Files are written atomically (a kill leaves a whole file or none). A fresh run deletes the
old snapshots, as it does the logs; a resumed run deletes those past its checkpoint's update
(a killed run's, whose weights the resumed run will not have), then goes on."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path

from batchsim.train.checkpoint import config_state, read_checkpoint, write_checkpoint

FOLDER = "snapshots"
_NAME = re.compile(r"snapshot-(\d+)\.pt")
COUNTERS = ("updates", "frames", "wall_s", "elapsed_s", "world")


def snapshot_path(log_dir: str | Path, updates: int) -> Path:
    return Path(log_dir) / FOLDER / f"snapshot-{updates:08d}.pt"


def list_snapshots(run_dir: str | Path) -> list[Path]:
    """The snapshots of a run (its log_dir, or the snapshots folder itself), by update."""
    folder = Path(run_dir)
    if folder.name != FOLDER and (folder / FOLDER).is_dir():
        folder = folder / FOLDER
    found = [(int(m.group(1)), p) for p in folder.glob("snapshot-*.pt") if (m := _match(p))]
    return [path for _, path in sorted(found)]


def _match(path: Path):
    return _NAME.fullmatch(path.name)


def prepare_folder(log_dir: str | Path, resumed_updates: int | None) -> None:
    """Rank 0, before training: deletes killed writers' temporary files, then every
    snapshot (a fresh run: `resumed_updates` None) or those past the resumed update."""
    folder = Path(log_dir) / FOLDER
    for temporary in folder.glob(".snapshot-*.tmp"):
        temporary.unlink(missing_ok=True)
    for path in list_snapshots(folder):
        if resumed_updates is None or int(_match(path).group(1)) > resumed_updates:
            path.unlink()


def write_snapshot(path: Path, policy, config, counters: dict) -> None:
    """The policy's weights (on the CPU), `config` (a TrainConfig) and `counters`."""
    missing = sorted(set(COUNTERS) - set(counters))
    if missing:
        raise ValueError(f"snapshot counters: expected {list(COUNTERS)}, missing {missing}")
    weights = {name: tensor.detach().cpu() for name, tensor in policy.state_dict().items()}
    state = {"policy": weights, "config": config_state(config)} | counters
    write_checkpoint(state, path)


def read_counters(path: str | Path) -> tuple[dict, dict]:
    """(A snapshot's COUNTERS, its whole state); ValueError for a file without them."""
    state = read_checkpoint(path)
    missing = [name for name in COUNTERS if name not in state]
    if missing:
        raise ValueError(f"snapshot {path}: expected counters {list(COUNTERS)}, lacks {missing}")
    return {name: state[name] for name in COUNTERS}, state


class Snapshots:
    """Takes the snapshots of one run: `due(trainer)` after each update, `final(trainer)`
    after the last checkpoint. `elapsed` is the run's ElapsedClock; `enabled`: rank 0."""

    def __init__(self, config, elapsed: Callable[[], float], enabled: bool):
        self.every_s, self.log_dir = config.snapshot_every_s, Path(config.log_dir)
        self.elapsed = elapsed
        self.enabled = enabled and self.every_s > 0
        self.next_s = self._after(elapsed()) if self.enabled else math.inf
        self.written: set[int] = set()  # updates this process wrote a snapshot of

    def _after(self, elapsed_s: float) -> float:
        return (math.floor(elapsed_s / self.every_s) + 1) * self.every_s

    def start(self, trainer) -> None:
        """The untrained policy of a fresh run (a resumed one has its own already)."""
        path = snapshot_path(self.log_dir, trainer.updates)
        if self.enabled and trainer.updates == 0 and not path.exists():
            self._take(trainer)

    def due(self, trainer) -> None:
        if self.enabled and self.elapsed() >= self.next_s:
            self._take(trainer)

    def final(self, trainer) -> None:
        """The last update's, its elapsed_s counting the final checkpoint; one an earlier
        command wrote of this update (a resumed run with nothing left to do) is kept."""
        path = snapshot_path(self.log_dir, trainer.updates)
        if self.enabled and (trainer.updates in self.written or not path.exists()):
            self._take(trainer)

    def _take(self, trainer) -> None:
        elapsed_s = self.elapsed()
        counters = {
            "updates": trainer.updates,
            "frames": trainer.frames,
            "wall_s": trainer.wall_s,
            "elapsed_s": elapsed_s,
            "world": trainer.world,
        }
        path = snapshot_path(self.log_dir, trainer.updates)
        write_snapshot(path, trainer.policy, trainer.config, counters)
        self.written.add(trainer.updates)
        self.next_s = self._after(elapsed_s)
