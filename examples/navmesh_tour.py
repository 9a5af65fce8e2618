"""Navmesh tour: import a real building, bake its navmesh, plan a path, draw the map.

Imports the two-storey house from Debian's assimp-testmodels (IFC) into a packed scene,
then finds the shortest path between two random points of its ground island and draws it
over the top-down navmesh map (PNG). Usage: python examples/navmesh_tour.py [OUT_DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import batchsim
from batchsim.viz import draw_path, ground_island, topdown_image, write_png

HOUSE = Path("/usr/share/assimp/models/IFC/AC14-FZK-Haus.ifc")
METERS_PER_PIXEL = 0.05
PATH_COLOUR = (220, 60, 40)


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "build/demo")
    out.mkdir(parents=True, exist_ok=True)
    if not HOUSE.exists():
        print(f"{HOUSE} not found (Debian package assimp-testmodels); skipping the tour")
        return
    scene = batchsim.import_scene(HOUSE, out / "fzk-haus.bsscene")
    navmesh = scene.navmesh()
    print(
        f"{scene.triangle_count} triangles, {navmesh.num_islands} islands, "
        f"{navmesh.navigable_area:.0f} m² walkable"
    )
    ground, _ = ground_island(navmesh)
    navmesh.seed(7)  # of 16 random pairs on the ground island, show the longest path
    starts = navmesh.get_random_navigable_points(16, island_index=ground)
    goals = navmesh.get_random_navigable_points(16, island_index=ground)
    longest = int(np.argmax(navmesh.geodesic_distances(starts, goals)))
    start, goal = starts[longest], goals[longest]
    path = navmesh.find_path(start, goal)
    print(
        f"path {np.round(start, 2)} -> {np.round(goal, 2)}: "
        f"{navmesh.geodesic_distance(start, goal):.2f} m geodesic, "
        f"{np.linalg.norm(goal - start):.2f} m straight, {len(path)} corners"
    )
    image = topdown_image(navmesh, METERS_PER_PIXEL, height=float(start[1]))
    draw_path(image, navmesh.get_bounds()[0], METERS_PER_PIXEL, path, PATH_COLOUR)
    write_png(out / "fzk-haus-path.png", image)
    print(f"map: {out / 'fzk-haus-path.png'}")


if __name__ == "__main__":
    main()
