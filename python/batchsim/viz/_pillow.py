"""Pillow, imported on first use: it is an optional dependency (the `train` extra), so
importing batchsim must not need it."""

from __future__ import annotations

PILLOW_HINT = 'batchsim video needs Pillow: pip install "batchsim[train]" (or pip install pillow)'


def pillow():
    """PIL's Image, ImageDraw and ImageFont; an ImportError that says what to install."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as error:
        raise ImportError(PILLOW_HINT) from error
    return Image, ImageDraw, ImageFont
