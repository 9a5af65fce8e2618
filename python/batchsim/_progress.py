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
