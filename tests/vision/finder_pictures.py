"""Pictures drawn for the candidate finder's tests, each with the geometry it was drawn with."""

from __future__ import annotations

import cv2
import numpy as np

BLURRED_PIP_CENTRE = (120.0, 130.0)


def blurred_rank_and_pip() -> np.ndarray:
    """A red "L" (the rank) over a red pip centred at `BLURRED_PIP_CENTRE`, joined by a
    pale pink smear (what motion blur leaves between them), on a card on felt."""
    card = np.full((300, 300, 3), (40, 110, 40), np.uint8)
    cv2.rectangle(card, (60, 60), (240, 260), (235, 235, 235), -1)
    red, smear = (40, 40, 200), (155, 155, 225)
    cv2.rectangle(card, (113, 104), (116, 118), red, -1)  # the rank, an "L"
    cv2.rectangle(card, (113, 115), (127, 118), red, -1)
    cv2.circle(card, (120, 130), 6, red, -1)  # the pip
    cv2.rectangle(card, (117, 119), (123, 123), smear, -1)
    return card
