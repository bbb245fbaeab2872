"""A second look at the likely reads: the verifier (and a second verifier, where the
settings name one) reads each again on a crop cut a little turned and nearer, and
the readings are averaged.

On glyph shapes they never saw, the networks' reading can hang on a few pixels
of where the crop is cut: a read the same corner turns into another card when
the crop is turned by a few degrees. Averaging the reading of the crop as the
pair gives it with the reading of a slightly turned and scaled cut keeps sure
only what both support; a second verifier, trained apart, errs elsewhere and
adds its reading of the turned cut (see "Second look" in docs/vision.md for
what each gained and cost). Only the pairs read with some confidence
(`VIEW_FLOOR`), and where the settings say so only those not already all but
certain (`VIEW_CEILING`), get the second look: a verifier costs about 0.15 ms a
crop. A dearer verifier's views can be gated (`view_gates`): they read only the
pairs the views before them left in doubt.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from foundation.cards import RANKS
from vision.combine import geometric_mean
from vision.features import CROP_SIZE, CropSize, cut_all

# A view: (turn in degrees, scale of the pair's distance; under 1 cuts nearer, the file of
# the verifier that reads it, beside the classifier; "": the recognizer's own verifier).
View = tuple[float, float, str]
# The views each likely read is read again on when the settings do not say. The shipped
# settings add a second verifier on the same cut (docs/vision.md).
SECOND_VIEWS: tuple[View, ...] = ((6.0, 0.94, ""),)
# Pairs whose combined confidence (rank x suit) is at least this get the second look.
VIEW_FLOOR = 0.3
# ... unless it is over the settings' ceiling: a read that sure keeps the first cut's
# reading. 1 (the default) gives every likely pair the second look; 0.995 spares about
# three in four for about one wrong read more in a thousand (docs/vision-measurements.md,
# "The second look's ceiling"): a trade for a machine too slow for the camera, not a default.
VIEW_CEILING = 1.0
NOT_INDEX = len(RANKS)  # the rank head's last class
Readings = tuple[np.ndarray, np.ndarray]  # rank and suit probabilities, one row a pair


@dataclass(frozen=True)
class SecondLook:
    """How a recognizer looks again: its views, its ceiling, how it reads crops with a
    view's verifier, and (where the classifier's reading is combined with the
    verifier's) the classifier's readings of the rows looked at and its weight."""

    views: tuple[View, ...]
    ceiling: float
    verify_with: Callable[[str, np.ndarray], Readings]
    classifier_readings: Readings | None
    classifier_weight: float
    # A view verifier's crop (height, width) where it reads a finer cut than the
    # recognizer's own (`view_crops` in the settings).
    crop_sizes: Mapping[str, CropSize] = field(default_factory=dict)
    # A view verifier's gate (`view_gates`): its views read only the pairs whose reading
    # so far (the first cut's and the views' before it, averaged) is at most this sure.
    gates: Mapping[str, float] = field(default_factory=dict)


def parse_ceiling(value: object) -> float:
    """The `second_look_ceiling` setting: a number from `VIEW_FLOOR` to 1."""
    if (isinstance(value, bool) or not isinstance(value, int | float)
            or not VIEW_FLOOR <= value <= 1.0):
        raise ValueError(f"second_look_ceiling must be a number from {VIEW_FLOOR:g} to 1 "
                         f"(1: every likely read gets the second look), got {value!r}")
    return float(value)


def parse_views(value: object) -> tuple[View, ...]:
    """The `second_views` setting: a list of [degrees, scale] or [degrees, scale, verifier
    file] entries (empty: no second look)."""
    if not isinstance(value, list | tuple):
        raise ValueError(f"second_views must be a list of [degrees, scale] pairs, got {value!r}")
    views = []
    for item in value:
        if (not isinstance(item, list | tuple) or len(item) not in (2, 3)
                or not all(isinstance(v, int | float) and not isinstance(v, bool)
                           for v in item[:2])
                or (len(item) == 3 and not (isinstance(item[2], str) and item[2]))):
            raise ValueError(f"second_views: {item!r} is not a [degrees, scale] pair "
                             "(with a verifier file name, if any, third)")
        degrees, scale = float(item[0]), float(item[1])
        if not (abs(degrees) <= 45.0 and 0.5 <= scale <= 2.0):
            raise ValueError(f"second_views: [{degrees:g}, {scale:g}] is out of range "
                             "(turns of at most 45 degrees, scales 0.5 to 2)")
        views.append((degrees, scale, str(item[2]) if len(item) == 3 else ""))
    return tuple(views)


def parse_crop_sizes(value: object) -> dict[str, CropSize]:
    """The `view_crops` setting: {verifier file: [height, width]} for the view verifiers
    that read a crop of other pixels than the own verifier's (the same extent)."""
    if not isinstance(value, dict):
        raise ValueError(f"view_crops must map verifier files to [height, width], got {value!r}")
    sizes = {}
    for name, size in value.items():
        if (not isinstance(name, str) or not isinstance(size, list | tuple) or len(size) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in size)
                or not (8 <= size[0] <= 256 and 8 <= size[1] <= 256)
                or size[0] % 8 or size[1] % 8):
            raise ValueError(f"view_crops: {name!r}: {size!r} is not a [height, width] of "
                             "8 to 256 pixels each, multiples of 8")
        sizes[name] = (int(size[0]), int(size[1]))
    return sizes


