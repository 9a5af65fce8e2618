"""The parts a trainer is built from, each from a TrainConfig: the training environments,
the optimiser and the PPO settings (the policy: models.build_policy); the Trainer owns and
wires them."""

from __future__ import annotations

import torch

from batchsim.env import BatchNavEnv, make_env_halves
from batchsim.train.config import TrainConfig
from batchsim.train.lamb import Lamb, lamb_groups
from batchsim.train.models import Policy
from batchsim.train.ppo import PPOSettings


def make_envs(
    config: TrainConfig, dataset, device: str | None, num_threads: int
) -> tuple[BatchNavEnv, ...]:
    """The training environments over `dataset` (config.dataset, loaded) on `device`: the
    two pipelined halves of make_env_halves, or one BatchNavEnv of num_envs."""
    per_env = config.num_envs // 2 if config.pipeline else config.num_envs
    sim = config.sim.replace(  # seed as a keyword: make_env_halves gives the second half seed + 1
        num_envs=per_env,
        scenes_resident=min(config.sim.scenes_resident, per_env),
        num_threads=num_threads,
        seed=0,
    )
    options = dict(
        config=sim,
        seed=config.sim.seed,
        render=config.render,
        device=device,
        autoreset_mode="same_step",
        sensor_noise=config.sensor_noise,
    )
    if config.pipeline:
        return make_env_halves(dataset, config.num_envs, **options)
    return (BatchNavEnv(dataset, **options),)


def make_optimizer(config: TrainConfig, policy: Policy, lr: float) -> torch.optim.Optimizer:
    """LAMB with its plain-Adam group for the heads, biases and scalars, or Adam."""
    if config.optimizer == "lamb":
        return Lamb(lamb_groups(policy, ("actor", "critic")), lr=lr)
    return torch.optim.Adam(policy.parameters(), lr=lr)


def ppo_settings(config: TrainConfig, device: torch.device) -> PPOSettings:
    return PPOSettings(
        epochs=config.epochs,
        minibatches=config.minibatches,
        clip=config.clip,
        value_coef=config.value_coef,
        entropy_coef=config.entropy_coef,
        max_grad_norm=config.max_grad_norm,
        normalize_advantage=config.normalize_advantage,
        cpca_coef=config.cpca_coef,
        inverse_dynamics_coef=config.inverse_dynamics_coef,
        temporal_distance_coef=config.temporal_distance_coef,
        max_depth=config.max_depth,
        depth_bins=config.depth_bins,
        autocast_dtype=autocast_dtype(config, device),
    )


def autocast_dtype(config: TrainConfig, device: torch.device) -> torch.dtype | None:
    """bf16 or fp16 autocast on CUDA as `precision` asks; None (fp32) on the CPU."""
    if device.type != "cuda" or config.precision == "fp32":
        return None
    return torch.bfloat16 if config.precision == "bf16" else torch.float16
