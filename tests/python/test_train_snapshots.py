"""Elapsed time since the command started (start-up included) in the logs, checkpoints and
policy snapshots, and the snapshots' schedule, atomic writes and their handling by a fresh
run and by --resume (batchsim.train.elapsed, batchsim.train.snapshots)."""

from __future__ import annotations

import csv
import os
import subprocess
import time
import types

import pytest

torch = pytest.importorskip("torch")

from batchsim.errors import InvalidArgumentError  # noqa: E402
from batchsim.train import elapsed, snapshots  # noqa: E402
from batchsim.train.checkpoint import load_policy, read_checkpoint  # noqa: E402
from batchsim.train.run import _append_row, train  # noqa: E402

FRAMES_PER_UPDATE = 4 * 8


@pytest.fixture
def tiny_config(tiny_train_config):
    """conftest's tiny run, with a smaller policy and shorter episodes."""
    return lambda log_dir, **fields: tiny_train_config(
        log_dir, **{"hidden_size": 16, "sim.task.max_episode_steps": 30, **fields}
    )


def rows(path) -> list[dict]:
    with path.open() as f:
        return list(csv.DictReader(f))


def names(log_dir) -> list[str]:
    return [p.name for p in snapshots.list_snapshots(log_dir)]


def test_snapshots_carry_the_counters_and_the_time_since_the_command_started(tiny_config, tmp_path):
    log_dir = tmp_path / "run"
    config = tiny_config(log_dir, total_frames=96, snapshot_every_s=1e-6)
    started_at = time.time() - 100  # as if the command had started 100 s ago
    train(config, show_progress=False, started_at=started_at).close()
    metrics = {int(r["update"]): r for r in rows(log_dir / "metrics.csv")}
    assert list(metrics) == [1, 2, 3]
    assert names(log_dir) == [f"snapshot-{u:08d}.pt" for u in range(4)]  # start, each update
    previous = 100.0
    for path in snapshots.list_snapshots(log_dir):
        counters, _ = snapshots.read_counters(path)
        updates = counters["updates"]
        assert counters["frames"] == updates * FRAMES_PER_UPDATE and counters["world"] == 1
        assert counters["elapsed_s"] > previous  # counted from started_at, increasing
        previous = counters["elapsed_s"]
        if updates:  # taken after the update's row: same training time, a later clock
            row = metrics[updates]
            assert counters["wall_s"] == pytest.approx(float(row["wall_s"]), rel=1e-12)
            assert counters["elapsed_s"] >= float(row["elapsed_s"]) > 100 + float(row["wall_s"])
    assert previous < 100 + 300  # the run took seconds, not minutes
    checkpoint = read_checkpoint(log_dir)
    final, state = snapshots.read_counters(snapshots.list_snapshots(log_dir)[-1])
    assert metrics[3]["elapsed_s"] and float(metrics[3]["elapsed_s"]) <= checkpoint["elapsed_s"]
    assert checkpoint["elapsed_s"] <= final["elapsed_s"]  # the end one counts the checkpoint
    assert state.keys() == {"policy", "config", *snapshots.COUNTERS}  # no optimiser
    for name, tensor in checkpoint["policy"].items():
        assert torch.equal(state["policy"][name], tensor)
    policy, loaded = load_policy(snapshots.list_snapshots(log_dir)[-1])  # loads as a checkpoint
    assert loaded.snapshot_every_s == 1e-6 and policy.hidden == 16
    assert not list((log_dir / "snapshots").glob(".*"))  # no temporary left


class FakeClock:
    def __init__(self, *values):
        self.values = list(values)

    def __call__(self) -> float:
        return self.values.pop(0)


def fake_trainer(tiny_config, log_dir, every_s):
    config = tiny_config(log_dir, snapshot_every_s=every_s)
    policy = torch.nn.Linear(2, 2)
    return types.SimpleNamespace(
        config=config, policy=policy, updates=0, frames=0, wall_s=0.0, world=2
    )


