"""Helpers of the tests that read scenes drawn from real deck artwork."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from hwsim.camera import scoring
from hwsim.camera.artwork import ArtworkDeck
from hwsim.camera.deck_corpus import ensure_corpus
from hwsim.camera.render import RenderedScene, SceneSpec, render_scene

from vision.layout import layout_from_dict
from vision.recognizer import Recognizer


def corpus_with(tmp_path_factory: pytest.TempPathFactory, decks: Sequence[str]) -> Path:
    """A corpus folder holding `decks`, rendered from Debian's card packages; the test
    is skipped, saying why, where those packages are missing."""
    folder = tmp_path_factory.mktemp("corpus")
    try:
        ensure_corpus(folder, decks=list(decks))
    except RuntimeError as error:
        pytest.skip(str(error))
    return folder


def dealt_scene(deck: ArtworkDeck, cards: Sequence[str], seed: int) -> RenderedScene:
    """The cards dealt two and three a box over five boxes (the last box takes the rest)."""
    boxes: dict[str, list[str]] = {}
    for k in range(5):
        boxes[f"box{k + 1}"] = list(cards[k * 2:k * 2 + 2] if k < 4 else cards[8:])
    return render_scene(SceneSpec(boxes=boxes, dealer=[], card_width=120,
                                  felt_print=False), deck, seed)


def index_corners(scene: RenderedScene) -> list[tuple[str, float, float]]:
    """(card, x, y) of every visible index corner of the scene: what a shoe names."""
    return [(t.card, x, y) for t in scene.truth for x, y in t.index_points]


def deals(cards: Sequence[str], turns: int) -> list[tuple[list[str], int]]:
    """The cards dealt `turns` times, 11 a scene, each turn in another order (so at
    another place): (the scene's cards, its seed) in dealing order."""
    out = []
    shown = list(cards)
    for turn in range(turns):
        order = shown[turn * 17:] + shown[:turn * 17]
        for start in range(0, len(order), 11):
            out.append((order[start:start + 11], 100 * turn + start))
    return out


def score_reads(recognizer: Recognizer,
                scenes: Sequence[RenderedScene]) -> tuple[int, int, list[str]]:
    """(visible cards read right, visible cards, wrong reads) over the scenes, as
    `hwsim.camera.scoring` counts them."""
    score = scoring.score_reads(
        lambda scene: recognizer.detect(scene.image, layout_from_dict(scene.layout)), scenes)
    return score.right, score.visible, score.wrong
