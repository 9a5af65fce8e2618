import pytest

import batchsim
from batchsim import _core


@pytest.mark.parametrize(
    ("kind", "builtin"),
    [
        ("InvalidArgumentError", ValueError),
        ("DeviceNotFoundError", LookupError),
        ("UnsupportedError", RuntimeError),
        ("VulkanError", RuntimeError),
        ("CudaError", RuntimeError),
        ("MissingFileError", FileNotFoundError),
        ("FileIoError", OSError),
        ("FormatError", ValueError),
        ("WaitTimeoutError", TimeoutError),
        ("Error", RuntimeError),
    ],
)
def test_core_errors_become_typed_python_exceptions(kind, builtin):
    cls = getattr(batchsim, kind)
    with pytest.raises(cls, match="the message") as info:
        _core._raise_for_test(kind, "the message")
    assert type(info.value) is cls
    assert isinstance(info.value, batchsim.Error)
    assert isinstance(info.value, builtin)
