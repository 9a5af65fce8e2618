"""One training process per GPU, started by PyTorch's own launcher.

`batchsim train` (and `batchsim bench train`) run in the process that was started when that
process is already one rank of a job: under torchrun (WORLD_SIZE set) or as one task of a
Slurm step (SLURM_NTASKS > 1, whose variables are mapped to torch.distributed's here, as
DD-PPO does). Otherwise, with more than one process wanted, the command starts
``torch.distributed.run`` in this process (a standalone rendezvous on a free port: single
node) and becomes its agent: each rank runs the same command with its LOCAL_RANK, the agent
forwards SIGINT and SIGTERM to the ranks (which finish the update and checkpoint) and waits.

Processes wanted: `num_gpus` (`--gpus N`), or 0 for every GPU torch can see; one process
where there is no CUDA or the device is the CPU, unless `num_gpus` asks for more (Gloo)."""

from __future__ import annotations

import os
import re
import sys

from batchsim.train import cpus

# Seconds the agent waits for signalled ranks to finish their update and write the checkpoint
# before it kills them (torchrun's default is 30; a CPU update can take longer).
SHUTDOWN_TIMEOUT_S = 600
# Set for the ranks this launcher starts, so that rank 0 words its resume advice for it.
LAUNCHED_VARIABLE = "BATCHSIM_LAUNCHED"


def under_launcher(environ=os.environ) -> bool:
    """Whether this process is already one rank of a torchrun or Slurm job."""
    return "WORLD_SIZE" in environ or _slurm_tasks(environ) > 1


def started_by_batchsim(environ=os.environ) -> bool:
    return environ.get(LAUNCHED_VARIABLE) == "1"


def processes_for(num_gpus: int, device: str | None) -> int:
    """Processes this command should start: 1 when it is already one rank of a torchrun or
    Slurm job (whose variables it adopts first), else processes_wanted()."""
    adopt_slurm()
    return 1 if under_launcher() else processes_wanted(num_gpus, device)


def start_ranks(command: list[str], processes: int, num_threads: int = 0) -> int:
    """Runs `python -m batchsim COMMAND...` as `processes` ranks on this node, each with
    `num_threads` simulation threads (0: the default for that many processes), and returns
    the launch's exit status."""
    choice = cpus.default_threads(sample=not num_threads, processes=processes)
    threads = num_threads or choice.threads
    print(
        f"batchsim: {processes} processes through torch.distributed.run, "
        f"{threads} simulation threads each ({choice.cores} cores)",
        file=sys.stderr,
    )
    return launch(command, processes, threads)


def processes_wanted(num_gpus: int, device: str | None) -> int:
    """Processes to start for `num_gpus` (0: every visible GPU) on `device`."""
    if num_gpus < 0:
        raise ValueError(f"num_gpus: expected 0 (every GPU) or more, got {num_gpus}")
    import torch

    on_cpu = (device or "").startswith("cpu") or not torch.cuda.is_available()
    if on_cpu:
        return max(1, num_gpus)
    if device is not None and re.fullmatch(r"cuda:\d+", device):
        if num_gpus > 1:
            raise ValueError(
                f"num_gpus={num_gpus} with device={device!r}: one device cannot host several "
                "ranks; leave device unset (each rank takes cuda:LOCAL_RANK)"
            )
        return 1
    visible = torch.cuda.device_count()
    if num_gpus > visible:
        raise ValueError(f"num_gpus: expected at most the {visible} visible GPU(s), got {num_gpus}")
    return num_gpus or visible


def adopt_slurm(environ=os.environ) -> bool:
    """Maps a multi-task Slurm step's variables to torch.distributed's (RANK, WORLD_SIZE,
    LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT) unless torchrun set them; returns
    whether it did. MASTER_ADDR defaults to the step's first node, MASTER_PORT to one derived
    from the job id, so every task agrees without a shared file."""
    tasks = _slurm_tasks(environ)
    if "WORLD_SIZE" in environ or tasks <= 1:
        return False
    environ["WORLD_SIZE"] = str(tasks)
    environ["RANK"] = environ["SLURM_PROCID"]
    environ["LOCAL_RANK"] = environ.get("SLURM_LOCALID", "0")
    environ["LOCAL_WORLD_SIZE"] = str(_slurm_tasks_on_this_node(environ))
    environ.setdefault("MASTER_ADDR", first_host(environ.get("SLURM_STEP_NODELIST", "")))
    environ.setdefault("MASTER_PORT", str(20000 + int(environ.get("SLURM_JOB_ID", "0")) % 20000))
    return True


def first_host(nodelist: str) -> str:
    """The first host of a Slurm node list: "gpu[03-05,07],cpu1" -> "gpu03"; "" -> localhost."""
    match = re.match(r"([^,\[]+)(?:\[([^\],-]+))?", nodelist.strip())
    if not match:
        return "localhost"
    return match.group(1) + (match.group(2) or "")


def launch(command: list[str], processes: int, threads_per_rank: int) -> int:
    """Runs `python -m batchsim COMMAND...` as `processes` ranks on this node through
    torch.distributed.run and returns 0 when every rank did (also after a signal that the
    ranks turned into a checkpoint), else 1."""
    from torch.distributed.elastic.multiprocessing.api import SignalException
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
    from torch.distributed.run import parse_args, run

    os.environ[LAUNCHED_VARIABLE] = "1"
    os.environ[cpus.THREADS_VARIABLE] = str(threads_per_rank)
    # torchrun would set 1 (and say so); each rank's torch may use its share of the cores.
    os.environ.setdefault("OMP_NUM_THREADS", str(threads_per_rank))
    arguments = ["--standalone", f"--nproc-per-node={processes}", *_shutdown_timeout()]
    arguments += ["--module", "batchsim", *command]
    try:
        run(parse_args(arguments))
    except ChildFailedError as error:
        print(f"batchsim: a rank failed:\n{error.format_msg()}", file=sys.stderr)
        return 1
    except SignalException as error:  # the ranks were signalled and have stopped
        print(f"batchsim: stopped by {error.sigval.name}", file=sys.stderr)
    return 0


def _shutdown_timeout() -> list[str]:
    """torchrun's --shutdown-timeout where this torch has it (it is recent); else its default."""
    from torch.distributed.run import get_args_parser

    known = any("--shutdown-timeout" in a.option_strings for a in get_args_parser()._actions)
    return [f"--shutdown-timeout={SHUTDOWN_TIMEOUT_S}"] if known else []


def _slurm_tasks(environ) -> int:
    try:
        return int(environ.get("SLURM_NTASKS", "1"))
    except ValueError:
        return 1


def _slurm_tasks_on_this_node(environ) -> int:
    """From SLURM_TASKS_PER_NODE ("4(x2),3": this node's entry by SLURM_NODEID)."""
    counts = []
    for part in environ.get("SLURM_TASKS_PER_NODE", "").split(","):
        match = re.fullmatch(r"(\d+)(?:\(x(\d+)\))?", part.strip())
        if match:
            counts += [int(match.group(1))] * int(match.group(2) or 1)
    node = int(environ.get("SLURM_NODEID", "0"))
    return counts[node] if node < len(counts) else 1
