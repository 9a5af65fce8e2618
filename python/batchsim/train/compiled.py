"""torch.compile for the policy's visual encoder (TrainConfig.compile_encoder).

The SE-ResNet's convolutions are cuDNN's either way; what Inductor adds is fusing the
elementwise work around them (Fixup's scalar biases, ReLUs, squeeze-and-excitation's
scaling), which moves the whole [T * N, C, H, W] activations through memory once per op in
eager mode. Each module is compiled in place (`nn.Module.compile`), so its state_dict and
checkpoints keep their keys, with one graph per input shape (rollout halves, minibatches).
"""

from __future__ import annotations

import functools
import importlib.util
import warnings

import torch
from torch import nn

CHOICES = ("auto", "on", "off")


@functools.cache
def inductor_works(device_type: str) -> str | None:
    """None where Inductor compiles and runs a tiny kernel on `device_type`, else why not."""
    if device_type != "cuda":
        return "only CUDA is compiled (the CPU path stays eager)"
    if importlib.util.find_spec("triton") is None:
        return "Triton is not installed"
    try:
        probe = torch.compile(lambda x: torch.relu(x) * 2 + 1, dynamic=False)
        x = torch.arange(-4.0, 4.0, device=device_type)
        if not torch.equal(probe(x), torch.relu(x) * 2 + 1):
            return "a compiled probe kernel gave wrong values"
    except Exception as error:  # Inductor raises many kinds: a missing compiler, headers...
        return f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
    return None


def compile_encoders(policies: list[nn.Module], choice: str, device: torch.device) -> bool:
    """Compiles each distinct policy's `encoder` where `choice` ("auto", "on", "off") and
    the device allow; returns whether it did. "on" where Inductor does not work raises."""
    if choice not in CHOICES:
        raise ValueError(f"compile_encoder: expected one of {list(CHOICES)}, got {choice!r}")
    if choice == "off":
        return False
    why_not = inductor_works(device.type)
    if why_not is not None:
        if choice == "on":
            raise RuntimeError(f"compile_encoder=on, but torch.compile cannot run: {why_not}")
        if device.type == "cuda":
            message = f"compile_encoder=auto: the encoder stays eager ({why_not})"
            warnings.warn(message, stacklevel=2)
        return False
    for policy in {id(p): p for p in policies}.values():
        compile_encoder(policy)
    return True


def compile_encoder(policy: nn.Module, backend="inductor") -> None:
    """The one way the encoder is compiled: in place, static shapes (a graph per input shape
    and mode). `backend`: Inductor, or a wrapper of it (the tests count its graphs)."""
    policy.encoder.compile(dynamic=False, backend=backend)
