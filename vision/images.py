"""Reading still pictures safely, and telling a usable frame from a bad one.

`read_image(path)` reads a PNG, JPEG, BMP, WebP or TIFF file as a BGR frame.
It looks at the file's header before decoding: a file that is not a picture,
one cut short (a JPEG without its end marker, a PNG without its last chunk) or
one larger than `MAX_IMAGE_SIDE` pixels a side is refused with an
`ImageError` naming the file and what is wrong, before any large buffer is
allocated (a 20000x20000 picture would take 1.2 GB decoded).

`frame_problem(frame)` says what is wrong with a frame (not a BGR picture, too
small or too large, black, one flat colour), or None for a frame worth reading
cards from. The daemon's camera feed skips such frames; `tablectl vision
detect` refuses such pictures. `has_colour(frame)` says whether a frame shows
any colour at all: the recognizer tells red cards from black by their ink, so
the `vision` commands warn of a grey picture (a grey camera, or a picture saved
grey) without refusing it.

numpy and OpenCV are imported only when a picture is decoded or checked.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

MAX_IMAGE_SIDE = 8192  # pixels a side; a camera frame is far smaller
MIN_IMAGE_SIDE = 32
BLACK_LEVEL = 24  # a frame whose 99th percentile brightness is below this is black
FLAT_SPREAD = 2.0  # a frame whose pixels spread less than this is one flat colour
# A pixel whose channels differ by more than this is coloured; a table in colour has
# felt, chips or red print: far more than this share of its pixels.
COLOURED_SPREAD = 24
MIN_COLOURED_SHARE = 0.001
GREY_WARNING = ("the picture has no colour (a grey camera, or a picture saved grey): the "
                "recognizer tells hearts and diamonds from spades and clubs by their ink, "
                "and reports hearts and diamonds unknown in a grey picture")
FORMATS = "PNG, JPEG, BMP, WebP or TIFF"


class ImageError(ValueError):
    """A picture that cannot be read; the message names the file and what is wrong."""


def frame_problem(frame: Any) -> str | None:
    """Why `frame` is no picture to read cards from, or None when it is one."""
    import numpy as np

    if not isinstance(frame, np.ndarray):
        return f"not a picture (a {type(frame).__name__})"
    if frame.ndim != 3 or frame.shape[2] != 3:
        return f"not a 3-channel colour picture (shape {tuple(frame.shape)})"
    if frame.dtype != np.uint8:
        return f"not 8-bit pixels ({frame.dtype})"
    height, width = frame.shape[:2]
    if min(width, height) < MIN_IMAGE_SIDE:
        return f"a {width}x{height} picture is too small (at least {MIN_IMAGE_SIDE} px a side)"
    if max(width, height) > MAX_IMAGE_SIDE:
        return f"a {width}x{height} picture is larger than {MAX_IMAGE_SIDE} px a side"
    step = max(1, min(width, height) // 90)
    sample = frame[::step, ::step]
    if float(np.percentile(sample, 99)) < BLACK_LEVEL:
        return "the picture is black (lens covered, no light or a dead sensor)"
    if float(sample.std()) < FLAT_SPREAD:
        return "the picture is one flat colour (nothing in view)"
    return None


def has_colour(frame: np.ndarray) -> bool:
    """Whether some of a BGR frame's pixels are coloured (not black, grey or white)."""
    step = max(1, min(frame.shape[0], frame.shape[1]) // 360)
    sample = frame[::step, ::step].reshape(-1, 3)
    spread = sample.max(axis=1).astype("int16") - sample.min(axis=1)
    return float((spread > COLOURED_SPREAD).mean()) >= MIN_COLOURED_SHARE


def image_size(data: bytes) -> tuple[str, int, int] | None:
    """(format, width, height) from a picture file's header; None if it is no picture
    this module knows. Raises ImageError for a known format whose header is broken."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        if len(data) < 24 or data[12:16] != b"IHDR":
            raise ImageError("a PNG whose header is cut short or damaged")
        width, height = struct.unpack(">II", data[16:24])
        return "PNG", width, height
    if data.startswith(b"\xff\xd8"):
        return _jpeg_size(data)
    if data.startswith(b"BM") and len(data) >= 26:
        width, height = struct.unpack("<ii", data[18:26])
        return "BMP", abs(width), abs(height)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp_size(data)
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return _tiff_size(data)
    return None


def _jpeg_size(data: bytes) -> tuple[str, int, int]:
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            raise ImageError("a JPEG whose header is damaged")
        marker = data[at + 1]
        if marker == 0xFF:  # padding
            at += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            at += 2
            continue
        (length,) = struct.unpack(">H", data[at + 2:at + 4])
        # SOF0-SOF15 carry the size, except DHT (C4), JPG (C8) and DAC (CC).
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            if at + 9 > len(data):
                break
            height, width = struct.unpack(">HH", data[at + 5:at + 9])
            return "JPEG", width, height
        at += 2 + length
    raise ImageError("a JPEG cut short before its size (truncated)")


def _webp_size(data: bytes) -> tuple[str, int, int]:
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        width = 1 + int.from_bytes(data[24:27], "little")
        height = 1 + int.from_bytes(data[27:30], "little")
        return "WebP", width, height
    if chunk == b"VP8 " and len(data) >= 30:
        width, height = struct.unpack("<HH", data[26:30])
        return "WebP", width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return "WebP", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    raise ImageError("a WebP whose header is cut short or damaged")


def _tiff_size(data: bytes) -> tuple[str, int, int]:
    order = "<" if data[:2] == b"II" else ">"
    try:
        (ifd,) = struct.unpack(order + "I", data[4:8])
        (count,) = struct.unpack(order + "H", data[ifd:ifd + 2])
        size: dict[int, int] = {}
        for k in range(count):
            entry = data[ifd + 2 + 12 * k: ifd + 14 + 12 * k]
            tag, kind = struct.unpack(order + "HH", entry[:4])
            if tag in (256, 257):
                fmt = order + ("H" if kind == 3 else "I")
                size[tag] = struct.unpack(fmt, entry[8:8 + struct.calcsize(fmt)])[0]
        return "TIFF", size[256], size[257]
    except (struct.error, KeyError):
        raise ImageError("a TIFF whose header is cut short or damaged") from None


def _cut_short(kind: str, data: bytes) -> bool:
    tail = data.rstrip(b"\x00")[-2048:]
    if kind == "JPEG":
        return b"\xff\xd9" not in tail
    if kind == "PNG":
        return b"IEND" not in tail
    return False


def read_image(path: str | Path, max_side: int = MAX_IMAGE_SIDE) -> np.ndarray:
    """The picture at `path` as a BGR uint8 frame; ImageError says what is wrong."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ImageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ImageError(f"{path}: is a folder, not a picture") from None
    except OSError as error:
        raise ImageError(f"{path}: cannot read it ({error.strerror or error})") from None
    if not data:
        raise ImageError(f"{path}: the file is empty")
    try:
        header = image_size(data)
    except ImageError as error:
        raise ImageError(f"{path}: {error}") from None
    if header is None:
        raise ImageError(f"{path}: not a picture (expected a {FORMATS} file)")
    kind, width, height = header
    if width <= 0 or height <= 0:
        raise ImageError(f"{path}: a {kind} of {width}x{height} px has no pixels")
    if max(width, height) > max_side:
        raise ImageError(f"{path}: the {kind} is {width}x{height} px; pictures larger than "
                         f"{max_side} px a side are not read (scale it down first)")
    if _cut_short(kind, data):
        raise ImageError(f"{path}: the {kind} is truncated (its end is missing: the file "
                         "was cut short)")
    import cv2
    import numpy as np

    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ImageError(f"{path}: the {kind} cannot be decoded (damaged)")
    return np.asarray(image)
