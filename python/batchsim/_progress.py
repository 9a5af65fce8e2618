"""Progress bars for long work: tqdm when installed, otherwise a plain line per step."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def progress(
    items: Iterable[T], *, total: int | None = None, desc: str = "", unit: str = "scene"
) -> Iterator[T]:
    try:
        from tqdm import tqdm
    except ImportError:  # minimal environments (the GPU machine has no package index)
        return _plain(items, total, desc)
    return iter(tqdm(items, total=total, desc=desc, unit=unit, dynamic_ncols=True))


def _plain(items: Iterable[T], total: int | None, desc: str) -> Iterator[T]:
    for index, item in enumerate(items, 1):
        yield item
        print(f"{desc}: {index}/{total if total is not None else '?'}", file=sys.stderr, flush=True)


class _PlainBar:
    """tqdm's update / set_postfix / close, printing a line per update."""

    def __init__(self, total: int, desc: str, disable: bool):
        self.total, self.desc, self.disable, self.n, self.postfix = total, desc, disable, 0, {}

    def update(self, count: int) -> None:
        self.n += count

    def set_postfix(self, values: dict) -> None:
        if not self.disable:
            shown = " ".join(f"{k}={v}" for k, v in values.items())
            print(f"{self.desc}: {self.n}/{self.total} {shown}", file=sys.stderr, flush=True)

    def close(self) -> None:
        pass


def progress_bar(
    *, total: int, desc: str = "", unit: str = "it", disable: bool = False, unit_scale=True
):
    """A bar to update by hand: tqdm when installed, else a line per set_postfix;
    unit_scale=False shows counts as integers (12/20 rather than 12.0/20.0)."""
    try:
        from tqdm import tqdm
    except ImportError:
        return _PlainBar(total, desc, disable)
    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        unit_scale=unit_scale,
        dynamic_ncols=True,
        disable=disable,
    )
