"""Camera sources: every one hands out BGR frames (HxWx3 uint8 numpy arrays).

`open_source(spec)` accepts
- an int or a string of digits: a camera device index (`cv2.VideoCapture`);
- `picamera2` or `picamera2:N`: the Raspberry Pi camera through picamera2;
- a folder: its still images, in name order;
- an image file (.png, .jpg, ...): that one still;
- anything else (a video file, `rtsp://`, `http://` ...): `cv2.VideoCapture`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from vision.images import ImageError, read_image

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class SourceError(RuntimeError):
    """A camera source that cannot be opened or read; the message says what to check."""


class FrameSource(Protocol):
    def read(self) -> np.ndarray | None:
        """The next frame, or None at the end of a file or folder."""
        ...

    def close(self) -> None: ...


def frames(source: FrameSource) -> Iterator[np.ndarray]:
    """Iterate over a source's frames until it ends."""
    while True:
        frame = source.read()
        if frame is None:
            return
        yield frame


class VideoCaptureSource:
    """A device index, a video file or a stream URL through `cv2.VideoCapture`."""

    def __init__(self, target: int | str, width: int | None = None,
                 height: int | None = None, fps: float | None = None) -> None:
        self.target = target
        self._capture = cv2.VideoCapture(target)
        if not self._capture.isOpened():
            self._capture.release()
            what = f"camera device {target}" if isinstance(target, int) else repr(target)
            raise SourceError(f"cannot open {what}: check the device is plugged in, the file "
                              "exists and is a video OpenCV can decode, or the URL is reachable")
        if isinstance(target, int):
            # Only a live camera honours these; files keep their own size and rate.
            if width:
                self._capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            if height:
                self._capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
            if fps:
                self._capture.set(cv2.CAP_PROP_FPS, fps)

    def read(self) -> np.ndarray | None:
        ok, frame = self._capture.read()
        if not ok or frame is None:
            return None
        return _to_bgr(frame)

    def close(self) -> None:
        self._capture.release()


class StillsSource:
    """Still images: one file, or every image of a folder in name order."""

    def __init__(self, paths: list[Path]) -> None:
        if not paths:
            raise SourceError("no still images found: give an image file or a folder holding "
                              f"{', '.join(IMAGE_SUFFIXES)} files")
        self.paths = paths
        self._next = 0

    def read(self) -> np.ndarray | None:
        if self._next >= len(self.paths):
            return None
        path = self.paths[self._next]
        self._next += 1
        try:
            return read_image(path)
        except ImageError as error:  # not a picture, truncated, too large to decode
            raise SourceError(str(error)) from None

    def close(self) -> None:
        self._next = len(self.paths)


class PiCameraSource:
    """The Raspberry Pi camera through picamera2 (imported only when asked for)."""

    def __init__(self, camera_index: int = 0, width: int = 1280, height: int = 720,
                 fps: float | None = None) -> None:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError as exc:
            raise SourceError("the picamera2 source needs the picamera2 package: on Raspberry "
                              "Pi OS run `sudo apt install python3-picamera2` and create the "
                              "virtualenv with --system-site-packages") from exc
        self._camera: Any = Picamera2(camera_index)
        controls = {"FrameRate": float(fps)} if fps else {}
        config = self._camera.create_video_configuration(
            main={"size": (width, height), "format": "RGB888"}, controls=controls)
        self._camera.configure(config)
        self._camera.start()

    def read(self) -> np.ndarray | None:
        # picamera2's "RGB888" is laid out B, G, R in memory: already OpenCV's order.
        frame: np.ndarray = self._camera.capture_array("main")
        return _to_bgr(frame)

    def close(self) -> None:
        self._camera.stop()
        self._camera.close()


def open_source(spec: int | str, width: int | None = None, height: int | None = None,
                fps: float | None = None) -> FrameSource:
    """Open the camera source a config's `[camera] source` names."""
    if isinstance(spec, bool):
        raise SourceError(f"camera source {spec!r}: expected a device index, file, folder or URL")
    if isinstance(spec, int) or (isinstance(spec, str) and spec.strip().isdigit()):
        return VideoCaptureSource(int(spec), width, height, fps)
    text = spec.strip()
    if not text:
        raise SourceError("camera source is empty: give a device index, file, folder or URL")
    if text == "picamera2" or text.startswith("picamera2:"):
        index = text.partition(":")[2] or "0"
        if not index.isdigit():
            raise SourceError(f"camera source {text!r}: write picamera2 or picamera2:N")
        return PiCameraSource(int(index), width or 1280, height or 720, fps)
    if "://" not in text:
        path = Path(os.path.expanduser(text))
        if path.is_dir():
            stills = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            return StillsSource(stills)
        if not path.exists():
            raise SourceError(f"{path}: no such file or folder (camera source)")
        if path.suffix.lower() in IMAGE_SUFFIXES:
            return StillsSource([path])
    return VideoCaptureSource(text, width, height, fps)


def _to_bgr(frame: np.ndarray) -> np.ndarray:
    if frame.ndim == 2:
        return cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    if frame.shape[2] == 4:
        return cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    return frame
