"""One glyph read as the rank of two indices facing opposite ways: only the surer read stays.

The geometry is worked out by hand: an index's rank glyph lies half an index scale
above the index's middle, along the card's down direction.
"""

from __future__ import annotations

import pytest

from vision.reads import _Read, drop_turned_twins, merge_reads, rank_point

SCALE = 20.0


def _index(card: str, rank_x: float, rank_y: float, down: tuple[float, float],
           confidence: float) -> _Read:
    """A read whose rank glyph is at (rank_x, rank_y), its pip one scale along `down`."""
    return _Read(card, rank_x + 0.5 * SCALE * down[0], rank_y + 0.5 * SCALE * down[1],
                 confidence, SCALE, down)


def test_the_rank_point_is_half_a_scale_above_the_middle() -> None:
    read = _Read("6C", 100.0, 110.0, 0.9, SCALE, (0.0, 1.0))
    assert rank_point(read) == pytest.approx((100.0, 100.0))
    turned = _Read("9S", 100.0, 90.0, 0.9, SCALE, (0.0, -1.0))
    assert rank_point(turned) == pytest.approx((100.0, 100.0))


@pytest.mark.parametrize("upright_first", [True, False])
def test_a_glyph_read_upside_down_with_a_pip_above_it_goes(upright_first: bool) -> None:
    # A "6" with its club below it, and the same "6" paired with a spade above it:
    # turned half round, that pair reads "9S".
    upright = _index("6C", 300.0, 200.0, (0.0, 1.0), 0.95)
    turned = _index("9S", 300.0, 200.0, (0.0, -1.0), 0.80)
    reads = [upright, turned] if upright_first else [turned, upright]
    assert drop_turned_twins(reads) == [upright]
    assert [r.card for r in merge_reads(reads)] == ["6C"]


def test_the_surer_of_the_two_stays_whichever_it_is() -> None:
    upright = _index("6C", 300.0, 200.0, (0.0, 1.0), 0.70)
    turned = _index("9S", 300.0, 200.0, (0.0, -1.0), 0.90)
    assert drop_turned_twins([upright, turned]) == [turned]


def test_a_slightly_tilted_twin_on_a_slightly_shifted_glyph_centre_still_goes() -> None:
    upright = _index("7D", 300.0, 200.0, (0.0, 1.0), 0.9)
    # Facing 10 degrees off straight up, its rank point 0.25 scales off the first's.
    turned = _index("2H", 305.0, 200.0, (0.17, -0.985), 0.8)
    assert drop_turned_twins([upright, turned]) == [upright]


def test_reads_of_other_glyphs_or_facing_the_same_way_stay() -> None:
    upright = _index("6C", 300.0, 200.0, (0.0, 1.0), 0.95)
    # A card's other corner, turned half round, far away: its own glyph.
    other_corner = _index("6C", 400.0, 340.0, (0.0, -1.0), 0.9)
    # A glyph a whole scale away, facing the other way (the next card's index).
    neighbour = _index("9S", 300.0, 220.0, (0.0, -1.0), 0.9)
    # The same glyph paired with another blob facing (nearly) the same way: a "10"
    # read from its two digits is merged later as one index, not dropped here.
    same_way = _index("TC", 300.0, 200.0, (0.2, 0.98), 0.9)
    reads = [upright, other_corner, neighbour, same_way]
    assert drop_turned_twins(reads) == sorted(reads, key=lambda r: -r.confidence)
