"""The int8 copies' script (`tools/quantize_verifiers.py`)."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.vision.model_copies import model_copy
from vision.networks import model_id
from vision.quantized import INT8_KEY
from vision.recognizer import Recognizer

pytest.importorskip("onnx")

TOOLS = Path(__file__).resolve().parents[2] / "tools"


def _tool() -> ModuleType:
    if str(TOOLS) not in sys.path:
        sys.path.insert(0, str(TOOLS))
    return importlib.import_module("quantize_verifiers")


def _float_model(folder: Path) -> Path:
    """The shipped networks copied to `folder` with the int8 copies taken out."""
    path = model_copy(folder)
    info = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    for copy in info.pop(INT8_KEY).values():
        (folder / copy).unlink()
    path.with_suffix(".json").write_text(json.dumps(info), encoding="utf-8")
    return path


def test_it_quantizes_every_verifier_and_names_the_copies(tmp_path: Path) -> None:
    path = _float_model(tmp_path)
    assert _tool().main(["--model", str(path), "--decks", "classic_duplex", "--scenes", "2",
                         "--seed", "3"]) == 0
    info = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    # One copy each, named alone, as the shipped settings name theirs.
    assert info[INT8_KEY] == {"index_verifier.onnx": "index_verifier_int8.onnx",
                              "index_verifier_fonts98.onnx": "index_verifier_fonts98_int8.onnx",
                              "index_verifier_fine.onnx": "index_verifier_fine_int8.onnx"}
    assert info["int8_calibration"] == {"decks": ["classic_duplex"], "scenes": 2, "seed": 3}
    for name, copy in info[INT8_KEY].items():
        assert (tmp_path / copy).stat().st_size < 0.4 * (tmp_path / name).stat().st_size
    recognizer = Recognizer(path, runtime="onnxruntime")
    own = info["verifier_model"]
    # Each copy runs unless this CPU's int8 arithmetic is not exact (then it is named).
    copy = info[INT8_KEY][own]
    running = own if any(line.startswith(copy) for line in recognizer.int8_refused) else copy
    assert recognizer.verifier_id == model_id(tmp_path / running)
    assert len(recognizer.int8_copies) + len(recognizer.int8_refused) == 3


def test_a_view_verifier_of_a_finer_cut_is_calibrated_on_cuts_of_its_size(
        tmp_path: Path) -> None:
    from tests.vision.model_copies import write_fine_verifier

    path = _float_model(tmp_path)
    info = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    info["second_views"].append([0.0, 1.0, "fine.onnx"])
    info.setdefault("view_crops", {})["fine.onnx"] = [72, 48]
    path.with_suffix(".json").write_text(json.dumps(info), encoding="utf-8")
    write_fine_verifier(tmp_path / "fine.onnx")
    assert _tool().main(["--model", str(path), "--decks", "classic_duplex", "--scenes", "2",
                         "--seed", "3"]) == 0
    info = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    assert info[INT8_KEY]["fine.onnx"] == "fine_int8.onnx"
    recognizer = Recognizer(path, runtime="onnxruntime")
    # The copy reads 72x48 crops (were it calibrated on 36x24 ones, quantizing would fail).
    assert "fine.onnx" in recognizer.int8_copies or any(
        line.startswith("fine_int8.onnx") for line in recognizer.int8_refused)


def test_7_bit_copies_fit_a_16_bit_sum_and_run_on_this_cpu(tmp_path: Path) -> None:
    """A processor with AVX2 but no VNNI adds pairs of uint8 x int8 products in 16 bits:
    255 * 127 * 2 overflows 32,767, 255 * 64 * 2 does not. With 7-bit weights every
    weight lies within -64..64, and the recognizer's check finds the copy it runs exact
    here (whichever kind of x86-64 or ARM processor this is)."""
    import onnx
    from onnx import numpy_helper

    path = _float_model(tmp_path)
    assert _tool().main(["--model", str(path), "--decks", "classic_duplex", "--scenes", "2",
                         "--seed", "3", "--weight-bits", "8", "7"]) == 0
    info = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    # Both widths, the 8-bit copy tried first.
    assert info["int8_calibration"]["weight_bits"] == [8, 7]
    assert info[INT8_KEY]["index_verifier.onnx"] == ["index_verifier_int8.onnx",
                                                     "index_verifier_int8w7.onnx"]
    for _, copy in info[INT8_KEY].values():
        model = onnx.load(str(tmp_path / copy))
        weights = [numpy_helper.to_array(t) for t in model.graph.initializer
                   if t.data_type == onnx.TensorProto.INT8 and len(t.dims) >= 2]
        assert len(weights) >= 3  # three convolutions, and the dense layers
        assert min(int(w.min()) for w in weights) >= -64
        assert max(int(w.max()) for w in weights) <= 64
    recognizer = Recognizer(path, runtime="onnxruntime")
    # Whichever copy runs, it is exact here: the 8-bit one, or the 7-bit one after it.
    assert not any("runs instead" in line for line in recognizer.int8_refused)
    assert recognizer.verifier_id in {model_id(tmp_path / copy)
                                      for copy in info[INT8_KEY][info["verifier_model"]]}


@pytest.mark.parametrize("deck", ["aisleriot-orell", "triplex_serif"])
def test_held_out_designs_are_refused(deck: str, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        _tool().main(["--model", str(_float_model(tmp_path)), "--decks", deck])
    assert exit_info.value.code == 2
    assert "held-out designs are never used" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        _tool().main(["--model", str(tmp_path / "index_classifier.onnx"),
                      "--weight-bits", "7", "7"])
    assert exit_info.value.code == 2
    assert "--weight-bits names a width twice" in capsys.readouterr().err


def test_a_missing_model_or_an_unknown_deck_is_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        _tool().main(["--model", str(tmp_path / "nothing" / "index_classifier.onnx")])
    assert exit_info.value.code == 2
    assert "index classifier index_classifier.onnx not found" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        _tool().main(["--model", str(_float_model(tmp_path)), "--decks", "no-such-deck",
                      "--scenes", "1"])
    assert exit_info.value.code == 2
    assert "cannot render the calibration scenes" in capsys.readouterr().err
    assert INT8_KEY not in json.loads((tmp_path / "index_classifier.json").read_text())
