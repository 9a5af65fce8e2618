"""CleanRL-style PPO on BatchNavEnv, in one file: a small CNN on depth plus the GPS+compass
goal, GAE, clipped PPO. It trains on the CPU in a few minutes on short procedural episodes,
then evaluates the policy, a random agent and a forward-only agent on every val episode once:

    python3 -m batchsim procgen --out data/procgen-demo --num-scenes 8 \\
        --triangle-budget 10000 --max-geodesic 5 --episodes-per-scene 100
    python3 examples/cleanrl_ppo.py --data data/procgen-demo --curve curve.png

It drives the env directly in its default torch mode (no wrappers): SAME_STEP autoreset, so
the observation after an episode's end is already the next episode's, as CleanRL expects.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import batchsim
from batchsim.env import POINTGOAL

MAX_DEPTH = 10.0  # metres: depth is clamped and scaled to [0, 1]


@dataclasses.dataclass
class Args:
    data: str = "data/procgen-demo"  # a `batchsim procgen` output: pointnav/{train,val}
    seed: int = 1
    num_envs: int = 32
    resolution: int = 32
    backend: str = "raster"  # on lavapipe it beats ray casting for these small scenes
    max_episode_steps: int = 150
    total_timesteps: int = 300_000
    num_steps: int = 64  # steps per environment per rollout
    learning_rate: float = 5e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 4
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    eval_envs: int = 32
    curve: str = ""  # a PNG of the training episodes' success and SPL, if given
    json: str = ""  # the evaluation's numbers, if given


def parse_args() -> Args:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for field in dataclasses.fields(Args):
        parser.add_argument(f"--{field.name.replace('_', '-')}", type=type(field.default),
                            default=field.default)  # fmt: skip
    return Args(**vars(parser.parse_args()))


def make_env(args: Args, split: str, num_envs: int, **options) -> batchsim.BatchNavEnv:
    return batchsim.BatchNavEnv(
        Path(args.data) / "pointnav" / split,
        num_envs,
        device="cpu",
        sensors=("depth",),
        resolution=args.resolution,
        backend=args.backend,
        scenes_resident=2,
        autoreset_mode="same_step",
        final_views=False,  # PPO here bootstraps nothing from the ended episodes' views
        task=batchsim.TaskConfig(max_episode_steps=args.max_episode_steps),
        **options,
    )


def layer_init(layer: nn.Module, std: float = np.sqrt(2), bias: float = 0.0) -> nn.Module:
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


class Agent(nn.Module):
    """Depth through three convolutions, the goal as (log distance, cos, sin), one trunk."""

    def __init__(self, resolution: int):
        super().__init__()
        self.cnn = nn.Sequential(
            layer_init(nn.Conv2d(1, 16, 5, stride=2)),
            nn.ReLU(),
            layer_init(nn.Conv2d(16, 32, 3, stride=2)),
            nn.ReLU(),
            layer_init(nn.Conv2d(32, 32, 3)),
            nn.ReLU(),
            nn.Flatten(),
        )
        with torch.no_grad():
            flat = self.cnn(torch.zeros(1, 1, resolution, resolution)).shape[1]
        self.trunk = nn.Sequential(layer_init(nn.Linear(flat + 3, 256)), nn.ReLU())
        self.actor = layer_init(nn.Linear(256, 4), std=0.01)
        self.critic = layer_init(nn.Linear(256, 1), std=1.0)

    def features(self, depth: torch.Tensor, goal: torch.Tensor) -> torch.Tensor:
        image = self.cnn(depth.clamp(0.0, MAX_DEPTH) / MAX_DEPTH)
        distance, angle = goal[:, :1], goal[:, 1:]
        polar = torch.cat([torch.log1p(distance), angle.cos(), angle.sin()], 1)
        return self.trunk(torch.cat([image, polar], 1))

    def get_value(self, depth, goal) -> torch.Tensor:
        return self.critic(self.features(depth, goal)).squeeze(1)

    def get_action_and_value(self, depth, goal, action=None):
        hidden = self.features(depth, goal)
        dist = Categorical(logits=self.actor(hidden))
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(hidden).squeeze(1)


def gae(args: Args, rewards, values, dones, next_value, next_done):
    """Advantages and returns; an episode's end (termination or time limit) cuts the trace."""
    advantages = torch.zeros_like(rewards)
    last = torch.zeros_like(next_value)
    for t in reversed(range(args.num_steps)):
        if t == args.num_steps - 1:
            nonterminal, following = 1.0 - next_done, next_value
        else:
            nonterminal, following = 1.0 - dones[t + 1], values[t + 1]
        delta = rewards[t] + args.gamma * following * nonterminal - values[t]
        last = delta + args.gamma * args.gae_lambda * nonterminal * last
        advantages[t] = last
    return advantages, advantages + values


