"""Benchmark of the PPO update of the `pointnav-depth` policy (SE-ResNet9, 2-layer LSTM
512, CPC|A-16, LAMB, bf16 on CUDA) on one synthetic rollout of N environments x T steps:
the recurrent core stepwise or by episode segments, convolutions NCHW or channels-last,
every variant timed in one run on the same device. Prints JSON.

    python3 benchmarks/bench_learner.py [--envs 4096] [--updates 10] [--out FILE]
"""

from __future__ import annotations

import argparse
import statistics

import torch

from batchsim.bench import report
from batchsim.env import POINTGOAL
from batchsim.train.lamb import Lamb, lamb_groups
from batchsim.train.models import Policy
from batchsim.train.ppo import PPOSettings, update
from batchsim.train.storage import RolloutStorage

VARIANTS = {  # name: (sequence, channels_last)
    "stepwise": ("stepwise", False),
    "segments": ("segments", False),
    "stepwise_channels_last": ("stepwise", True),
    "segments_channels_last": ("segments", True),
    "stepwise_again": ("stepwise", False),
}


def synthetic_rollout(envs: int, steps: int, resolution: int, device) -> RolloutStorage:
    """Random views and goals; an episode begins at a step with probability 1/150 (about
    the 15-minute runs' episode length), as the masks record."""
    shapes = {
        "depth": ((1, resolution, resolution), torch.float32),
        POINTGOAL: ((2,), torch.float32),
    }
    storage = RolloutStorage(steps, envs, shapes, (4, envs, 512), device)
    generator = torch.Generator(device).manual_seed(0)
    storage.obs["depth"].uniform_(0, 10, generator=generator)
    storage.obs[POINTGOAL].uniform_(0.5, 10, generator=generator)
    storage.masks.copy_(
        (torch.rand(steps + 1, envs, device=device, generator=generator) > 1 / 150).float()
    )
    storage.actions.random_(0, 4, generator=generator)
    storage.previous_action.random_(0, 4, generator=generator)
    storage.advantages.normal_(0, 0.1, generator=generator)
    storage.returns.normal_(0, 1, generator=generator)
    storage.log_probs.fill_(-1.386)
    return storage


def time_updates(policy, storage, settings, updates: int, device) -> list[float]:
    """Seconds of each update (synchronised), after 2 untimed: cuDNN plans, the allocator."""
    optimizer = Lamb(lamb_groups(policy, ("actor", "critic")), lr=1e-6)

    def one_update() -> None:
        update(policy, optimizer, storage, settings)
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    report.times(one_update, 2)
    return report.times(one_update, updates)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=32)
    parser.add_argument("--resolution", type=int, default=64)
    parser.add_argument("--updates", type=int, default=10)
    parser.add_argument("--out", help="also write the JSON record here")
    args = parser.parse_args(argv)
    device = torch.device(args.device)
    storage = synthetic_rollout(args.envs, args.steps, args.resolution, device)
    settings = PPOSettings(autocast_dtype=torch.bfloat16 if device.type == "cuda" else None)
    results = {}
    for name, (sequence, channels_last) in VARIANTS.items():
        torch.manual_seed(0)
        policy = Policy("se_resnet9", 1, hidden=512, layers=2, rnn="lstm", cpca_steps=16)
        policy = policy.to(device)
        policy.sequence = sequence
        if channels_last:
            policy.use_channels_last()
        try:
            seconds = time_updates(policy, storage, settings, args.updates, device)
        except RuntimeError as error:  # a variant the device cannot run is reported, not fatal
            results[name] = {"error": str(error)[:300]}
            continue
        results[name] = {
            "median_s": statistics.median(seconds),
            "spread_s": report.spread(seconds),
        }
    record = {
        "benchmark": "learner",
        **report.header(args),
        "device": str(device),
        "frames_per_update": args.envs * args.steps,
        "results": results,
    }
    report.emit(record, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
