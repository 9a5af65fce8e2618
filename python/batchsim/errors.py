"""Exceptions raised by batchsim.

Every error batchsim raises is a :class:`batchsim.Error`; the subclasses say what went
wrong and also derive from the built-in exception a Python user would expect.
"""

from __future__ import annotations


class Error(RuntimeError):
    """Base class of every batchsim error."""


class InvalidArgumentError(Error, ValueError):
    """An argument has the wrong type, shape, dtype or value."""


class DeviceNotFoundError(Error, LookupError):
    """No Vulkan (or CUDA) device matches the requested selection."""


class UnsupportedError(Error):
    """The device or driver lacks a feature or extension batchsim needs."""


class VulkanError(Error):
    """A Vulkan call failed."""


class CudaError(Error):
    """A CUDA driver call failed."""


__all__ = [
    "CudaError",
    "DeviceNotFoundError",
    "Error",
    "InvalidArgumentError",
    "UnsupportedError",
    "VulkanError",
]
