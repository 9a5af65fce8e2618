"""Room label grids of single storeys: apartments (a hallway band, rooms on both sides,
L-shaped rooms, notches) and offices (a corridor spine, offices, meeting rooms, open-plan
areas). Cells are layout.CELL metres; -1 is outside."""

from __future__ import annotations

import itertools

import numpy as np


def _split(rng, start: int, stop: int, lo: int, hi: int) -> list[int]:
    """Cut points splitting [start, stop) into pieces of lo..hi cells."""
    cuts = [start]
    while stop - cuts[-1] > hi:
        room = stop - cuts[-1]
        upper = min(hi, room - lo)
        cuts.append(cuts[-1] + (int(rng.integers(lo, upper + 1)) if upper >= lo else room // 2))
    return [*cuts, stop]


def _fill_band(rng, labels, kinds, z0, z1, x0, x1, towards_hall_at_z0) -> None:
    """Splits a band into rooms; some columns split in depth, and some of those halves
    merge with the neighbouring column into L-shaped rooms."""
    cuts = _split(rng, x0, x1, 6, 10)
    previous_far = None  # the far half of the last column, if it was split in depth
    for a, b in itertools.pairwise(cuts):
        if z1 - z0 >= 10 and rng.random() < 0.45:
            depth = int(rng.integers(4, 6))  # the far half: a bathroom or closet, 2-3 m
            mid = z1 - depth if towards_hall_at_z0 else z0 + depth
            near, far = ((z0, mid), (mid, z1)) if towards_hall_at_z0 else ((mid, z1), (z0, mid))
            labels[near[0] : near[1], a:b] = len(kinds)
            kinds.append("room")
            labels[far[0] : far[1], a:b] = len(kinds)
            kinds.append("bathroom")
            previous_far = (far[0], a)  # a cell of that half
            continue
        room = len(kinds)
        labels[z0:z1, a:b] = room
        kinds.append("room")
        if previous_far is not None and rng.random() < 0.6:  # L: absorb the neighbour's half
            far_z, far_x = previous_far
            labels[labels == labels[far_z, far_x]] = room
        previous_far = None


def _compact(labels: np.ndarray) -> np.ndarray:
    """Renumbers rooms 0..n-1 in order of first appearance (row-major), -1 kept."""
    order = list(dict.fromkeys(int(v) for v in labels.ravel() if v >= 0))
    lookup = np.full(max(order) + 2, -1, np.int32)
    lookup[order] = np.arange(len(order))
    return lookup[labels]


def _relabel(labels, kinds) -> tuple[np.ndarray, list[str]]:
    order = list(dict.fromkeys(int(v) for v in labels.ravel() if v >= 0))
    return _compact(labels), [kinds[i] for i in order]


def apartment(rng) -> tuple[np.ndarray, list[str]]:
    """A hallway band with rooms on both sides; the hall may stop short of a big living
    room spanning the full depth at one end."""
    nx, nz = int(rng.integers(24, 37)), int(rng.integers(18, 27))
    hall_w = int(rng.integers(3, 5))
    hz = int(rng.integers(6, nz - hall_w - 6 + 1))
    labels = np.full((nz, nx), -1, np.int32)
    kinds = ["hallway"]
    living_w = int(rng.integers(8, 12)) if rng.random() < 0.6 else 0
    labels[hz : hz + hall_w, : nx - living_w] = 0
    if living_w:
        labels[:, nx - living_w :] = len(kinds)
        kinds.append("living")
    _fill_band(rng, labels, kinds, 0, hz, 0, nx - living_w, False)
    _fill_band(rng, labels, kinds, hz + hall_w, nz, 0, nx - living_w, True)
    if rng.random() < 0.4:  # a notch: the footprint is not always a rectangle
        _notch(rng, labels, kinds)
    labels, kinds = _relabel(labels, kinds)
    return labels, _name_apartment_rooms(labels, kinds)


def _name_apartment_rooms(labels, kinds) -> list[str]:
    """Room kinds by size: the smallest are bathrooms and the kitchen, the largest is the
    living room (unless the full-depth end room already is), the rest bedrooms."""
    free = [i for i, k in enumerate(kinds) if k not in ("hallway", "living")]
    free.sort(key=lambda i: (int((labels == i).sum()), i))
    names = ["bathroom", "kitchen"] + (["bathroom"] if len(free) >= 6 else [])
    kinds = list(kinds)
    if "living" not in kinds:
        kinds[free.pop()] = "living"
    for i, room in enumerate(free):
        kinds[room] = names[i] if i < len(names) else ("study" if i == len(free) - 1 else "bedroom")
    return kinds


def _notch(rng, labels, kinds) -> None:
    """Removes a small corner room; if that cuts a room off, the plan is redrawn."""
    nz, nx = labels.shape
    for z, x in ((0, 0), (nz - 1, 0), (0, nx - 1), (nz - 1, nx - 1)):
        room = labels[z, x]
        if room >= 0 and kinds[room] == "room" and (labels == room).sum() <= 60:
            labels[labels == room] = -1
            return


def office(rng) -> tuple[np.ndarray, list[str]]:
    """A corridor spine with offices on both sides; runs of offices merge into open-plan
    areas and meeting rooms; sometimes a full-depth open-plan hall at one end."""
    nx, nz = int(rng.integers(34, 51)), int(rng.integers(26, 37))
    cw = int(rng.integers(4, 7))
    cz = nz // 2 - cw // 2 + int(rng.integers(-2, 3))
    labels = np.full((nz, nx), -1, np.int32)
    kinds = ["corridor"]
    hall_w = int(rng.integers(12, 17)) if rng.random() < 0.5 else 0
    labels[cz : cz + cw, : nx - hall_w] = 0
    if hall_w:
        labels[:, nx - hall_w :] = len(kinds)
        kinds.append("open_plan")
    for z0, z1 in ((0, cz), (cz + cw, nz)):
        cuts = _split(rng, 0, nx - hall_w, 6, 9)
        i = 0
        while i < len(cuts) - 1:
            span = int(rng.choice([1, 1, 1, 2, 3])) if rng.random() < 0.5 else 1
            j = min(i + span, len(cuts) - 1)
            labels[z0:z1, cuts[i] : cuts[j]] = len(kinds)
            kinds.append({1: "office", 2: "meeting"}.get(j - i, "open_plan"))
            i = j
    return _relabel(labels, kinds)