def parse_gates(value: object) -> dict[str, float]:
    """The `view_gates` setting: {verifier file: the confidence (rank x suit, from
    `VIEW_FLOOR` to 1) over which a pair's reading so far spares it that file's views}
    (a file no view names is gated to no effect, as with `view_crops`)."""
    if not isinstance(value, dict):
        raise ValueError(f"view_gates must map verifier files to a confidence, got {value!r}")
    gates = {}
    for name, gate in value.items():
        if (not isinstance(name, str) or isinstance(gate, bool)
                or not isinstance(gate, int | float) or not VIEW_FLOOR <= gate <= 1.0):
            raise ValueError(f"view_gates: {name!r}: {gate!r} is not a confidence from "
                             f"{VIEW_FLOOR:g} to 1")
        gates[name] = float(gate)
    return gates


def view_setting(view: View) -> list[float | str]:
    """A view as the settings file writes it."""
    degrees, scale, verifier = view
    return [degrees, scale, verifier] if verifier else [degrees, scale]


def turned_pairs(rank_at: np.ndarray, suit_at: np.ndarray, degrees: float, scale: float
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The pair's two points turned about their midpoint by `degrees` (clockwise in
    the picture, y pointing down) and their distance scaled by `scale`."""
    middle = (rank_at + suit_at) / 2.0
    half = (suit_at - rank_at) / 2.0 * scale
    cos, sin = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    turned = np.stack([cos * half[:, 0] - sin * half[:, 1],
                       sin * half[:, 0] + cos * half[:, 1]], axis=1)
    return (middle - turned).astype(np.float32), (middle + turned).astype(np.float32)


def look_again(frame: np.ndarray, look: np.ndarray, pairs: tuple[np.ndarray, np.ndarray],
               readings: Readings, how: SecondLook) -> None:
    """Average, in place, the `readings` of the likely reads among the `look` rows (read
    with a confidence from `VIEW_FLOOR` to the ceiling) with the verifiers' readings of
    the same pairs (rank-glyph and suit-pip centres) cut in each view; a gated view reads
    only the rows its gate lets through, and each row averages the views that read it."""
    rank_p, suit_p = readings
    confidence = rank_p[look].max(axis=1) * suit_p[look].max(axis=1)
    likely = ((rank_p[look].argmax(axis=1) != NOT_INDEX) & (confidence >= VIEW_FLOOR)
              & (confidence <= how.ceiling))
    if not likely.any():
        return
    rows = look[likely]
    rank_sum, suit_sum = rank_p[rows].copy(), suit_p[rows].copy()
    views_read = np.ones((rows.size, 1), np.float32)
    cuts: dict[tuple[float, float, CropSize], np.ndarray] = {}
    for degrees, scale, verifier in how.views:
        size = how.crop_sizes.get(verifier, CROP_SIZE)
        gate = how.gates.get(verifier)
        if gate is None:
            chosen = np.arange(rows.size)
            if (degrees, scale, size) not in cuts:
                cuts[degrees, scale, size] = _cut(frame, pairs, rows, degrees, scale, size)
            crops = cuts[degrees, scale, size]
        else:
            so_far = ((rank_sum / views_read).max(axis=1)
                      * (suit_sum / views_read).max(axis=1))
            chosen = np.flatnonzero(so_far <= gate)
            if not chosen.size:
                continue
            crops = _cut(frame, pairs, rows[chosen], degrees, scale, size)
        v_rank, v_suit = how.verify_with(verifier, crops)
        if how.classifier_readings is not None:
            v_rank = geometric_mean(v_rank, how.classifier_readings[0][likely][chosen],
                                    how.classifier_weight)
            v_suit = geometric_mean(v_suit, how.classifier_readings[1][likely][chosen],
                                    how.classifier_weight)
        rank_sum[chosen] += v_rank
        suit_sum[chosen] += v_suit
        views_read[chosen] += 1.0
    rank_p[rows], suit_p[rows] = rank_sum / views_read, suit_sum / views_read


def _cut(frame: np.ndarray, pairs: tuple[np.ndarray, np.ndarray], rows: np.ndarray,
         degrees: float, scale: float, size: CropSize) -> np.ndarray:
    """The `rows` pairs cut in one view, at a verifier's crop size."""
    first, second = turned_pairs(pairs[0][rows], pairs[1][rows], degrees, scale)
    return cut_all(frame, first, second, size)
