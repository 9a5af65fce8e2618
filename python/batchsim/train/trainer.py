"""The PPO trainer: collects T-step rollouts from batchsim.BatchNavEnv (same-step autoreset:
an ended episode's next observation arrives in the step that ended it; no final views, which
PPO does not use), updates the policy, and keeps the running success and SPL of finished
episodes.

Pipelining: with ``pipeline`` the N environments are the two halves of
batchsim.make_env_halves, the env API's own double buffering. While one half simulates and
renders step t on its C++ thread, the policy picks the other half's actions, so inference
overlaps simulation.

Overlap: with ``overlap_update`` the update of rollout k runs on a worker thread while
rollout k+1 is collected with the weights from before it (batchsim.train.overlap: one
update of policy lag, documented there); without it, collection and update take turns.

Segments: training runs in segments that begin with every environment starting a fresh
episode from a seed derived from (seed, rank, update). A checkpoint is taken at a segment
start, so a resumed run sees exactly the observations, recurrent state and random numbers
the uninterrupted run saw, and its next update is identical."""

from __future__ import annotations

import collections
import time
import warnings

import numpy as np
import torch

from batchsim.env import BatchNavEnv
from batchsim.train import cpus, distributed
from batchsim.train.acting import Actor, act
from batchsim.train.checkpoint import world_change_notice
from batchsim.train.compiled import compile_encoders
from batchsim.train.config import TrainConfig
from batchsim.train.curriculum import make_curriculum
from batchsim.train.models import NO_ACTION, build_policy
from batchsim.train.overlap import ActingCopy, BackgroundUpdate, update_generator
from batchsim.train.ppo import update
from batchsim.train.schedule import anneal, lr_factor, scaled_lr
from batchsim.train.setup import make_envs, make_optimizer, ppo_settings
from batchsim.train.signals import announce
from batchsim.train.storage import TORCH_DTYPES, RolloutStorage


def _half_slices(num_envs: int, pipeline: bool) -> list[slice]:
    if not pipeline:
        return [slice(0, num_envs)]
    half = num_envs // 2
    return [slice(0, half), slice(half, num_envs)]


