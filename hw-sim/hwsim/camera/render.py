"""Render a table scene as an overhead camera sees it, with its ground truth.

The scene is built on a flat table plane (felt, printed box lines, fanned
hands, face-down cards, chips); every object writes its footprint into an
owner map, so what a later card or chip covers is known exactly. The camera
then looks at the plane through a homography (tilt), and the room adds uneven
light, glare, hand shadows, motion blur, sensor noise and JPEG artefacts.

A card's index corner is in the truth when at least 80% of its index area, and
at least 80% of each of its two glyphs (the rank and the suit pip), is that
card's own pixels (not under a later card, a face-down card, a chip or an arm),
and at least 80% of it lies inside the frame: a corner whose suit pip is a
third under a chip has lost the half of the pip that tells a heart from a
spade, however open the rest of the corner is. A corner 30-80% open by the
same measure is partly open: neither required nor wrong to read. A corner
less open than that is hidden: not required, and reading it as the very card
it belongs to is not wrong either (a chip over the pip may leave the rank in
sight).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from hwsim.camera import effects
from hwsim.camera.arms import draw_arm
from hwsim.camera.camera_view import (
    CameraView,
    camera_homography,
    in_frame_fraction,
    layout_seen,
)
from hwsim.camera.cards import card_height, parse_card
from hwsim.camera.chips import DENOMINATIONS, draw_chip_stack
from hwsim.camera.faces import (
    Design,
    card_geometry,
    glyph_boxes,
    index_boxes,
    render_back,
    render_card,
)
from hwsim.camera.fanning import FanStyle, place_hand
from hwsim.camera.plane import (
    ARM_ID,
    CHIP_ID,
    FACE_DOWN_ID,
    MOVING_ID,
    TablePlane,
    apply,
    box_quad,
    free_spot,
    rot,
    shift,
)
from hwsim.camera.scene_truth import CardTruth, RenderedScene
from hwsim.camera.table_geometry import Point, TableGeometry

__all__ = ["CardTruth", "RenderedScene", "SceneSpec", "render_card", "render_scene"]

MIN_VISIBLE = 0.8
MIN_PARTIAL = 0.3
HOLE_CARD = "hole"  # stands for the face-down card in a dealer's hand while it is laid
BET_SPOT = 0.45  # betting spots' distance beyond the ring's inner edge, frame heights
PRINT_COLOURS = ((120, 200, 230), (235, 235, 235), (60, 170, 210))


@dataclass(frozen=True)
class SceneSpec:
    """What is on the table and how the picture is spoiled.

    `boxes` maps box names to hands (card codes in the order dealt), `dealer`
    is the dealer's hand. Variation strengths default to a clean picture.
    """

    boxes: Mapping[str, Sequence[str]]
    dealer: Sequence[str] = ()
    card_width: int = 110
    frame_size: tuple[int, int] = (1280, 720)
    hand_rotation: float = 25.0  # largest turn of a whole hand, degrees either way
    card_jitter: float = 4.0  # largest turn of one card within its hand, degrees
    tilt: float = 0.0  # camera tilt / perspective, 0 (straight down) to 1 (strong)
    barrel: float = 0.0  # lens barrel distortion, 0 (none) to 0.2 (a very wide lens)
    uneven_light: float = 0.0  # 0 to 1
    glare: int = 0  # glare spots
    shadows: int = 0  # shadows of the dealer's arm and hand
    motion_blur: float = 0.0  # blur length in pixels
    noise: float = 0.0  # sensor noise sigma
    jpeg_quality: int | None = None
    chips: int = 0  # chip stacks
    face_down: int = 0  # face-down cards
    arms: int = 0  # the dealer's arm and hand over the table, covering what is under it
    moving: Sequence[str] = ()  # cards sliding across the felt, blurred (never in the truth)
    hole_card: bool = False  # the dealer's second card lies face down in the hand
    felt_print: bool = True  # printed box lines and table text

    def __post_init__(self) -> None:
        if not 1 <= len(self.boxes) <= 7:
            raise ValueError(f"a table has 1 to 7 boxes, got {len(self.boxes)}")
        if "dealer" in self.boxes:
            raise ValueError("'dealer' is not a box name; give the dealer's cards as dealer=")
        for name, hand in [*self.boxes.items(), ("dealer", self.dealer),
                           ("moving", self.moving)]:
            if isinstance(hand, str):
                raise ValueError(f"the hand of {name} must be a list of card codes, "
                                 f"not the string {hand!r}")
            for card in hand:
                parse_card(card)
        if not 20 <= self.card_width <= 400:
            raise ValueError(f"card width {self.card_width} px is out of range 20-400")
        w, h = self.frame_size
        if w < 160 or h < 120:
            raise ValueError(f"frame size {w}x{h} is too small; use at least 160x120")
        if self.jpeg_quality is not None and not 1 <= self.jpeg_quality <= 100:
            raise ValueError(f"JPEG quality {self.jpeg_quality} is out of range 1-100")
        if min(self.glare, self.shadows, self.chips, self.face_down, self.arms) < 0:
            raise ValueError("counts of glare spots, shadows, chips, face-down cards and arms "
                             "cannot be negative")
        if not 0.0 <= self.tilt <= 1.0 or not 0.0 <= self.uneven_light <= 1.0:
            raise ValueError("tilt and uneven_light are strengths from 0 to 1")
        if not 0.0 <= self.barrel <= 0.2:
            raise ValueError(f"barrel distortion {self.barrel} is out of range 0-0.2")


@dataclass
class _PlacedCard:
    card: str
    box: str
    owner_id: int
    index_quads: list[np.ndarray]  # canvas coordinates, one 4x2 quad per index corner
    glyph_quads: list[tuple[np.ndarray, np.ndarray]]  # per corner: rank glyph, suit pip


def _print_felt(canvas: TablePlane, rng: np.random.Generator, geometry: TableGeometry,
                names: Sequence[str], card_width: int) -> None:
    """Printed lines of the boxes, a betting spot in each and the table's text."""
    m = canvas.margin
    colour = PRINT_COLOURS[int(rng.integers(len(PRINT_COLOURS)))]
    t = max(2, card_width // 40)
    n = len(names)
    for k in range(n):
        poly = np.asarray(geometry.box_polygon(n, k), np.float64) + m
        cv2.polylines(canvas.image, [np.round(poly).astype(np.int32)], True, colour, t,
                      cv2.LINE_AA)
        lo, hi = geometry.box_angles(n, k)
        spot = geometry.ring_point(geometry.inner + BET_SPOT * geometry.size[1],
                                   (lo + hi) / 2)
        cv2.circle(canvas.image, (int(spot[0] + m), int(spot[1] + m)), int(0.45 * card_width),
                   colour, t, cv2.LINE_AA)
    texts = ["BLACKJACK PAYS 3 TO 2", "DEALER MUST DRAW TO 16 AND STAND ON ALL 17S",
             "INSURANCE PAYS 2 TO 1"]
    w = geometry.size[0]
    y = geometry.centre[1] + geometry.inner - 0.12 * card_width
    for k, text in enumerate(texts[: int(rng.integers(1, 4))]):
        scale = 0.006 * card_width
        (tw, _), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_TRIPLEX, scale, 1)
        cv2.putText(canvas.image, text, (int(w / 2 - tw / 2 + m), int(y - k * 0.3 * card_width
                    + m - 0.25 * card_width)), cv2.FONT_HERSHEY_TRIPLEX, scale, colour,
                    max(1, t // 2), cv2.LINE_AA)


def _place_chips(rng: np.random.Generator, canvas: TablePlane, spec: SceneSpec,
                 geometry: TableGeometry, names: Sequence[str],
                 card_boxes: list[np.ndarray]) -> None:
    w, h = spec.frame_size
    m = canvas.margin
    radius = 0.31 * spec.card_width
    for _ in range(spec.chips):
        mode = rng.choice(["bet", "card_edge", "loose"], p=[0.45, 0.3, 0.25])
        if mode == "bet" and names:
            k = int(rng.integers(len(names)))
            lo, hi = geometry.box_angles(len(names), k)
            x, y = geometry.ring_point(
                geometry.inner + BET_SPOT * h + rng.uniform(-0.3, 0.3) * radius,
                (lo + hi) / 2 + rng.uniform(-2, 2))
        elif mode == "card_edge" and card_boxes:
            # On the right or bottom edge of a card, away from its top-left index.
            quad = card_boxes[int(rng.integers(len(card_boxes)))]
            edge = int(rng.integers(2))
            a, b = (quad[1], quad[2]) if edge == 0 else (quad[2], quad[3])
            x, y = a + (b - a) * rng.uniform(0.3, 1.0)
            x, y = x - m, y - m
        else:
            x, y = rng.uniform(0.05, 0.95) * w, rng.uniform(0.1, 0.95) * h
        count = int(rng.integers(1, 6))
        lean = (float(rng.uniform(-1.5, 1.5)), float(rng.uniform(-3.0, -1.5)))
        draw_chip_stack(canvas.image, canvas.owner, CHIP_ID, (x + m, y + m), radius, count,
                        lean, int(rng.integers(8)), float(rng.uniform(0, 60)),
                        str(rng.choice(DENOMINATIONS)))


def _draw_moving_card(rng: np.random.Generator, canvas: TablePlane, geometry: TableGeometry,
                      card: str, design: Design, width: int) -> np.ndarray:
    """A card sliding from the dealer to a box, smeared along its path; returns its centre."""
    sprite = render_card(card, design, width)
    length = rng.uniform(0.3, 0.6) * width
    pad = int(length) + 2
    sprite = cv2.copyMakeBorder(sprite, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    size = int(length) | 1
    kernel = np.zeros((size, size), np.float32)
    angle = rng.uniform(0, math.pi)
    c = size // 2
    dx, dy = math.cos(angle) * length / 2, math.sin(angle) * length / 2
    cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1)
    kernel /= kernel.sum()
    # Blur colour weighted by alpha so the card's edge fades into the felt, not into black.
    alpha = sprite[:, :, 3:].astype(np.float32) / 255.0
    colour = cv2.filter2D(sprite[:, :, :3].astype(np.float32) * alpha, -1, kernel)
    cover = cv2.filter2D(alpha[:, :, 0], -1, kernel)[:, :, None]
    smeared = np.dstack([colour / np.maximum(cover, 1e-3), cover * 255.0])
    sprite = np.clip(smeared, 0, 255).astype(np.uint8)
    lo, hi = geometry.first_angle, geometry.last_angle
    x, y = geometry.ring_point(geometry.inner + rng.uniform(-0.1, 0.15) * geometry.size[1],
                               rng.uniform(lo + 10, hi - 10))
    sh, sw = sprite.shape[:2]
    m = shift(x + canvas.margin, y + canvas.margin) @ rot(float(rng.uniform(0, 360))) @ shift(
        -sw / 2, -sh / 2)
    canvas.paste(sprite, m, MOVING_ID, 0.0)
    return np.array([[x + canvas.margin, y + canvas.margin]])


HandSlot = tuple[str, Sequence[str], Callable[[np.random.Generator], Point], list[Point]]


def _hand_slots(spec: SceneSpec, geometry: TableGeometry) -> list[HandSlot]:
    """Each hand with its place name, a sampler of where it may lie, and its area."""
    names = list(spec.boxes)
    ch = card_height(spec.card_width)
    w, h = spec.frame_size
    hands: list[HandSlot] = []
    for k, name in enumerate(names):
        lo, hi = geometry.box_angles(len(names), k)

        def box_anchor(r: np.random.Generator, lo: float = lo, hi: float = hi) -> Point:
            radius = geometry.inner + r.uniform(0.5 * ch, 0.5 * ch + 0.4 * h)
            return geometry.ring_point(radius, r.uniform(0.65 * lo + 0.35 * hi,
                                                         0.35 * lo + 0.65 * hi))

        hands.append((name, spec.boxes[name], box_anchor, geometry.box_polygon(len(names), k)))

    def dealer_anchor(r: np.random.Generator) -> Point:
        x, y = geometry.dealer_anchor()
        return (x + r.uniform(-0.12, 0.12) * w, y + r.uniform(-0.06, 0.06) * h)

    hands.append(("dealer", spec.dealer, dealer_anchor, geometry.dealer_polygon()))
    return hands


def _truth(placed: Sequence[_PlacedCard], canvas: TablePlane, view: CameraView,
           frame_size: tuple[int, int]) -> list[CardTruth]:
    """Each card with the frame points of its open index corners (see the module's rule)."""
    truth = []
    for pc in placed:
        points: list[tuple[float, float]] = []
        partial: list[tuple[float, float]] = []
        hidden: list[tuple[float, float]] = []
        glyph_centres: list[tuple[tuple[float, float], tuple[float, float]]] = []
        for quad, glyphs in zip(pc.index_quads, pc.glyph_quads, strict=True):
            frame_quad = view.project(quad)
            open_share = min(canvas.own_fraction(quad, pc.owner_id),
                             *(canvas.own_fraction(glyph, pc.owner_id) for glyph in glyphs),
                             in_frame_fraction(frame_quad, frame_size))
            cx, cy = frame_quad.mean(axis=0)
            if open_share >= MIN_VISIBLE:
                points.append((float(cx), float(cy)))
                rank_xy, pip_xy = (view.project(glyph).mean(axis=0) for glyph in glyphs)
                glyph_centres.append(((float(rank_xy[0]), float(rank_xy[1])),
                                      (float(pip_xy[0]), float(pip_xy[1]))))
            elif open_share >= MIN_PARTIAL:
                partial.append((float(cx), float(cy)))
            else:
                hidden.append((float(cx), float(cy)))
        truth.append(CardTruth(pc.card, pc.box, points, partial, glyph_centres, hidden))
    return truth


def render_scene(spec: SceneSpec, design: Design, seed: int) -> RenderedScene:
    """Draw `spec` with cards of `design`; the same spec, design and seed give the same scene."""
    rng = np.random.default_rng(seed)
    w, h = spec.frame_size
    margin = round(0.25 * w)
    geometry = TableGeometry.for_frame(spec.frame_size)
    felt_colour = effects.FELT_COLOURS[int(rng.integers(len(effects.FELT_COLOURS)))]
    canvas = TablePlane(effects.felt(rng, w + 2 * margin, h + 2 * margin, felt_colour), margin)
    names = list(spec.boxes)
    if spec.felt_print:
        _print_felt(canvas, rng, geometry, names, spec.card_width)

    geom = card_geometry(design, spec.card_width)
    quads = (box_quad(geom.top_left), box_quad(geom.bottom_right))
    ch = card_height(spec.card_width)
    hands = _hand_slots(spec, geometry)

    placed: list[_PlacedCard] = []
    card_quads: list[np.ndarray] = []
    style = FanStyle(spec.card_width, spec.frame_size, spec.hand_rotation, spec.card_jitter)
    shadow = float(rng.uniform(0.2, 0.45))
    back = render_back(design, spec.card_width)
    face_down_canvas: list[np.ndarray] = []
    for name, hand, anchors, polygon in hands:
        if name == "dealer" and spec.hole_card and hand:
            hand = [hand[0], HOLE_CARD, *hand[1:]]
        if not hand:
            continue
        transforms = place_hand(rng, style, hand, anchors, polygon, quads,
                                 name == "dealer")
        for card, m in zip(hand, transforms, strict=True):
            canvas_m = shift(margin, margin) @ m
            if card == HOLE_CARD:
                canvas.paste(back, canvas_m, FACE_DOWN_ID, shadow)
                face_down_canvas.append(apply(canvas_m, np.array([[spec.card_width / 2,
                                                                   ch / 2]])))
                continue
            owner_id = len(placed) + 1
            canvas.paste(render_card(card, design, spec.card_width), canvas_m, owner_id, shadow)
            own_quads = [box_quad(b) for b in index_boxes(design, spec.card_width, card)]
            own_glyphs = [(apply(canvas_m, box_quad(rank_box)), apply(canvas_m, box_quad(suit_box)))
                          for rank_box, suit_box in glyph_boxes(design, spec.card_width, card)]
            placed.append(_PlacedCard(card, name, owner_id,
                                      [apply(canvas_m, q) for q in own_quads], own_glyphs))
            card_quads.append(apply(canvas_m, np.array(
                [[0, 0], [spec.card_width, 0], [spec.card_width, ch], [0, ch]], float)))

    moving_canvas = [_draw_moving_card(rng, canvas, geometry, card, design, spec.card_width)
                     for card in spec.moving]
    for _ in range(spec.face_down):
        t = free_spot(rng, canvas, back.shape[1], back.shape[0], spec.frame_size)
        if t is None:
            continue
        canvas.paste(back, t, FACE_DOWN_ID, shadow)
        face_down_canvas.append(apply(t, np.array([[back.shape[1] / 2, back.shape[0] / 2]])))

    _place_chips(rng, canvas, spec, geometry, names, card_quads)
    for _ in range(spec.arms):
        if card_quads:
            target = card_quads[int(rng.integers(len(card_quads)))].mean(axis=0)
        else:
            target = np.array([rng.uniform(0.2, 0.8) * w, rng.uniform(0.3, 0.8) * h]) + margin
        target = target + rng.uniform(-0.5, 0.5, 2) * spec.card_width
        reach = (float(target[0] + rng.uniform(-0.3, 0.3) * w), float(margin - 0.1 * h))
        draw_arm(rng, canvas.image, canvas.owner, ARM_ID, (float(target[0]), float(target[1])),
                 reach, float(spec.card_width))

    view = CameraView(camera_homography(rng, spec.frame_size, margin, spec.tilt),
                      spec.frame_size, spec.barrel)
    image = view.picture(canvas.image)

    truth = _truth(placed, canvas, view, spec.frame_size)
    face_down = [tuple(float(v) for v in view.project(p)[0]) for p in face_down_canvas]
    moving = [tuple(float(v) for v in view.project(p)[0]) for p in moving_canvas]

    image = effects.hand_shadows(rng, image, spec.shadows)
    image = effects.uneven_light(rng, image, spec.uneven_light)
    image = effects.glare(rng, image, spec.glare)
    image = effects.motion_blur(rng, image, spec.motion_blur)
    image = effects.sensor_noise(rng, image, spec.noise)
    image = effects.jpeg(image, spec.jpeg_quality)
    return RenderedScene(
        image=np.ascontiguousarray(image), truth=truth,
        layout=layout_seen(geometry, names, view, margin),
        face_down=[(p[0], p[1]) for p in face_down], design=design.name,
        moving=[(p[0], p[1]) for p in moving],
        card_width=spec.card_width, seed=seed)
