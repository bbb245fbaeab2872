"""The training script of the camera's networks (`tools/train_vision.py` and its modules)."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

TOOLS = Path(__file__).resolve().parents[2] / "tools"


def _tool(name: str) -> ModuleType:
    if str(TOOLS) not in sys.path:
        sys.path.insert(0, str(TOOLS))
    return importlib.import_module(name)


def test_held_out_designs_are_refused() -> None:
    train_vision = _tool("train_vision")
    for design in ("aisleriot-orell", "triplex_serif", "held-out"):
        with pytest.raises(SystemExit, match="held-out designs are never trained on"):
            train_vision.main(["--designs", design])


PROBABILITIES = ["--min-confidence", "--verifier-smoothing", "--cut-negatives"]
STRENGTHS = ["--verifier-shape", "--verifier-scene"]  # 0 (off) or more


@pytest.mark.parametrize(("option", "value"), [
    *[(option, value) for option in PROBABILITIES for value in ("1.5", "-0.1", "high")],
    *[(option, value) for option in STRENGTHS for value in ("-0.5", "nan", "strong")]])
def test_an_option_out_of_its_range_is_refused_before_anything_is_rendered(
        option: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    train_vision = _tool("train_vision")
    with pytest.raises(SystemExit) as exit_info:
        train_vision.main(["--designs", "classic_duplex", option, value])
    assert exit_info.value.code == 2  # argparse's usage error
    error = capsys.readouterr().err
    assert option in error and "Traceback" not in error


def test_the_filter_lets_998_in_1000_indices_through_within_its_bounds() -> None:
    threshold = _tool("mlp_training").filter_threshold
    # 1000 index scores 0.0005, 0.0015, ... 0.9995: 0.2% of them (two) lie under 0.002,
    # below the floor of 0.01, so the floor holds.
    spread = (np.arange(1000) + 0.5) / 1000
    assert threshold(spread) == pytest.approx(0.01)
    # Scores from 0.05 up: the 0.2% quantile (0.05 + 0.002 * 0.9) is the threshold.
    assert threshold(0.05 + 0.9 * spread) == pytest.approx(0.05 + 0.9 * 0.002, abs=1e-3)
    # Every index scored high: never above 0.1.
    assert threshold(np.full(100, 0.9)) == pytest.approx(0.1)


def _placed(open_share: float) -> object:
    """A 100x140 card drawn as it is (identity homography) whose top-left index has its
    rank at (10, 12) and its suit at (10, 26); its left `open_share` of the index box
    (4-18 wide) is uncovered."""
    canvases = _tool("card_canvases")
    mask = np.ones((140, 100), np.uint8)
    mask[:, int(round(4 + 14 * open_share)):20] = 0
    glyphs = canvases.IndexGlyphs([(10.0, 12.0)], (10.0, 26.0), (4.0, 4.0, 18.0, 32.0))
    return canvases.Placed("QH", np.eye(3), mask, glyphs, (100, 140))


@pytest.fixture(scope="module")
def tango(tmp_path_factory: pytest.TempPathFactory) -> object:
    """aisleriot-tango, whose large club pips the candidate finder splits into lobes."""
    from hwsim.camera.artwork import ArtworkDeck
    from hwsim.camera.deck_corpus import ensure_corpus

    folder = tmp_path_factory.mktemp("corpus")
    try:
        ensure_corpus(folder, decks=["aisleriot-tango"], install=False)
    except RuntimeError as error:  # the Debian card packages are not installed
        pytest.skip(str(error))
    return ArtworkDeck.named("aisleriot-tango", corpus=folder)


@pytest.mark.parametrize("width", [80, 100, 140])
def test_a_split_club_pip_is_the_suit_and_never_a_rank_glyph(tango: object, width: int) -> None:
    from hwsim.camera.faces import glyph_boxes, render_card

    canvases = _tool("card_canvases")
    for rank in "A23456789TJQK":
        card = rank + "C"
        rank_box, suit_box = glyph_boxes(tango, width, card)[0]  # the artwork's own boxes
        glyphs = canvases.locate_index(render_card(card, tango, width), rank_box, suit_box)
        sx0, sy0, sx1, sy1 = suit_box
        assert sx0 <= glyphs.suit[0] <= sx1 and sy0 <= glyphs.suit[1] <= sy1, card
        # Rank points (a glyph the finder splits gives one per piece) lie on the rank
        # glyph, above the pip: none on the pip's lobes.
        rx0, ry0, rx1, ry1 = rank_box
        assert glyphs.rank, card
        for x, y in glyphs.rank:
            assert rx0 - 2 <= x <= rx1 + 2 and ry0 - 2 <= y < sy0, (card, glyphs.rank)


def test_candidate_pairs_are_labelled_from_the_index_glyphs() -> None:
    examples = _tool("training_examples")
    not_index = len("A23456789TJQK")
    # Rank then suit of the top-left index; the same reversed; a rank over a centre pip;
    # the bottom-right index (the top-left turned half round: rank at (90, 128)).
    first = np.array([[10.0, 12.0], [10.0, 26.0], [10.0, 12.0], [90.0, 128.0]])
    second = np.array([[10.0, 26.0], [10.0, 12.0], [50.0, 70.0], [90.0, 114.0]])
    rank, suit = examples.label_candidates(first, second, [_placed(1.0)])
    queen, hearts = "A23456789TJQK".index("Q"), "SHDC".index("H")
    assert rank.tolist() == [queen, not_index, not_index, queen]
    assert suit[[0, 3]].tolist() == [hearts, hearts]
    # Half the top-left index covered: neither required nor wrong, left out (-2). The
    # bottom-right corner is open, so it stays the queen.
    rank, _ = examples.label_candidates(first, second, [_placed(0.5)])
    assert rank.tolist() == [-2, not_index, not_index, queen]
    # Covered all but a tenth: "not an index".
    rank, _ = examples.label_candidates(first, second, [_placed(0.1)])
    assert rank[0] == not_index
    # With cut pairs asked for up to 60% open: half open is cut (-3), 70% open still
    # left out, and a whole index is the queen whatever the bound.
    for visible, expected in ((0.5, -3), (0.7, -2), (1.0, queen)):
        rank, _ = examples.label_candidates(first, second, [_placed(visible)], cut_below=0.6)
        assert rank.tolist() == [expected, not_index, not_index, queen], visible


def test_a_pair_ending_beside_the_suit_pips_centre_is_left_out() -> None:
    examples = _tool("training_examples")
    # Rank at (10, 12), suit pip at (10, 26): the index scale is 14 px. A second blob
    # 1 px off the pip's centre is the pip; 3.5 px off (a quarter of the scale: a lobe of
    # a split club) is near the pip but cuts another crop: left out (-2).
    # 6.3 px (0.45 of the scale, a big club's lobe) too; 10 px off (0.7) is another blob.
    first = np.array([[10.0, 12.0]] * 4)
    second = np.array([[10.0, 27.0], [10.0, 29.5], [10.0, 32.3], [10.0, 36.0]])
    rank, suit = examples.label_candidates(first, second, [_placed(1.0)])
    not_index = len("A23456789TJQK")
    assert rank.tolist() == ["A23456789TJQK".index("Q"), -2, -2, not_index]


def test_a_blob_anywhere_on_the_rank_glyph_box_is_the_rank() -> None:
    canvases, examples = _tool("card_canvases"), _tool("training_examples")
    # A wide "10" found as two blobs on the clean card, at (4, 12) and (16, 12); on a
    # blurred canvas it is one blob centred between them, 6 px from each point (beyond
    # their tolerance of 0.35 index scales, 5.3 px), but on the rank glyphs' box.
    mask = np.ones((140, 100), np.uint8)
    first, second = np.array([[10.0, 12.0]]), np.array([[10.0, 26.0]])
    for rank_box, expected in (((2.0, 6.0, 18.0, 18.0), "A23456789TJQK".index("T")),
                               (None, len("A23456789TJQK"))):
        glyphs = canvases.IndexGlyphs([(4.0, 12.0), (16.0, 12.0)], (10.0, 26.0),
                                      (2.0, 4.0, 18.0, 32.0), rank_box)
        placed = canvases.Placed("TD", np.eye(3), mask, glyphs, (100, 140))
        rank, _ = examples.label_candidates(first, second, [placed])
        assert rank.tolist() == [expected], rank_box


def test_a_small_run_writes_networks_the_recognizer_loads_and_its_cache_gives_the_same(
        tmp_path: Path) -> None:
    from vision.recognizer import Recognizer

    train_vision = _tool("train_vision")
    cache = tmp_path / "examples.npz"
    args = ["--designs", "classic_duplex", "--samples", "8", "--scenes", "2", "--epochs", "1",
            "--verifier-epochs", "0", "--jobs", "1", "--cache", str(cache),
            "--agreement", "cards", "--min-confidence", "0.7"]
    first = tmp_path / "a" / "index_classifier.onnx"
    assert train_vision.main([*args, "--out", str(first)]) == 0
    assert cache.exists()
    info = json.loads(first.with_suffix(".json").read_text(encoding="utf-8"))
    assert info["designs"] == ["classic_duplex"] and info["agreement"] == "cards"
    assert "verifier_model" not in info
    recognizer = Recognizer(first)
    assert recognizer.agreement == "cards" and recognizer.conflicts == "better"
    assert info["min_confidence"] == 0.7 and recognizer.min_confidence == 0.7
    # The second look is written into the settings, so a retrained model keeps it.
    assert info["second_views"] == [[6.0, 0.94]] and info["second_look_ceiling"] == 1.0
    assert recognizer.second_views == ((6.0, 0.94, ""),)
    assert recognizer.second_look_ceiling == 1.0
    # From the cache, the same seed: the same files.
    second = tmp_path / "b" / "index_classifier.onnx"
    assert train_vision.main([*args, "--out", str(second)]) == 0
    for name in ("index_classifier.onnx", "index_filter.onnx"):
        assert (first.parent / name).read_bytes() == (second.parent / name).read_bytes()
    # The settings say how the examples were made; a cache made otherwise is refused,
    # one made with another seed is taken (and the settings name the seed it was made with).
    assert info["examples"] == {"seed": 1, "samples": 8, "scenes": 2, "scene_indices": False,
                                "real_share": 0.65, "cut_negatives": 0.0,
                                "designs": ["classic_duplex"]}
    third = tmp_path / "c" / "index_classifier.onnx"
    with pytest.raises(SystemExit, match=r"made with other cut_negatives \(cut_negatives=0.0\)"):
        train_vision.main([*args, "--cut-negatives", "0.5", "--out", str(third)])
    assert not third.exists()
    assert train_vision.main([*args, "--seed", "5", "--out", str(third)]) == 0
    # A cache file that is not one, or whose record is garbled: one line, nothing written.
    fourth = tmp_path / "d" / "index_classifier.onnx"
    for garbage in (b"not a cache", b"PK\x03\x04 truncated"):
        cache.write_bytes(garbage)
        with pytest.raises(SystemExit, match="is not an example cache this script can read"):
            train_vision.main([*args, "--out", str(fourth)])
    np.savez(cache, features=np.zeros((1, 1)), recipe=np.array("{not json"))
    with pytest.raises(SystemExit, match="is not an example cache this script can read"):
        train_vision.main([*args, "--out", str(fourth)])
    assert not fourth.parent.exists()
    assert json.loads(third.with_suffix(".json").read_text(encoding="utf-8"))["examples"] == (
        info["examples"])


def test_keeping_the_classifier_keeps_its_file_and_its_recorded_settings(
        tmp_path: Path) -> None:
    train_vision = _tool("train_vision")
    cache, out = tmp_path / "examples.npz", tmp_path / "index_classifier.onnx"
    args = ["--designs", "classic_duplex", "--samples", "8", "--scenes", "2",
            "--verifier-epochs", "0", "--jobs", "1", "--cache", str(cache), "--out", str(out)]
    assert train_vision.main([*args, "--epochs", "1"]) == 0
    trained = out.read_bytes()
    assert "ensemble" not in json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert train_vision.main([*args, "--epochs", "7", "--keep-mlp", "--ensemble", "twin"]) == 0
    assert out.read_bytes() == trained
    # The settings record how the kept classifier was trained, not this run's arguments,
    # and the members named with it.
    info = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert info["epochs"] == 1 and info["ensemble"] == ["twin"]
    assert info["examples"] == info["verifier_examples"]
    assert info["examples"]["designs"] == ["classic_duplex"]


def test_batch_normalisation_folded_into_a_convolution_gives_the_same_outputs() -> None:
    from types import SimpleNamespace

    folded = _tool("verifier_training").folded
    rng = np.random.default_rng(3)
    conv = SimpleNamespace(weight=rng.normal(size=(4, 3, 3, 3)), bias=rng.normal(size=4))
    norm = SimpleNamespace(weight=rng.uniform(0.5, 2, 4), bias=rng.normal(size=4),
                           running_mean=rng.normal(size=4), running_var=rng.uniform(0.1, 3, 4),
                           eps=1e-5)
    layer = folded(conv, norm, np.asarray)
    patch = rng.normal(size=(3, 3, 3))  # one output pixel's input window
    raw = (conv.weight * patch).sum(axis=(1, 2, 3)) + conv.bias
    # Batch normalisation in evaluation mode, as PyTorch defines it.
    expected = (raw - norm.running_mean) / np.sqrt(norm.running_var + norm.eps) * norm.weight \
        + norm.bias
    got = (layer.weight * patch).sum(axis=(1, 2, 3)) + layer.bias
    assert np.allclose(got, expected, atol=1e-5)
    # Without normalisation the convolution is kept as it is.
    plain = folded(conv, SimpleNamespace(), np.asarray)
    assert np.array_equal(plain.weight, conv.weight) and np.array_equal(plain.bias, conv.bias)


def test_cut_pairs_are_added_as_negatives_and_change_no_other_example() -> None:
    from hwsim.camera.dataset import resolve_designs
    from hwsim.camera.faces import glyph_boxes, render_card

    canvases, examples = _tool("card_canvases"), _tool("training_examples")
    not_index = len("A23456789TJQK")
    designs = resolve_designs(["classic_duplex", "bold_sans"])

    def run(cut_below: float) -> tuple[np.ndarray, ...]:
        sampler = canvases.CardSampler(designs, render_card, glyph_boxes)
        return examples.card_level_data(np.random.default_rng([4, 0]), sampler, 40, cut_below)

    # Pairs on a corner 30% to 80% open are rare: 14 of these 40 canvases' pairs with
    # OpenCV 5.0's Hershey glyphs, 1 with 5.1's (its putText draws them otherwise).
    plain, with_cut = run(0.0), run(0.8)
    _, rank, _, crops = plain
    _, cut_rank, _, cut_crops = with_cut
    assert cut_rank.size > rank.size  # some of 40 canvases of fanned cards cut an index
    assert set(cut_rank.tolist()) <= set(range(not_index + 1))  # no -2 or -3 left
    # Each canvas's examples are its earlier ones followed by its cut pairs: taking the
    # earlier ones out, in order, gives the plain run exactly (the same canvases drawn).
    matched, position = [], 0
    for k in range(cut_rank.size):
        if position < rank.size and cut_rank[k] == rank[position] and np.array_equal(
                cut_crops[k], crops[position]):
            matched.append(k)
            position += 1
    assert position == rank.size
    extra = np.setdiff1d(np.arange(cut_rank.size), matched)
    assert (cut_rank[extra] == not_index).all()
