"""Jobs for the worker-pool tests, in a module of their own so that spawned workers import
only this (and start in a fraction of a second)."""

import time


def double_or_hang(job: int) -> int:
    """2 * job; a negative job never returns (as a hung import would not)."""
    if job < 0:
        time.sleep(3600)
    return 2 * job
