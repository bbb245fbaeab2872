"""Where the benchmark says a card not read was lost (`benchmarks/corner_losses.py`)."""

from __future__ import annotations

import numpy as np

from tests.vision.benchmark_modules import Read, benchmark_module
from vision.recognizer import Recognizer


def test_each_card_not_read_gets_the_first_reason_that_holds() -> None:
    losses = benchmark_module("corner_losses")
    # Cards 100 px wide: a read within 25 px of a corner is at it (0.25 card widths), a
    # pair's midpoint within 12 px proposes it (0.12).
    truth = [
        ("AS", "box1", [(100.0, 100.0)]),  # read
        ("KH", "box1", [(300.0, 100.0)]),  # read as QH
        ("2C", "box2", [(500.0, 100.0)]),  # reported unknown
        ("3D", "box2", [(700.0, 100.0)]),  # a pair read 3D, merged away
        ("4S", "box3", [(900.0, 100.0)]),  # a pair read it unsurely
        ("5H", "box3", [(100.0, 300.0)]),  # a pair read 6H, dropped
        ("7C", "box4", [(300.0, 300.0)]),  # a pair 5 px off: called not an index
        ("8D", "box4", [(500.0, 300.0)]),  # the nearest pair 20 px off: never proposed
        ("9S", "box5", [(700.0, 300.0), (760.0, 400.0)]),  # wrong at one corner, unknown
        ("TC", "box5", []),  # no corner visible: neither read nor lost
    ]
    reads = [Read("AS", 110, 100), Read("QH", 305, 100), Read("9C", 760, 410),
             Read("2C", 530, 100)]  # 30 px off: not at 2C's corner
    unknowns = [Read("??", 510, 100), Read("??", 700, 300)]
    candidates = [Read("3D", 700, 110), Read("??", 900, 95), Read("6H", 90, 300)]
    midpoints = np.array([[305.0, 300.0], [520.0, 300.0]])
    lost = losses.corner_losses(truth, 100.0, 0.25, reads, unknowns, candidates, midpoints)
    assert dict(lost) == {losses.READ_WRONG: 2, losses.UNKNOWN: 1, losses.LOST_IN_MERGING: 1,
                          losses.UNSURE_NOT_REPORTED: 1, losses.OTHER_CARD_DROPPED: 1,
                          losses.NOT_AN_INDEX: 1, losses.NOT_PROPOSED: 1}
    assert losses.losses_line(lost).startswith("read as another card 2, reported unknown 1, ")
    assert losses.losses_line(lost.__class__()) == "none"


def test_a_recognizer_never_sure_loses_every_card_to_doubt_or_the_finder() -> None:
    real_decks = benchmark_module("vision_real_decks")
    losses = benchmark_module("corner_losses")
    rendered_scenes = benchmark_module("bench_vision").rendered_scenes

    scenes = list(rendered_scenes(2, 5, ["classic_duplex"]))
    per_deck = real_decks.run(scenes, Recognizer(min_confidence=1.01), True, True)
    deck = per_deck["classic_duplex"]
    visible = sum(1 for scene in scenes for _, _, corners in scene.truth if corners)
    assert deck.score.truth_read == 0
    # Nothing is read, so nothing is read wrong or merged away: every visible card is
    # an unknown corner, an unsure pair, a pair not taken for an index, or unproposed.
    assert sum(deck.losses.values()) == visible
    assert set(deck.losses) <= {losses.UNKNOWN, losses.UNSURE_NOT_REPORTED,
                                losses.NOT_AN_INDEX, losses.NOT_PROPOSED}
    assert deck.losses[losses.UNKNOWN] > visible // 2


def test_the_finders_losses_read_at_their_true_glyphs_are_counted_apart() -> None:
    losses = benchmark_module("corner_losses")
    truth = [("7C", "box1", [(300.0, 300.0)]),  # called not an index: read when cut true
             ("8D", "box1", [(500.0, 300.0)]),  # never proposed: read as 8H when cut true
             ("9S", "box2", [(700.0, 300.0)]),  # never proposed, no glyphs given
             ("KH", "box2", [(100.0, 100.0)])]  # read wrong: never cut again
    glyphs = [[((300.0, 295.0), (300.0, 305.0))], [((500.0, 295.0), (500.0, 305.0))], [],
              [((100.0, 95.0), (100.0, 105.0))]]
    asked: list[tuple[float, float]] = []

    def read_pairs(pairs: list[tuple[tuple[float, float], tuple[float, float]]]) -> list[str]:
        asked.extend(rank for rank, _pip in pairs)
        return {300.0: ["7C"], 500.0: ["8H", "??"]}.get(pairs[0][0][0], [])

    lost = losses.corner_losses(truth, 100.0, 0.25, [Read("QH", 100, 100)], [], [],
                                np.array([[305.0, 300.0]]), glyphs, read_pairs)
    assert lost[losses.NOT_AN_INDEX] == 1 and lost[losses.NOT_PROPOSED] == 2
    assert lost[losses.READ_WRONG] == 1
    assert lost[losses.READ_WHEN_CUT_TRUE] == 1
    assert asked == [(300.0, 295.0), (500.0, 295.0)]
    assert losses.READ_WHEN_CUT_TRUE not in losses.losses_line(lost)


def test_pairs_cut_at_the_true_glyphs_of_a_clean_scene_read_its_cards() -> None:
    rendered_scenes = benchmark_module("bench_vision").rendered_scenes

    benchmark_module("corner_losses")
    scene = next(iter(rendered_scenes(1, 3, ["classic_duplex"])))
    recognizer = Recognizer()
    checked = 0
    for (card, _box, corners), glyphs in zip(scene.truth, scene.glyphs, strict=True):
        if not corners:
            continue
        ranks = np.array([rank for rank, _ in glyphs], np.float32)
        pips = np.array([pip for _, pip in glyphs], np.float32)
        read = [r.card for r in recognizer.read_candidates(scene.image, keep_unsure=True,
                                                           pairs=(ranks, pips))]
        assert read and set(read) <= {card, "??"}, (card, read)
        checked += 1
    assert checked >= 5
    # The same pairs turned round (pip taken for the rank) are no index.
    card, _box, corners = next(t for t in scene.truth if t[2])
    glyphs = scene.glyphs[scene.truth.index((card, _box, corners))]
    turned = recognizer.read_candidates(
        scene.image, pairs=(np.array([p for _, p in glyphs], np.float32),
                            np.array([r for r, _ in glyphs], np.float32)))
    assert card not in [r.card for r in turned]
