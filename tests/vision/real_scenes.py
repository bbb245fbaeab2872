"""Helpers of the tests that read scenes drawn from real deck artwork."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pytest
from hwsim.camera.deck_corpus import ensure_corpus
from hwsim.camera.render import RenderedScene

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


def score_reads(recognizer: Recognizer,
                scenes: Sequence[RenderedScene]) -> tuple[int, int, list[str]]:
    """(visible cards read right, visible cards, wrong reads) over the scenes. A read
    matches a visible index corner of its card within 0.25 card widths; a read of an
    index only partly open is neither right nor wrong."""
    right, visible, wrong = 0, 0, []
    for scene in scenes:
        cards = recognizer.detect(scene.image, layout_from_dict(scene.layout))
        radius = 0.25 * scene.card_width
        shown = [t for t in scene.truth if t.index_points]
        visible += len(shown)
        read = set()
        for det in cards:
            near = [t.card for t in shown
                    if min(math.dist((det.x, det.y), p) for p in t.index_points) <= radius]
            partial = [t.card for t in scene.truth
                       if any(math.dist((det.x, det.y), p) <= radius for p in t.partial_points)]
            if det.card in near:
                read.add(det.card)
            elif det.card not in partial:
                wrong.append(f"{det.card} at ({det.x:.0f}, {det.y:.0f})")
        right += len(read)
    return right, visible, wrong
