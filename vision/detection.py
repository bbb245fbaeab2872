"""The recognizer's output: one card index read at a point of the frame."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Detection:
    """A card read from its index corner.

    `x`, `y` is the centre of the index corner that was read, in image pixels;
    `box` is the layout area it lies in (None without a layout or outside all);
    `reason`, for an index corner seen but not read (card "??"), why not
    (`vision.reads`: "unsure", "networks disagree", "corners disagree", "ink
    colour", "face disagrees", "deck disagrees", "deck unsure"). `alternatives`: the other cards the
    networks give at least 0.001 probability at that corner, likeliest first
    (`vision.reads.likely_cards`). `deck_card`: where a house deck stopped the
    networks' sure read ("deck disagrees", "deck unsure"), the deck's nearest card.
    `index_px`: the size of the index read, the distance from its rank glyph's centre
    to its suit pip's in image pixels (None where not known).
    """

    card: str
    x: float
    y: float
    confidence: float
    box: str | None = None
    reason: str | None = None
    alternatives: tuple[tuple[str, float], ...] = ()
    deck_card: str | None = None
    index_px: float | None = None

    def to_json(self) -> dict[str, object]:
        doc: dict[str, object] = {
            "card": self.card,
            "x": round(self.x, 1),
            "y": round(self.y, 1),
            "box": self.box,
            "confidence": round(self.confidence, 3),
        }
        if self.reason is not None:
            doc["reason"] = self.reason
        if self.alternatives:
            doc["alternatives"] = [[card, round(p, 3)] for card, p in self.alternatives]
        if self.deck_card is not None:
            doc["deck_card"] = self.deck_card
        if self.index_px is not None:
            doc["index_px"] = round(self.index_px, 1)
        return doc
