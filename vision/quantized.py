"""The verifiers' int8 copies, run where onnxruntime runs the networks.

`tools/quantize_verifiers.py` quantizes each verifier (weights int8 per output
channel, activations uint8, ranges measured on the crops the recognizer gives
the verifiers in scenes of the training decks) into `<name>_int8.onnx` beside
it, and names the copies in the settings: `"int8_verifiers": {"index_verifier.onnx":
"index_verifier_int8.onnx", ...}`. Where onnxruntime runs the networks, the
recognizer runs the copies: they read as the float files do on the choosing
sets and take about half their time (docs/vision-measurements.md, "int8 verifiers").

OpenCV's dnn module always runs the float files: it does not load the QDQ
layout, its own int8 arithmetic (on the QOperator layout) gave other numbers
than onnxruntime's (logits up to 1.4 apart on the same crops), and the float
files give the same numbers on both. Take the key out of the
settings to run the float files on onnxruntime too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

INT8_KEY = "int8_verifiers"


def int8_name(name: str) -> str:
    """The file name of a network's int8 copy: `index_verifier.onnx` ->
    `index_verifier_int8.onnx`."""
    path = Path(name)
    return f"{path.stem}_int8{path.suffix}"


def int8_files(info: dict[str, Any], folder: Path) -> dict[str, str]:
    """The settings' map of float network files to their int8 copies ({} where they name
    none); ValueError where it is not such a map or a copy is missing from `folder`."""
    files = info.get(INT8_KEY, {})
    if not isinstance(files, dict) or not all(
            isinstance(name, str) and isinstance(copy, str) for name, copy in files.items()):
        raise ValueError(f"{INT8_KEY} must map network files to their int8 copies, e.g. "
                         '{"index_verifier.onnx": "index_verifier_int8.onnx"}')
    for copy in files.values():
        if not (folder / copy).is_file():
            raise ValueError(f"{copy} (named in {INT8_KEY}) not found: make it with "
                             f"`python tools/quantize_verifiers.py` or take it out of "
                             f"{INT8_KEY}")
    return dict(files)
