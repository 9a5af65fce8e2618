"""batchsim: a batch simulator for embodied RL (Vulkan rendering, Detour navigation,
zero-copy DLPack export to PyTorch).

The C++ core lives in :mod:`batchsim._core`; this package holds one Python owner per C++
owner (Context, BatchRenderer, BatchSim, Simulator), the C++ configuration structs as value
types (SimConfig, TaskConfig, RenderOptions, RendererConfig), and the Python-side API
(BatchNavEnv, datasets, procgen, the trainer). docs/architecture.md maps the layers.
"""

from __future__ import annotations

import os as _os
from typing import TYPE_CHECKING as _TYPE_CHECKING

# batchsim's worker threads run beside torch's OpenMP pool, whose threads busy-wait between
# parallel regions by default and so take the cores the simulator needs. Waiting passively,
# a CPU training ran 1.04-1.13x faster alone, and two at once each kept 0.53-0.56 of its
# solo rate instead of 0.23-0.26 (measured on a 2-core VM, demo preset). Read when torch
# loads; a value the user set wins.
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from batchsim.errors import (
    ArgumentTypeError,
    ClosedError,
    CudaError,
    DeviceNotFoundError,
    Error,
    FileIoError,
    FormatError,
    InvalidArgumentError,
    MissingFileError,
    SceneCheckError,
    UnsupportedError,
    VulkanError,
    WaitTimeoutError,
)

try:
    from batchsim import _core
except ImportError as exc:  # pragma: no cover - exercised in a subprocess by test_core_import
    from batchsim._core_import import explain

    raise explain(exc) from None  # the message names the cause; its trace helps no user

# _arguments guards every _core call: wrong arguments get a message, not pybind11's dump.
from batchsim import _arguments, datasets  # noqa: F401
from batchsim._version import __version__
from batchsim.diag import PatternFill
from batchsim.options import RendererConfig, RenderOptions, SimConfig, TaskConfig
from batchsim.registration import register as _register_gym_id
from batchsim.renderer import BatchRenderer
from batchsim.scenes import (
    NavMesh,
    NavMeshSettings,
    Scene,
    import_scene,
    navmesh_settings,
)
from batchsim.sensor_noise import SensorNoise
from batchsim.sim import BatchSim, SimOutputs
from batchsim.simulator import Simulator

if _TYPE_CHECKING:  # the names __getattr__ imports on first use, typed for mypy and pyright
    from batchsim.env import BatchNavEnv, make_env_halves

_register_gym_id()  # gymnasium.make_vec("batchsim/PointNav-v0", ...): batchsim.registration

Context = _core.Context
Tensor = _core.Tensor
list_devices = _core.list_devices
cuda_status = _core.cuda_status
validation_layer_available = _core.validation_layer_available
validation_message_total = _core.validation_message_total


def __getattr__(name: str) -> object:
    # The env needs torch (the `torch` extra): imported on first use, not with batchsim, so
    # that the core (BatchSim, Simulator, the renderer, datasets) works without it.
    if name in ("BatchNavEnv", "make_env_halves"):
        try:
            from batchsim import env
        except ModuleNotFoundError as exc:
            if exc.name != "torch":
                raise
            raise ModuleNotFoundError(
                f"batchsim.{name} needs PyTorch, which is not installed: "
                "pip install 'batchsim[torch]' (or torch itself)",
                name="torch",
            ) from None
        return getattr(env, name)
    raise AttributeError(f"module 'batchsim' has no attribute {name!r}")


__all__ = [
    "ArgumentTypeError",
    "BatchNavEnv",
    "BatchRenderer",
    "BatchSim",
    "ClosedError",
    "Context",
    "CudaError",
    "DeviceNotFoundError",
    "Error",
    "FileIoError",
    "FormatError",
    "InvalidArgumentError",
    "MissingFileError",
    "NavMesh",
    "NavMeshSettings",
    "PatternFill",
    "RenderOptions",
    "RendererConfig",
    "Scene",
    "SceneCheckError",
    "SensorNoise",
    "SimConfig",
    "SimOutputs",
    "Simulator",
    "TaskConfig",
    "Tensor",
    "UnsupportedError",
    "VulkanError",
    "WaitTimeoutError",
    "__version__",
    "cuda_status",
    "datasets",
    "import_scene",
    "list_devices",
    "make_env_halves",
    "navmesh_settings",
    "validation_layer_available",
    "validation_message_total",
]
