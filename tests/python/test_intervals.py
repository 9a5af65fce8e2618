"""Evaluation's 95% intervals (batchsim.train.intervals) against independent references:
Wilson's interval as the roots of its defining quadratic and published values, the
bootstrap against the normal interval it approaches on many episodes; summarize() and the
eval table name the method."""

from __future__ import annotations

import numpy as np
import pytest

from batchsim.cli.eval import format_table
from batchsim.train.evaluate import summarize
from batchsim.train.intervals import BOOTSTRAP_RESAMPLES, Z95, bootstrap_mean, interval, wilson


def wilson_by_roots(successes: int, n: int) -> tuple[float, float]:
    """The p with (p̂ - p)² = z² p (1 - p) / n: Wilson's definition, solved as a quadratic."""
    phat, z2 = successes / n, Z95**2
    roots = np.roots([1 + z2 / n, -(2 * phat + z2 / n), phat**2])
    low, high = sorted(float(r.real) for r in roots)
    return max(low, 0.0), min(high, 1.0)


@pytest.mark.parametrize(("successes", "n"), [(0, 20), (20, 20), (7, 20), (1, 3), (412, 1000)])
def test_wilson_solves_its_quadratic(successes, n):
    np.testing.assert_allclose(wilson(successes, n), wilson_by_roots(successes, n), atol=1e-12)


def test_wilson_published_values():
    # Newcombe (1998), Table I: 0/20 -> [0, 0.1611]; 15/148 -> [0.0624, 0.1605].
    np.testing.assert_allclose(wilson(0, 20), (0.0, 0.1611), atol=1e-4)
    np.testing.assert_allclose(wilson(15, 148), (0.0624, 0.1605), atol=1e-4)


def test_no_success_is_not_an_empty_interval():
    stats = interval("success", np.zeros(20))
    assert stats["mean"] == 0.0 and stats["low"] == 0.0 and stats["high"] > 0.16
    assert stats["method"] == "wilson" and stats["episodes"] == 20
    assert stats["ci95"] == pytest.approx(stats["high"] / 2)


def test_bootstrap_approaches_the_normal_interval():
    values = np.random.default_rng(3).exponential(0.4, 4000)  # skewed, like SPL's
    low, high = bootstrap_mean(values)
    half = Z95 * values.std(ddof=1) / np.sqrt(len(values))
    # 10,000 resamples: the percentiles move by ~1% of the half-width between seeds.
    np.testing.assert_allclose((low, high), (values.mean() - half, values.mean() + half), rtol=0,
                               atol=0.05 * half)  # fmt: skip
    assert bootstrap_mean(values) == (low, high)  # seeded: the same episodes, the same interval


def test_bootstrap_of_constant_values_is_that_value():
    assert bootstrap_mean(np.full(50, 0.25)) == pytest.approx((0.25, 0.25))


def test_summarize_keeps_its_fields_and_names_methods():
    rng = np.random.default_rng(0)
    results = {"success": (rng.random(40) < 0.3).astype(np.float32), "spl": rng.random(40) * 0.3}
    summary = summarize(results)
    assert set(summary["success"]) == {"mean", "ci95", "low", "high", "method", "episodes"}
    assert summary["success"]["method"] == "wilson" and summary["spl"]["method"] == "bootstrap"
    for stats, values in zip(summary.values(), results.values(), strict=True):
        assert stats["low"] <= stats["mean"] <= stats["high"]
        assert stats["mean"] == pytest.approx(values.mean())
    empty = summarize({"spl": np.zeros(0)})["spl"]
    assert empty["episodes"] == 0 and empty["ci95"] == 0.0


def test_eval_table_shows_bounds_and_the_method():
    zeros = np.zeros(20, np.float32)
    measures = ("success", "spl", "softspl", "distance_to_goal")
    table = format_table({"random": summarize(dict.fromkeys(measures, zeros))})
    assert "0.000 [0.000, 0.161]" in table  # not 0.000 ± 0.000
    assert table.splitlines()[-1] == (
        "95% intervals: success: Wilson score; SPL, SoftSPL, dist (m): percentile bootstrap "
        f"({BOOTSTRAP_RESAMPLES:,} resamples)"
    )
