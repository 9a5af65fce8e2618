"""How many simulation threads a training or evaluation process takes by default.

Each process gets the cores it may run on (``os.sched_getaffinity``, so ``taskset``, cgroups'
cpusets and Slurm's binding are respected) divided among the processes of its launcher on this
node (LOCAL_WORLD_SIZE, set by torchrun and by `batchsim train`'s own launcher), never more
threads than cores and never fewer than one. OMP_NUM_THREADS, which torchrun sets to 1, plays
no part: it sizes torch's OpenMP pool, not the simulator's.

Cores that other programs keep busy (another training on the same host) are left to them: a
short sample of /proc/stat, less the CPU time of this job's own processes, counts them, and the
threads are cut to the idle cores with a warning that gives the numbers. Oversubscribed cores
do not stall the simulator's pool (its workers spin briefly, then sleep), but they slow both
runs; batchsim/__init__.py makes torch's OpenMP threads wait passively for the same reason."""

from __future__ import annotations

import os
import time
import warnings
from dataclasses import dataclass

# Busy cores below this many are noise (daemons, the shell, this process starting up).
BUSY_CORES_NOISE = 1.0
# ... and below this share of the process's cores, too.
BUSY_SHARE_NOISE = 0.1
# Seconds of /proc/stat sampled at start: long enough to see a training's steady load.
SAMPLE_SECONDS = 0.3
# Set by `batchsim train`'s launcher for its ranks: the threads it chose per rank, so that
# ranks starting together do not count each other's start-up as another program's load.
THREADS_VARIABLE = "BATCHSIM_SIM_THREADS"


@dataclass(frozen=True)
class ThreadChoice:
    """The default simulation threads of this process and what they were derived from."""

    threads: int
    cores: int  # cores this process may run on
    local_processes: int  # processes of this job sharing them
    busy_cores: float  # cores other programs kept busy during the sample (0: not sampled)

    def describe(self) -> str:
        return (
            f"{self.threads} simulation thread(s): {self.cores} core(s) for "
            f"{self.local_processes} process(es) on this node, {self.busy_cores:.1f} busy"
        )


def usable_cores() -> list[int]:
    """The CPUs this process may run on."""
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return list(range(os.cpu_count() or 1))


def local_processes(environ=os.environ) -> int:
    """Processes of this job on this node: torchrun's LOCAL_WORLD_SIZE, else 1."""
    value = environ.get("LOCAL_WORLD_SIZE", "1")
    try:
        return max(1, int(value))
    except ValueError:
        return 1


def threads_for(cores: int, processes: int, busy: float = 0.0) -> int:
    """Threads per process: the idle cores shared among the processes, at least 1. Busy
    cores count only past the noise floor."""
    if busy >= max(BUSY_CORES_NOISE, BUSY_SHARE_NOISE * cores):
        cores = max(1, cores - round(busy))
    return max(1, cores // processes)


def default_threads(
    sample: bool = True, processes: int | None = None, environ=os.environ
) -> ThreadChoice:
    """The simulation threads `num_threads=0` means for each of `processes` processes on this
    node (None: this job's, local_processes()), warning when other programs keep some of the
    cores busy. A launcher's choice (THREADS_VARIABLE) wins."""
    cores = usable_cores()
    processes = processes or local_processes(environ)
    chosen = environ.get(THREADS_VARIABLE)
    if chosen:
        return ThreadChoice(_positive(chosen), len(cores), processes, 0.0)
    busy = busy_cores(cores, exclude=_own_job_pids(environ)) if sample else 0.0
    choice = ThreadChoice(threads_for(len(cores), processes, busy), len(cores), processes, busy)
    if choice.threads < len(cores) // processes:
        warn_busy(choice)
    return choice


def warn_busy(choice: ThreadChoice) -> None:
    warnings.warn(
        f"{choice.busy_cores:.1f} of this process's {choice.cores} cores were busy with other "
        f"programs (another training on this host?); simulating with {choice.threads} "
        f"thread(s) per process instead of {choice.cores // choice.local_processes} "
        "(num_threads=N sets it)",
        RuntimeWarning,
        stacklevel=3,
    )


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError(f"{THREADS_VARIABLE}: expected a positive integer, got {text!r}")
    return value


# -- sampling /proc ------------------------------------------------------------------------


def busy_cores(cpus: list[int], seconds: float = SAMPLE_SECONDS, exclude=()) -> float:
    """Cores of `cpus` busy during the next `seconds`, less the CPU time of the processes in
    `exclude` (this job's own); 0 where /proc/stat is unreadable."""
    before = _cpu_busy_ticks(cpus), _process_ticks(exclude)
    if before[0] is None:
        return 0.0
    started = time.monotonic()
    time.sleep(seconds)
    after = _cpu_busy_ticks(cpus), _process_ticks(exclude)
    elapsed = time.monotonic() - started
    if after[0] is None:
        return 0.0
    ticks = (after[0] - before[0]) - (after[1] - before[1])
    return max(0.0, ticks / (elapsed * os.sysconf("SC_CLK_TCK")))


def _cpu_busy_ticks(cpus: list[int]) -> int | None:
    """Ticks spent on anything but idle and iowait, summed over `cpus` (/proc/stat)."""
    wanted = {f"cpu{c}" for c in cpus}
    try:
        with open("/proc/stat") as f:
            lines = [line.split() for line in f if line.startswith("cpu")]
    except OSError:
        return None
    total = 0
    for fields in lines:
        if fields[0] in wanted:
            ticks = [int(x) for x in fields[1:8]]  # user nice system idle iowait irq softirq
            total += sum(ticks) - ticks[3] - ticks[4]
    return total


def _process_ticks(pids) -> int:
    """User plus system ticks of `pids` (all their threads); vanished ones count 0."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
    return total


def _own_job_pids(environ=os.environ) -> list[int]:
    """This process and, under a launcher (torchrun's agent, slurmstepd), its siblings: their
    start-up is this job's load, not another program's."""
    own = [os.getpid()]
    if "LOCAL_WORLD_SIZE" not in environ:
        return own
    parent = os.getppid()
    for name in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if name.isdigit() and int(name) != own[0] and _parent_of(int(name)) == parent:
            own.append(int(name))
    return own


def _parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None