class Trainer:
    def __init__(self, config: TrainConfig, checkpoint: dict | None = None, training=None):
        """`training`: config.dataset already loaded (a PointNavDataset), else loaded here."""
        config.validate()
        self.config = config
        self.rank, self.world = distributed.rank_and_world(config.device)
        torch.manual_seed(config.sim.seed + self.rank)
        self.halves = _half_slices(config.num_envs, config.pipeline)
        self.sim_threads = config.explicit_threads or cpus.default_threads().threads
        training = training or config.load_split(config.dataset)
        self.envs = make_envs(config, training, self._device(), self.sim_threads)
        self.device = self.envs[0].device
        self.policy = build_policy(config).to(self.device)
        if self.device.type == "cuda":  # NHWC convolutions: faster cuDNN kernels
            self.policy.use_channels_last()
        self.trained_policy = distributed.wrap(self.policy, self.device)
        self.frames_per_update = config.frames_per_update * self.world  # over all ranks
        self.lr = scaled_lr(config.base_lr, self.frames_per_update // config.minibatches)
        self.plain_lr = config.plain_lr or config.base_lr
        self.optimizer = make_optimizer(config, self.policy, self.lr)
        self.settings = ppo_settings(config, self.device)
        self.scaler = (
            torch.amp.GradScaler("cuda") if self.settings.autocast_dtype == torch.float16 else None
        )
        self._set_up_overlap()
        compile_encoders([self.policy, self.acting_policy], config.compile_encoder, self.device)
        self.actors = [
            Actor(self.acting_policy, self.settings, config.cuda_graphs) for _ in self.halves
        ]
        self.storage = self._make_storage()
        self.spare = self._make_storage() if config.overlap_update else None
        self.untrained: RolloutStorage | None = None  # collected, not yet trained on
        self.updates = 0
        self.frames = 0
        self.wall_s = 0.0  # seconds spent in train_step, over resumes
        self.scene_loads = 0  # scenes this rank's simulators loaded, over resumes
        self._loads_counted = 0  # of those, the ones today's simulators loaded
        self.episodes = collections.deque(maxlen=max(100, config.num_envs))
        self.stop_signal: int | None = None  # set by batchsim.train.run.train
        if checkpoint is not None:
            self.load_state(checkpoint)
        self.curriculum = make_curriculum(config, self.envs, self.frames)
        self.begin_segment()

    @property
    def total_updates(self) -> int:
        """Updates done plus those that take the global frames to total_frames (at least 1):
        frames mark progress, so a run resumed on another number of ranks ends where the
        schedule does."""
        remaining = max(self.config.total_frames - self.frames, 0) // self.frames_per_update
        return max(1, self.updates + remaining)

    # -- construction -------------------------------------------------------------------

    def _set_up_overlap(self) -> None:
        """The acting copy, worker thread and update generator of overlap_update; strictly
        on-policy, rollouts act with the learner's own weights."""
        self.acting, self.background, self.generator = None, None, None
        self.acting_policy = self.policy
        if not self.config.overlap_update:
            return
        self.acting = ActingCopy(self.policy)
        self.acting_policy = self.acting.policy
        self.background = BackgroundUpdate(self.device)
        self.generator = update_generator(self.device, self.config.sim.seed + self.rank)
        self.policy.set_update_generator(self.generator)

    def _device(self) -> str | None:
        """The training device: each rank's own GPU under several ranks, else the config's."""
        device = self.config.device
        if device in (None, "cuda") and torch.cuda.is_available() and self.world > 1:
            return f"cuda:{distributed.local_rank()}"
        return device

    def _make_storage(self) -> RolloutStorage:
        space = self.envs[0].single_observation_space
        shapes = {k: (space[k].shape, TORCH_DTYPES[space[k].dtype]) for k in space}
        state_shape = (self.policy.state_layers, self.config.num_envs, self.config.hidden_size)
        return RolloutStorage(
            self.config.rollout_steps, self.config.num_envs, shapes, state_shape, self.device
        )

    # -- segments and checkpoints -------------------------------------------------------

    def segment_seed(self, half: int) -> int:
        """Distinct for every (seed, rank, update, half): no two halves share a stream."""
        ranks = max(64, self.world)  # 64 up to 64 ranks: the seeds of earlier runs stay
        return ((self.config.sim.seed * 1_000_003 + self.updates) * ranks + self.rank) * 2 + half

    def begin_segment(self) -> None:
        """Every environment starts a new episode; the recurrent state starts from zero.
        A rollout still untrained (overlap_update) is trained on first."""
        self.drain()
        n = self.config.num_envs
        parts = [env.reset(seed=self.segment_seed(h))[0] for h, env in enumerate(self.envs)]
        obs = {k: torch.cat([p[k] for p in parts]) for k in parts[0]}
        none = torch.full((n,), NO_ACTION, dtype=torch.long, device=self.device)
        self.storage.insert_observation(0, obs, none, torch.zeros(n))
        self.storage.initial_state.zero_()

    def state_dict(self) -> dict:
        """What a resumed run needs besides the simulators (which restart at the segment):
        shared weights and counters, and each rank's random generators and episodes."""
        cuda = torch.cuda.get_rng_state(self.device) if self.device.type == "cuda" else None
        rank = {
            "torch_rng": torch.get_rng_state(),
            "cuda_rng": cuda,
            "episodes": list(self.episodes),
            "scene_loads": self.scene_loads,
            "update_rng": self.generator.get_state() if self.generator is not None else None,
        }
        return {
            "policy": self.policy.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "scaler": self.scaler.state_dict() if self.scaler is not None else None,
            "updates": self.updates,
            "frames": self.frames,
            "wall_s": self.wall_s,
            "ranks": distributed.gather(rank),
        }

    def load_state(self, state: dict) -> None:
        """Continues from a checkpoint, also one written by another number of ranks: the
        weights, optimiser and frames carry over (the schedule goes on from the frames), and
        a rank the checkpoint has no state for keeps the random streams of its seed."""
        if len(state["ranks"]) != self.world and self.rank == 0:
            warnings.warn(world_change_notice(state, self.world, self.lr), stacklevel=2)
        self.policy.load_state_dict(state["policy"])
        self.optimizer.load_state_dict(state["optimizer"])
        if self.scaler is not None and state.get("scaler") is not None:
            self.scaler.load_state_dict(state["scaler"])
        self.updates, self.frames = state["updates"], state["frames"]
        self.wall_s = state["wall_s"]
        if self.rank < len(state["ranks"]):
            self._load_rank_state(state["ranks"][self.rank])
        if self.acting is not None:
            self.acting.refresh()

    def _load_rank_state(self, rank: dict) -> None:
        """This rank's random generators, running episode metrics and scene-load count."""
        self.scene_loads = rank.get("scene_loads", 0)  # each rank's own; absent in old files
        self.episodes.extend(tuple(e) for e in rank["episodes"])
        torch.set_rng_state(rank["torch_rng"])
        if rank["cuda_rng"] is not None and self.device.type == "cuda":
            torch.cuda.set_rng_state(rank["cuda_rng"], self.device)
        if self.generator is not None and rank.get("update_rng") is not None:
            self.generator.set_state(rank["update_rng"])

    # -- rollouts -----------------------------------------------------------------------

    def _act(self, t: int, envs: slice, actor=None):
        """Actions, their log-probabilities and values for step t of `envs`; advances the
        recurrent state. `actor`: the half's (graphed) Actor, else the eager act()."""
        storage = self.storage
        obs = {k: v[t, envs] for k, v in storage.obs.items()}
        inputs = (
            obs,
            storage.previous_action[t, envs],
            self.state[:, envs],
            storage.masks[t, envs][None],
        )
        if actor is None:
            action, log_prob, value, state = act(self.acting_policy, self.settings, *inputs)
        else:
            action, log_prob, value, state = actor(*inputs)
        self.state[:, envs] = state
        return action, log_prob, value

    def _start_step(self, t: int, h: int) -> None:
        """Picks half h's actions at step t and starts its simulation on the C++ thread."""
        started = time.perf_counter()
        action, log_prob, value = self._act(t, self.halves[h], self.actors[h])
        self.pending[h] = (action, log_prob, value)
        # Host actions: waiting here for this half's inference, then stepping, measured 5-7%
        # more frames/s than handing the env the CUDA tensor to wait for on its step thread
        # on an H100.
        self.envs[h].step_async(action.cpu())
        self.timing["inference_s"] += time.perf_counter() - started

    def _finish_step(self, t: int, h: int) -> None:
        """Waits for half h's step t and stores its outcome and the next observation."""
        env, envs, storage = self.envs[h], self.halves[h], self.storage
        started = time.perf_counter()
        obs, reward, terminated, truncated, _ = env.step_wait()
        self.timing["sim_wait_s"] += time.perf_counter() - started
        action, log_prob, value = self.pending[h]
        self._record_episodes(env)
        done = terminated | truncated
        storage.insert_step(t, action, log_prob, value, reward, done.float(), envs)
        previous = torch.where(done, torch.full_like(action, NO_ACTION), action)
        storage.insert_observation(t + 1, obs, previous, (~done).float(), envs)

    def collect(self) -> None:
        """One rollout of T steps into the storage, returns and advantages computed. Half
        h's step t runs while the policy picks the other half's actions."""
        storage = self.storage
        self.state = storage.initial_state.clone()
        self.pending = [None] * len(self.envs)
        for t in range(storage.steps):
            for h in range(len(self.envs)):
                if t > 0:
                    self._finish_step(t - 1, h)
                self._start_step(t, h)
        for h in range(len(self.envs)):
            self._finish_step(storage.steps - 1, h)
        state = self.state.clone()  # the bootstrap value must not advance the recurrent state
        _, _, last_value = self._act(storage.steps, slice(None))
        self.state = state
        storage.compute_returns(last_value, self.config.gamma, self.config.gae_lambda)
        self.stop_fraction = float((storage.actions == 0).float().mean())

    def _record_episodes(self, env: BatchNavEnv) -> None:
        """Success and SPL of the episodes that ended, from the simulator's host arrays."""
        out = env.sim.outputs
        done = np.flatnonzero(out.terminated | out.truncated)
        self.episodes.extend(zip(out.success[done].tolist(), out.spl[done].tolist(), strict=True))

    def train_step(self) -> dict[str, float]:
        """Collect a rollout and update the policy once (overlapped: update on the rollout
        collected last while collecting the next); returns the update's statistics."""
        config = self.config
        factor = lr_factor(
            self.frames, config.total_frames, config.warmup_frames, self.frames_per_update
        )
        for group in self.optimizer.param_groups:
            group["lr"] = (self.lr if group.get("trust", True) else self.plain_lr) * factor
        if config.entropy_coef_final is not None:  # by the frames so far (kept over resumes)
            final, progress = config.entropy_coef_final, self.frames / config.total_frames
            self.settings.entropy_coef = anneal(config.entropy_coef, final, progress)
        self.timing = {"inference_s": 0.0, "sim_wait_s": 0.0, "collect_s": 0.0}
        started = time.perf_counter()
        if config.overlap_update:
            stats, rollouts = self._overlapped_step()
        else:
            stats, rollouts = self._collect_then_update(), 1
        finished = time.perf_counter()
        self.wall_s += finished - started
        self.updates += 1
        self.frames += self.frames_per_update * rollouts
        self._count_scene_loads()
        stats |= {
            "scene_loads": self.scene_loads,
            "lr": self.lr * factor,
            "entropy_coef": self.settings.entropy_coef,
            "stop_fraction": self.stop_fraction,
            **self.timing,
            "frames_per_s": config.frames_per_update * rollouts / (finished - started),
            **self.curriculum.advance(self.frames),  # logs this rollout's limit, sets the next
        }
        return distributed.aggregate(stats, self.episode_metrics(), self.device)

    def _collect(self) -> None:
        announce("rollout", self.updates + 1)  # fault-injection tests only
        started = time.perf_counter()
        self.collect()
        self.timing["collect_s"] += time.perf_counter() - started

    def _update(self, storage: RolloutStorage) -> dict[str, float]:
        """One PPO update on `storage`, its duration as update_s."""
        announce("update", self.updates + 1)
        started = time.perf_counter()
        stats = update(
            self.trained_policy,
            self.optimizer,
            storage,
            self.settings,
            self.scaler,
            self.generator,
        )
        return stats | {"update_s": time.perf_counter() - started}

    def _collect_then_update(self) -> dict[str, float]:
        self._collect()
        stats = self._update(self.storage)
        self.storage.start_next(self.state)
        return stats

    def _overlapped_step(self) -> tuple[dict[str, float], int]:
        """Updates on the last rollout on the worker thread while the next one is collected
        into the spare storage with the acting copy; returns the statistics and the number
        of rollouts collected (two at a segment start, none before the last update)."""
        rollouts = 0
        if self.untrained is None:  # a segment start: nothing collected yet
            self._collect()
            rollouts += 1
        trained, self.storage, self.spare = self.storage, self.spare, self.storage
        self.storage.start_next(self.state, previous=trained)
        self.untrained = None
        self.background.start(lambda: self._update(trained))
        if self.updates + 1 < self.total_updates:
            self._collect()
            self.untrained, rollouts = self.storage, rollouts + 1
        stats = self.background.result()
        self.acting.refresh()
        return stats, rollouts

    def drain(self) -> None:
        """Trains on the rollout not yet trained on (overlap_update), so that nothing is
        pending at a segment start or checkpoint: an update whose statistics go unlogged."""
        if self.untrained is None:
            return
        self._update(self.untrained)
        self.untrained = None
        self.updates += 1
        self.acting.refresh()

    def _count_scene_loads(self) -> None:
        """Adds the scenes the simulators loaded since the last count (slot rotation)."""
        loads = sum(env.sim.stats()["loads"] for env in self.envs)
        self.scene_loads += loads - self._loads_counted
        self._loads_counted = loads

    def episode_metrics(self) -> dict[str, float]:
        if not self.episodes:  # nothing finished yet: no number rather than NaN
            return {"episodes": 0}
        success, spl = np.mean(np.asarray(self.episodes), 0)
        return {"success": float(success), "spl": float(spl), "episodes": len(self.episodes)}

    def close(self) -> None:
        if self.background is not None:
            self.background.close()
        for env in self.envs:
            env.close()
