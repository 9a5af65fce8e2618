"""Which of a building's Habitat-rule episodes a scene keeps: mostly indoor ones.

Habitat's generator samples start and goal uniformly over the navmesh, so in a building with a
garden round it 39% of episodes started outdoors and most of those walked round the house to
the front door (generator v6, 40 scenes: mean geodesic 17.4 m against 12.0 m for v4's
houses). Scanned homes (and the zero-shot protocol, which keeps indoor islands only) are
almost all indoors, and a young policy that cannot yet find the door learns that stopping at
once beats wandering. So a scene keeps a fixed share of episodes that touch the garden and
fills the rest with episodes whose start and goal both lie inside: every episode still
passes Habitat's rules, and the generator just asks for more until it has enough of each
kind.

The two kinds are interleaved evenly, so that any prefix of a scene's list keeps the share:
evaluation subsets are often a prefix (the first 10 episodes of each scene), and v7, which
kept generation order, put the rarer garden episodes early: its first 10 held 55% garden
episodes with a mean geodesic of 16.9 m, against 10% and 13.8 m for the whole list
(generator v7, val and test of 60 scenes).
"""

from __future__ import annotations

import dataclasses

import numpy as np

# Bays jut out of the footprint at floor height; the garden lies lower (outdoor.GROUND).
BELOW_FLOOR = -0.05
MAX_ASK_FACTOR = 64  # asks for at most this many times the episodes before settling


def outdoors(points: np.ndarray, footprint_m: tuple[float, float]) -> np.ndarray:
    """Which points (rows x, y, z) lie outside the building: beyond its footprint's
    bounding box and under the ground floor."""
    p = np.asarray(points, np.float64).reshape(-1, 3)
    w, d = footprint_m
    beyond = (p[:, 0] < 0) | (p[:, 0] > w) | (p[:, 2] < 0) | (p[:, 2] > d)
    return beyond & (p[:, 1] < BELOW_FLOOR)


def touches_garden(episodes, footprint_m) -> np.ndarray:
    """Which episodes start or end outdoors."""
    if not episodes:
        return np.zeros(0, bool)
    starts = outdoors([e.start_position for e in episodes], footprint_m)
    goals = outdoors([e.goal_position for e in episodes], footprint_m)
    return starts | goals


def mix_episodes(generate, count: int, footprint_m, outdoor_share: float) -> list:
    """`count` episodes of which round(count * outdoor_share) touch the garden, the rest
    indoors: the first ones of each kind, evenly interleaved, renumbered. generate(n) returns
    n Habitat-rule episodes (deterministically). If the building yields too few of one kind
    within MAX_ASK_FACTOR * count episodes, the other kind fills the gap."""
    wanted_out = round(count * outdoor_share)
    asked = count
    while True:
        episodes = generate(asked)
        garden = touches_garden(episodes, footprint_m)
        inside = [e for e, g in zip(episodes, garden, strict=True) if not g]
        outside = [e for e, g in zip(episodes, garden, strict=True) if g]
        enough = len(inside) >= count - wanted_out and len(outside) >= wanted_out
        if enough or asked >= MAX_ASK_FACTOR * count:
            break
        asked = min(MAX_ASK_FACTOR * count, 4 * asked)
    # Indoors: all but the garden episodes there are (up to wanted_out); the garden tops up.
    n_in = min(count - min(wanted_out, len(outside)), len(inside))
    n_out = min(count - n_in, len(outside))
    kept = interleave(inside[:n_in], outside[:n_out])
    return [dataclasses.replace(e, episode_id=str(i)) for i, e in enumerate(kept)]


def interleave(first: list, second: list) -> list:
    """Both lists, each in its own order, merged so that every prefix holds each in about its
    share: item j of a list of n sits at (j + 0.5) / n of the way; ties go to `first`."""
    slots = [((j + 0.5) / len(first), 0, item) for j, item in enumerate(first)]
    slots += [((j + 0.5) / len(second), 1, item) for j, item in enumerate(second)]
    slots.sort(key=lambda slot: slot[:2])
    return [item for *_, item in slots]
