"""Enrol the casino's deck: pictures of its 52 cards -> a `HouseDeck`.

Input is one picture per card (a photo or a scan, the card anywhere in it,
named by the card: `AS.jpg`, `10H.png`, `qd.jpeg`), or one sheet with the 52
cards laid in 4 rows (spades, hearts, diamonds, clubs) of 13 (ace to king).
Each card is found in its picture (the largest bright card-shaped region),
turned upright and drawn again at the sizes, turns and spoilings a table
camera sees; the recognizer's candidate finder and networks find its two index
corners in each drawing, and the verifier's embeddings of those corners are the
card's exemplars. A card missing from the input, given twice, whose corners
cannot be found, or that looks like another enrolled card is named in the report;
an unreadable card printed in other colours than red and black (a four-colour
deck's blue diamonds or green clubs, which the camera does not take for print)
is named as such.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from foundation.cards import RANKS, SUITS, CardError, parse_card
from vision.candidates import print_colour_mask
from vision.house_deck import CARDS, HouseDeck
from vision.images import ImageError, read_image
from vision.recognizer import NOT_INDEX, Recognizer, candidate_features

CARD_W, CARD_H = 110, 154  # the upright card, as a table camera sees one
VIEWS = ((85, 0.0), (100, -6.0), (115, 5.0), (130, -3.0), (140, 8.0), (95, 3.0))
SAME_CARD_SIMILARITY = 0.97  # two inputs this alike are the same card
# A number card whose print is this much of colours the finder never takes for print
# (vision.candidates.print_colour_mask) is of a deck the camera cannot read. Court
# cards are not judged: their figures are printed in many colours in every deck.
COLOURED_PRINT_SHARE = 0.3
NUMBER_RANKS = "23456789T"
FOUR_COLOUR_HINT = ("a four-colour deck? The camera reads decks printed in red and black "
                    "only (hearts and diamonds red, spades and clubs black)")


@dataclass
class EnrolmentReport:
    """What enrolment found wrong with its input (each list names cards or files)."""

    enrolled: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)
    alike: list[str] = field(default_factory=list)  # "AS looks like AC"
    ignored: list[str] = field(default_factory=list)  # files not named by a card
    coloured: list[str] = field(default_factory=list)  # unreadable, printed in other colours

    @property
    def complete(self) -> bool:
        return not (self.missing or self.duplicated or self.unreadable or self.alike)

    def lines(self) -> list[str]:
        out = [f"enrolled {len(self.enrolled)} of 52 cards"]
        for label, items in (("missing", self.missing), ("given more than once", self.duplicated),
                             ("unreadable (no index corner found)", self.unreadable),
                             ("looking like another card", self.alike),
                             ("ignored (not named by a card, e.g. AS.jpg, 10H.png)", self.ignored)):
            if items:
                out.append(f"{label}: {', '.join(items)}")
        if self.coloured:
            out.append(f"printed in other colours than red and black: "
                       f"{', '.join(self.coloured)} ({FOUR_COLOUR_HINT})")
        return out


def coloured_print_share(card: np.ndarray) -> float:
    """The share of an upright card's print (what is clearly darker than its paper) in
    colours that are not print to the candidate finder: 0 for black and red ink."""
    blue, green, red = cv2.split(card)
    brightest = cv2.max(cv2.max(blue, green), red)
    darkest = cv2.min(cv2.min(blue, green), red)
    paper = float(np.percentile(brightest, 90))
    ink = darkest < 0.6 * paper
    if not ink.any():
        return 0.0
    foreign = print_colour_mask(blue, green, brightest) == 0
    return float((foreign & ink).sum() / ink.sum())


def card_of_name(path: Path) -> str | None:
    """The card a file is named by ('10h.jpg' -> 'TH'), or None."""
    try:
        return parse_card(path.stem)
    except CardError:
        return None


def pictures_in_folder(folder: Path, report: EnrolmentReport) -> dict[str, np.ndarray]:
    """The card pictures of a folder, by card; duplicates, junk and bad files reported."""
    found: dict[str, np.ndarray] = {}
    seen: dict[str, Path] = {}
    for path in sorted(p for p in folder.iterdir() if p.is_file()):
        card = card_of_name(path)
        if card is None:
            report.ignored.append(path.name)
            continue
        if card in seen:
            report.duplicated.append(f"{card} ({seen[card].name}, {path.name})")
            continue
        seen[card] = path
        try:
            found[card] = read_image(path)
        except ImageError as exc:
            report.unreadable.append(f"{card} ({exc})")
    return found


def pictures_in_sheet(sheet: np.ndarray) -> dict[str, np.ndarray]:
    """The 52 cells of a sheet: 4 rows (S, H, D, C) of 13 columns (A to K)."""
    h, w = sheet.shape[:2]
    cells: dict[str, np.ndarray] = {}
    for row, suit in enumerate(SUITS):
        for column, rank in enumerate(RANKS):
            y0, y1 = round(row * h / 4), round((row + 1) * h / 4)
            x0, x1 = round(column * w / 13), round((column + 1) * w / 13)
            cells[rank + suit] = sheet[y0:y1, x0:x1]
    return cells


def upright_card(picture: np.ndarray) -> np.ndarray:
    """The card in a picture, cut out upright at CARD_W x CARD_H (the whole picture when no
    card-shaped bright region is found, as for a tight scan)."""
    grey = cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY)
    spread = picture.max(axis=2).astype(np.int16) - picture.min(axis=2)
    _, bright = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    bright[spread > 60] = 0
    bright = cv2.morphologyEx(bright, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
    contours, _ = cv2.findContours(bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    area = picture.shape[0] * picture.shape[1]
    best = max(contours, key=cv2.contourArea, default=None)
    if best is None or not 0.2 * area <= cv2.contourArea(best) <= 0.97 * area:
        tall = picture if picture.shape[0] >= picture.shape[1] else cv2.rotate(
            picture, cv2.ROTATE_90_CLOCKWISE)
        return cv2.resize(tall, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA)
    corners = cv2.boxPoints(cv2.minAreaRect(best)).astype(np.float32)
    # Order the corners so the long side runs down the card.
    centre = corners.mean(axis=0)
    angles = np.arctan2(corners[:, 1] - centre[1], corners[:, 0] - centre[0])
    corners = corners[np.argsort(angles)]  # clockwise on the picture (y runs down)
    if np.linalg.norm(corners[0] - corners[1]) > np.linalg.norm(corners[1] - corners[2]):
        corners = np.roll(corners, -1, axis=0)  # the first side is a short one
    target = np.array([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]], np.float32)
    matrix = cv2.getPerspectiveTransform(corners, target)
    return cv2.warpPerspective(picture, matrix, (CARD_W, CARD_H), flags=cv2.INTER_AREA)


# How each view is spoilt, as a table camera spoils a card: not at all, moved a few
# pixels while the shutter was open, or a little out of focus; the spoilt views are
# compressed harder. A blurred club of some designs is nearer a sharp spade than a
# sharp club, so the blurred looks are enrolled too.
SPOILINGS = ("sharp", "motion blur", "defocus")
FELT_BGR = (40, 110, 30)
BLUR_SEED = 7  # the blurred views' noise and motion directions
SENSOR_NOISE = 2.0  # standard deviation, grey levels
FELT_MARGIN = 0.3  # felt kept around the turned card, in card widths


def _views(card: np.ndarray, rng: np.random.Generator
           ) -> Iterable[tuple[np.ndarray, np.ndarray, str]]:
    """The card drawn on felt as the camera may see it; with the two index corners' areas
    in the view (x0, y0, x1, y1 rows: top-left and bottom-right quarter-corners) and the
    view's spoiling. The sharp views draw their noise from `rng` alone, the blurred ones
    from a generator of their own, so the sharp exemplars do not depend on the blurring."""
    blur_rng = np.random.default_rng(BLUR_SEED)
    for width, turn in VIEWS:
        height = round(width * CARD_H / CARD_W)
        small = cv2.resize(card, (width, height), interpolation=cv2.INTER_AREA)
        pad = width
        canvas: np.ndarray = np.full((height + 2 * pad, width + 2 * pad, 3), FELT_BGR,
                                     np.uint8)
        canvas[pad:pad + height, pad:pad + width] = small
        centre = (pad + width / 2, pad + height / 2)
        matrix = cv2.getRotationMatrix2D(centre, turn, 1.0)
        turned_card = cv2.warpAffine(canvas, matrix, (canvas.shape[1], canvas.shape[0]),
                                     flags=cv2.INTER_LINEAR, borderValue=FELT_BGR)
        # Cut to the turned card and a margin of felt: the finder sees the card on felt
        # as in a frame, and has about a third of the padded canvas to look through.
        outline = cv2.transform(np.array([[[pad, pad]], [[pad + width, pad]],
                                          [[pad + width, pad + height]], [[pad, pad + height]]],
                                         np.float64), matrix).reshape(-1, 2)
        margin = FELT_MARGIN * width
        x0, y0 = np.maximum(np.floor(outline.min(axis=0) - margin), 0).astype(int)
        x1, y1 = np.ceil(outline.max(axis=0) + margin).astype(int)
        turned_card = turned_card[y0:y1, x0:x1]
        quarter = np.array([[pad, pad, pad + width / 2, pad + height / 2],
                            [pad + width / 2, pad + height / 2, pad + width, pad + height]])
        corners = quarter.reshape(-1, 2, 2)
        turned = cv2.transform(corners.reshape(-1, 1, 2), matrix).reshape(-1, 2, 2)
        boxes = np.concatenate([turned.min(axis=1), turned.max(axis=1)], axis=1) - (x0, y0,
                                                                                    x0, y0)
        for spoiling in SPOILINGS:
            yield (_spoilt(turned_card, spoiling, rng if spoiling == "sharp" else blur_rng),
                   boxes, spoiling)


def _spoilt(canvas: np.ndarray, spoiling: str, rng: np.random.Generator) -> np.ndarray:
    """The view blurred as `spoiling` says, with sensor noise and JPEG compression."""
    noisy = _blurred(canvas, spoiling, rng).astype(np.float32)
    noisy += rng.normal(0, SENSOR_NOISE, canvas.shape).astype(np.float32)
    canvas = np.clip(noisy, 0, 255, out=noisy).astype(np.uint8)
    quality = 85 if spoiling == "sharp" else 65
    ok, jpeg = cv2.imencode(".jpg", canvas, [cv2.IMWRITE_JPEG_QUALITY, quality])
    decoded = cv2.imdecode(jpeg, cv2.IMREAD_COLOR) if ok else None
    return decoded if decoded is not None else canvas


def _blurred(canvas: np.ndarray, spoiling: str, rng: np.random.Generator) -> np.ndarray:
    """The view moved 3 px while the shutter was open, out of focus, or as it is."""
    if spoiling == "motion blur":
        return cv2.filter2D(canvas, -1, _motion_kernel(3.0, float(rng.uniform(0, np.pi))))
    if spoiling == "defocus":
        return cv2.GaussianBlur(canvas, (0, 0), 0.8)
    return canvas


def _motion_kernel(length: float, angle: float) -> np.ndarray:
    """A line `length` pixels long at `angle` (radians), as a normalised blur kernel."""
    size = 2 * int(np.ceil(length / 2)) + 1
    kernel = np.zeros((size, size), np.float32)
    middle = size // 2
    for step in np.linspace(-length / 2, length / 2, 4 * size):
        kernel[int(round(middle + step * np.sin(angle))),
               int(round(middle + step * np.cos(angle)))] += 1.0
    normalised: np.ndarray = kernel / kernel.sum()
    return normalised


def corner_embeddings(recognizer: Recognizer, card: np.ndarray,
                      rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Embeddings of the card's index corners over all views (empty when none is found),
    and which of them come from sharp views."""
    found = []
    sharp = []
    for canvas, corner_boxes, spoiling in _views(card, rng):
        _, rank_at, suit_at, crops = candidate_features(canvas, recognizer.looks_like_index)
        if crops.shape[0] == 0:
            continue
        rank_p, _, embedding = recognizer.verify_and_embed(crops)
        if embedding is None:
            raise ValueError("this model's verifier has no embedding output: retrain it "
                             "with tools/train_vision.py")
        middle = (rank_at + suit_at) / 2
        for x0, y0, x1, y1 in corner_boxes:
            inside = ((middle[:, 0] >= x0) & (middle[:, 0] <= x1) & (middle[:, 1] >= y0)
                      & (middle[:, 1] <= y1))
            index_like = np.where(inside, 1.0 - rank_p[:, NOT_INDEX], 0.0)
            best = int(np.argmax(index_like))
            if index_like[best] >= 0.5:
                found.append(embedding[best])
                sharp.append(spoiling == "sharp")
    if not found:
        return np.zeros((0, 1), np.float32), np.zeros(0, bool)
    return np.array(found, np.float32), np.array(sharp, bool)


