"""Recording PointNav episodes as video frames (`batchsim video` writes them as a GIF with
batchsim.viz.write_gif). Each frame shows the agent's view beside a top-down map of the
scene with the shortest path, the start, the goal, the agent's path so far and its heading,
and a caption with the episode's metrics; batchsim.viz draws them.

One environment runs the episodes one after another without autoreset, so the frame after
the last step still shows where the episode ended (with autoreset the simulator would
already have moved the agent to the next episode's start)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from batchsim.viz._pillow import pillow
from batchsim.viz.episode_map import EpisodeMap, SceneMaps
from batchsim.viz.frames import DEFAULT_MAX_DEPTH, agent_views, caption, compose

if TYPE_CHECKING:
    from batchsim.datasets import PointNavDataset


def video_simulator(
    split: PointNavDataset | str | os.PathLike,
    *,
    sensors: Sequence[str] = ("depth", "rgb"),
    resolution: int | tuple[int, int] = 64,
    max_episode_steps: int = 500,
    device: str | None = None,
    context=None,
    seed: int = 0,
):
    """A Simulator as record_episodes needs it: one environment, every episode of the split
    (a PointNavDataset, or a split path for load_pointnav) once in order (eval mode), no
    autoreset so an episode's last frame shows its end."""
    import batchsim

    return batchsim.Simulator(
        split,
        1,
        mode="eval",
        autoreset="disabled",
        sensors=sensors,
        resolution=resolution,
        device=device,
        context=context,
        seed=seed,
        task=batchsim.TaskConfig(max_episode_steps=max_episode_steps),
    )


def record_episodes(
    sim, agent, episodes: int, *, max_depth: float = DEFAULT_MAX_DEPTH
) -> list[np.ndarray]:
    """RGB uint8 [H, W, 3] frames of the next `episodes` episodes (fewer if the split runs
    out): each episode's start, then one frame per step. `sim` is one environment without
    autoreset (see video_simulator); `agent` has evaluate.py's reset(n) / act(sim, began)."""
    if episodes < 1:
        raise ValueError(f"episodes: expected >= 1, got {episodes}")
    if sim.num_envs != 1 or sim.config.autoreset != "disabled":
        raise ValueError(
            "record_episodes: expected a simulator with num_envs=1 and autoreset='disabled' "
            f"(see video_simulator), got {sim!r}"
        )
    pillow()  # fail before simulating anything
    maps = SceneMaps()
    frames: list[np.ndarray] = []
    sim.reset()
    agent.reset(1)
    for recorded in range(episodes):
        if not sim.active[0]:
            break  # eval mode: every episode of the split has run
        if recorded:
            sim.reset_envs(np.ones(1, bool))  # eval mode hands out the next episode
            if not sim.active[0]:
                break
        frames.extend(_record_episode(sim, agent, maps, max_depth))
    return frames


def _record_episode(sim, agent, maps: SceneMaps, max_depth: float) -> list[np.ndarray]:
    """Steps environment 0 from its episode's start to its end, one frame per state."""
    episode = sim.episodes[int(sim.episode_index[0])]
    scene = maps.get(sim.scene_paths[int(sim.scene_index[0])], episode.start_position[1])
    path = EpisodeMap(scene, np.asarray(episode.start_position), np.asarray(episode.goal_position))
    path.walk_to(sim.position[0])

    def frame() -> np.ndarray:
        panels = [*agent_views(sim, max_depth), path.render(sim.position[0], sim.rotation[0])]
        return compose(panels, caption(sim, episode))

    frames = [frame()]
    began = np.ones(1, bool)
    while not (sim.terminated[0] or sim.truncated[0]):
        sim.step(agent.act(sim, began))
        began = np.zeros(1, bool)
        path.walk_to(sim.position[0])
        frames.append(frame())
    return frames