def ppo_update(args: Args, agent: Agent, optimizer, batch: dict) -> dict:
    """Clipped PPO over shuffled minibatches of the flattened rollout."""
    size = len(batch["actions"])
    minibatch = size // args.num_minibatches
    for _ in range(args.update_epochs):
        order = torch.randperm(size)
        for start in range(0, size, minibatch):
            index = order[start : start + minibatch]
            _, logprob, entropy, value = agent.get_action_and_value(
                batch["depth"][index], batch["goal"][index], batch["actions"][index]
            )
            ratio = (logprob - batch["logprobs"][index]).exp()
            adv = batch["advantages"][index]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            clipped = ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)
            pg_loss = torch.max(-adv * ratio, -adv * clipped).mean()
            v_loss = 0.5 * ((value - batch["returns"][index]) ** 2).mean()
            loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
            optimizer.step()
    return {"pg_loss": pg_loss.item(), "v_loss": v_loss.item(), "entropy": entropy.mean().item()}


def rollout(args, env, agent, obs, done, storage, episodes, global_step):
    """Fills `storage` with num_steps steps; returns the next obs and done flags."""
    for step in range(args.num_steps):
        storage["depth"][step] = obs["depth"]  # a copy: the env rewrites its tensors in place
        storage["goal"][step] = obs[POINTGOAL]
        storage["dones"][step] = done
        with torch.no_grad():
            action, logprob, _, value = agent.get_action_and_value(obs["depth"], obs[POINTGOAL])
        storage["values"][step], storage["actions"][step] = value, action
        storage["logprobs"][step] = logprob
        obs, reward, terminated, truncated, info = env.step(action)
        storage["rewards"][step] = reward
        done = (terminated | truncated).float()
        global_step += args.num_envs
        ended = info["_success"]
        for success, spl in zip(info["success"][ended], info["spl"][ended], strict=True):
            episodes.append((global_step, float(success), float(spl)))
    return obs, done, global_step


