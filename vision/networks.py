"""The recognizer's networks, run by OpenCV's dnn module or by onnxruntime.

Both read the same ONNX files. onnxruntime ran the verifier about twice as
fast as OpenCV's dnn module on one x86 core (`benchmarks/
bench_inference_runtimes.py`, docs/vision.md); it is optional
(`pip install 'tablectl[onnxruntime]'`). `runtime="auto"` takes onnxruntime
where it is installed, else OpenCV.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import cv2
import numpy as np

RUNTIMES = ("auto", "opencv", "onnxruntime")


class ModelError(RuntimeError):
    """The classifier file is missing or does not match this code."""


def named_net(info: dict[str, Any], key: str, folder: Path, info_path: Path,
              runtime: str, copies: dict[str, str] | None = None) -> Network | None:
    """The network file `info[key]` names (beside the classifier), or the copy `copies`
    names for that file; None if none is named."""
    name = info.get(key)
    if not name:
        return None
    path = folder / (copies or {}).get(str(name), str(name))
    if not path.exists():
        raise ModelError(f"{path.name} (named in {info_path.name}) not found: "
                         "retrain with `python tools/train_vision.py`")
    return Network(path, runtime)


def resolve_runtime(runtime: str) -> str:
    """The runtime that will run the networks: "auto" made "onnxruntime" where it is
    installed, else "opencv"; ValueError for an unknown name."""
    if runtime not in RUNTIMES:
        raise ValueError(f"unknown network runtime {runtime!r}: use one of "
                         f"{', '.join(RUNTIMES)}")
    if runtime != "auto":
        return runtime
    try:
        import onnxruntime  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        return "opencv"
    return "onnxruntime"


def model_id(path: Path) -> str:
    """A short fingerprint of a network file (an enrolled deck names the one it fits)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16] if path.exists() else ""


class Network:
    """One ONNX network: `run(inputs)` gives every output by name."""

    def __init__(self, path: Path, runtime: str = "auto") -> None:
        if runtime not in RUNTIMES:
            raise ValueError(f"unknown network runtime {runtime!r}: use one of "
                             f"{', '.join(RUNTIMES)}")
        self.path = path
        self._session: Any = None
        self._net: Any = None
        if runtime in ("auto", "onnxruntime"):
            self._session = _onnxruntime_session(path, required=runtime == "onnxruntime")
        if self._session is None:
            try:
                self._net = cv2.dnn.readNetFromONNX(str(path))
            except cv2.error as error:
                raise unreadable(path, error) from None
            self._names = list(self._net.getUnconnectedOutLayersNames())
        else:
            self._input = self._session.get_inputs()[0].name
            self._names = [o.name for o in self._session.get_outputs()]
        self.runtime = "opencv" if self._session is None else "onnxruntime"

    @property
    def outputs(self) -> list[str]:
        return list(self._names)

    def run(self, inputs: np.ndarray) -> dict[str, np.ndarray]:
        batch = np.ascontiguousarray(inputs, dtype=np.float32)
        if self._session is not None:
            values = self._session.run(self._names, {self._input: batch})
        else:
            # OpenCV 5 computes all of a network's outputs or none.
            self._net.setInput(batch)
            values = self._net.forward(self._names)
        return dict(zip(self._names, values, strict=True))


def _onnxruntime_session(path: Path, required: bool) -> Any:
    try:
        import onnxruntime  # type: ignore[import-not-found]
    except ImportError:
        if required:
            raise ValueError("the onnxruntime runtime is not installed: "
                             "pip install 'tablectl[onnxruntime]'") from None
        return None
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1  # a frame's batches are small; the other core is busy
    options.inter_op_num_threads = 1
    # Subnormal floats arise in the MLPs' arithmetic; unflushed, x86 ran them ten times
    # as slowly (OpenCV's dnn module flushes them itself).
    options.add_session_config_entry("session.set_denormal_as_zero", "1")
    try:
        return onnxruntime.InferenceSession(str(path), options,
                                            providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime's own kinds (InvalidProtobuf, Fail...)
        raise unreadable(path, error) from None


def unreadable(path: Path, error: BaseException) -> ModelError:
    """The error for a network file that is there but does not load (cut short, another
    file under its name): its name and the runtime's first line of complaint."""
    lines = str(error).strip().splitlines()
    reason = lines[0][:200] if lines else type(error).__name__
    return ModelError(f"{path.name} in {path.parent} is not a network this runtime can "
                      f"load ({reason}): restore the file as the package ships it, or "
                      "retrain with `python tools/train_vision.py`")


def softmax(logits: np.ndarray) -> np.ndarray:
    """Each row of logits made probabilities."""
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    result: np.ndarray = exp / exp.sum(axis=1, keepdims=True)
    return result


def forward_all(net: cv2.dnn.Net, inputs: np.ndarray) -> dict[str, np.ndarray]:
    """Every output of an OpenCV network by name (OpenCV 5 computes all or none)."""
    names = list(net.getUnconnectedOutLayersNames())
    net.setInput(np.ascontiguousarray(inputs, dtype=np.float32))
    return dict(zip(names, net.forward(names), strict=True))
