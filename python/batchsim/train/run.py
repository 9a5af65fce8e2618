"""`batchsim train`: runs the Trainer for config.total_frames with a progress bar (frames/s,
success, SPL). Rank 0 writes every update's statistics to <log_dir>/metrics.csv and to
TensorBoard (charts/, losses/, perf/), validation results to <log_dir>/val.csv, policy
snapshots to <log_dir>/snapshots/ (batchsim.train.snapshots) and checkpoints to
<log_dir>/checkpoint.pt (atomically; each at a segment start, so that `resume=True`
continues exactly). Rows, checkpoints and snapshots carry elapsed_s, the seconds since the
command started (batchsim.train.elapsed). SIGINT or SIGTERM stops it after the current
update with a checkpoint (batchsim.train.signals). A resume first drops the log rows (and
snapshots) of updates after its checkpoint, so that a killed run's logs carry on without
repeats."""

from __future__ import annotations

import csv
import dataclasses
import difflib
import io
import signal
import sys
import time
import warnings
from pathlib import Path

from batchsim._files import remove_stale_temporaries, write_bytes_atomically
from batchsim._progress import progress_bar
from batchsim.datasets import scene_check
from batchsim.errors import InvalidArgumentError, MissingFileError
from batchsim.train import distributed, snapshots
from batchsim.train.checkpoint import (
    CHECKPOINT,
    ResumeChangeWarning,
    check_compatible,
    config_of,
    config_state,
    read_checkpoint,
    resume_changes,
    write_checkpoint,
)
from batchsim.train.config import TrainConfig
from batchsim.train.elapsed import ElapsedClock, carried_over
from batchsim.train.signals import StopOnSignals, announce
from batchsim.train.trainer import Trainer

CHARTS = (
    "success",
    "spl",
    "episodes",
    "stop_fraction",
    "lr",
    "entropy_coef",
    "scene_loads",
    "curriculum_m",
)
LOSSES = (
    "policy_loss",
    "value_loss",
    "entropy",
    "clip_fraction",
    "approx_kl",
    "cpca_loss",
    "id_loss",
    "td_loss",
    "value_norm_mean",
    "value_norm_std",
)
PERF = ("frames_per_s", "collect_s", "update_s", "inference_s", "sim_wait_s")
COUNTERS = ("update", "frames", "wall_s", "elapsed_s")
COLUMNS = (*COUNTERS, *CHARTS, *LOSSES, *PERF)


def _append_row(path: Path, columns, row: dict) -> None:
    """A row under the file's own header, if it has one (a run resumed from an older
    version's logs keeps its columns), else under `columns`."""
    new = not path.exists()
    if not new:
        with path.open(newline="") as f:
            columns = next(csv.reader(f), None) or columns
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, columns, extrasaction="ignore")
        if new:
            writer.writeheader()
        writer.writerow(row)


class RunLog:
    """metrics.csv plus TensorBoard when the tensorboard package is installed."""

    def __init__(self, log_dir: Path, enabled: bool, resumed_frames: int | None = None):
        self.log_dir, self.enabled, self.writer = log_dir, enabled, None
        if not enabled:
            return
        try:
            from torch.utils.tensorboard import SummaryWriter
        except ImportError:
            warnings.warn(
                'TensorBoard logs need the tensorboard package (pip install "batchsim[train]");'
                " writing metrics.csv only",
                stacklevel=2,
            )
        else:
            # A resume hides the events that a killed run logged after its checkpoint.
            purge = None if resumed_frames is None else resumed_frames + 1
            self.writer = SummaryWriter(str(log_dir), purge_step=purge)

    def update(self, row: dict) -> None:
        if not self.enabled:
            return
        _append_row(self.log_dir / "metrics.csv", COLUMNS, row)
        if self.writer is not None:
            for group, names in (("charts", CHARTS), ("losses", LOSSES), ("perf", PERF)):
                for name in names:
                    if name in row:
                        self.writer.add_scalar(f"{group}/{name}", row[name], row["frames"])

    def validation(self, row: dict) -> None:
        if not self.enabled:
            return
        _append_row(self.log_dir / "val.csv", tuple(row), row)
        if self.writer is not None:
            for name, value in row.items():
                if name not in COUNTERS:
                    self.writer.add_scalar(f"val/{name}", value, row["frames"])

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def save(trainer: Trainer, path: Path, elapsed_s: float) -> None:
    """A new segment starts, then rank 0 writes the checkpoint (every rank takes part)."""
    trainer.begin_segment()
    state = trainer.state_dict() | {"config": config_state(trainer.config)}
    state["elapsed_s"] = elapsed_s
    if trainer.rank == 0:
        announce("checkpoint", trainer.updates)
        write_checkpoint(state, path)
        announce("checkpoint-written", trainer.updates)


def _counters(trainer: Trainer, elapsed: ElapsedClock) -> dict:
    return {
        "update": trainer.updates,
        "frames": trainer.frames,
        "wall_s": trainer.wall_s,
        "elapsed_s": elapsed(),
    }