def train(args: Args) -> tuple[Agent, list, int]:
    torch.manual_seed(args.seed)
    env = make_env(args, "train", args.num_envs, seed=args.seed)
    agent = Agent(args.resolution)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    shape = (args.num_steps, args.num_envs)
    storage = {key: torch.zeros(shape) for key in ("logprobs", "rewards", "dones", "values")}
    storage["actions"] = torch.zeros(shape, dtype=torch.long)
    storage["depth"] = torch.zeros((*shape, 1, args.resolution, args.resolution))
    storage["goal"] = torch.zeros((*shape, 2))
    obs, _ = env.reset(seed=args.seed)
    done = torch.zeros(args.num_envs)
    episodes, global_step, start = [], 0, time.time()
    num_updates = max(1, args.total_timesteps // (args.num_envs * args.num_steps))
    for update in range(1, num_updates + 1):
        obs, done, global_step = rollout(
            args, env, agent, obs, done, storage, episodes, global_step
        )
        with torch.no_grad():
            next_value = agent.get_value(obs["depth"], obs[POINTGOAL])
        advantages, returns = gae(
            args, storage["rewards"], storage["values"], storage["dones"], next_value, done
        )
        batch = {key: storage[key].flatten(0, 1) for key in storage}
        batch |= {"advantages": advantages.flatten(), "returns": returns.flatten()}
        losses = ppo_update(args, agent, optimizer, batch)
        report(update, num_updates, global_step, start, episodes, losses)
    env.close()
    return agent, episodes, global_step


def report(update, num_updates, global_step, start, episodes, losses) -> None:
    recent = episodes[-100:]
    success = np.mean([e[1] for e in recent]) if recent else 0.0
    spl = np.mean([e[2] for e in recent]) if recent else 0.0
    fps = global_step / (time.time() - start)
    print(
        f"update {update}/{num_updates} frames {global_step} fps {fps:.0f} "
        f"success {success:.2f} spl {spl:.2f} entropy {losses['entropy']:.2f}",
        flush=True,
    )


def evaluate(args: Args, choose) -> dict:
    """Every val episode once (the eval mode parks environments when none are left);
    choose(obs) -> actions. Mean success and SPL over the episodes that ended."""
    env = make_env(args, "val", args.eval_envs, mode="eval")
    obs, _ = env.reset(seed=0)
    success, spl = [], []
    while not env.sim.finished:
        running = torch.from_numpy(np.array(env.sim.active))  # parked ones end nothing new
        obs, _, terminated, truncated, info = env.step(choose(obs))
        ended = running & (terminated | truncated)
        success += info["success"][ended].tolist()
        spl += info["spl"][ended].tolist()
    env.close()
    return {"success": mean_ci(success), "spl": mean_ci(spl), "episodes": len(spl)}


def mean_ci(values: list) -> tuple[float, float]:
    """The mean and the half-width of its 95% confidence interval (normal approximation)."""
    values = np.asarray(values, np.float64)
    half = 1.96 * values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else 0.0
    return float(values.mean()), float(half)


def baselines(agent: Agent, n: int, seed: int) -> dict:
    generator = torch.Generator().manual_seed(seed)

    @torch.no_grad()
    def policy(obs):
        return agent.get_action_and_value(obs["depth"], obs[POINTGOAL])[0]

    return {
        "policy": policy,
        "random": lambda obs: torch.randint(0, 4, (n,), generator=generator),
        "forward": lambda obs: torch.ones(n, dtype=torch.long),
    }


def plot_curve(episodes: list, path: str, window: int = 100) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    frames, success, spl = (np.array(column) for column in zip(*episodes, strict=True))
    kernel = np.ones(window) / window
    smooth = len(frames) >= window
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for values, label in ((success, "success"), (spl, "SPL")):
        y = np.convolve(values, kernel, "valid") if smooth else values
        ax.plot(frames[len(frames) - len(y) :], y, label=label)
    ax.set(xlabel="frames", ylabel=f"mean of last {window} episodes", ylim=(0, 1))
    ax.set_title("examples/cleanrl_ppo.py: training episodes")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main() -> None:
    args = parse_args()
    start = time.time()
    agent, episodes, frames = train(args)
    train_seconds = time.time() - start
    results = {
        name: evaluate(args, choose)
        for name, choose in baselines(agent.eval(), args.eval_envs, args.seed).items()
    }
    print(f"trained {frames} frames in {train_seconds:.0f} s")
    for name, numbers in results.items():
        (success, success_ci), (spl, spl_ci) = numbers["success"], numbers["spl"]
        print(f"{name:8s} success {success:.3f} ± {success_ci:.3f} spl {spl:.3f} ± {spl_ci:.3f} "
              f"({numbers['episodes']} val episodes)")  # fmt: skip
    if args.curve and episodes:
        plot_curve(episodes, args.curve)
    if args.json:
        summary = {"train_seconds": train_seconds, "frames": frames, **results}
        Path(args.json).write_text(json.dumps(summary))


if __name__ == "__main__":
    main()
