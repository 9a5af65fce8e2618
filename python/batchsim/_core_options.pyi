"""Type stubs for batchsim._core's option value types (src/bindings/configs.cpp,
value_type.hpp): TaskConfig, SimConfig, RenderOptions, RendererConfig and NavMeshSettings.
_core.pyi re-exports them; there is no module of this name at run time. Each class takes its
fields as keywords (a TypedDict its constructor and replace() unpack) and has equality, copy,
pickle and replace(); assigning a field validates it. tests/python/test_core_stubs.py checks
these against batchsim._core like the rest of _core.pyi; test_typing.py keeps each
TypedDict equal to its class's attributes."""

# pdoc executes this file to read its types: annotations must not be evaluated then.
from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, TypedDict

if TYPE_CHECKING:
    from typing_extensions import Unpack

# ---- navigation (nav.cpp): the navmesh bake's settings

class _NavMeshSettingsFields(TypedDict, total=False):
    """NavMeshSettings's fields as keywords of its constructor."""

    cell_size: float
    cell_height: float
    agent_height: float
    agent_radius: float
    agent_max_climb: float
    agent_max_slope: float
    region_min_size: float
    region_merge_size: float
    edge_max_len: float
    edge_max_error: float
    verts_per_poly: int
    detail_sample_dist: float
    detail_sample_max_error: float
    filter_low_hanging_obstacles: bool
    filter_ledge_spans: bool
    filter_walkable_low_height_spans: bool

class NavMeshSettings:
    cell_size: float
    cell_height: float
    agent_height: float
    agent_radius: float
    agent_max_climb: float
    agent_max_slope: float
    region_min_size: float
    region_merge_size: float
    edge_max_len: float
    edge_max_error: float
    verts_per_poly: int
    detail_sample_dist: float
    detail_sample_max_error: float
    filter_low_hanging_obstacles: bool
    filter_ledge_spans: bool
    filter_walkable_low_height_spans: bool
    def __init__(self, **kwargs: Unpack[_NavMeshSettingsFields]) -> None: ...
    def validate(self) -> None: ...

# ---- simulation and rendering (configs.cpp)

class _TaskConfigFields(TypedDict, total=False):
    """TaskConfig's fields as keywords of its constructor and replace()."""

    forward_step: float
    turn_degrees: float
    success_distance: float
    slack_reward: float
    success_reward: float
    max_episode_steps: int
    camera_height: float
    allow_sliding: bool
    forward_noise: float
    turn_noise: float
    camera_height_jitter: float

class TaskConfig:
    __hash__: ClassVar[None] = None  # type: ignore[assignment]  # mutable: unhashable
    field_names: ClassVar[tuple[str, ...]]
    forward_step: float
    turn_degrees: float
    success_distance: float
    slack_reward: float
    success_reward: float
    max_episode_steps: int
    camera_height: float
    allow_sliding: bool
    forward_noise: float
    turn_noise: float
    camera_height_jitter: float
    def __init__(self, **kwargs: Unpack[_TaskConfigFields]) -> None: ...
    def replace(self, **kwargs: Unpack[_TaskConfigFields]) -> TaskConfig: ...
    def __copy__(self) -> TaskConfig: ...
    def __deepcopy__(self, memo: dict[int, Any], /) -> TaskConfig: ...
    def __getstate__(self) -> dict[str, Any]: ...
    def __setstate__(self, state: dict[str, Any], /) -> None: ...

class _SimConfigFields(TypedDict, total=False):
    """SimConfig's fields as keywords of its constructor and replace()."""

    num_envs: int
    num_threads: int
    seed: int
    mode: str
    scenes_resident: int
    steps_per_scene: int
    geodesic: str
    autoreset: str
    loader_bytes_per_second: float
    task: TaskConfig

class SimConfig:
    __hash__: ClassVar[None] = None  # type: ignore[assignment]  # mutable: unhashable
    field_names: ClassVar[tuple[str, ...]]
    num_envs: int
    num_threads: int
    seed: int
    mode: str  # 'train' or 'eval'
    scenes_resident: int
    steps_per_scene: int
    geodesic: str  # 'corridor' or 'exact'
    autoreset: str  # 'same_step', 'next_step' or 'disabled'
    loader_bytes_per_second: float
    task: TaskConfig
    def __init__(self, **kwargs: Unpack[_SimConfigFields]) -> None: ...
    def replace(self, **kwargs: Unpack[_SimConfigFields]) -> SimConfig: ...
    def __copy__(self) -> SimConfig: ...
    def __deepcopy__(self, memo: dict[int, Any], /) -> SimConfig: ...
    def __getstate__(self) -> dict[str, Any]: ...
    def __setstate__(self, state: dict[str, Any], /) -> None: ...

class _RenderOptionsFields(TypedDict, total=False):
    """RenderOptions's fields as keywords of its constructor and replace()."""

    width: int
    height: int
    hfov_degrees: float
    near_plane: float
    far_plane: float
    depth: bool
    rgb: bool
    backend: str
    final_views: bool
    double_buffer: bool

class RenderOptions:
    __hash__: ClassVar[None] = None  # type: ignore[assignment]  # mutable: unhashable
    field_names: ClassVar[tuple[str, ...]]
    width: int
    height: int
    hfov_degrees: float
    near_plane: float
    far_plane: float
    depth: bool
    rgb: bool
    backend: str  # 'auto', 'raster' or 'compute'
    final_views: bool
    double_buffer: bool
    def __init__(self, **kwargs: Unpack[_RenderOptionsFields]) -> None: ...
    def replace(self, **kwargs: Unpack[_RenderOptionsFields]) -> RenderOptions: ...
    def __copy__(self) -> RenderOptions: ...
    def __deepcopy__(self, memo: dict[int, Any], /) -> RenderOptions: ...
    def __getstate__(self) -> dict[str, Any]: ...
    def __setstate__(self, state: dict[str, Any], /) -> None: ...

class _RendererConfigFields(TypedDict, total=False):
    """RendererConfig's fields as keywords of its constructor and replace()."""

    views: int
    width: int
    height: int
    hfov_degrees: float
    near_plane: float
    far_plane: float
    places: int
    batches: int
    depth: bool
    rgb: bool
    backend: str

class RendererConfig:
    __hash__: ClassVar[None] = None  # type: ignore[assignment]  # mutable: unhashable
    field_names: ClassVar[tuple[str, ...]]
    views: int
    width: int
    height: int
    hfov_degrees: float
    near_plane: float
    far_plane: float
    places: int
    batches: int
    depth: bool
    rgb: bool
    backend: str  # 'auto', 'raster' or 'compute'
    def __init__(self, **kwargs: Unpack[_RendererConfigFields]) -> None: ...
    def replace(self, **kwargs: Unpack[_RendererConfigFields]) -> RendererConfig: ...
    def __copy__(self) -> RendererConfig: ...
    def __deepcopy__(self, memo: dict[int, Any], /) -> RendererConfig: ...
    def __getstate__(self) -> dict[str, Any]: ...
    def __setstate__(self, state: dict[str, Any], /) -> None: ...