def test_the_schedule_takes_the_first_update_past_each_multiple_of_the_period(
    tiny_config, tmp_path
):
    trainer = fake_trainer(tiny_config, tmp_path, every_s=10)
    # construction at 3 s, the start's snapshot at 4 s, then one clock reading per update
    # (and one more for each snapshot taken)
    clock = FakeClock(3, 4, 5, 10, 10.5, 27, 27.5, 29, 31, 31.5, 32)
    taken = snapshots.Snapshots(trainer.config, clock, enabled=True)
    taken.start(trainer)
    for update in range(1, 6):
        trainer.updates, trainer.frames = update, update * 64
        taken.due(trainer)
    assert names(tmp_path) == [f"snapshot-{u:08d}.pt" for u in (0, 2, 3, 5)]
    elapsed_at = [
        snapshots.read_counters(p)[0]["elapsed_s"] for p in snapshots.list_snapshots(tmp_path)
    ]
    assert elapsed_at == [4, 10.5, 27.5, 31.5]
    taken.final(trainer)  # this process wrote update 5's: again, with the later clock
    assert snapshots.read_counters(snapshots.snapshot_path(tmp_path, 5))[0]["elapsed_s"] == 32


def test_off_takes_none_and_rank_zero_alone_writes(tiny_config, tmp_path):
    trainer = fake_trainer(tiny_config, tmp_path, every_s=0)
    for every_s, enabled in ((0, True), (1e-6, False)):
        trainer.config.snapshot_every_s = every_s
        taken = snapshots.Snapshots(trainer.config, FakeClock(1, 2, 3), enabled=enabled)
        taken.start(trainer)
        trainer.updates = 1
        taken.due(trainer)
        taken.final(trainer)
    assert not (tmp_path / "snapshots").exists()
    with pytest.raises(ValueError, match="snapshot_every_s: expected a finite number >= 0"):
        tiny_config(tmp_path, snapshot_every_s=-1)


def test_a_write_that_fails_midway_leaves_no_snapshot_and_a_stale_temporary_goes(
    tiny_config, tmp_path, monkeypatch
):
    trainer = fake_trainer(tiny_config, tmp_path, every_s=1)

    def half_then_fail(state, f):
        f.write(b"PK\x03\x04 half a snapshot")
        raise OSError("disk full")

    monkeypatch.setattr(torch, "save", half_then_fail)
    with pytest.raises(OSError, match="disk full"):
        snapshots.Snapshots(trainer.config, FakeClock(0, 1), enabled=True).start(trainer)
    assert not (tmp_path / "snapshots").exists() or not any((tmp_path / "snapshots").iterdir())
    stale = tmp_path / "snapshots" / ".snapshot-00000003.pt.x1y2.tmp"  # a killed writer's
    stale.parent.mkdir(exist_ok=True)
    stale.write_bytes(b"half")
    snapshots.prepare_folder(tmp_path, resumed_updates=3)
    assert not stale.exists()


