"""Hands fanned as dealers lay them, placed inside their box."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from hwsim.camera.cards import card_height
from hwsim.camera.plane import apply, rot, shift
from hwsim.camera.table_geometry import Point, inside


def fan(rng: np.random.Generator, n: int, w: int, h: int, jitter: float,
         dealer: bool) -> list[tuple[float, float, float]]:
    """Card centres and turns in hand coordinates, each card leaving the last one's index."""
    if dealer:
        style = str(rng.choice(["spread", "right"]))
    else:
        style = str(rng.choice(["right", "diagonal", "down"], p=[0.4, 0.4, 0.2]))
    cards = []
    x = y = 0.0
    for k in range(n):
        if k > 0:
            if style == "spread":
                x += w * rng.uniform(0.55, 1.08)
                y += h * rng.uniform(-0.03, 0.03)
            elif style == "right":
                x += w * rng.uniform(0.28, 0.4)
                y += h * rng.uniform(-0.02, 0.08)
            elif style == "diagonal":
                x += w * rng.uniform(0.26, 0.36)
                y += h * rng.uniform(0.1, 0.22)
            else:
                x += w * rng.uniform(-0.02, 0.1)
                y += h * rng.uniform(0.4, 0.5)
        cards.append((x + w / 2, y + h / 2, float(rng.uniform(-jitter, jitter))))
    return cards


@dataclass(frozen=True)
class FanStyle:
    """How hands are laid: card size, the frame they must stay in, how much they turn."""

    card_width: int
    frame_size: tuple[int, int]
    hand_rotation: float  # degrees either way
    card_jitter: float  # degrees either way


def place_hand(rng: np.random.Generator, style: FanStyle, hand: Sequence[str],
               anchors: Callable[[np.random.Generator], Point], polygon: Sequence[Point],
               index_quads: tuple[np.ndarray, np.ndarray], dealer: bool) -> list[np.ndarray]:
    """Card transforms (card pixels -> table plane) for one hand, kept inside its area.

    Tries random fans, turns and places and keeps the first that has every
    index inside the hand's area, the cards within the area and the frame (or
    the best one tried).
    """
    w = style.card_width
    h = card_height(w)
    frame_w, frame_h = style.frame_size
    outline = np.array([[0, 0], [w, 0], [w, h], [0, h], [w / 2, 0], [w / 2, h], [0, h / 2],
                        [w, h / 2]], float)
    best: list[np.ndarray] = []
    best_score = -1.0
    for attempt in range(60):
        scale = 1.0 if attempt < 30 else 0.5  # fall back to milder turns
        cards = fan(rng, len(hand), w, h, style.card_jitter * scale, dealer)
        centre = np.mean([(cx, cy) for cx, cy, _ in cards], axis=0)
        turn = float(rng.uniform(-style.hand_rotation, style.hand_rotation)) * scale
        anchor = anchors(rng)
        hand_m = shift(anchor[0], anchor[1]) @ rot(turn) @ shift(-centre[0], -centre[1])
        transforms = [hand_m @ shift(cx, cy) @ rot(a) @ shift(-w / 2, -h / 2)
                      for cx, cy, a in cards]
        points: list[np.ndarray] = []
        for k, m in enumerate(transforms):
            quads = [index_quads[0]] + ([index_quads[1]] if k == len(transforms) - 1 else [])
            points.extend(apply(m, q).mean(axis=0) for q in quads)
        corners = np.vstack([apply(m, outline) for m in transforms])
        index_in_area = np.mean([inside(polygon, (p[0], p[1]), 0.08 * w) for p in points])
        cards_in_area = np.mean([inside(polygon, (p[0], p[1]), -0.12 * w) for p in corners])
        in_frame = float(np.mean((corners[:, 0] > 2) & (corners[:, 0] < frame_w - 2)
                                 & (corners[:, 1] > 2) & (corners[:, 1] < frame_h - 2)))
        score = float(2 * index_in_area + cards_in_area + in_frame)
        if score > best_score:
            best, best_score = transforms, score
        if score >= 4.0:
            break
    return best
