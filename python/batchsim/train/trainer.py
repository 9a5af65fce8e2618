"""The PPO trainer: collects T-step rollouts from a batchsim.Simulator (same-step
autoreset: an ended episode's next observation arrives in the step that ended it), updates
the policy, and keeps the running success and SPL of finished episodes."""

from __future__ import annotations

import collections
import time

import numpy as np
import torch
from torch.distributions import Categorical

from batchsim.simulator import Simulator
from batchsim.train.config import TrainConfig
from batchsim.train.lamb import Lamb
from batchsim.train.models import POINTGOAL, Policy, preprocess
from batchsim.train.ppo import PPOSettings, update
from batchsim.train.schedule import lr_factor, scaled_lr
from batchsim.train.storage import RolloutStorage

NO_ACTION = 4  # the previous-action embedding's "none yet"


def _autocast_dtype(config: TrainConfig, device: torch.device):
    if device.type != "cuda" or config.precision == "fp32":
        return None
    return torch.bfloat16 if config.precision == "bf16" else torch.float16


class Trainer:
    def __init__(self, config: TrainConfig):
        config.validate()
        self.config = config
        torch.manual_seed(config.seed)
        self.sim = Simulator(
            config.dataset,
            config.num_envs,
            sensors=config.sensors,
            resolution=config.resolution,
            device=config.device,
            seed=config.seed,
            scenes_resident=config.scenes_resident,
            autoreset="same_step",
            num_threads=config.num_threads or (torch.get_num_threads() or 1),
        )
        self.device = torch.device(self.sim.device)
        self.views = self._observation_views()
        channels = sum(v.shape[1] for v in self.views.values())
        if "depth" in self.views:
            channels += config.depth_bins
        self.policy = Policy(
            config.encoder,
            channels,
            hidden=config.hidden_size,
            layers=config.rnn_layers,
            rnn=config.rnn,
        ).to(self.device)
        frames_per_minibatch = config.frames_per_update // config.minibatches
        self.lr = scaled_lr(config.base_lr, frames_per_minibatch)
        optimizer = Lamb if config.optimizer == "lamb" else torch.optim.Adam
        self.optimizer = optimizer(self.policy.parameters(), lr=self.lr)
        self.settings = PPOSettings(
            epochs=config.epochs,
            minibatches=config.minibatches,
            clip=config.clip,
            value_coef=config.value_coef,
            entropy_coef=config.entropy_coef,
            max_grad_norm=config.max_grad_norm,
            max_depth=config.max_depth,
            depth_bins=config.depth_bins,
            autocast_dtype=_autocast_dtype(config, self.device),
        )
        self.scaler = (
            torch.amp.GradScaler("cuda") if self.settings.autocast_dtype == torch.float16 else None
        )
        shapes = {k: (tuple(v.shape[1:]), v.dtype) for k, v in self.views.items()}
        shapes[POINTGOAL] = ((2,), torch.float32)
        state_shape = (self.policy.state_layers, config.num_envs, config.hidden_size)
        self.storage = RolloutStorage(
            config.rollout_steps, config.num_envs, shapes, state_shape, self.device
        )
        self.updates = 0
        self.frames = 0
        self.episodes = collections.deque(maxlen=max(100, config.num_envs))
        self._reset()

    def _observation_views(self) -> dict[str, torch.Tensor]:
        views = {}
        if self.sim.depth is not None:
            views["depth"] = torch.from_dlpack(self.sim.depth)
        if self.sim.rgb is not None:
            views["rgb"] = torch.from_dlpack(self.sim.rgb)[..., :3].permute(0, 3, 1, 2)
        return views

    def _observation(self) -> dict[str, torch.Tensor]:
        obs = dict(self.views)
        obs[POINTGOAL] = torch.from_numpy(np.array(self.sim.pointgoal)).to(self.device)
        return obs

    def _reset(self) -> None:
        self.sim.reset(seed=self.config.seed)
        n = self.config.num_envs
        none = torch.full((n,), NO_ACTION, dtype=torch.long, device=self.device)
        self.storage.insert_observation(
            0, self._observation(), none, torch.zeros(n, device=self.device)
        )

    def _act(self, t: int):
        s, storage = self.settings, self.storage
        obs = {k: v[t] for k, v in storage.obs.items()}
        with (
            torch.no_grad(),
            torch.autocast(
                self.device.type,
                dtype=s.autocast_dtype or torch.float32,
                enabled=s.autocast_dtype is not None,
            ),
        ):
            logits, value, self.state = self.policy(
                preprocess(obs, s.max_depth, s.depth_bins),
                obs[POINTGOAL],
                storage.previous_action[t],
                self.state,
                storage.masks[t][None],
            )
        dist = Categorical(logits=logits.float())
        action = dist.sample()
        return action, dist.log_prob(action), value.float()

    def collect(self) -> None:
        """One rollout of T steps into the storage, returns and advantages computed."""
        storage = self.storage
        self.state = storage.initial_state.clone()
        for t in range(storage.steps):
            action, log_prob, value = self._act(t)
            self.sim.step(action.cpu().numpy().astype(np.int32))
            done_host = np.logical_or(self.sim.terminated, self.sim.truncated)
            self._record_episodes(done_host)
            done = torch.from_numpy(done_host).to(self.device)
            reward = torch.from_numpy(np.array(self.sim.reward)).to(self.device)
            storage.insert_step(t, action, log_prob, value, reward, done.float())
            previous = torch.where(done, torch.full_like(action, NO_ACTION), action)
            storage.insert_observation(t + 1, self._observation(), previous, 1.0 - done.float())
        state = self.state  # the bootstrap value must not advance the recurrent state
        _, _, last_value = self._act(storage.steps)
        self.state = state
        storage.compute_returns(last_value, self.config.gamma, self.config.gae_lambda)
        self.frames += self.config.frames_per_update

    def _record_episodes(self, done: np.ndarray) -> None:
        for i in np.flatnonzero(done):
            self.episodes.append((float(self.sim.success[i]), float(self.sim.spl[i])))

    def train_step(self) -> dict[str, float]:
        """Collect a rollout and update the policy once; returns the update's statistics."""
        config = self.config
        factor = lr_factor(self.updates, config.total_updates, config.warmup_updates)
        for group in self.optimizer.param_groups:
            group["lr"] = self.lr * factor
        started = time.perf_counter()
        self.collect()
        collected = time.perf_counter()
        stats = update(self.policy, self.optimizer, self.storage, self.settings, self.scaler)
        self.storage.start_next(self.state)
        finished = time.perf_counter()
        self.updates += 1
        stats |= {
            "lr": self.lr * factor,
            "collect_s": collected - started,
            "update_s": finished - collected,
            "frames_per_s": config.frames_per_update / (finished - started),
            **self.episode_metrics(),
        }
        return stats

    def episode_metrics(self) -> dict[str, float]:
        if not self.episodes:  # nothing finished yet: no number rather than NaN
            return {"episodes": 0}
        success, spl = np.mean(np.asarray(self.episodes), 0)
        return {"success": float(success), "spl": float(spl), "episodes": len(self.episodes)}

    def close(self) -> None:
        self.sim.close()
