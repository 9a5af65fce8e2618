"""Evaluation over a split: every episode exactly once (the simulator's eval mode hands them
out in order and parks environments when none are left), with Habitat's measures of each
finished episode, summarised as means with 95% confidence intervals. Agents: a trained
policy, and the random and forward-only baselines a learning curve is judged against."""

from __future__ import annotations

import collections
import math

import numpy as np
import torch
from torch.distributions import Categorical

from batchsim.env import visual_observations
from batchsim.simulator import Simulator
from batchsim.train import cpus
from batchsim.train.config import TrainConfig
from batchsim.train.intervals import interval
from batchsim.train.models import NO_ACTION, Policy, preprocess

MEASURES = ("success", "spl", "softspl", "distance_to_goal")


class RandomAgent:
    """Uniform over the four actions (STOP included), as Habitat's random baseline."""

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)

    def reset(self, n: int) -> None:
        self.n = n

    def act(self, sim: Simulator, began: np.ndarray) -> np.ndarray:
        return self.rng.integers(0, 4, self.n).astype(np.int32)


class ForwardAgent:
    """MOVE_FORWARD until the step limit: never calls STOP, so it succeeds only by luck."""

    def reset(self, n: int) -> None:
        self.n = n

    def act(self, sim: Simulator, began: np.ndarray) -> np.ndarray:
        return np.ones(self.n, np.int32)


class PolicyAgent:
    """A trained Policy, sampling (or taking the most likely action if greedy)."""

    def __init__(self, policy: Policy, config: TrainConfig, greedy: bool = False):
        self.policy, self.config, self.greedy = policy.eval(), config, greedy

    def reset(self, n: int) -> None:
        device = next(self.policy.parameters()).device
        self.state = self.policy.initial_state(n, device)
        self.previous = torch.full((n,), NO_ACTION, dtype=torch.long, device=device)

    @torch.no_grad()
    def act(self, sim: Simulator, began: np.ndarray) -> np.ndarray:
        device = self.previous.device
        obs = {k: v.to(device) for k, v in visual_observations(sim).items()}
        pointgoal = torch.from_numpy(np.array(sim.pointgoal)).to(device)
        mask = torch.from_numpy(~began).float().to(device)
        self.previous[torch.from_numpy(began).to(device)] = NO_ACTION
        logits, _, self.state, _ = self.policy(
            preprocess(obs, self.config.max_depth, self.config.depth_bins),
            pointgoal,
            self.previous,
            self.state,
            mask[None],
        )
        action = logits.argmax(-1) if self.greedy else Categorical(logits=logits).sample()
        self.previous = action
        return action.cpu().numpy().astype(np.int32)


def run_episodes(sim: Simulator, agent, bar=None, fields=MEASURES) -> dict[str, np.ndarray]:
    """Steps an eval-mode simulator until every episode has run; each of `fields` (simulator
    outputs, read for the episode that ended: MEASURES, "terminated", "episode_step", ...;
    "episode_index" is the ended episode's index into sim.episodes) per episode, in the order
    the episodes finished. `bar` (tqdm-like: update, set_postfix), if given, advances by each
    finished episode and shows the success so far."""
    sim.reset()
    agent.reset(sim.num_envs)
    began = np.ones(sim.num_envs, bool)
    results = {name: [] for name in fields}
    finished, successes = 0, 0.0
    while not sim.finished:
        running = np.array(sim.active)
        episode_index = np.array(sim.episode_index)  # autoreset replaces it in the step
        sim.step(agent.act(sim, began))
        ended = running & np.logical_or(sim.terminated, sim.truncated)
        for name in fields:
            values = episode_index if name == "episode_index" else np.array(getattr(sim, name))
            results[name].extend(values[ended].tolist())
        if bar is not None and ended.any():
            finished += int(ended.sum())
            successes += float(np.array(sim.success)[ended].sum())
            bar.update(int(ended.sum()))
            bar.set_postfix({"success": f"{successes / finished:.3f}"})
        began = ended
    return {name: np.asarray(values) for name, values in results.items()}


def summarize(results: dict[str, np.ndarray]) -> dict[str, dict]:
    """Each measure's mean and 95% confidence interval: {mean, ci95 (half its width), low,
    high, method, episodes}; Wilson for success, a percentile bootstrap for the others
    (batchsim.train.intervals says why)."""
    return {name: interval(name, values) for name, values in results.items()}


# Scenes an evaluation keeps resident at most to keep its environments busy: 128 procedural
# buildings take ~3 GB of GPU memory (each ~25 MB resident).
MAX_EVAL_SCENES = 128


def eval_simulator(config: TrainConfig, split: str, num_envs: int | None = None, **options):
    """An eval-mode Simulator over `split` that sees what the policy was trained on. It keeps
    at least the training's scenes_resident, and as many more (up to MAX_EVAL_SCENES) as
    keep every environment busy: each episode runs once, so with K scenes of E episodes
    resident only K x E environments have one (the protocol's 10 per scene of 100 scenes,
    1,000 environments: 100 scenes, one round of episodes instead of seven)."""
    dataset = config.load_eval_split(split)
    num_envs = num_envs or config.eval_envs
    scenes = busy_scenes(dataset, num_envs, config.sim.scenes_resident)
    options.setdefault("scenes_resident", scenes)
    return Simulator(
        dataset,
        num_envs,
        mode="eval",
        render=config.render,
        device=options.pop("device", config.device),
        num_threads=config.explicit_threads or cpus.default_threads().threads,
        autoreset="same_step",
        task=config.eval_task(),
        **options,
    )


def busy_scenes(dataset, num_envs: int, at_least: int) -> int:
    """Resident scenes that give `num_envs` environments an episode each (by the split's
    fewest episodes per scene), at least `at_least`, at most MAX_EVAL_SCENES and the split's
    scenes."""
    per_scene = collections.Counter(e.scene_id for e in dataset.episodes)
    fewest = min(per_scene.values())
    wanted = max(at_least, math.ceil(num_envs / fewest))
    return max(1, min(wanted, MAX_EVAL_SCENES, len(per_scene)))


def evaluate_policy(policy: Policy, config: TrainConfig, split: str) -> dict:
    """summarize() of the policy on every episode of `split`, leaving the caller's random
    generators and the policy's mode as they were."""
    was_training = policy.training
    devices = [torch.cuda.current_device()] if torch.cuda.is_available() else []
    sim = eval_simulator(config, split, device=str(next(policy.parameters()).device))
    try:
        with torch.random.fork_rng(devices=devices):
            return summarize(run_episodes(sim, PolicyAgent(policy, config)))
    finally:
        sim.close()
        policy.train(was_training)
