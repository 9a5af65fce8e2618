"""examples/quickstart.ipynb runs top to bottom in a fresh kernel on the cached test dataset
and shows what it promises: the env, a mean reward, a rendered image and zero-copy views."""

from __future__ import annotations

import base64
import importlib.util
import io
import math
import os
import re
import shutil
import struct
from pathlib import Path

import numpy as np
import pytest

import batchsim

nbformat = pytest.importorskip("nbformat")

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO / "examples" / "quickstart.ipynb"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Appended to the temporary copy only: the kernel inherits BATCHSIM_VALIDATION from
# conftest, so the notebook's Vulkan work must be as clean as the suite's.
VALIDATION_PROBE = (
    "import batchsim\n"
    "print('validation:', batchsim.validation_layer_available(), "
    "batchsim.validation_message_total())"
)


def test_committed_notebook_has_no_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3"
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert 6 <= len(code) <= 12
    for cell in code:
        assert cell.outputs == [] and cell.execution_count is None, cell.source


def stdout(cell) -> str:
    return "".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stdout")


def text_plain(cell) -> str:
    return "".join(o.data.get("text/plain", "") for o in cell.outputs if "data" in o)


def png_outputs(cells) -> list[bytes]:
    return [
        base64.b64decode(o.data["image/png"])
        for cell in cells
        for o in cell.outputs
        if "image/png" in o.get("data", {})
    ]


def cell_printing(cells, pattern: str):
    matches = [cell for cell in cells if re.search(pattern, stdout(cell), re.MULTILINE)]
    assert len(matches) == 1, f"expected one cell printing {pattern!r}, got {len(matches)}"
    return matches[0]


def test_quickstart_notebook_runs(procgen_dataset, tmp_path, monkeypatch):
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    root, _ = procgen_dataset
    # The kernel imports the batchsim this test process imported (a checkout's python/ in
    # development, site-packages once installed).
    python_dir = str(Path(batchsim.__file__).resolve().parents[1])
    path = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([python_dir, *([path] if path else [])]))
    monkeypatch.setenv("BATCHSIM_QUICKSTART_DATA", str(root))

    work = tmp_path / "examples"
    work.mkdir()
    shutil.copy(NOTEBOOK, work / NOTEBOOK.name)
    nb = nbformat.read(work / NOTEBOOK.name, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(VALIDATION_PROBE))
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(work)}}
    )
    client.execute()  # raises CellExecutionError on the first failing cell

    cells = [cell for cell in nb.cells if cell.cell_type == "code"]
    errors = [o for cell in cells for o in cell.outputs if o.output_type == "error"]
    assert not errors, errors
    assert all(cell.execution_count is not None for cell in cells)

    # The fixture's dataset was used, not regenerated.
    assert f"using the dataset in {root}" in stdout(cells[1])
    assert not (work / "data").exists() and not (tmp_path / "data").exists()

    env_repr = "BatchNavEnv(num_envs=8, sensors=[depth, rgb], resolution=64x64, device='cpu'"
    assert any(env_repr in text_plain(cell) for cell in cells)
    spaces = stdout(cell_printing(cells, r"^Dict\("))
    assert "(1, 64, 64), float32" in spaces and "(3, 64, 64), uint8" in spaces
    assert "MultiDiscrete([4 4 4 4 4 4 4 4])" in spaces

    stepped = stdout(cell_printing(cells, r"^mean reward per environment over 20 steps: "))
    mean = float(re.search(r"over 20 steps: (-?\d+\.\d+)$", stepped, re.MULTILINE).group(1))
    assert math.isfinite(mean) and -20 < mean < 20
    assert 0 <= int(re.search(r"^episodes ended: (\d+)$", stepped, re.MULTILINE).group(1)) <= 160
    assert "'depth': (8, 1, 64, 64), 'rgb': (8, 3, 64, 64)" in stepped

    # env.render_mosaic(): 8 views of 64x64 in a 3x3 mosaic with 2-pixel padding -> 200x200; the
    # depth-over-RGB mosaic: 8 columns, 2 rows -> 530x134; then the top-down map.
    render, views, top_down = png_outputs(cells)
    for png in (render, views, top_down):
        assert png.startswith(PNG_SIGNATURE) and png[12:16] == b"IHDR"
    assert struct.unpack(">II", render[16:24]) == (200, 200)
    assert struct.unpack(">II", views[16:24]) == (530, 134)
    check_top_down_map(top_down)

    zero_copy = stdout(cell_printing(cells, r"^same address after a step: "))
    for line in (
        "same address after a step: True",
        "same memory as the renderer: True",
        "old reference rewritten in place: True",
    ):
        assert line in zero_copy
    if importlib.util.find_spec("jax") is not None:
        jax_out = stdout(cell_printing(cells, r"^JAX shares the memory: "))
        assert "(8, 1, 64, 64) float32" in jax_out and "JAX shares the memory: True" in jax_out
        assert re.search(r"^mean depth: \d+\.\d+ m$", jax_out, re.MULTILINE)
    else:
        cell_printing(cells, r"^JAX is not installed")
    assert "BatchNavEnv(closed, num_envs=8)" in text_plain(cells[-2])

    available, messages = re.search(r"^validation: (\w+) (\d+)$", stdout(cells[-1])).groups()
    if available == "True":
        assert messages == "0", "the notebook produced Vulkan validation messages"


def check_top_down_map(png: bytes) -> None:
    """The map fits its panel and shows navigable floor, the start, the goal and the agent."""
    image_module = pytest.importorskip("PIL.Image")
    from batchsim.viz import NAVIGABLE
    from batchsim.viz.episode_map import MAP_WIDTH
    from batchsim.viz.frames import COLOURS, VIEW_HEIGHT

    image = np.asarray(image_module.open(io.BytesIO(png)).convert("RGB"))
    assert image.shape[0] <= VIEW_HEIGHT and image.shape[1] <= MAP_WIDTH
    colours = {tuple(c) for c in image.reshape(-1, 3)}
    for colour in (NAVIGABLE, COLOURS["start"], COLOURS["goal"], COLOURS["agent"]):
        assert tuple(colour) in colours, f"no {colour} pixel on the map"
