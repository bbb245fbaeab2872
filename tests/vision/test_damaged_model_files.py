"""A network or settings file that is there but damaged (cut short by a full disk or a
bad copy, another file under its name) is refused with one line naming it, on each
runtime."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.vision.model_copies import model_copy
from vision.networks import ModelError, Network
from vision.quantized import INT8_KEY
from vision.recognizer import MODEL_DIR, MODEL_INFO, Recognizer

SHIPPED = json.loads(MODEL_INFO.read_text(encoding="utf-8"))


def _has_onnxruntime() -> bool:
    try:
        import onnxruntime  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        return False
    return True


needs_onnxruntime = pytest.mark.skipif(not _has_onnxruntime(), reason="onnxruntime not installed")


def _cut_short(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])


@pytest.mark.parametrize("runtime", ["opencv", pytest.param("onnxruntime",
                                                            marks=needs_onnxruntime)])
def test_a_network_file_cut_short_is_named_in_one_line(tmp_path: Path, runtime: str) -> None:
    path = tmp_path / "index_verifier.onnx"
    path.write_bytes((MODEL_DIR / "index_verifier.onnx").read_bytes())
    _cut_short(path)
    with pytest.raises(ModelError) as caught:
        Network(path, runtime)
    message = str(caught.value)
    assert message.startswith(f"index_verifier.onnx in {tmp_path} is not a network")
    assert "\n" not in message and "restore the file" in message


@pytest.mark.parametrize("runtime", ["opencv", pytest.param("onnxruntime",
                                                            marks=needs_onnxruntime)])
def test_a_recognizer_with_a_damaged_verifier_is_refused(tmp_path: Path, runtime: str) -> None:
    path = model_copy(tmp_path, **{INT8_KEY: {}})
    _cut_short(tmp_path / SHIPPED["verifier_model"])
    with pytest.raises(ModelError, match=f"{SHIPPED['verifier_model']} in .* is not a network"):
        Recognizer(path, runtime=runtime)


@needs_onnxruntime
def test_a_damaged_int8_copy_is_refused_before_it_is_checked(tmp_path: Path) -> None:
    path = model_copy(tmp_path)
    copy = SHIPPED[INT8_KEY][SHIPPED["verifier_model"]]
    _cut_short(tmp_path / copy)
    with pytest.raises(ModelError, match=f"{copy} in .* is not a network"):
        Recognizer(path, runtime="onnxruntime")


@pytest.mark.parametrize(("text", "message"), [
    ('{"feature_size": 639,', "index_classifier.json in .* cannot be read"),
    ("[1, 2]", "index_classifier.json must hold the settings as a JSON object"),
])
def test_a_damaged_settings_file_is_refused(tmp_path: Path, text: str, message: str) -> None:
    path = model_copy(tmp_path)
    path.with_suffix(".json").write_text(text, encoding="utf-8")
    with pytest.raises(ModelError, match=message):
        Recognizer(path, runtime="opencv")
