"""`batchsim doctor`: what this machine offers batchsim, and what to install if anything
is missing. Exit status 0 when a usable Vulkan device exists (and the self-test passed)."""

from __future__ import annotations

import random
import time

INSTALL_HINT = (
    "Install a Vulkan driver and loader. On Debian/Ubuntu:\n"
    "    sudo apt-get install libvulkan1 mesa-vulkan-drivers vulkan-tools\n"
    "(mesa-vulkan-drivers provides lavapipe, a CPU implementation; NVIDIA GPUs need the\n"
    "NVIDIA driver's Vulkan ICD). `bash scripts/setup.sh` installs everything batchsim uses."
)


def _print_vulkan_devices(devices: list[dict]) -> None:
    print(f"Vulkan devices: {len(devices)}")
    for d in devices:
        state = "usable" if d["usable"] else "NOT usable, lacks " + ", ".join(d["missing"])
        interop = (
            "CUDA interop extensions present"
            if d["cuda_interop_extensions"]
            else "no CUDA interop (" + ", ".join(d["missing_interop_extensions"]) + ")"
        )
        print(f"  [{d['index']}] {d['name']} ({d['type']})")
        print(f"      driver {d['driver_name']} {d['driver_info']}, Vulkan {d['api_version']}")
        print(f"      uuid {d['uuid']}; {state}; {interop}")


def _print_cuda(status: dict, devices: list[dict]) -> None:
    if not status["available"]:
        print(f"CUDA: not available ({status['reason']}); tensors are exported to the CPU")
        return
    version = status["driver_version"]
    print(
        f"CUDA: driver API {version // 1000}.{version % 1000 // 10}, "
        f"{len(status['devices'])} device(s)"
    )
    vulkan_by_uuid = {d["uuid"]: d for d in devices}
    for c in status["devices"]:
        match = vulkan_by_uuid.get(c["uuid"])
        twin = f"= Vulkan device [{match['index']}] (UUID match)" if match else "no Vulkan twin"
        print(f"  cuda:{c['ordinal']} {c['name']} uuid {c['uuid']} {twin}")


def _self_test() -> bool:
    import batchsim

    context = batchsim.Context()
    count, seed = 1 << 16, random.randrange(1 << 32)
    tensor = context.tensor((count,))
    fill = batchsim.PatternFill(context)
    try:
        import torch
    except ImportError:
        fill.run(tensor, seed)
        print("Self-test: dispatch ran; skipped the torch read (PyTorch is not installed)")
        return True
    start = time.perf_counter()
    fill.run(tensor, seed)
    values = torch.from_dlpack(tensor).cpu()
    elapsed_ms = (time.perf_counter() - start) * 1e3
    wrong = sum(
        values[i].item() != batchsim.PatternFill.expected(i, seed) for i in range(0, count, 97)
    )
    same_memory = torch.from_dlpack(tensor).data_ptr() == tensor.data_ptr
    ok = wrong == 0 and same_memory
    print(
        f"Self-test: compute shader -> DLPack -> torch on {context.torch_device} "
        f"({context.device_info['name']}): {'ok' if ok else 'FAILED'} "
        f"({count} floats, zero-copy {same_memory}, {elapsed_ms:.1f} ms)"
    )
    print(f"Renderer: backend='auto' uses '{context.render_backend}' on this device")
    return ok


def run_doctor(self_test: bool = True) -> int:
    try:
        import batchsim
    except ImportError as exc:
        print(f"batchsim cannot load its compiled core: {exc}\n\n{INSTALL_HINT}")
        return 1
    print(f"batchsim {batchsim.__version__}")
    try:
        devices = batchsim.list_devices()
    except batchsim.Error as exc:
        print(f"Vulkan: cannot create an instance ({exc})\n\n{INSTALL_HINT}")
        return 1
    _print_vulkan_devices(devices)
    layer = batchsim.validation_layer_available()
    print(
        f"Validation layer: {'installed' if layer else 'not installed (vulkan-validationlayers)'}"
    )
    _print_cuda(batchsim.cuda_status(), devices)
    if not any(d["usable"] for d in devices):
        print(f"\nNo usable Vulkan device.\n{INSTALL_HINT}")
        return 1
    if not self_test:
        return 0
    try:
        return 0 if _self_test() else 1
    except batchsim.Error as exc:
        print(f"Self-test failed: {type(exc).__name__}: {exc}")
        return 1
