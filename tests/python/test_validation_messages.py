"""The whole suite must finish with zero Vulkan validation messages. Marked runs_last:
conftest.py's pytest_collection_modifyitems moves it after every other test, whatever the
file's name, because the count it reads is the whole process's."""

import warnings

import pytest

import batchsim
from batchsim import _core


@pytest.mark.runs_last
def test_suite_produced_no_validation_messages():
    if not batchsim.validation_layer_available():
        pytest.skip("VK_LAYER_KHRONOS_validation is not installed")
    assert batchsim.Context().validation_enabled, "BATCHSIM_VALIDATION=1 did not enable it"
    assert batchsim.validation_message_total() == 0
    suppressed = _core.validation_suppressed_total()
    if suppressed:  # only with CUDA export: see ValidationState in src/vk/instance.hpp
        warnings.warn(
            f"{suppressed} 'still in use' reports set aside (CUDA-signalled waits)", stacklevel=1
        )
