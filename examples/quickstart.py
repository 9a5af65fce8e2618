"""Quickstart: a compute shader writes a persistent GPU buffer that PyTorch reads in place.

Runs on any machine batchsim supports: on NVIDIA the tensor lives in CUDA memory, on
lavapipe (CPU Vulkan) in host memory. Later issues replace this with the navigation env.
"""

from __future__ import annotations

import torch

import batchsim


def main() -> None:
    ctx = batchsim.Context()
    print(f"device: {ctx.device_info['name']} -> tensors on {ctx.torch_device}")

    frames = ctx.tensor((16, 64, 64))  # persistent: created once, exported once
    fill = batchsim.PatternFill(ctx)
    view = torch.from_dlpack(frames)  # zero-copy alias of the Vulkan buffer
    for seed in range(3):
        fill.run(frames, seed)  # the GPU rewrites the buffer; `view` sees it
        print(f"seed {seed}: first values {view.flatten()[:4].tolist()}, mean {view.mean():.1f}")
    same = torch.from_dlpack(frames).data_ptr() == view.data_ptr() == frames.data_ptr
    print(f"same memory across exports: {same}")


if __name__ == "__main__":
    main()
