"""gymnasium's vector wrappers over BatchNavEnv's torch mode: which work, and our own error
for those that cannot.

gymnasium 1.x's vector wrappers are written for numpy: RecordEpisodeStatistics adds rewards
into numpy arrays, NormalizeReward computes ``1 - terminated``, DictInfoToList asserts
``np.ndarray`` values, and the observation wrappers (FilterObservation, RescaleObservation,
...) batch through numpy. Over torch tensors they fail with errors that name neither the env
nor the fix, or, on the CPU, silently hand out numpy observations beside torch rewards (and
fail on a GPU). So the torch mode refuses them as they first reset or step it, naming the fix
(``array="numpy"``); the wrappers that only pass the env's outputs on, or that apply the
user's own function, work in both modes. Above TransformObservation or TransformReward the
user's function decides what the next wrapper gets (it may convert to numpy), so no wrapper
is refused for those outputs: one that keeps tensors leaves gymnasium's error standing.

A wrapper is told by the first of gymnasium's vector-wrapper classes in its MRO (so a user's
subclass of RecordEpisodeStatistics counts as one). The chain of wrappers over the env is
read from the callers' frames (each wrapper's reset/step calls its ``env``'s), at reset and
at the first step from a new caller: no hook on the wrappers themselves exists.
"""

from __future__ import annotations

from types import FrameType
from typing import Any

_OBS, _REWARD, _FLAGS, _INFO = "observations", "rewards", "flags", "info"
_OBSERVATION_WRAPPERS = (
    "VectorizeTransformObservation",
    "FilterObservation",
    "FlattenObservation",
    "GrayscaleObservation",
    "ResizeObservation",
    "ReshapeObservation",
    "RescaleObservation",
    "DtypeObservation",
    "NormalizeObservation",
)
# gymnasium 1.4's wrappers that do numpy arithmetic, and on which outputs.
NUMPY_ONLY: dict[str, frozenset[str]] = {
    "RecordEpisodeStatistics": frozenset({_REWARD, _FLAGS}),
    "NormalizeReward": frozenset({_REWARD, _FLAGS}),
    "DictInfoToList": frozenset({_INFO}),
    **{name: frozenset({_OBS}) for name in _OBSERVATION_WRAPPERS},
}
# Apply the user's function to some outputs, which may convert them: the wrappers above no
# longer see those as torch for certain, and so are not refused for them.
USER_FUNCTION: dict[str, frozenset[str]] = {
    "TransformObservation": frozenset({_OBS}),
    "TransformReward": frozenset({_REWARD}),
}
# Pass the outputs on unchanged (tensors stay tensors).
PASS_THROUGH = frozenset(
    {
        "ClipReward",
        "VectorizeTransformReward",
        "TransformAction",
        "VectorizeTransformAction",
        "ClipAction",
        "RescaleAction",
        "RecordVideo",
        "HumanRendering",
    }
)
# Anything else (ArrayConversion and its subclasses, wrappers not from gymnasium) ends the
# walk: what the wrappers above it see is no longer known.

FIX = (
    'make the env with array="numpy" (host numpy arrays, as gymnasium\'s own envs give; '
    'gymnasium.make_vec("batchsim/PointNav-v0", ...) does by default), or put '
    "gymnasium.wrappers.vector.ArrayConversion(env, env_xp=torch, target_xp=numpy) under it"
)


