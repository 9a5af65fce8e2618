"""Graceful stops. While `batchsim train` runs, the first SIGINT or SIGTERM asks it to stop
after the current update, with a checkpoint to resume from; a second one is not caught: it
ends the process at once ("exit") or goes to the handlers train() replaced ("previous").
Under torchrun, a repeat within LAUNCHER_ECHO_S of the first is torchrun forwarding the
signal the rank already got, and is ignored.

Also the phase announcements of fault-injection tests: with BATCHSIM_TRAIN_PHASES=1 in the
environment, the trainer writes one line per phase to stderr, so that a test can kill it
during a rollout, an update or a checkpoint write."""

from __future__ import annotations

import os
import signal
import threading
import time

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
SECOND_SIGNAL = ("exit", "previous")
# torchrun forwards a stop signal it gets to every rank; a scheduler that signals every
# process of the job (Slurm) thus signals each rank twice, the echo milliseconds after.
LAUNCHER_ECHO_S = 5.0  # generous: a loaded machine may run torchrun late
LAUNCHER_VARIABLE = "TORCHELASTIC_RUN_ID"  # in every rank's environment under torchrun
PHASES_VARIABLE = "BATCHSIM_TRAIN_PHASES"
PHASE_PREFIX = "batchsim-train-phase:"


def _say(line: str) -> None:
    """One line on stderr with a single write(2): safe inside a signal handler (print() may
    be interrupted mid-line by it, and a progress bar shares the stream)."""
    os.write(2, (line + "\n").encode())


def announce(phase: str, update: int) -> None:
    """'batchsim-train-phase: PHASE UPDATE' on stderr when BATCHSIM_TRAIN_PHASES=1."""
    if os.environ.get(PHASES_VARIABLE) == "1":
        _say(f"{PHASE_PREFIX} {phase} {update}")


class StopOnSignals:
    """A context manager: `signal` is None until SIGINT or SIGTERM arrives, then that
    signal's number. Installs its handlers only when enabled and in the main thread (Python
    runs handlers there alone; elsewhere it is a no-op) and restores the previous ones on
    exit. second: "exit" makes a second signal take the system's default action (the
    process ends at once, status 130 or 143 in a shell); "previous" hands it to the handlers
    it replaced (SIGINT raises KeyboardInterrupt in a plain Python program). echo_s: a
    second signal sooner than this after the first is ignored (default: LAUNCHER_ECHO_S
    under torchrun, else 0)."""

    def __init__(self, enabled: bool = True, second: str = "previous", echo_s: float | None = None):
        if second not in SECOND_SIGNAL:
            raise ValueError(f"second: expected one of {SECOND_SIGNAL}, got {second!r}")
        if echo_s is None:
            echo_s = LAUNCHER_ECHO_S if LAUNCHER_VARIABLE in os.environ else 0.0
        self.enabled, self.second, self.echo_s = enabled, second, echo_s
        self.signal: int | None = None
        self._first_at = 0.0
        self._previous: dict[int, object] = {}

    @property
    def installed(self) -> bool:
        return bool(self._previous)

    def __enter__(self) -> StopOnSignals:
        if self.enabled and threading.current_thread() is threading.main_thread():
            for number in STOP_SIGNALS:
                self._previous[number] = signal.signal(number, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        self._restore()

    def _restore(self) -> None:
        for number, handler in self._previous.items():
            # None: a handler installed outside Python, which cannot be put back
            signal.signal(number, signal.SIG_DFL if handler is None else handler)
        self._previous = {}

    def _handle(self, number: int, frame) -> None:
        if self.signal is not None:  # a second signal while our handler waits for an echo
            if time.monotonic() - self._first_at >= self.echo_s:
                self._let_through()
                os.kill(os.getpid(), number)  # delivered anew, past our handler
            return
        self.signal, self._first_at = number, time.monotonic()
        # The second signal's fate is settled before the message, which tests wait for.
        if self.echo_s <= 0:
            self._let_through()
        name = signal.Signals(number).name
        _say(
            f"batchsim train: {name}: stopping after this update, with a checkpoint; "
            "signal again to quit at once (this update is then lost)"
        )

    def _let_through(self) -> None:
        """Signals from now on take the default action ("exit") or the replaced handlers."""
        if self.second == "exit":
            for each in STOP_SIGNALS:
                signal.signal(each, signal.SIG_DFL)
        else:
            self._restore()
