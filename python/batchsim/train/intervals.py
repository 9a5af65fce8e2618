"""95% confidence intervals of evaluation measures, each by a method fit for it:

- ``wilson``: success, a proportion of episodes (0 or 1 each): the Wilson score interval,
  which stays inside [0, 1] and is not empty at 0/n or n/n, where the normal approximation
  gives ``0.000 ± 0.000`` (0 of 20 successes: Wilson [0, 0.161]).
- ``bootstrap``: SPL, SoftSPL, distance_to_goal, per-episode values of any shape: the
  percentile bootstrap of the mean, BOOTSTRAP_RESAMPLES resamples of the episodes with a
  fixed seed (the same episodes give the same interval), the method rliable uses for
  aggregate RL metrics.

Each summary keeps ``mean``, ``ci95`` and ``episodes`` (``ci95`` is half the interval's
width, as before) and adds ``low``, ``high`` and ``method``.
"""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile
BOOTSTRAP_RESAMPLES = 10_000
BOOTSTRAP_SEED = 0
PROPORTIONS = ("success",)  # measures that are 0/1 per episode: Wilson
METHODS = {"wilson": "Wilson score", "bootstrap": "percentile bootstrap"}


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion, successes of n (n > 0)."""
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def bootstrap_mean(
    values: np.ndarray, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> tuple[float, float]:
    """The 95% percentile-bootstrap interval of values' mean, in chunks of resamples so that
    memory stays small for thousands of episodes."""
    values = np.asarray(values, np.float64)
    rng = np.random.default_rng(seed)
    chunk = max(1, 2**22 // len(values))
    means = []
    for start in range(0, resamples, chunk):
        count = min(chunk, resamples - start)
        picks = rng.integers(0, len(values), (count, len(values)))
        means.append(values[picks].mean(axis=1))
    low, high = np.percentile(np.concatenate(means), [2.5, 97.5])
    return float(low), float(high)


def interval(name: str, values: np.ndarray) -> dict:
    """{mean, ci95, low, high, method, episodes} of one measure's per-episode values."""
    values = np.asarray(values, np.float64)
    n = len(values)
    method = "wilson" if name in PROPORTIONS else "bootstrap"
    if n == 0:
        return {"mean": 0.0, "ci95": 0.0, "low": 0.0, "high": 0.0, "method": method, "episodes": 0}
    mean = float(values.mean())
    if method == "wilson":
        low, high = wilson(int(np.count_nonzero(values > 0.5)), n)
    else:
        low, high = bootstrap_mean(values)
    return {
        "mean": mean,
        "ci95": (high - low) / 2,
        "low": low,
        "high": high,
        "method": method,
        "episodes": n,
    }


def describe(summary: dict) -> str:
    """One line naming the interval method of each measure in `summary` ({measure: interval})."""
    by_method: dict[str, list[str]] = {}
    for name, stats in summary.items():
        by_method.setdefault(stats["method"], []).append(name)
    parts = [
        f"{', '.join(names)}: {METHODS[method]}"
        + (f" ({BOOTSTRAP_RESAMPLES:,} resamples)" if method == "bootstrap" else "")
        for method, names in by_method.items()
    ]
    return "95% intervals: " + "; ".join(parts)


__all__ = ["BOOTSTRAP_RESAMPLES", "METHODS", "bootstrap_mean", "describe", "interval", "wilson"]
