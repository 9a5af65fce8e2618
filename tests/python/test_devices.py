import pytest

import batchsim


def test_list_devices_reports_a_usable_device():
    devices = batchsim.list_devices()
    assert devices, "no Vulkan device found"
    for d in devices:
        assert d["name"] and d["driver_name"]
        assert len(d["uuid"]) == 36 and d["uuid"].count("-") == 4
        assert d["api_version"].startswith("1.")
    assert any(d["usable"] for d in devices)


@pytest.mark.parametrize("how", ["index", "int", "uuid", "bare_uuid", "name"])
def test_select_device_by_index_uuid_or_name(how):
    target = next(d for d in batchsim.list_devices() if d["usable"])
    selector = {
        "index": str(target["index"]),
        "int": target["index"],
        "uuid": "uuid:" + target["uuid"],
        "bare_uuid": target["uuid"].replace("-", "").upper(),
        "name": target["name"][2:8].lower(),
    }[how]
    ctx = batchsim.Context(device=selector)
    assert ctx.device_info["uuid"] == target["uuid"]


def test_environment_variable_overrides_the_argument(monkeypatch):
    monkeypatch.setenv("BATCHSIM_DEVICE", "no-such-gpu-anywhere")
    with pytest.raises(batchsim.DeviceNotFoundError, match="no-such-gpu-anywhere"):
        batchsim.Context(device=0)


@pytest.mark.parametrize(
    ("selector", "error", "message"),
    [
        ("no-such-gpu-anywhere", batchsim.DeviceNotFoundError, "available devices"),
        (97, batchsim.DeviceNotFoundError, "no Vulkan device matches '97'"),
        ("uuid:1234", batchsim.InvalidArgumentError, "expected 32 hexadecimal digits"),
        ("uuid:" + "0" * 32, batchsim.DeviceNotFoundError, "available devices"),
        ("cuda:zero", batchsim.InvalidArgumentError, "expected cuda:<n>"),
        ("cuda:99", batchsim.DeviceNotFoundError, "cuda:99"),
        (-1, batchsim.InvalidArgumentError, "must be >= 0"),
    ],
)
def test_bad_device_selection_raises_a_clear_error(selector, error, message):
    with pytest.raises(error, match=message):
        batchsim.Context(device=selector)


def test_bad_argument_types_and_values():
    with pytest.raises(TypeError):
        batchsim.Context(device=1.5)
    with pytest.raises(batchsim.InvalidArgumentError, match="'auto', 'cpu' or 'cuda'"):
        batchsim.Context(export="tpu")


def test_cuda_status_is_consistent():
    status = batchsim.cuda_status()
    assert isinstance(status["available"], bool)
    if status["available"]:
        assert status["driver_version"] > 0 and status["reason"] == ""
    else:
        assert status["reason"] and status["devices"] == []


DEFAULT_CONTEXT = """
import json, batchsim
ctx = batchsim.Context()
print(json.dumps([ctx.device_info["uuid"], ctx.cuda_device]))
"""


def test_the_default_device_follows_cuda_visible_devices():
    """Vulkan lists every GPU; CUDA_VISIBLE_DEVICES hides some from CUDA (and PyTorch). With
    no selector a Context takes the twin of CUDA's device 0, so a process given one GPU
    renders and exports on that GPU."""
    import json
    import os
    import subprocess
    import sys

    status = batchsim.cuda_status()
    gpus = [d for d in batchsim.list_devices() if d["usable"] and d["type"] == "discrete GPU"]
    if not status["available"] or len(gpus) < 2:
        pytest.skip("needs CUDA and two GPUs")
    torch = pytest.importorskip("torch")
    last = torch.cuda.device_count() - 1
    expected = str(torch.cuda.get_device_properties(last).uuid).lower().removeprefix("gpu-")
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": str(last)}
    env.pop("BATCHSIM_DEVICE", None)
    out = subprocess.run(
        [sys.executable, "-c", DEFAULT_CONTEXT], env=env, capture_output=True, text=True, check=True
    )
    uuid, cuda_device = json.loads(out.stdout)
    assert (uuid, cuda_device) == (expected, 0)
