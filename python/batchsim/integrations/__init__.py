"""Adapters for other people's trainers, each over an unchanged BatchNavEnv: Stable-Baselines3
(:mod:`batchsim.integrations.sb3`) and TorchRL (:mod:`batchsim.integrations.torchrl`). They
import their library only when imported themselves (``pip install batchsim[integrations]``)."""
