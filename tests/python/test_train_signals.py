"""Graceful stops from the Python API (train() in this process): the first SIGINT or
SIGTERM stops after the update with a checkpoint, a second goes to the caller's handler,
the caller's handlers are back afterwards, and nothing is installed off the main thread.
Also the atomic writes and the log rows a resume drops."""

from __future__ import annotations

import os
import signal
import threading

import pytest

torch = pytest.importorskip("torch")

from batchsim._files import remove_stale_temporaries, write_atomically  # noqa: E402
from batchsim.train import run, signals  # noqa: E402
from batchsim.train.checkpoint import read_checkpoint  # noqa: E402
from batchsim.train.signals import StopOnSignals  # noqa: E402
from batchsim.train.trainer import Trainer  # noqa: E402


@pytest.fixture
def callers_handler():
    """A SIGINT handler of the caller's that counts its calls; the old one is back after."""
    calls = []
    before = signal.signal(signal.SIGINT, lambda number, frame: calls.append(number))
    yield calls
    signal.signal(signal.SIGINT, before)


def signal_during_update(monkeypatch, update: int, count: int) -> None:
    """Makes this process send itself SIGINT `count` times during train_step `update`."""
    step = Trainer.train_step

    def train_step(self):
        if self.updates + 1 == update:
            for _ in range(count):
                os.kill(os.getpid(), signal.SIGINT)  # handled before the next bytecode
        return step(self)

    monkeypatch.setattr(Trainer, "train_step", train_step)


def test_the_api_stops_after_the_update_and_restores_the_handlers(
    exact_train_config, tmp_path, monkeypatch, callers_handler, capsys
):
    signal_during_update(monkeypatch, update=2, count=2)
    config = exact_train_config(tmp_path / "run", total_frames=32 * 5)
    trainer = train_and_close(config)
    assert trainer.stop_signal == signal.SIGINT and trainer.updates == 2
    assert read_checkpoint(tmp_path / "run")["updates"] == 2
    assert callers_handler == [signal.SIGINT]  # the second signal went to the caller
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    assert "stopped by SIGINT after update 2 of 5" in capsys.readouterr().err

    monkeypatch.undo()  # no signal: it runs to the end
    resumed = train_and_close(config, resume=True)
    assert resumed.stop_signal is None and resumed.updates == 5
    rows = (tmp_path / "run" / "metrics.csv").read_text().splitlines()
    assert [row.split(",")[0] for row in rows] == ["update", "1", "2", "3", "4", "5"]


def test_stop_on_signals_can_be_turned_off(
    exact_train_config, tmp_path, monkeypatch, callers_handler
):
    signal_during_update(monkeypatch, update=1, count=1)
    config = exact_train_config(tmp_path / "run", total_frames=32 * 2)
    trainer = train_and_close(config, stop_on_signals=False)
    assert trainer.stop_signal is None and trainer.updates == 2
    assert callers_handler == [signal.SIGINT]


def train_and_close(config, **options) -> Trainer:
    trainer = run.train(config, show_progress=False, **options)
    trainer.close()
    return trainer


def test_handlers_go_in_only_on_the_main_thread():
    seen = {}

    def elsewhere():
        with StopOnSignals() as stop:
            seen["installed"] = stop.installed

    thread = threading.Thread(target=elsewhere)
    thread.start()
    thread.join()
    assert seen == {"installed": False}
    before = signal.getsignal(signal.SIGTERM)
    with StopOnSignals(second="exit") as stop:
        assert stop.installed and signal.getsignal(signal.SIGTERM) == stop._handle
    assert signal.getsignal(signal.SIGTERM) is before
    with pytest.raises(ValueError, match="second: expected one of"):
        StopOnSignals(second="ignore")


def test_under_torchrun_a_repeat_within_the_echo_window_is_ignored(monkeypatch, callers_handler):
    """torchrun forwards the signal a rank may already have from the scheduler: that echo is
    not a second signal; one after the window is (test_train_signals_ranks.py: the echo)."""
    now = [100.0]
    monkeypatch.setattr(signals.time, "monotonic", lambda: now[0])
    monkeypatch.setenv(signals.LAUNCHER_VARIABLE, "run-7")
    with StopOnSignals() as stop:
        assert stop.echo_s == signals.LAUNCHER_ECHO_S == 5.0
        os.kill(os.getpid(), signal.SIGINT)  # handled before the next bytecode
        assert stop.signal == signal.SIGINT
        now[0] += 4.9
        os.kill(os.getpid(), signal.SIGINT)  # the echo
        assert callers_handler == [] and stop.installed
        now[0] += 0.2
        os.kill(os.getpid(), signal.SIGINT)  # a second signal: on to the caller's handler
        assert callers_handler == [signal.SIGINT] and not stop.installed
    monkeypatch.delenv(signals.LAUNCHER_VARIABLE)
    assert StopOnSignals().echo_s == 0  # alone, a second signal is never an echo


def test_a_failed_write_keeps_the_old_file(tmp_path):
    path = tmp_path / "checkpoint.pt"
    write_atomically(path, lambda f: f.write(b"old"))

    def half_then_fail(f):
        f.write(b"new, half written")
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError, match="disk on fire"):
        write_atomically(path, half_then_fail)
    assert path.read_bytes() == b"old"
    assert list(tmp_path.iterdir()) == [path]
    stale = tmp_path / ".checkpoint.pt.abc123.tmp"  # what a SIGKILLed writer leaves
    stale.write_bytes(b"partial")
    (tmp_path / ".other.pt.abc123.tmp").write_bytes(b"not ours")
    assert remove_stale_temporaries(path) == [stale]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".other.pt.abc123.tmp", path.name]


def test_a_resume_drops_the_rows_logged_after_its_checkpoint(tmp_path):
    path = tmp_path / "metrics.csv"
    path.write_text("update,frames\r\n1,32\r\n2,64\r\n3,96\r\n4,1")  # killed mid-row
    run._drop_rows_after(path, 2)
    assert path.read_text() == "update,frames\n1,32\n2,64\n"
    run._drop_rows_after(path, 2)  # nothing more to drop: unchanged
    assert path.read_bytes() == b"update,frames\r\n1,32\r\n2,64\r\n"
    path.write_text("upd")  # killed while writing the header: the next row writes it
    run._drop_rows_after(path, 2)
    assert not path.exists()
