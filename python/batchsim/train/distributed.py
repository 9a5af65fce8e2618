"""Multi-GPU training under torchrun: one simulator per rank, the policy in DDP (NCCL on
CUDA, Gloo on the CPU), statistics aggregated across ranks. A single process (no
WORLD_SIZE in the environment) uses none of it."""

from __future__ import annotations

import os

import torch
import torch.distributed as dist

SUMMED = ("frames_per_s", "episodes", "scene_loads")


def rank_and_world(device: str | None = None) -> tuple[int, int]:
    """(rank, world size); joins the process group torchrun describes on first use: NCCL
    where training runs on CUDA (device None or "cuda..." with a GPU), Gloo otherwise."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world <= 1:
        return 0, 1
    if not dist.is_initialized():
        cuda = torch.cuda.is_available() and not (device or "cuda").startswith("cpu")
        if cuda:
            torch.cuda.set_device(local_rank())
        dist.init_process_group("nccl" if cuda else "gloo")
    return dist.get_rank(), dist.get_world_size()


def local_rank() -> int:
    return int(os.environ.get("LOCAL_RANK", "0"))


def active() -> bool:
    return dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1


def wrap(policy: torch.nn.Module, device: torch.device) -> torch.nn.Module:
    """The module the PPO update trains: DDP across ranks (it averages gradients and starts
    every rank from rank 0's weights), or the policy itself."""
    if not active():
        return policy
    ids = [device.index] if device.type == "cuda" else None
    return torch.nn.parallel.DistributedDataParallel(policy, device_ids=ids)


def gather(value) -> list:
    """Every rank's `value`, in rank order (a one-element list without torchrun)."""
    if not active():
        return [value]
    out = [None] * dist.get_world_size()
    dist.all_gather_object(out, value)
    return out


def all_reduce_sum(tensor: torch.Tensor) -> torch.Tensor:
    """`tensor` summed over the ranks, in place (itself without torchrun)."""
    if active():
        dist.all_reduce(tensor)
    return tensor


def aggregate(stats: dict, episodes: dict, device: torch.device) -> dict:
    """One rank's statistics, or all ranks' combined: frames/s and episode counts summed,
    success and SPL weighted by finished episodes, the rest averaged."""
    if not active():
        return stats | episodes
    keys = sorted(stats)
    count = float(episodes.get("episodes", 0))
    values = [stats[k] for k in keys]
    values += [count, episodes.get("success", 0.0) * count, episodes.get("spl", 0.0) * count]
    total = torch.tensor(values, dtype=torch.float64, device=device)
    dist.all_reduce(total)
    world = dist.get_world_size()
    out = {k: float(total[i]) / (1 if k in SUMMED else world) for i, k in enumerate(keys)}
    count = float(total[len(keys)])
    out["episodes"] = int(count)
    if count > 0:
        out["success"] = float(total[len(keys) + 1]) / count
        out["spl"] = float(total[len(keys) + 2]) / count
    return out


def from_rank_zero(load, device: str | None = None):
    """`load()` run on rank 0 alone, its result on every rank (pickled over the process
    group): a file that only rank 0's node holds, such as a multi-node run's checkpoint when
    log_dir is not on a shared filesystem. One process: `load()` itself."""
    rank, world = rank_and_world(device)
    if world <= 1:
        return load()
    box = [load() if rank == 0 else None]
    dist.broadcast_object_list(box, src=0)
    return box[0]


def barrier() -> None:
    if active():
        dist.barrier()


def shutdown() -> None:
    if active():
        dist.destroy_process_group()
