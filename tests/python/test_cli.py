"""`batchsim doctor` as a user runs it, in a subprocess."""

import os
import subprocess
import sys

import batchsim


def run_doctor(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "batchsim", "doctor", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


def test_doctor_lists_devices_and_passes_its_self_test():
    result = run_doctor()
    assert result.returncode == 0, result.stdout + result.stderr
    device = batchsim.list_devices()[0]
    assert device["name"] in result.stdout and device["uuid"] in result.stdout
    assert f"Vulkan {device['api_version']}" in result.stdout
    assert "CUDA:" in result.stdout
    assert "Self-test: compute shader -> DLPack -> torch" in result.stdout
    assert ": ok (" in result.stdout
    chosen = batchsim.Context().render_backend
    assert f"Renderer: backend='auto' uses '{chosen}' on this device" in result.stdout


def test_doctor_says_what_to_install_when_no_driver_is_found(tmp_path):
    # An ICD list naming only a missing file leaves the Vulkan loader with no device.
    missing = str(tmp_path / "no_such_icd.json")
    result = run_doctor(env={"VK_DRIVER_FILES": missing, "VK_ICD_FILENAMES": missing})
    assert result.returncode == 1, result.stdout + result.stderr
    assert "apt-get install libvulkan1 mesa-vulkan-drivers" in result.stdout


def test_unknown_subcommand_is_a_usage_error():
    result = subprocess.run(
        [sys.executable, "-m", "batchsim", "teleport"], capture_output=True, text=True
    )
    assert result.returncode == 2 and "invalid choice" in result.stderr