def _validate(trainer: Trainer, log: RunLog, elapsed: ElapsedClock) -> None:
    from batchsim.datasets.real_buildings import prepare_real_buildings
    from batchsim.train.evaluate import evaluate_policy

    sim = trainer.config.sim.replace(num_threads=trainer.sim_threads)
    config = dataclasses.replace(trainer.config, sim=sim, auto_threads=False)
    summary = evaluate_policy(trainer.policy, config, config.val_dataset)
    row = _counters(trainer, elapsed)
    for name, value in summary.items():
        row[name] = value["mean"]
    if config.real_buildings:
        real = prepare_real_buildings(
            config.real_buildings, config.real_episodes, log=lambda *_: None
        )
        on_real = dataclasses.replace(config, scenes_dir=str(real.scenes_dir))
        for name, value in evaluate_policy(trainer.policy, on_real, str(real.split)).items():
            row["real_" + name] = value["mean"]
    log.validation(row)


def _agreed_time_up(started: float, limit_s: float) -> bool:
    """Whether rank 0's clock passed the limit; every rank gets rank 0's answer, so all stop
    at the same update."""
    return distributed.gather(time.time() - started >= limit_s)[0]


def _agreed_signal(stop: StopOnSignals) -> int | None:
    """The stop signal of the first rank that got one (None: none did); every rank gets the
    same answer, so all stop at the same update, and none waits in a collective for a rank
    that left."""
    return next((s for s in distributed.gather(stop.signal) if s is not None), None)


def check_splits(config: TrainConfig, show_progress: bool = True, training=None) -> None:
    """SceneCheckError listing every scene of the training split (`training`, if loaded
    already) and of val_dataset when validating that the simulators could not load."""
    training = training or config.load_split(config.dataset)
    scene_check.check_scenes(training, show_progress=show_progress)
    if config.eval_every and config.val_dataset != config.dataset:
        scene_check.check_scenes(config.load_split(config.val_dataset), show_progress=show_progress)


def _clear_logs(log_dir: Path) -> None:
    """A fresh run starts fresh logs (a resumed one appends to its own)."""
    for pattern in ("metrics.csv", "val.csv", "eval.json", "events.out.tfevents.*"):
        for path in log_dir.glob(pattern):
            path.unlink()


def _drop_rows_after(path: Path, updates: int) -> None:
    """Keeps the header and the complete rows of updates up to `updates`: a killed run may
    have logged updates past its checkpoint, or half a row."""
    if not path.exists():
        return
    text = path.read_text()
    complete = text[: text.rfind("\n") + 1]  # without a half-written last line
    rows = list(csv.reader(io.StringIO(complete, newline="")))
    if not rows:  # not even the header: the next row writes it again
        path.unlink()
        return
    width = len(rows[0])
    kept = [r for r in rows[1:] if len(r) == width and r[0].isdigit() and int(r[0]) <= updates]
    if len(kept) == len(rows) - 1 and complete == text:
        return
    out = io.StringIO()
    csv.writer(out).writerows(rows[:1] + kept)
    write_bytes_atomically(path, out.getvalue().encode())


def _prepare_log_dir(log_dir: Path, checkpoint: dict | None) -> None:
    """Rank 0, before training: clears a killed writer's temporary checkpoint; a fresh run
    clears the logs, a resumed one drops what was logged after its checkpoint."""
    log_dir.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(log_dir / CHECKPOINT)
    snapshots.prepare_folder(log_dir, None if checkpoint is None else checkpoint["updates"])
    if checkpoint is None:
        _clear_logs(log_dir)
        return
    for name in ("metrics.csv", "val.csv"):
        _drop_rows_after(log_dir / name, checkpoint["updates"])


def train(
    config: TrainConfig,
    show_progress: bool = True,
    resume: bool | str = False,
    time_limit_s: float | None = None,
    stop_on_signals: bool = True,
    second_signal: str = "previous",
    check_scenes: bool = True,
    started_at: float | None = None,
) -> Trainer:
    """Trains until total_frames, until (`time_limit_s`) the first update that ends past
    that many seconds after `started_at`, or (`stop_on_signals`, main thread only) until
    the update during which SIGINT or SIGTERM arrived; each way the last checkpoint is
    written, so `resume=True` continues exactly, and `trainer.stop_signal` says which signal
    stopped it (None: none did). A second signal is not caught (batchsim.train.signals:
    `second_signal` "previous" or "exit"); the previous handlers are back on return.
    resume=True needs log_dir's checkpoint (MissingFileError without one), "if_present"
    starts a new run where there is none (resumed_checkpoint). Before anything is built, a
    resumed checkpoint must fit the config (check_compatible; other settings that change
    the run are named in a ResumeChangeWarning) and, with
    `check_scenes`, every scene of the splits it will load must pass the loader's checks
    (check_splits). The time limit and elapsed_s count from `started_at` (Unix time;
    `batchsim train`: the command's start, start-up included,
    batchsim.train.elapsed.command_started), or from this call."""
    started_at = time.time() if started_at is None else started_at
    with StopOnSignals(stop_on_signals, second_signal) as stop:
        return _train(config, show_progress, resume, time_limit_s, stop, check_scenes, started_at)


