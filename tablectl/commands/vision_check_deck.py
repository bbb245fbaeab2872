"""`tablectl vision check --real-deck`: does this machine read a real deck as the
reference machine does?

The networks' kernels differ between processors (an aarch64 Pi's are not the
x86 ones the figures were measured with). So the check renders the same scenes
of the public-domain deck shipped in the package (`cc0-kennard`, never trained
on; `rsvg-convert` from `librsvg2-bin` draws it), reads them, and holds the
counts against those of the reference machine.
"""

from __future__ import annotations

import os
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DECK = "cc0-kennard"
SCENES = 20
SEED = 7


@dataclass(frozen=True)
class Reference:
    """What the reference machine read of the same scenes."""

    scenes: int
    right: int
    visible: int
    wrong: int
    machine: str


# Measured with `tablectl vision check --real-deck` on the x86-64 development machine
# (AVX-512 VNNI, OpenCV 5.1.0): the same counts with the int8 verifiers on onnxruntime
# 1.32 and with the float files on OpenCV's dnn module.
REFERENCE = Reference(scenes=SCENES, right=334, visible=348, wrong=1,
                      machine="x86-64, OpenCV 5.1.0, either runtime")


def deck_cache() -> Path:
    """Where the deck is rendered: $TABLECTL_DECK_CORPUS, else the user's cache."""
    named = os.environ.get("TABLECTL_DECK_CORPUS")
    if named:
        return Path(named)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "tablectl" / "deck-corpus"


def reads_alike(right: int, visible: int, wrong: int, reference: Reference) -> bool:
    """Within what other kernels' rounding moves: 1% of the visible cards (at least 2)
    read right more or fewer, and at most one wrong read more."""
    if visible != reference.visible:
        return False
    return (abs(right - reference.right) <= max(2, visible // 100)
            and wrong <= reference.wrong + 1)


def real_deck_lines(recognizer: Any, corpus: Path | None = None) -> tuple[list[str], bool]:
    """The check's report, and whether this machine reads as the reference does.
    RuntimeError (no renderer), OSError (no place to draw it) or ValueError (the deck's
    files missing from this install) when the deck cannot be drawn here."""
    from hwsim.camera.artwork import ArtworkDeck
    from hwsim.camera.dataset import generate_scenes
    from hwsim.camera.deck_corpus import ensure_corpus
    from hwsim.camera.scoring import ReadScore, score_scene

    from vision.layout import layout_from_dict

    folder = ensure_corpus(corpus or deck_cache(), decks=[DECK])
    deck = ArtworkDeck.named(DECK, folder)
    score, times = ReadScore(), []
    for scene in generate_scenes(REFERENCE.scenes, seed=SEED, designs=[deck]):
        started = time.perf_counter()
        reads, _unknown = recognizer.detect_all(scene.image, layout_from_dict(scene.layout))
        times.append((time.perf_counter() - started) * 1000.0)
        score_scene(scene, reads, score)
    wrong = len(score.wrong)
    alike = reads_alike(score.right, score.visible, wrong, REFERENCE)
    ref = REFERENCE
    lines = [
        f"real deck: {DECK} (never trained on), {ref.scenes} scenes: {score.right} of "
        f"{score.visible} visible cards read, {wrong} wrong; median "
        f"{statistics.median(times):.1f} ms a frame",
        f"reference ({ref.machine}): {ref.right} of {ref.visible} read, {ref.wrong} wrong: "
        + ("this machine reads alike" if alike else
           "this machine reads DIFFERENTLY; see docs/vision.md, \"Runtimes\""),
    ]
    lines += [f"  wrong: {item}" for item in score.wrong]
    return lines, alike
