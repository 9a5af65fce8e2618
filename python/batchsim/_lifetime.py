"""What a closed object answers: one error naming the object and the call, never an
AttributeError or KeyError from the parts close() released, and no call racing close().

An owner (Simulator, BatchNavEnv) marks its methods with :func:`while_open`: each runs under
the owner's lock, so a close() from another thread waits for the call in flight and a call
after it raises the owner's closed error. close() puts :class:`Released` in place of each
part it frees, so that a property reading one raises the same error.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from batchsim.errors import ClosedError

Method = TypeVar("Method", bound=Callable[..., Any])


def closed_message(owner: str, call: str) -> str:
    return f"{owner} is closed: {call} after close()"


class Released:
    """Stands in for a part close() released: any use raises the owner's closed error."""

    __slots__ = ("_error", "_owner")

    def __init__(self, owner: str, error: type[Exception] = ClosedError):
        object.__setattr__(self, "_owner", owner)
        object.__setattr__(self, "_error", error)

    def __getattr__(self, name: str) -> Any:
        raise self._error(closed_message(self._owner, f".{name}"))

    def __setattr__(self, name: str, value: Any) -> None:
        raise self._error(closed_message(self._owner, f".{name} = ..."))

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"<released by {self._owner}.close()>"


class Lifetime:
    """An owner's lock and closed flag; ``check(call)`` raises once closed."""

    def __init__(self, owner: str, error: type[Exception] = ClosedError):
        self.owner, self.error = owner, error
        self.lock = threading.RLock()
        self.closed = False

    def check(self, call: str) -> None:
        if self.closed:
            raise self.error(closed_message(self.owner, call))


def while_open(method: Method) -> Method:
    """Runs `method` under its owner's ``_lifetime`` lock, refused once the owner is closed."""
    call = f"{method.__name__}()"

    @functools.wraps(method)
    def guarded(self, *args, **kwargs):
        lifetime: Lifetime = self._lifetime
        with lifetime.lock:
            lifetime.check(call)
            return method(self, *args, **kwargs)

    return guarded  # type: ignore[return-value]
