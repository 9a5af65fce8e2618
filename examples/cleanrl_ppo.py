"""CleanRL-style PPO on BatchNavEnv, in one file: a small CNN on depth plus the GPS+compass
goal, GAE, clipped PPO. It trains on the CPU in a few minutes on short procedural episodes,
then evaluates the policy, a random agent and a forward-only agent on every val episode once:

    python3 -m batchsim procgen --out data/procgen-demo --num-scenes 8 \\
        --triangle-budget 10000 --max-geodesic 5 --episodes-per-scene 100
    python3 examples/cleanrl_ppo.py --data data/procgen-demo --curve curve.png

It drives the env directly in its default torch mode (no wrappers): SAME_STEP autoreset, so
the observation after an episode's end is already the next episode's, as CleanRL expects.
CleanRL's conventions: every flag has its help (`--help`), `--cuda` trains on the GPU (and
renders there where the Vulkan device is an NVIDIA GPU), TensorBoard logs go to
runs/{exp_name}__{seed}__{time} (`tensorboard --logdir runs`), `--capture-video` records
environment 0's episodes to videos/{run_name} (gymnasium's RecordVideo; needs moviepy).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from dataclasses import field
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import batchsim
from batchsim.env import POINTGOAL
from batchsim.train.intervals import interval

MAX_DEPTH = 10.0  # metres: depth is clamped and scaled to [0, 1]


def flag(default, help: str):
    """A field of Args with its --help text (what tyro reads from CleanRL's docstrings)."""
    return field(default=default, metadata={"help": help})


@dataclasses.dataclass
class Args:
    exp_name: str = flag(Path(__file__).stem, "the name of this experiment (runs/, videos/)")
    seed: int = flag(1, "seed of the simulator, torch and the evaluation")
    torch_deterministic: bool = flag(True, "torch.backends.cudnn.deterministic")
    cuda: bool = flag(False, "train on cuda:0 (and step the env there) if CUDA is available")
    capture_video: bool = flag(False, "record environment 0's episodes to videos/ (moviepy)")
    data: str = flag("data/procgen-demo", "a `batchsim procgen` output: pointnav/{train,val}")
    num_envs: int = flag(32, "environments stepped together")
    resolution: int = flag(32, "depth views of R x R pixels")
    backend: str = flag("compute", "renderer: compute (ray casting), raster or auto")
    max_episode_steps: int = flag(150, "the episode step limit")
    total_timesteps: int = flag(300_000, "frames to train on")
    num_steps: int = flag(64, "steps per environment per rollout")
    learning_rate: float = flag(5e-4, "Adam's learning rate")
    gamma: float = flag(0.99, "the discount")
    gae_lambda: float = flag(0.95, "GAE's lambda")
    num_minibatches: int = flag(4, "minibatches per PPO epoch")
    update_epochs: int = flag(4, "PPO epochs per rollout")
    clip_coef: float = flag(0.2, "PPO's surrogate clipping")
    ent_coef: float = flag(0.01, "the entropy bonus")
    vf_coef: float = flag(0.5, "the value loss's weight")
    max_grad_norm: float = flag(0.5, "gradient clipping")
    eval_envs: int = flag(32, "environments of the final evaluation")
    curve: str = flag("", "a PNG of the training episodes' success and SPL, if given")
    json: str = flag("", "the evaluation's numbers, if given")


def parse_args() -> Args:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for f in dataclasses.fields(Args):
        name, text = "--" + f.name.replace("_", "-"), f"{f.metadata['help']} (default: %(default)s)"
        if isinstance(f.default, bool):  # --cuda / --no-cuda, as tyro spells them
            parser.add_argument(name, action=argparse.BooleanOptionalAction, default=f.default,
                                help=text)  # fmt: skip
        else:
            parser.add_argument(name, type=type(f.default), default=f.default, help=text)
    return Args(**vars(parser.parse_args()))


def device_of(args: Args) -> torch.device:
    return torch.device("cuda:0" if args.cuda and torch.cuda.is_available() else "cpu")


def make_env(args: Args, split: str, num_envs: int, **options) -> batchsim.BatchNavEnv:
    return batchsim.BatchNavEnv(
        Path(args.data) / "pointnav" / split,
        num_envs,
        device=str(device_of(args)),
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


def make_storage(args: Args, device: torch.device) -> dict:
    shape = (args.num_steps, args.num_envs)
    zeros = {"device": device}
    storage = {k: torch.zeros(shape, **zeros) for k in ("logprobs", "rewards", "dones", "values")}
    storage["actions"] = torch.zeros(shape, dtype=torch.long, **zeros)
    storage["depth"] = torch.zeros((*shape, 1, args.resolution, args.resolution), **zeros)
    storage["goal"] = torch.zeros((*shape, 2), **zeros)
    return storage


def train(args: Args, run_name: str) -> tuple[Agent, list, int]:
    from torch.utils.tensorboard import SummaryWriter

    torch.manual_seed(args.seed)
    torch.backends.cudnn.deterministic = args.torch_deterministic
    device = device_of(args)
    writer = SummaryWriter(f"runs/{run_name}")
    hyperparameters = "\n".join(f"|{k}|{v}|" for k, v in vars(args).items())
    writer.add_text("hyperparameters", f"|param|value|\n|-|-|\n{hyperparameters}")
    env = make_env(args, "train", args.num_envs, seed=args.seed)
    if args.capture_video:
        from gymnasium.wrappers.vector import RecordVideo

        env = RecordVideo(env, f"videos/{run_name}", record_first_only=True)
    agent = Agent(args.resolution).to(device)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    storage = make_storage(args, device)
    obs, _ = env.reset(seed=args.seed)
    done = torch.zeros(args.num_envs, device=device)
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
        report(writer, update, num_updates, global_step, start, episodes, losses)
    env.close()
    writer.close()
    return agent, episodes, global_step


def report(writer, update, num_updates, global_step, start, episodes, losses) -> None:
    """The update's line on stdout and its scalars in TensorBoard (CleanRL's names)."""
    recent = episodes[-100:]
    success = np.mean([e[1] for e in recent]) if recent else 0.0
    spl = np.mean([e[2] for e in recent]) if recent else 0.0
    fps = global_step / (time.time() - start)
    for name, value in (
        ("policy_loss", "pg_loss"),
        ("value_loss", "v_loss"),
        ("entropy", "entropy"),
    ):
        writer.add_scalar(f"losses/{name}", losses[value], global_step)
    writer.add_scalar("charts/SPS", fps, global_step)
    writer.add_scalar("charts/success", success, global_step)
    writer.add_scalar("charts/spl", spl, global_step)
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
        running = running.to(env.device)
        obs, _, terminated, truncated, info = env.step(choose(obs))
        ended = running & (terminated | truncated)
        success += info["success"][ended].tolist()
        spl += info["spl"][ended].tolist()
    env.close()
    # 95% intervals: Wilson for success, a percentile bootstrap for SPL (batchsim eval's).
    return {"success": interval("success", success), "spl": interval("spl", spl),
            "episodes": len(spl)}  # fmt: skip


def baselines(agent: Agent, n: int, seed: int, device: torch.device) -> dict:
    generator = torch.Generator().manual_seed(seed)

    @torch.no_grad()
    def policy(obs):
        return agent.get_action_and_value(obs["depth"], obs[POINTGOAL])[0]

    return {
        "policy": policy,
        "random": lambda obs: torch.randint(0, 4, (n,), generator=generator).to(device),
        "forward": lambda obs: torch.ones(n, dtype=torch.long, device=device),
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
    run_name = f"{args.exp_name}__{args.seed}__{int(time.time())}"
    start = time.time()
    agent, episodes, frames = train(args, run_name)
    train_seconds = time.time() - start
    agents = baselines(agent.eval(), args.eval_envs, args.seed, device_of(args))
    results = {name: evaluate(args, choose) for name, choose in agents.items()}
    print(f"trained {frames} frames in {train_seconds:.0f} s (TensorBoard: runs/{run_name})")
    for name, numbers in results.items():
        s, p = numbers["success"], numbers["spl"]
        print(f"{name:8s} success {s['mean']:.3f} [{s['low']:.3f}, {s['high']:.3f}] "
              f"spl {p['mean']:.3f} [{p['low']:.3f}, {p['high']:.3f}] "
              f"({numbers['episodes']} val episodes)")  # fmt: skip
    if args.curve and episodes:
        plot_curve(episodes, args.curve)
    if args.json:
        summary = {"train_seconds": train_seconds, "frames": frames, **results}
        Path(args.json).write_text(json.dumps(summary))


if __name__ == "__main__":
    main()