def enrol(recognizer: Recognizer, pictures: dict[str, np.ndarray], name: str,
          report: EnrolmentReport, seed: int = 0,
          progress: Callable[[int, int], None] | None = None) -> HouseDeck:
    """The house deck from one picture per card; what is wrong goes in `report`.

    `progress(done, total)` is called after each card picture is enrolled.
    """
    rng = np.random.default_rng(seed)
    done = 0
    rows: list[np.ndarray] = []
    labels: list[int] = []
    means: dict[str, np.ndarray] = {}
    for card in CARDS:
        if card not in pictures:
            if not any(item.startswith(card) for item in report.unreadable):
                report.missing.append(card)
            continue
        embeddings, sharp = corner_embeddings(recognizer, upright_card(pictures[card]), rng)
        done += 1
        if progress is not None:
            progress(done, len(pictures))
        if embeddings.shape[0] < 2:
            report.unreadable.append(card)
            if card[0] in NUMBER_RANKS and (coloured_print_share(upright_card(pictures[card]))
                                            >= COLOURED_PRINT_SHARE):
                report.coloured.append(card)
            continue
        rows.append(embeddings)
        labels += [CARDS.index(card)] * embeddings.shape[0]
        # Cards told apart when sharp are not alike: blurred, a 6 and a 9 of some
        # designs come close, and telling those apart is what the sharp exemplars are for.
        mean = (embeddings[sharp] if sharp.any() else embeddings).mean(axis=0)
        means[card] = mean / max(float(np.linalg.norm(mean)), 1e-6)
        report.enrolled.append(card)
    names = list(means)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if float(means[a] @ means[b]) >= SAME_CARD_SIMILARITY:
                report.alike.append(f"{a} looks like {b}")
    if not rows:
        return HouseDeck(np.zeros((0, 1), np.float32), np.zeros(0, np.int64), name,
                         recognizer.verifier_id)
    return HouseDeck(np.concatenate(rows), np.array(labels, np.int64), name,
                     recognizer.verifier_id)
