"""Shared fixtures. Every Context the suite creates runs under the Khronos validation layer
when it is installed (BATCHSIM_VALIDATION=1); test_zz_validation.py checks the count."""

from __future__ import annotations

import os

os.environ.setdefault("BATCHSIM_VALIDATION", "1")

import pytest

import batchsim


@pytest.fixture(scope="module")
def context() -> batchsim.Context:
    """The default device, exporting wherever batchsim chooses (CUDA on NVIDIA)."""
    return batchsim.Context()


@pytest.fixture(scope="module")
def cpu_context() -> batchsim.Context:
    return batchsim.Context(export="cpu")


@pytest.fixture(scope="module")
def cuda_context() -> batchsim.Context:
    status = batchsim.cuda_status()
    if not status["available"]:
        pytest.skip(f"no CUDA: {status['reason']}")
    return batchsim.Context(device="cuda:0", export="cuda")
