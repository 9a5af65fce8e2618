"""Simulation tour: evaluate a compass agent on the procedural validation split.

Runs batchsim.BatchSim in evaluation mode (every episode exactly once) with an agent that
only reads pointgoal_with_gps_compass: it turns towards the goal, walks, and calls STOP
within 0.2 m. It knows nothing of walls, so it succeeds where the way is straight and
slides along walls elsewhere. Prints success/SPL/SoftSPL and draws every trajectory over
the top-down navmesh maps (green start, red goal, grey shortest path; the agent's path blue
on success, orange otherwise).
Usage: python examples/sim_tour.py [DATASET_DIR] [OUT_DIR]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

import batchsim
from batchsim.viz import draw_disc, draw_path, mosaic, topdown_image, write_png

METERS_PER_PIXEL = 0.03
NUM_ENVS = 32
EPISODES_DRAWN_PER_SCENE = 6
COLOURS = {
    "start": (40, 160, 60),
    "goal": (200, 40, 40),
    "shortest": (150, 150, 150),
    True: (40, 90, 220),
    False: (240, 140, 20),
}


def compass_actions(pointgoal: np.ndarray) -> np.ndarray:
    distance, angle = pointgoal[:, 0], pointgoal[:, 1]
    actions = np.where(angle > 0.18, 2, np.where(angle < -0.18, 3, 1)).astype(np.int32)
    actions[distance < 0.2] = 0
    return actions


def evaluate(sim: batchsim.BatchSim) -> tuple[dict[int, dict], float]:
    """Every episode's trajectory and final measures, and the wall time."""
    episodes: dict[int, dict] = {}
    started = time.perf_counter()
    sim.reset()
    tracks = {i: [sim.position[i].copy()] for i in range(sim.num_envs) if sim.active[i]}
    while not sim.finished:
        running = sim.episode_index.copy()
        sim.step(compass_actions(sim.pointgoal))
        ended = sim.terminated | sim.truncated
        for i in range(sim.num_envs):
            if i not in tracks:
                continue
            if not ended[i]:
                tracks[i].append(sim.position[i].copy())
                continue
            episodes[int(running[i])] = dict(
                path=tracks.pop(i),
                success=bool(sim.success[i]),
                spl=float(sim.spl[i]),
                softspl=float(sim.softspl[i]),
            )
            if sim.active[i]:
                tracks[i] = [sim.position[i].copy()]
    return episodes, time.perf_counter() - started


def draw_scene(scene_path: Path, runs: list[tuple[object, dict]]) -> np.ndarray:
    navmesh = batchsim.Scene.load(scene_path).navmesh()
    image = topdown_image(navmesh, METERS_PER_PIXEL)
    lo = navmesh.get_bounds()[0]
    for episode, run in runs:
        shortest = navmesh.find_path(episode.start_position, episode.goal_position)
        draw_path(image, lo, METERS_PER_PIXEL, shortest, COLOURS["shortest"])
        draw_path(image, lo, METERS_PER_PIXEL, run["path"], COLOURS[run["success"]], width=2)
        draw_disc(image, lo, METERS_PER_PIXEL, episode.start_position, 6, COLOURS["start"])
        draw_disc(image, lo, METERS_PER_PIXEL, episode.goal_position, 6, COLOURS["goal"])
    return image


def main() -> None:
    data = Path(sys.argv[1] if len(sys.argv) > 1 else "data/procgen")
    out = Path(sys.argv[2] if len(sys.argv) > 2 else "build/demo")
    out.mkdir(parents=True, exist_ok=True)
    sim = batchsim.BatchSim(data / "pointnav" / "val", NUM_ENVS, mode="eval", num_threads=2)
    episodes, seconds = evaluate(sim)
    measures = {
        k: np.mean([e[k] for e in episodes.values()]) for k in ("success", "spl", "softspl")
    }
    print(
        f"compass agent on {len(episodes)} val episodes ({len(sim.scene_paths)} scenes) in "
        f"{seconds:.1f} s: success {measures['success']:.3f}, SPL {measures['spl']:.3f}, "
        f"SoftSPL {measures['softspl']:.3f}; {sim.stats()['steps']} steps of {NUM_ENVS} envs"
    )
    images = []
    for scene_index, path in enumerate(sim.scene_paths):
        indices = [
            i for i, e in enumerate(sim.episodes) if sim.scene_ids[scene_index] == e.scene_id
        ]
        chosen = indices[:EPISODES_DRAWN_PER_SCENE]
        images.append(draw_scene(path, [(sim.episodes[i], episodes[i]) for i in chosen]))
    write_png(out / "sim-trajectories.png", mosaic(images, columns=min(3, len(images))))
    print(f"trajectories: {out / 'sim-trajectories.png'}")


if __name__ == "__main__":
    main()
