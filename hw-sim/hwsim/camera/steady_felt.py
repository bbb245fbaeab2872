"""Frames of a felt whose hands stay where they were laid.

`render_table_frame` draws a whole scene from one random stream: each hand is
placed with the draws left over by the hands before it, so laying one card
re-lays every hand drawn after it (boxes of higher number, the dealer's hand).
On a real table a card laid on box 1 does not move the cards of box 7; a
camera that watched the cards jump would see each of them vanish and a copy of
it appear elsewhere.

`SteadyFelt` draws each place's hand alone on the empty felt (same seed, same
felt, same camera) and lays those pictures over the empty felt in the
renderer's order (boxes, then the dealer), then lights the table and adds the
camera's noise and JPEG artefacts as `render_table_frame` does, the same for
every frame. A hand is drawn again only when its own cards change.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from hwsim.camera import effects, table_frames
from hwsim.camera.render import SceneSpec, render_scene

# The light and the camera of `table_frames` (a lit table seen straight from above).
HAND_ROTATION = 12.0
UNEVEN_LIGHT = 0.3
NOISE = 1.5
JPEG_QUALITY = 90
CACHED_HANDS = 64


class SteadyFelt:
    """Draws frames of `table_frames`' table in which a hand moves only when its own
    cards change. `frame(table)` takes {"box1": [...], ..., "dealer": [...]}."""

    def __init__(self, design: Any = table_frames.DEFAULT_DESIGN, seed: int = 0,
                 card_width: int = table_frames.DEFAULT_CARD_WIDTH,
                 frame_size: tuple[int, int] = (1280, 720)) -> None:
        self.design = table_frames.design_named(design) if isinstance(design, str) else design
        self.seed = seed
        self.card_width = card_width
        self.frame_size = frame_size
        self._empty: np.ndarray | None = None
        self._hands: OrderedDict[tuple[str, tuple[str, ...]], np.ndarray] = OrderedDict()

    def _clean(self, place: str, cards: Sequence[str]) -> np.ndarray:
        """The empty felt with only `place`'s hand on it: no light, noise or JPEG."""
        boxes: dict[str, list[str]] = {name: [] for name in table_frames.TABLE_BOXES}
        dealer: list[str] = []
        if place == "dealer":
            dealer = list(cards)
        elif place:
            boxes[place] = list(cards)
        spec = SceneSpec(boxes=boxes, dealer=dealer, card_width=self.card_width,
                         frame_size=self.frame_size, hand_rotation=HAND_ROTATION, tilt=0.0)
        return render_scene(spec, self.design, self.seed).image

    def _hand(self, place: str, cards: tuple[str, ...]) -> np.ndarray:
        key = (place, cards)
        image = self._hands.get(key)
        if image is None:
            image = self._clean(place, cards)
            self._hands[key] = image
            while len(self._hands) > CACHED_HANDS:
                self._hands.popitem(last=False)
        else:
            self._hands.move_to_end(key)
        return image

    def frame(self, table: Mapping[str, Sequence[str]]) -> np.ndarray:
        """The BGR frame of the felt holding `table`'s cards."""
        unknown = sorted(set(table) - set(table_frames.TABLE_BOXES) - {"dealer"})
        if unknown:
            raise ValueError(f"unknown table places {unknown}: use box1 to box7 and dealer")
        if self._empty is None:
            self._empty = self._clean("", ())
        picture = self._empty.copy()
        for place in (*table_frames.TABLE_BOXES, "dealer"):
            cards = tuple(table.get(place, ()))
            if not cards:
                continue
            hand = self._hand(place, cards)
            changed = np.any(hand != self._empty, axis=2)
            picture[changed] = hand[changed]
        # The same light and noise on every frame: the felt changes only where cards do.
        rng = np.random.default_rng(self.seed)
        picture = effects.uneven_light(rng, picture, UNEVEN_LIGHT)
        picture = effects.sensor_noise(rng, picture, NOISE)
        return np.ascontiguousarray(effects.jpeg(picture, JPEG_QUALITY))