def _train(
    config, show_progress, resume, time_limit_s, stop: StopOnSignals, check_scenes, started_at
) -> Trainer:
    log_dir = Path(config.log_dir)
    path = log_dir / CHECKPOINT
    checkpoint = distributed.from_rank_zero(lambda: resumed_checkpoint(path, resume), config.device)
    if checkpoint is not None:
        check_compatible(config_of(checkpoint), config, f"checkpoint {path}")
        if distributed.rank_and_world(config.device)[0] == 0:
            warn_resume_changes(config_of(checkpoint), config, path)
    elapsed = ElapsedClock(started_at, carried_over(checkpoint))
    # Loaded once for the check and the simulators: 800k episodes take ~30 s to parse.
    training = config.load_split(config.dataset)
    if check_scenes:
        check_splits(config, show_progress, training)
    trainer = Trainer(config, checkpoint, training)
    main_rank = trainer.rank == 0
    if main_rank:
        _prepare_log_dir(log_dir, checkpoint)
    snapshot = snapshots.Snapshots(config, elapsed, enabled=main_rank)
    snapshot.start(trainer)
    resumed_frames = None if checkpoint is None else checkpoint["frames"]
    log = RunLog(log_dir, enabled=main_rank, resumed_frames=resumed_frames)
    bar = progress_bar(
        total=trainer.total_updates * config.frames_per_update * trainer.world,
        unit="frame",
        desc="train",
        disable=not (show_progress and main_rank),
    )
    bar.update(trainer.frames)
    saved_at = None if checkpoint is None else trainer.updates
    while trainer.updates < trainer.total_updates and _agreed_signal(stop) is None:
        stats = trainer.train_step()
        log.update(_counters(trainer, elapsed) | stats)
        bar.update(config.frames_per_update * trainer.world)
        shown = {"fps": f"{stats['frames_per_s']:,.0f}"}
        if "success" in stats:
            shown |= {"success": f"{stats['success']:.2f}", "spl": f"{stats['spl']:.2f}"}
        bar.set_postfix(shown)
        if config.eval_every and trainer.updates % config.eval_every == 0 and main_rank:
            _validate(trainer, log, elapsed)
        if config.checkpoint_every and trainer.updates % config.checkpoint_every == 0:
            save(trainer, path, elapsed())
            saved_at = trainer.updates
        snapshot.due(trainer)
        if time_limit_s is not None and _agreed_time_up(started_at, time_limit_s):
            break
    bar.close()
    if saved_at != trainer.updates:
        save(trainer, path, elapsed())
    snapshot.final(trainer)
    trainer.stop_signal = _agreed_signal(stop)  # also one that came during the last update
    if trainer.stop_signal is not None and main_rank:
        _say_stopped(trainer.stop_signal, trainer, path)
    log.close()
    distributed.barrier()
    return trainer


RESUME_MODES = (False, True, "if_present")


def resumed_checkpoint(path: Path, resume: bool | str) -> dict | None:
    """The checkpoint at `path` to continue from, or None for a new run. resume=True needs
    one: MissingFileError naming the path (and runs nearby that have one), since a mistyped
    log_dir would otherwise start over; "if_present": None when there is none."""
    if resume not in RESUME_MODES:
        raise InvalidArgumentError(f"resume: expected one of {list(RESUME_MODES)}, got {resume!r}")
    if not resume:
        return None
    if path.exists():
        return read_checkpoint(path)
    if resume == "if_present":
        return None
    nearby = sorted(str(p.parent) for p in path.parent.parent.glob(f"*/{CHECKPOINT}"))
    close = difflib.get_close_matches(str(path.parent), nearby, n=3)
    hint = f"; runs with one nearby: {', '.join(close)}" if close else ""
    raise MissingFileError(
        f"resume: no checkpoint at {path}, so nothing to continue (log_dir "
        f"{path.parent}){hint}. Check log_dir, leave out --resume to start a new run, or use "
        "--resume-or-start (resume='if_present') for a job that may be restarted"
    )


def warn_resume_changes(saved: TrainConfig, wanted: TrainConfig, path: Path) -> None:
    """A warning naming every field this run changes from the checkpoint's that makes it
    differ from the run the checkpoint would have continued (checkpoint.resume_changes)."""
    changes = resume_changes(saved, wanted)
    if changes:
        warnings.warn(
            f"resuming {path} with other settings: " + "; ".join(changes) + ". The run goes "
            "on, but it is no longer the one the checkpoint would have continued (resuming is "
            "exact only with the same settings)",
            ResumeChangeWarning,
            stacklevel=3,
        )


def _say_stopped(number: int, trainer: Trainer, path: Path) -> None:
    name = signal.Signals(number).name
    print(
        f"batchsim train: stopped by {name} after update {trainer.updates} of "
        f"{trainer.total_updates}; checkpoint {path} (resume=True or --resume continues)",
        file=sys.stderr,
    )
