"""Elapsed time: seconds since the command started, start-up included (imports, the scene
check, building the simulators), the wall-time axis of the held-out learning curves
(`elapsed_s` in metrics.csv, val.csv, checkpoints and policy snapshots).

The command's start is, first found: $BATCHSIM_COMMAND_STARTED (Unix seconds, for a wrapper
whose own start-up should count); under torchrun, torchrun's start (the rank's parent
process, so the rendezvous counts); this process's start. Both from /proc on Linux;
elsewhere the time of the first call.

Over `--resume` the clock carries on from the checkpoint's elapsed_s: elapsed_s is then the
checkpoint's value plus the seconds since this command started, so every command's start-up
counts, while the gaps between commands and a killed command's work after its last
checkpoint (lost, and done again) do not."""

from __future__ import annotations

import math
import os
import time
from pathlib import Path

from batchsim.errors import InvalidArgumentError

ENVIRONMENT = "BATCHSIM_COMMAND_STARTED"


def process_started(pid: int | str = "self") -> float | None:
    """Unix time at which process `pid` started (Linux /proc: its start in clock ticks since
    boot against the uptime, to 10 ms), None where that cannot be read."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        # After the command name, which may hold spaces and brackets: field 3 onwards, so
        # field 22 (starttime) is the 20th.
        ticks = int(stat[stat.rfind(")") + 2 :].split()[19])
        age = uptime - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None
    return time.time() - max(age, 0.0)


def command_started() -> float:
    """Unix time at which the command started (the module's docstring says which)."""
    text = os.environ.get(ENVIRONMENT)
    if text:
        try:
            started = float(text)
        except ValueError:
            started = math.nan
        if not math.isfinite(started) or started > time.time():
            raise InvalidArgumentError(
                f"${ENVIRONMENT}: expected the Unix time (seconds) at which the command "
                f"started, not in the future, got {text!r}"
            )
        return started
    launcher = process_started(os.getppid()) if "TORCHELASTIC_RUN_ID" in os.environ else None
    return launcher or process_started() or time.time()


class ElapsedClock:
    """elapsed_s: `carried_s` (a resumed checkpoint's elapsed_s, else 0) plus the seconds
    since `started_at` (Unix time)."""

    def __init__(self, started_at: float, carried_s: float = 0.0):
        self.started_at, self.carried_s = started_at, carried_s

    def __call__(self) -> float:
        return self.carried_s + max(time.time() - self.started_at, 0.0)


def carried_over(checkpoint: dict | None) -> float:
    """The elapsed_s a resumed run starts from: the checkpoint's; a checkpoint written before
    elapsed_s existed gives its training seconds (wall_s), the lower bound it has."""
    if checkpoint is None:
        return 0.0
    return float(checkpoint.get("elapsed_s", checkpoint.get("wall_s", 0.0)))
