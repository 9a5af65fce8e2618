"""Stable-Baselines3 PPO with a CNN on depth (batchsim.integrations.sb3_policy), trained on
short procedural episodes, then evaluated with a random agent on every val episode once:

    python3 -m batchsim procgen --out data/procgen-demo --num-scenes 8 \\
        --triangle-budget 10000 --max-geodesic 5 --episodes-per-scene 100
    python3 examples/sb3_ppo.py --data data/procgen-demo --total-timesteps 200000

The recipe is two lines: ``make_sb3_env`` (the env in the modes SB3 needs) and
``policy_kwargs()`` (a CNN that takes float depth: without it SB3 flattens depth into an
MLP). ``--frame-stack N`` adds SB3's VecFrameStack with depth stacked channels-first.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import stable_baselines3
from stable_baselines3.common.vec_env import VecFrameStack

import batchsim
from batchsim.env import POINTGOAL
from batchsim.integrations.sb3_policy import DepthGoalExtractor, make_sb3_env, policy_kwargs
from batchsim.train.intervals import interval


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add = parser.add_argument
    add("--data", default="data/procgen-demo", help="a `batchsim procgen` output folder")
    add("--num-envs", type=int, default=16, help="environments stepped together")
    add("--resolution", type=int, default=32, help="depth views of R x R pixels")
    add("--max-episode-steps", type=int, default=150, help="the episode step limit")
    add("--total-timesteps", type=int, default=200_000, help="frames to train on")
    add("--n-steps", type=int, default=128, help="PPO's rollout length per environment")
    add("--frame-stack", type=int, default=1, help="depth frames stacked (1: none)")
    add("--seed", type=int, default=1, help="the simulator's and SB3's seed")
    add("--json", default="", help="write the evaluation's numbers here")
    return parser.parse_args()


def task(args) -> batchsim.TaskConfig:
    return batchsim.TaskConfig(max_episode_steps=args.max_episode_steps)


def stacked(env, args):
    if args.frame_stack == 1:
        return env
    order = {"depth": "first", POINTGOAL: "last"}  # SB3 stacks on the last axis otherwise
    return VecFrameStack(env, args.frame_stack, channels_order=order)


def make_env(args, split: str, **options):
    env = make_sb3_env(Path(args.data) / "pointnav" / split, args.num_envs,
                       resolution=args.resolution, task=task(args), **options)  # fmt: skip
    return stacked(env, args)


def evaluate(args, model) -> dict:
    """Every val episode once (eval mode: environments park when none are left), for the
    trained model and a random agent, through the same VecEnv stack as training."""
    results = {}
    rng = np.random.default_rng(args.seed)
    for name in ("ppo", "random"):
        venv = make_env(args, "val", mode="eval", seed=0)
        sim = venv.unwrapped.env.sim  # the BatchNavEnv's simulator: which still run
        obs = venv.reset()
        success, spl = [], []
        while not sim.finished:
            running = np.array(sim.active)
            if name == "random":
                actions = rng.integers(0, 4, args.num_envs)
            else:
                actions = model.predict(obs, deterministic=False)[0]
            obs, _, dones, infos = venv.step(actions)
            for i in np.flatnonzero(dones & running):
                success.append(infos[i]["success"])
                spl.append(infos[i]["spl"])
        venv.close()
        results[name] = {"success": interval("success", success), "spl": interval("spl", spl)}
    return results


def main() -> None:
    args = parse_args()
    env = make_env(args, "train", seed=args.seed)
    model = stable_baselines3.PPO(
        "MultiInputPolicy", env, policy_kwargs=policy_kwargs(), n_steps=args.n_steps,
        batch_size=args.n_steps * args.num_envs // 4, learning_rate=5e-4, ent_coef=0.01,
        seed=args.seed, device="cpu", verbose=0,
    )  # fmt: skip
    assert isinstance(model.policy.features_extractor, DepthGoalExtractor)
    start = time.time()
    model.learn(total_timesteps=args.total_timesteps)
    seconds = time.time() - start
    env.close()
    print(f"trained {model.num_timesteps} frames in {seconds:.0f} s")
    results = evaluate(args, model)
    for name, numbers in results.items():
        s, p = numbers["success"], numbers["spl"]
        print(f"{name:7s} success {s['mean']:.3f} [{s['low']:.3f}, {s['high']:.3f}] "
              f"spl {p['mean']:.3f} ({s['episodes']} val episodes)")  # fmt: skip
    if args.json:
        summary = {"train_seconds": seconds, "frames": model.num_timesteps, **results}
        Path(args.json).write_text(json.dumps(summary))


if __name__ == "__main__":
    main()
