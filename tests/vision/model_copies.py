"""A copy of the shipped networks with other settings, for tests of the model settings."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from vision.quantized import INT8_KEY
from vision.recognizer import MODEL_DIR, MODEL_FILE


def model_copy(folder: Path, **settings: Any) -> Path:
    """The shipped classifier, filter, verifiers and ensemble members copied into
    `folder` with `settings` changed in their settings file; the classifier's path."""
    info = json.loads(MODEL_FILE.with_suffix(".json").read_text(encoding="utf-8"))
    for key in ("filter_model", "verifier_model", "proposer_model", "refiner_model"):
        if info.get(key):
            shutil.copy(MODEL_DIR / info[key], folder / info[key])
    shutil.copy(MODEL_FILE, folder / MODEL_FILE.name)
    copy_view_verifiers(info, folder)
    for member in info.get("ensemble", []):
        shutil.copytree(MODEL_DIR / member, folder / member)
    info.update(settings)
    (folder / MODEL_FILE.with_suffix(".json").name).write_text(json.dumps(info))
    return folder / MODEL_FILE.name


def copy_view_verifiers(info: dict[str, Any], folder: Path) -> None:
    """The other verifier files the settings' second views name, and the int8 copies
    the settings name, copied into `folder`."""
    for view in info.get("second_views", []):
        if len(view) == 3:
            shutil.copy(MODEL_DIR / view[2], folder / view[2])
    for copies in info.get(INT8_KEY, {}).values():
        for copy in [copies] if isinstance(copies, str) else copies:
            shutil.copy(MODEL_DIR / copy, folder / copy)


def write_fine_verifier(path: Path, height: int = 72, width: int = 48) -> None:
    """A small verifier-shaped network of random weights reading `height` x `width`
    crops (three conv-pool blocks of 4 channels, 8 units, the rank and suit heads)."""
    import numpy as np

    from vision.onnx_writer import ConvLayer, DenseLayer, cnn_to_onnx

    rng = np.random.default_rng(5)

    def dense(inputs: int, outputs: int) -> DenseLayer:
        return DenseLayer(rng.normal(0, 0.1, (inputs, outputs)).astype(np.float32),
                          np.zeros(outputs, np.float32))

    convs = [ConvLayer(rng.normal(0, 0.3, (4, c, 3, 3)).astype(np.float32),
                       np.zeros(4, np.float32)) for c in (3, 4, 4)]
    path.write_bytes(cnn_to_onnx(convs, [dense(4 * (height // 8) * (width // 8), 8)],
                                 {"rank": dense(8, 14), "suit": dense(8, 4)},
                                 (3, height, width), embedding="embedding"))
