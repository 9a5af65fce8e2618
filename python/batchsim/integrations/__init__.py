"""Adapters for other people's trainers, each over an unchanged BatchNavEnv: Stable-Baselines3
(:mod:`batchsim.integrations.sb3`) and TorchRL (:mod:`batchsim.integrations.torchrl`). They
import their library only when imported themselves (``pip install batchsim[integrations]``)."""

from gymnasium.vector import AutoresetMode


def require_modes(env, adapter: str, array: str, autoreset: AutoresetMode, why: str) -> None:
    """Refuses an env not made in the array and autoreset modes `adapter` needs; `why`: what
    in its library needs that autoreset mode."""
    if env.array != array:
        kind = "tensors" if array == "torch" else "numpy arrays"
        raise ValueError(f'{adapter}: make the env with array="{array}" (it takes {kind})')
    if env.metadata["autoreset_mode"] != autoreset:
        mode = autoreset.name.lower()
        raise ValueError(f'{adapter}: make the env with autoreset_mode="{mode}" ({why})')
