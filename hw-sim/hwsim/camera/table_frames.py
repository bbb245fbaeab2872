"""Camera frames of the simulated table, for hardware-in-the-loop tests.

    image, layout = render_table_frame({"box1": ["AS", "7D"], "dealer": ["9C"]})

The layout is the same for every frame of a frame size (seven boxes, camera
straight above, no tilt), so a test can save it once as the `vision.layout`
file and feed each frame of a round to the recognizer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from hwsim.camera.faces import Design, design_named
from hwsim.camera.render import SceneSpec, render_scene

TABLE_BOXES: tuple[str, ...] = tuple(f"box{k}" for k in range(1, 8))
DEFAULT_DESIGN = "classic_duplex"
DEFAULT_CARD_WIDTH = 100


def _spec(table: Mapping[str, Sequence[str]], card_width: int,
          frame_size: tuple[int, int], arms: int, moving: Sequence[str]) -> SceneSpec:
    unknown = sorted(set(table) - set(TABLE_BOXES) - {"dealer"})
    if unknown:
        raise ValueError(f"unknown table places {unknown}: use box1 to box7 and dealer")
    boxes = {name: list(table.get(name, ())) for name in TABLE_BOXES}
    # A lit table seen straight from above: light variations only, so the layout stays fixed.
    return SceneSpec(boxes=boxes, dealer=list(table.get("dealer", ())), card_width=card_width,
                     frame_size=frame_size, hand_rotation=12.0, tilt=0.0, uneven_light=0.3,
                     noise=1.5, jpeg_quality=90, arms=arms, moving=list(moving))


def table_layout(frame_size: tuple[int, int] = (1280, 720)) -> dict[str, Any]:
    """The fixed layout (`table-layout/1`) of the frames `render_table_frame` draws."""
    return render_table_frame({}, frame_size=frame_size)[1]


def render_table_frame(table: Mapping[str, Sequence[str]],
                       design: Design | str = DEFAULT_DESIGN, seed: int = 0,
                       card_width: int = DEFAULT_CARD_WIDTH,
                       frame_size: tuple[int, int] = (1280, 720), arms: int = 0,
                       moving: Sequence[str] = ()) -> tuple[np.ndarray, dict[str, Any]]:
    """Draw the cards of `table` ({"box1": [...], ..., "dealer": [...]}) on the felt.

    `arms` dealer's arms reach over the cards and `moving` cards slide across the
    felt, smeared by motion, as in the frames a tracker must not turn into events.
    Returns the BGR frame and the layout. Same arguments and seed: same frame.
    """
    chosen = design_named(design) if isinstance(design, str) else design
    scene = render_scene(_spec(table, card_width, frame_size, arms, moving), chosen, seed)
    return scene.image, scene.layout
