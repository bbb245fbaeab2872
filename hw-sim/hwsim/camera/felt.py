"""What physically lies on the simulated table, and the overhead camera that films it.

    felt = Felt()
    camera = FeltCamera(felt)          # a vision FrameSource: read() -> BGR frame
    felt.put("box1", "AS")             # the dealer lays a card
    felt.put(3, "7D")                  # box numbers work too
    felt.swap("box1", "AS", 3, "7D")   # the two cards trade places
    felt.clear()                       # the round's cards are swept

`Felt` is thread-safe: a simulated dealer lays cards from its thread while
the camera's reader renders frames from another. `FeltCamera` renders the felt
with `SteadyFelt` (the table of `render_table_frame`, a hand drawn again only
when its own cards change, as cards laid on a real table stay put) and keeps the
last frame while the felt has not changed (rendering takes a good part of a
second).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import numpy as np

from foundation.cards import parse_card
from hwsim.camera.faces import Design
from hwsim.camera.steady_felt import SteadyFelt
from hwsim.camera.table_frames import (
    DEFAULT_CARD_WIDTH,
    DEFAULT_DESIGN,
    TABLE_BOXES,
    table_layout,
)

PLACES: tuple[str, ...] = TABLE_BOXES + ("dealer",)


def place_name(place: int | str) -> str:
    """`3`, `"3"` or `"box3"` -> `"box3"`; `"dealer"` stays."""
    if isinstance(place, int) and not isinstance(place, bool):
        name = f"box{place}"
    elif isinstance(place, str) and place.isdigit():
        name = f"box{place}"
    else:
        name = str(place)
    if name not in PLACES:
        raise ValueError(f"unknown place {place!r}: use box1 to box7 (or 1 to 7) and dealer")
    return name


class Felt:
    """The cards lying on the simulated table, per place, in the order they were laid."""

    def __init__(self, cards: Mapping[str | int, list[str]] | None = None) -> None:
        self._lock = threading.Lock()
        self._places: dict[str, list[str]] = {name: [] for name in PLACES}
        self._version = 0
        for place, codes in (cards or {}).items():
            for card in codes:
                self.put(place, card)

    @property
    def version(self) -> int:
        """Goes up with every change; a frame rendered at a version shows that felt."""
        return self._version

    def put(self, place: int | str, card: str) -> None:
        """Lay `card` on `place` (on top of the hand there, fanned as dealers do)."""
        name, code = place_name(place), parse_card(card)
        with self._lock:
            self._places[name].append(code)
            self._version += 1

    def remove(self, place: int | str, card: str) -> None:
        """Take `card` off `place`; ValueError if it does not lie there."""
        name, code = place_name(place), parse_card(card)
        with self._lock:
            if code not in self._places[name]:
                raise ValueError(f"{code} does not lie on {name}")
            self._places[name].remove(code)
            self._version += 1

    def move(self, card: str, from_place: int | str, to_place: int | str) -> None:
        """Push `card` from one place to another (it goes on top of the hand there)."""
        source, target, code = place_name(from_place), place_name(to_place), parse_card(card)
        with self._lock:
            if code not in self._places[source]:
                raise ValueError(f"{code} does not lie on {source}")
            self._places[source].remove(code)
            self._places[target].append(code)
            self._version += 1

    def swap(self, place_a: int | str, card_a: str, place_b: int | str, card_b: str) -> None:
        """`card_a` (on `place_a`) and `card_b` (on `place_b`) trade places: each takes the
        other's position in its hand."""
        name_a, name_b = place_name(place_a), place_name(place_b)
        code_a, code_b = parse_card(card_a), parse_card(card_b)
        with self._lock:
            hand_a, hand_b = self._places[name_a], self._places[name_b]
            if code_a not in hand_a or code_b not in hand_b:
                raise ValueError(f"swap needs {code_a} on {name_a} and {code_b} on {name_b}")
            i, j = hand_a.index(code_a), hand_b.index(code_b)
            hand_a[i], hand_b[j] = code_b, code_a
            self._version += 1

    def clear(self) -> None:
        """Sweep every card off the table."""
        with self._lock:
            if any(self._places.values()):
                for hand in self._places.values():
                    hand.clear()
                self._version += 1

    def snapshot(self) -> dict[str, list[str]]:
        """The places that hold cards: {"box1": ["AS", "7D"], "dealer": ["9C"]}."""
        return self.state()[1]

    def state(self) -> tuple[int, dict[str, list[str]]]:
        """The version and the snapshot, taken together."""
        with self._lock:
            return self._version, {name: list(hand) for name, hand in self._places.items()
                                   if hand}


class FeltCamera:
    """The overhead camera over a `Felt`: a vision `FrameSource` of rendered frames.

    Every `read()` returns a frame of the felt as it lies now (a copy: the caller
    may draw on it). The last frame is kept and handed out again until the felt
    changes. `layout()` is the `table-layout/1` document of its frames.
    """

    def __init__(self, felt: Felt, frame_size: tuple[int, int] = (1280, 720), *,
                 design: Design | str = DEFAULT_DESIGN, seed: int = 0,
                 card_width: int = DEFAULT_CARD_WIDTH) -> None:
        self.felt = felt
        self.frame_size = frame_size
        self.design = design
        self.seed = seed
        self.card_width = card_width
        self.renders = 0  # frames actually drawn (the others came from the cache)
        self.reads = 0
        self._lock = threading.Lock()
        self._closed = False
        self._frame: np.ndarray | None = None
        self._frame_version = -1
        self._layout: dict[str, Any] | None = None
        self._steady = SteadyFelt(design, seed, card_width, frame_size)

    def read(self) -> np.ndarray | None:
        """The felt as the camera sees it now; None once closed."""
        with self._lock:
            if self._closed:
                return None
            version, cards = self.felt.state()
            if self._frame is None or version != self._frame_version:
                self._frame, self._frame_version = self._steady.frame(cards), version
                self.renders += 1
            self.reads += 1
            return self._frame.copy()

    def layout(self) -> dict[str, Any]:
        """The layout document (`vision.layout.layout_from_dict` reads it)."""
        with self._lock:
            if self._layout is None:
                self._layout = table_layout(self.frame_size)
            return self._layout

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._frame = None
