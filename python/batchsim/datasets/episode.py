"""The PointNav episode record and its Habitat JSON form (one episode of a PointNav-v1 file)."""

from __future__ import annotations

import dataclasses
import os
from typing import Any

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]  # x, y, z, w: Habitat's (and numpy-quaternion's) order
Goal = tuple[Vec3, "float | None"]


@dataclasses.dataclass(frozen=True)
class PointNavEpisode:
    """One PointNav episode, as Habitat's NavigationEpisode stores it.

    scene_id is kept exactly as the file has it (e.g. "data/scene_datasets/gibson/Adrian.glb");
    resolve it with :func:`batchsim.datasets.resolve_scene` or PointNavDataset.scene_paths().
    """

    episode_id: str
    scene_id: str
    start_position: Vec3
    start_rotation: Quat
    goal_position: Vec3
    goal_radius: float | None = None
    geodesic_distance: float | None = None  # info.geodesic_distance
    # Habitat's "shortest_paths" verbatim: null, or a list of paths of {position, rotation,
    # action} points. Kept as parsed JSON; batchsim never needs it.
    shortest_path: list | None = None
    # Goals after the first (real files sometimes list several; PointNav uses the first).
    extra_goals: tuple[Goal, ...] = ()
    # info keys other than geodesic_distance (e.g. "difficulty"), in file order.
    extra_info: tuple[tuple[str, Any], ...] = ()

    @property
    def goals(self) -> tuple[Goal, ...]:
        """Every goal as (position, radius), the PointNav goal first."""
        return ((self.goal_position, self.goal_radius), *self.extra_goals)

    @property
    def scene_name(self) -> str:
        """The scene's file stem ("Adrian"): Habitat's name for content/<name>.json.gz."""
        return scene_name(self.scene_id)

    def to_json(self) -> dict[str, Any]:
        """The episode as Habitat writes it, keys in Habitat's order."""
        info: dict[str, Any] = {}
        if self.geodesic_distance is not None:
            info["geodesic_distance"] = self.geodesic_distance
        info.update(self.extra_info)
        return {
            "episode_id": self.episode_id,
            "scene_id": self.scene_id,
            "start_position": list(self.start_position),
            "start_rotation": list(self.start_rotation),
            "info": info,
            "goals": [{"position": list(p), "radius": r} for p, r in self.goals],
            "shortest_paths": self.shortest_path,
            "start_room": None,
        }


def scene_name(scene_id: str) -> str:
    """Habitat's Dataset.scene_from_scene_path: the basename less its last extension."""
    return os.path.splitext(os.path.basename(scene_id))[0]
