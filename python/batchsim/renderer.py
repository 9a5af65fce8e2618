"""BatchRenderer: every view of a batch in one GPU submission (the C++ ``render::BatchRenderer``).

    renderer = batchsim.BatchRenderer(context, batchsim.RendererConfig(views=1024, width=64,
                                      height=64, places=2, rgb=False))
    renderer.set_scene(0, batchsim.Scene.load("apartment.bsscene"))
    renderer.render(positions, rotations, places)   # [N, 3], [N, 4], [N] uint32
    depth = torch.from_dlpack(renderer.depth)        # [N, 1, H, W] float32, no copy

With CUDA export the renderer's work is ordered on PyTorch's current stream unless
``stream=`` names another (a CUstream handle). A Simulator's renderer (``sim.renderer``) is
one of these too, around the renderer inside it: the same calls, the same stream."""

from __future__ import annotations

from batchsim import _core
from batchsim._streams import consumer_stream


class BatchRenderer(_core.BatchRenderer):
    """``BatchRenderer(context, config)``: see the module docstring and RendererConfig."""

    @classmethod
    def of(cls, core: _core.BatchRenderer) -> BatchRenderer:
        """This class's handle on a renderer made elsewhere (a Simulator's): one C++ renderer,
        whose render() and submit() then order their work as this class's do."""
        return cls(core)

    def render(self, positions, rotations, places, stream: int | None = None) -> None:
        """Renders view i from (positions[i], rotations[i]) in resident place places[i]."""
        device = self.context.torch_device
        super().render(positions, rotations, places, consumer_stream(device, stream))

    def submit(self, batch: int, positions, rotations, places, stream: int | None = None):
        """Starts rendering one batch's views; ``wait(batch)`` (CPU export) or the stream
        (CUDA export) sees them done."""
        device = self.context.torch_device
        super().submit(batch, positions, rotations, places, consumer_stream(device, stream))


__all__ = ["BatchRenderer"]
