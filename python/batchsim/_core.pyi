"""Type stubs for batchsim._core, the pybind11 extension (src/bindings/*.cpp), written by
hand and checked against the module by tests/python/test_core_stubs.py (names and parameter
names must match). Arguments are typed as what the bindings accept (pybind11 converts
array-likes and path-likes); results as what they return. Only Tensor.torch needs torch."""

# pdoc executes this file to read its types: annotations must not be evaluated then.
from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, overload

import numpy as np
import torch
from numpy.typing import ArrayLike, NDArray

# Argument aliases: pybind11 converts these on the way in.
_Path = str | os.PathLike[str]
_F32Array = NDArray[np.float32]
# A CUevent handle (int) or a callable that returns once the actions are ready.
_Ready = int | Callable[[], object]

ACTIONS: tuple[str, str, str, str]
"""Action names; an action id is its position ('STOP', 'MOVE_FORWARD', ...)."""
DEFAULT_TEXTURE_BUDGET_BYTES: int
MAX_NAV_COORDINATE: float
"""Largest |coordinate| (metres) of an episode's start or goal that BatchSim accepts."""
PACKED_SCENE_VERSION: int
"""The newest packed scene format this build reads; it writes it for compressed scenes."""
PACKED_SCENE_UNCOMPRESSED_VERSION: int
"""The packed scene format this build writes for uncompressed scenes (older builds read it)."""

# ---- devices, tensors, diagnostics (context.cpp, tensor.cpp, diag.cpp, errors.cpp)

def list_devices() -> list[dict[str, Any]]: ...
def cuda_status() -> dict[str, Any]: ...
def validation_layer_available() -> bool: ...
def validation_message_total() -> int: ...
def validation_suppressed_total() -> int: ...
def vulkan_allocations() -> int: ...
def _raise_for_test(kind: str, message: str, /) -> None: ...

class Context:
    def __init__(
        self, device: int | str | None = None, validation: bool | None = None, export: str = "auto"
    ) -> None: ...
    @property
    def device_info(self) -> dict[str, Any]: ...
    @property
    def exports_cuda(self) -> bool: ...
    @property
    def cuda_device(self) -> int | None: ...
    @property
    def torch_device(self) -> str: ...
    @property
    def render_backend(self) -> str: ...
    @property
    def validation_enabled(self) -> bool: ...
    @property
    def validation_messages(self) -> int: ...
    def tensor(self, shape: Sequence[int], dtype: str = "float32") -> Tensor: ...
    def wait_idle(self) -> None: ...

