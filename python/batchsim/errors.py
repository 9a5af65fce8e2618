"""Exceptions raised by batchsim.

Every error batchsim raises is a :class:`batchsim.Error`; the subclasses say what went
wrong and also derive from the built-in exception a Python user would expect.
"""

from __future__ import annotations


class Error(RuntimeError):
    """Base class of every batchsim error."""


class InvalidArgumentError(Error, ValueError):
    """An argument has the wrong type, shape, dtype or value."""


class ArgumentTypeError(InvalidArgumentError, TypeError):
    """An argument of the wrong type, or a keyword the function does not take (a TypeError
    too, as Python's own calls raise)."""


class ClosedError(Error):
    """A method of an object after its close() (or racing it from another thread)."""


class DeviceNotFoundError(Error, LookupError):
    """No Vulkan (or CUDA) device matches the requested selection."""


class UnsupportedError(Error):
    """The device or driver lacks a feature or extension batchsim needs."""


class VulkanError(Error):
    """A Vulkan call failed."""


class CudaError(Error):
    """A CUDA driver call failed."""


class MissingFileError(Error, FileNotFoundError):
    """An input file (model, scene, navmesh, dataset) does not exist."""


class FileIoError(Error, OSError):
    """Reading or writing a file failed (permissions, full disk, ...)."""


class FormatError(Error, ValueError):
    """A file or model is malformed: bad magic, version, size or checksum; empty or
    degenerate geometry; values that are not finite."""


class WaitTimeoutError(Error, TimeoutError):
    """A wait ran out of time: GPU work, a CUDA event, a scene load or a background step
    that never finished. The message names what was waited for."""


class SceneCheckError(Error, ValueError):
    """Scenes of a dataset failed the check before a run; ``problems`` lists every bad
    scene as (scene_id, path, reason), all at once."""

    def __init__(self, message: str, problems: list | None = None):
        super().__init__(message)
        self.problems = list(problems or [])


__all__ = [
    "ArgumentTypeError",
    "ClosedError",
    "CudaError",
    "DeviceNotFoundError",
    "Error",
    "FileIoError",
    "FormatError",
    "InvalidArgumentError",
    "MissingFileError",
    "SceneCheckError",
    "UnsupportedError",
    "VulkanError",
    "WaitTimeoutError",
]