def torchrl_refusal(env: Any, caller: object) -> str | None:
    """Why TorchRL's GymWrapper (`caller`, when it is one over `env`) cannot take the env as
    made, or None. It keeps the arrays it is handed, which the torch mode rewrites in place at
    the next step; and torchrl 0.14 reads a Dict env's SAME_STEP final observations as zeros
    (its terminal_obs_reader looks for one "observation" key). DISABLED, TorchRL's preferred
    mode, with numpy arrays gives exactly the env's steps (test_integrations_torchrl.py)."""
    if (
        not type(caller).__module__.startswith("torchrl.")
        or getattr(caller, "_env", None) is not env
    ):
        return None
    from gymnasium.vector import AutoresetMode

    why = []
    if env.array != "numpy":
        why.append("it keeps the tensors it is handed, which the next step rewrites in place")
    if env.metadata["autoreset_mode"] != AutoresetMode.DISABLED:
        why.append("TorchRL prefers DISABLED, and reads SAME_STEP final observations of a "
                   "Dict env as zeros (torchrl 0.14)")  # fmt: skip
    if not why:
        return None
    return (
        'TorchRL\'s GymWrapper needs BatchNavEnv(..., array="numpy", autoreset_mode="disabled"): '
        + "; ".join(why)
        + ". Or use batchsim.integrations.torchrl.TorchRLEnv (zero-copy torch tensors)"
    )


class WrapperGuard:
    """Refuses gymnasium's numpy-only vector wrappers over a torch-mode env (module
    docstring), and TorchRL's GymWrapper over an env made otherwise than it needs. One per
    env. Every reset walks the whole chain (a new outer wrapper resets first); a step skips
    the walk when its caller is the one last cleared, so a training loop's steps cost one
    frame lookup."""

    def __init__(self, env: Any):
        self._env = env
        self._cleared: object = None

    def check(self, caller: FrameType | None, *, reset: bool) -> None:
        """Raises TypeError if `caller` (the frame that called reset/step) is one of a chain
        of wrappers over the env in which a numpy-only wrapper sees torch outputs."""
        wrapper = _frame_self(caller)
        if wrapper is None or (wrapper is self._cleared and not reset):
            return
        refusal = torchrl_refusal(self._env, wrapper)
        if refusal is not None:
            raise TypeError(refusal)
        culprit = numpy_only_wrapper(self._env, caller) if self._env.array == "torch" else None
        if culprit is not None:
            name = type(culprit).__name__
            needs = NUMPY_ONLY[gymnasium_wrapper_name(culprit) or ""]
            outputs = " and ".join(o for o in (_OBS, _REWARD, _FLAGS, _INFO) if o in needs)
            raise TypeError(
                f"{name} does numpy arithmetic on the env's {outputs}, but this BatchNavEnv "
                f'returns torch tensors (array="torch", the default): {FIX}'
            )
        self._cleared = wrapper


def numpy_only_wrapper(env: Any, frame: FrameType | None) -> object | None:
    """The first numpy-only gymnasium wrapper in the chain of wrappers over `env` (whose
    methods run in `frame` and its callers) that is handed outputs still torch tensors."""
    from gymnasium.vector import VectorWrapper

    inner, torch_outputs = env, {_OBS, _REWARD, _FLAGS, _INFO}
    while frame is not None and torch_outputs:
        wrapper = _frame_self(frame)
        if not isinstance(wrapper, VectorWrapper):
            return None
        if wrapper is not inner:  # a new wrapper: it must wrap the one below it
            if getattr(wrapper, "env", None) is not inner:
                return None
            name = gymnasium_wrapper_name(wrapper)
            if name in NUMPY_ONLY:
                if NUMPY_ONLY[name] & torch_outputs:
                    return wrapper
            elif name in USER_FUNCTION:
                torch_outputs -= USER_FUNCTION[name]
            elif name not in PASS_THROUGH:
                return None
            inner = wrapper
        frame = frame.f_back
    return None


def gymnasium_wrapper_name(wrapper: object) -> str | None:
    """The name of the first of gymnasium's vector-wrapper classes in `wrapper`'s MRO."""
    for cls in type(wrapper).__mro__:
        if cls.__module__.startswith("gymnasium.wrappers.vector"):
            return cls.__name__
    return None


def _frame_self(frame: FrameType | None) -> object | None:
    return None if frame is None else frame.f_locals.get("self")


__all__ = ["FIX", "NUMPY_ONLY", "PASS_THROUGH", "USER_FUNCTION", "WrapperGuard"]
