"""Photos of a corpus deck's 52 cards, as a casino would take them to enrol its deck
(`tablectl vision enroll --cards`): each card on a dark mat, slightly turned, with
a little sensor noise."""

from __future__ import annotations

import cv2
import numpy as np


def card_photos(deck: str, seed: int) -> dict[str, np.ndarray]:
    """Each card of a corpus deck as a photo of it lying on a dark mat, slightly turned."""
    from hwsim.camera.artwork import ArtworkDeck, artwork_card

    from vision.house_deck import CARDS

    rng = np.random.default_rng(seed)
    source = ArtworkDeck.named(deck)
    photos = {}
    for card in CARDS:
        face = artwork_card(card, source, 300)
        h, w = face.shape[:2]
        mat = np.full((h + 200, w + 200, 3), (50, 45, 40), np.float32)
        alpha = face[:, :, 3:4].astype(np.float32) / 255.0
        mat[100:100 + h, 100:100 + w] = face[:, :, :3] * alpha + mat[100:100 + h,
                                                                     100:100 + w] * (1 - alpha)
        turn = cv2.getRotationMatrix2D((mat.shape[1] / 2, mat.shape[0] / 2),
                                       float(rng.uniform(-10, 10)), 1.0)
        photo = cv2.warpAffine(mat, turn, (mat.shape[1], mat.shape[0]),
                               borderValue=(50, 45, 40))
        photo = photo + rng.normal(0, 3.0, photo.shape)
        photos[card] = np.clip(photo, 0, 255).astype(np.uint8)
    return photos