class Tensor:
    @property
    def shape(self) -> tuple[int, ...]: ...
    @property
    def dtype(self) -> str: ...
    @property
    def device(self) -> str: ...
    @property
    def numel(self) -> int: ...
    @property
    def nbytes(self) -> int: ...
    @property
    def data_ptr(self) -> int: ...
    @property
    def _owner_count(self) -> int: ...
    def __dlpack__(
        self,
        *,
        stream: int | None = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> Any: ...  # a PyCapsule
    def __dlpack_device__(self) -> tuple[int, int]: ...
    def torch(self) -> torch.Tensor: ...

class PatternFill:
    def __init__(self, context: Context) -> None: ...
    def run(self, tensor: Tensor, seed: int, stream: int = 0) -> None: ...
    @staticmethod
    def expected(index: int, seed: int) -> float: ...

# ---- navigation (nav.cpp, nav_batch.cpp)

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
    def __init__(
        self,
        *,
        cell_size: float = ...,
        cell_height: float = ...,
        agent_height: float = ...,
        agent_radius: float = ...,
        agent_max_climb: float = ...,
        agent_max_slope: float = ...,
        region_min_size: float = ...,
        region_merge_size: float = ...,
        edge_max_len: float = ...,
        edge_max_error: float = ...,
        verts_per_poly: int = ...,
        detail_sample_dist: float = ...,
        detail_sample_max_error: float = ...,
        filter_low_hanging_obstacles: bool = ...,
        filter_ledge_spans: bool = ...,
        filter_walkable_low_height_spans: bool = ...,
    ) -> None: ...
    def validate(self) -> None: ...

class NavMesh:
    @staticmethod
    def load(path: _Path) -> NavMesh: ...
    @staticmethod
    def from_bytes(data: bytes) -> NavMesh: ...
    @staticmethod
    def bake(
        vertices: ArrayLike, indices: ArrayLike, settings: NavMeshSettings = ...
    ) -> NavMesh: ...
    def save(self, path: _Path) -> None: ...
    def to_bytes(self) -> bytes: ...
    def seed(self, seed: int) -> None: ...
    @property
    def settings(self) -> NavMeshSettings: ...
    @property
    def navigable_area(self) -> float: ...
    @property
    def num_islands(self) -> int: ...
    @property
    def polygon_count(self) -> int: ...
    def floor_heights(self) -> list[float]: ...
    def get_bounds(self) -> tuple[_F32Array, _F32Array]: ...
    def island_area(self, island_index: int) -> float: ...
    @overload
    def island_radius(self, island_index: int) -> float: ...
    @overload
    def island_radius(self, point: ArrayLike) -> float: ...
    def get_island(self, point: ArrayLike) -> int: ...
    def is_navigable(self, point: ArrayLike, max_y_delta: float = 0.5) -> bool: ...
    def snap_point(self, point: ArrayLike, island_index: int = -1) -> _F32Array: ...
    def get_random_navigable_point(self, island_index: int = -1) -> _F32Array: ...
    def get_random_navigable_points(self, count: int, island_index: int = -1) -> _F32Array: ...
    def geodesic_distance(self, start: ArrayLike, end: ArrayLike) -> float: ...
    def geodesic_distances(self, starts: ArrayLike, ends: ArrayLike) -> _F32Array: ...
    def find_path(self, start: ArrayLike, end: ArrayLike) -> _F32Array: ...
    def try_step(self, start: ArrayLike, end: ArrayLike) -> _F32Array: ...
    def try_step_no_sliding(self, start: ArrayLike, end: ArrayLike) -> _F32Array: ...
    def try_steps(
        self, starts: ArrayLike, ends: ArrayLike, allow_sliding: bool = True
    ) -> _F32Array: ...
    def distance_to_closest_obstacle(
        self, point: ArrayLike, max_search_radius: float = 2.0
    ) -> float: ...
    def start_problems(
        self, *, start_positions: ArrayLike, start_rotations: ArrayLike
    ) -> list[tuple[int, str]]: ...
    def get_topdown_view(
        self, meters_per_pixel: float, height: float, eps: float = 0.5
    ) -> NDArray[np.bool_]: ...

# ---- packed scenes (scene.cpp)

class Scene:
    @staticmethod
    def load(path: _Path) -> Scene: ...
    @property
    def source(self) -> str: ...
    @property
    def file_bytes(self) -> int: ...
    @property
    def loaded_bytes(self) -> int: ...
    @property
    def format_version(self) -> int: ...
    @property
    def vertex_count(self) -> int: ...
    @property
    def triangle_count(self) -> int: ...
    @property
    def chunk_count(self) -> int: ...
    @property
    def texture_count(self) -> int: ...
    @property
    def texture_bytes(self) -> int: ...
    @property
    def bvh_node_count(self) -> int: ...
    @property
    def bvh_depth(self) -> int: ...
    @property
    def has_navmesh(self) -> bool: ...
    @property
    def bounds(self) -> tuple[_F32Array, _F32Array]: ...
    @property
    def floor_heights(self) -> list[float]: ...
    def positions(self) -> _F32Array: ...
    def normals(self) -> _F32Array: ...
    def uvs(self) -> _F32Array: ...
    def colors(self) -> NDArray[np.uint8]: ...
    def indices(self) -> NDArray[np.uint32]: ...
    def bvh4_nodes(self) -> _F32Array: ...
    def chunks(self) -> dict[str, NDArray[Any]]: ...
    def materials(self) -> list[dict[str, Any]]: ...
    def texture(self, index: int, level: int = 0) -> dict[str, Any]: ...
    def navmesh(self) -> NavMesh: ...

def import_scene(
    model: _Path,
    out: _Path,
    axes: str = "x,y,z",
    scale: float = 1.0,
    navmesh: _Path | None = None,
    bake_navmesh: bool = True,
    settings: NavMeshSettings = ...,
    chunk_triangles: int = 1024,
    texture_budget_bytes: int = ...,
    texture_format: str = "rgba8",
    compress: bool = False,
) -> Scene: ...
def axes_for_up(up: str) -> str: ...

# ---- configuration value types (configs.cpp, value_type.hpp): keyword construction,
# equality, copy, pickle and replace(); assigning a field validates it.

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
    def __init__(
        self,
        *,
        forward_step: float = ...,
        turn_degrees: float = ...,
        success_distance: float = ...,
        slack_reward: float = ...,
        success_reward: float = ...,
        max_episode_steps: int = ...,
        camera_height: float = ...,
        allow_sliding: bool = ...,
        forward_noise: float = ...,
        turn_noise: float = ...,
        camera_height_jitter: float = ...,
    ) -> None: ...
    def replace(
        self,
        *,
        forward_step: float = ...,
        turn_degrees: float = ...,
        success_distance: float = ...,
        slack_reward: float = ...,
        success_reward: float = ...,
        max_episode_steps: int = ...,
        camera_height: float = ...,
        allow_sliding: bool = ...,
        forward_noise: float = ...,
        turn_noise: float = ...,
        camera_height_jitter: float = ...,
    ) -> TaskConfig: ...
    def __copy__(self) -> TaskConfig: ...
    def __deepcopy__(self, memo: dict[int, Any], /) -> TaskConfig: ...
    def __getstate__(self) -> dict[str, Any]: ...
    def __setstate__(self, state: dict[str, Any], /) -> None: ...

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
    def __init__(
        self,
        *,
        num_envs: int = ...,
        num_threads: int = ...,
        seed: int = ...,
        mode: str = ...,
        scenes_resident: int = ...,
        steps_per_scene: int = ...,
        geodesic: str = ...,
        autoreset: str = ...,
        loader_bytes_per_second: float = ...,
        task: TaskConfig = ...,
    ) -> None: ...
    def replace(
        self,
        *,
        num_envs: int = ...,
        num_threads: int = ...,
        seed: int = ...,
        mode: str = ...,
        scenes_resident: int = ...,
        steps_per_scene: int = ...,
        geodesic: str = ...,
        autoreset: str = ...,
        loader_bytes_per_second: float = ...,
        task: TaskConfig = ...,
    ) -> SimConfig: ...
    def __copy__(self) -> SimConfig: ...
    def __deepcopy__(self, memo: dict[int, Any], /) -> SimConfig: ...
    def __getstate__(self) -> dict[str, Any]: ...
    def __setstate__(self, state: dict[str, Any], /) -> None: ...

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
    def __init__(
        self,
        *,
        width: int = ...,
        height: int = ...,
        hfov_degrees: float = ...,
        near_plane: float = ...,
        far_plane: float = ...,
        depth: bool = ...,
        rgb: bool = ...,
        backend: str = ...,
        final_views: bool = ...,
        double_buffer: bool = ...,
    ) -> None: ...
    def replace(
        self,
        *,
        width: int = ...,
        height: int = ...,
        hfov_degrees: float = ...,
        near_plane: float = ...,
        far_plane: float = ...,
        depth: bool = ...,
        rgb: bool = ...,
        backend: str = ...,
        final_views: bool = ...,
        double_buffer: bool = ...,
    ) -> RenderOptions: ...
    def __copy__(self) -> RenderOptions: ...
    def __deepcopy__(self, memo: dict[int, Any], /) -> RenderOptions: ...
    def __getstate__(self) -> dict[str, Any]: ...
    def __setstate__(self, state: dict[str, Any], /) -> None: ...

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
    def __init__(
        self,
        *,
        views: int = ...,
        width: int = ...,
        height: int = ...,
        hfov_degrees: float = ...,
        near_plane: float = ...,
        far_plane: float = ...,
        places: int = ...,
        batches: int = ...,
        depth: bool = ...,
        rgb: bool = ...,
        backend: str = ...,
    ) -> None: ...
    def replace(
        self,
        *,
        views: int = ...,
        width: int = ...,
        height: int = ...,
        hfov_degrees: float = ...,
        near_plane: float = ...,
        far_plane: float = ...,
        places: int = ...,
        batches: int = ...,
        depth: bool = ...,
        rgb: bool = ...,
        backend: str = ...,
    ) -> RendererConfig: ...
    def __copy__(self) -> RendererConfig: ...
    def __deepcopy__(self, memo: dict[int, Any], /) -> RendererConfig: ...
    def __getstate__(self) -> dict[str, Any]: ...
    def __setstate__(self, state: dict[str, Any], /) -> None: ...

# ---- simulation and rendering (sim.cpp, sim_views.cpp, render.cpp, env.cpp)

class EpisodeSet:
    def __init__(
        self,
        *,
        scene_paths: Sequence[_Path],
        episode_scene: ArrayLike,
        start_position: ArrayLike,
        start_rotation: ArrayLike,
        goal: ArrayLike,
        geodesic: ArrayLike | None = None,
    ) -> None: ...
    def __len__(self) -> int: ...
    @property
    def scene_paths(self) -> list[os.PathLike[str]]: ...

class BatchSim:
    def __init__(self, config: SimConfig, episodes: EpisodeSet) -> None: ...
    @property
    def num_envs(self) -> int: ...
    @property
    def slot_count(self) -> int: ...
    @property
    def config(self) -> SimConfig: ...
    @property
    def finished(self) -> bool: ...
    @property
    def max_episode_geodesic(self) -> float: ...
    def set_max_episode_geodesic(self, metres: float) -> None: ...
    def reset(self, seed: int | None = None) -> None: ...
    def reset_envs(self, mask: ArrayLike) -> None: ...
    # actions: C-contiguous int32 [N]; None steps with the actions already in arrays().
    def step(self, actions: NDArray[np.int32] | None = None) -> None: ...
    def arrays(self) -> dict[str, NDArray[Any]]: ...
    def stats(self) -> dict[str, int | float]: ...

class BatchRenderer:
    def __init__(self, context: Context, config: RendererConfig) -> None: ...
    @property
    def context(self) -> Context: ...
    @property
    def config(self) -> RendererConfig: ...
    @property
    def backend(self) -> str: ...
    @property
    def batches(self) -> int: ...
    @property
    def depth(self) -> Tensor | None: ...
    @property
    def rgb(self) -> Tensor | None: ...
    def set_scene(self, place: int, scene: Scene) -> None: ...
    def scene_bytes(self, place: int, textures_only: bool = False) -> int: ...
    def batch_views(self, batch: int) -> tuple[int, int]: ...
    def render(
        self, positions: ArrayLike, rotations: ArrayLike, places: ArrayLike, stream: int = 0
    ) -> None: ...
    def submit(
        self,
        batch: int,
        positions: ArrayLike,
        rotations: ArrayLike,
        places: ArrayLike,
        stream: int = 0,
    ) -> None: ...
    def wait(self, batch: int) -> None: ...
    def pass_times(self, batch: int) -> dict[str, float] | None: ...
    def draw_statistics(self, batch: int) -> dict[str, int] | None: ...

class Simulator:
    def __init__(
        self, context: Context, config: SimConfig, render: RenderOptions, episodes: EpisodeSet
    ) -> None: ...
    @property
    def sim(self) -> BatchSim: ...
    @property
    def renderer(self) -> BatchRenderer: ...
    @property
    def stepping(self) -> bool: ...
    @property
    def results(self) -> dict[str, Tensor]: ...
    @property
    def final_depth(self) -> Tensor | None: ...
    @property
    def final_rgb(self) -> Tensor | None: ...
    @property
    def final_pointgoal(self) -> _F32Array | None: ...
    @property
    def last_step_seconds(self) -> float: ...
    @property
    def last_action_wait_seconds(self) -> float: ...
    @property
    def last_submit_seconds(self) -> float: ...
    def reset(self, seed: int | None = None, stream: int = 0) -> None: ...
    def reset_envs(self, mask: ArrayLike, stream: int = 0) -> None: ...
    def step(self, actions: NDArray[np.int32] | None = None, stream: int = 0) -> None: ...
    def step_async(self, actions: NDArray[np.int32] | None = None, stream: int = 0) -> None: ...
    def step_wait(self) -> None: ...
    # values: the address of N int64 actions (e.g. a CUDA tensor's data_ptr()).
    def step_after(self, values: int, ready: _Ready, device: int = 0, stream: int = 0) -> None: ...
    def step_async_after(
        self, values: int, ready: _Ready, device: int = 0, stream: int = 0
    ) -> None: ...