def test_resume_drops_later_snapshots_and_carries_the_clock_a_fresh_run_clears(
    tiny_config, tmp_path
):
    log_dir = tmp_path / "run"
    first = tiny_config(log_dir, checkpoint_every=1, snapshot_every_s=1e-6)
    train(first, show_progress=False).close()  # updates 1, 2; checkpoint at 2
    kept = {p.name: p.read_bytes() for p in snapshots.list_snapshots(log_dir)}
    assert list(kept) == [f"snapshot-{u:08d}.pt" for u in (0, 1, 2)]
    killed = snapshots.snapshot_path(log_dir, 7)  # as if a killed run had gone on to update 7
    killed.write_bytes(kept["snapshot-00000002.pt"])
    saved_elapsed = read_checkpoint(log_dir)["elapsed_s"]

    resumed = tiny_config(log_dir, checkpoint_every=1, snapshot_every_s=1e-6, total_frames=128)
    before = time.time()
    train(resumed, show_progress=False, resume=True, started_at=before).close()
    took = time.time() - before
    assert names(log_dir) == [f"snapshot-{u:08d}.pt" for u in range(5)]
    for name, data in kept.items():  # the checkpoint's past: untouched
        assert (log_dir / "snapshots" / name).read_bytes() == data
    for update in (3, 4):
        counters, _ = snapshots.read_counters(snapshots.snapshot_path(log_dir, update))
        assert counters["frames"] == update * FRAMES_PER_UPDATE
        assert saved_elapsed < counters["elapsed_s"] <= saved_elapsed + took
    elapsed_column = [float(r["elapsed_s"]) for r in rows(log_dir / "metrics.csv")]
    assert len(elapsed_column) == 4 and elapsed_column == sorted(elapsed_column)
    assert elapsed_column[1] <= saved_elapsed < elapsed_column[2]

    train(tiny_config(log_dir, snapshot_every_s=1e6), show_progress=False).close()
    assert names(log_dir) == ["snapshot-00000000.pt", "snapshot-00000002.pt"]  # start, end
    train(tiny_config(log_dir), show_progress=False).close()  # off: cleared, none new
    assert names(log_dir) == []


def test_the_command_start_comes_from_proc_the_environment_or_torchrun(monkeypatch):
    ps = subprocess.run(["ps", "-o", "etimes=", "-p", str(os.getpid())], capture_output=True)
    age = time.time() - elapsed.process_started()
    assert age == pytest.approx(int(ps.stdout), abs=1.5)  # ps counts whole seconds
    parent = subprocess.run(["ps", "-o", "etimes=", "-p", str(os.getppid())], capture_output=True)
    assert time.time() - elapsed.process_started(os.getppid()) == pytest.approx(
        int(parent.stdout), abs=1.5
    )
    assert elapsed.process_started(2**22 + 12345) is None  # no such process

    monkeypatch.delenv(elapsed.ENVIRONMENT, raising=False)
    monkeypatch.delenv("TORCHELASTIC_RUN_ID", raising=False)
    assert elapsed.command_started() == pytest.approx(elapsed.process_started(), abs=0.05)
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "job")  # a rank: torchrun is its parent
    assert elapsed.command_started() == pytest.approx(
        elapsed.process_started(os.getppid()), abs=0.05
    )
    monkeypatch.setenv(elapsed.ENVIRONMENT, "1700000000.25")
    assert elapsed.command_started() == 1700000000.25
    for bad in ("soon", "nan", str(time.time() + 3600)):
        monkeypatch.setenv(elapsed.ENVIRONMENT, bad)
        with pytest.raises(InvalidArgumentError, match="BATCHSIM_COMMAND_STARTED: expected"):
            elapsed.command_started()


def test_the_clock_carries_a_checkpoints_elapsed_time_or_its_training_time():
    assert elapsed.carried_over(None) == 0.0
    assert elapsed.carried_over({"wall_s": 12.5, "elapsed_s": 30.0}) == 30.0
    assert elapsed.carried_over({"wall_s": 12.5}) == 12.5  # written before elapsed_s
    clock = elapsed.ElapsedClock(time.time() - 5, carried_s=30.0)
    assert 35.0 <= clock() < 36.0


def test_a_resumed_older_log_keeps_its_own_columns(tmp_path):
    path = tmp_path / "metrics.csv"
    path.write_text("update,frames,wall_s,success\n1,32,0.5,0.25\n")
    _append_row(
        path,
        ("update", "frames", "wall_s", "elapsed_s", "success"),
        {"update": 2, "frames": 64, "wall_s": 1.0, "elapsed_s": 9.0, "success": 0.5},
    )
    assert path.read_text().splitlines() == [
        "update,frames,wall_s,success",
        "1,32,0.5,0.25",
        "2,64,1.0,0.5",
    ]
