"""Suit pips as filled OpenCV polygons and circles (no font files)."""

from __future__ import annotations

import math

import cv2
import numpy as np

from foundation.cards import SUITS

Colour = tuple[int, int, int]


def _heart_outline(points: int = 48) -> np.ndarray:
    """A heart of height 1 centred on (0, 0), point down (image y grows downward)."""
    t = np.linspace(0.0, 2.0 * math.pi, points, endpoint=False)
    x = 16 * np.sin(t) ** 3
    y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    outline = np.stack([x, y], axis=1)
    outline -= (outline.max(axis=0) + outline.min(axis=0)) / 2
    return outline / (outline[:, 1].max() - outline[:, 1].min())


_HEART = _heart_outline()


def _fill(img: np.ndarray, unit: np.ndarray, cx: float, cy: float, size: float,
          colour: Colour, flip: bool) -> None:
    pts = unit * size * (np.array([1.0, -1.0]) if flip else 1.0) + (cx, cy)
    cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], colour, cv2.LINE_AA, shift=4)


def _circle(img: np.ndarray, cx: float, cy: float, r: float, colour: Colour) -> None:
    cv2.circle(img, (round(cx * 16), round(cy * 16)), max(1, round(r * 16)), colour, -1,
               cv2.LINE_AA, shift=4)


def draw_pip(img: np.ndarray, suit: str, cx: float, cy: float, size: float,
             colour: Colour, flip: bool = False) -> None:
    """Draw suit `suit` with height `size` centred on (cx, cy); `flip` turns it upside down."""
    sign = -1.0 if flip else 1.0
    if suit == "H":
        _fill(img, _HEART, cx, cy, size, colour, flip)
    elif suit == "D":
        diamond = np.array([[0, -0.5], [0.37, 0], [0, 0.5], [-0.37, 0]], np.float64)
        _fill(img, diamond, cx, cy, size, colour, flip)
    elif suit == "S":
        top = _HEART * np.array([1.0, -1.0]) * 0.8 + (0, -0.1)
        stem = np.array([[0, 0.1], [0.2, 0.5], [-0.2, 0.5]], np.float64)
        _fill(img, top, cx, cy, size, colour, flip)
        _fill(img, stem, cx, cy, size, colour, flip)
    elif suit == "C":
        r = 0.22 * size
        for dx, dy in ((0.0, -0.25), (-0.25, 0.08), (0.25, 0.08)):
            _circle(img, cx + dx * size, cy + sign * dy * size, r, colour)
        stem = np.array([[0, -0.05], [0.18, 0.5], [-0.18, 0.5]], np.float64)
        _fill(img, stem, cx, cy, size, colour, flip)
    else:
        raise ValueError(f"unknown suit {suit!r}: use one of {SUITS}")
