"""Bad pictures given to `tablectl vision detect` / `preview` and to a folder camera:
one line naming the file and what is wrong, exit status 1, the other files still
read, no traceback; a huge picture is refused before it is decoded."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest
from hwsim.camera import table_frames

from tablectl.cli import main
from vision.images import MAX_IMAGE_SIDE, ImageError, read_image
from vision.sources import SourceError, open_source

ROOT = Path(__file__).resolve().parents[2]
HUGE = 20000


def _png_chunk(kind: bytes, body: bytes) -> bytes:
    return (struct.pack(">I", len(body)) + kind + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))


def _huge_png(path: Path) -> None:
    """A real, complete 20000x20000 grey PNG (400 MB of pixels, a small file)."""
    packer = zlib.compressobj(9)
    row = b"\x00" * (HUGE + 1)  # filter byte and the row's pixels
    data = b"".join(packer.compress(row) for _ in range(HUGE)) + packer.flush()
    header = struct.pack(">IIBBBBB", HUGE, HUGE, 8, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header)
                     + _png_chunk(b"IDAT", data) + _png_chunk(b"IEND", b""))


@pytest.fixture(scope="module")
def pictures(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("bad-pictures")
    frame, _layout = table_frames.render_table_frame({"box3": ["QS"]}, seed=1)
    good = folder / "good.png"
    cv2.imwrite(str(good), frame)
    ok, jpeg = cv2.imencode(".jpg", frame)
    assert ok
    truncated = folder / "truncated.jpg"
    truncated.write_bytes(jpeg.tobytes()[: len(jpeg) // 2])
    text = folder / "notes.jpg"
    text.write_text("this is the shift report, not a picture\n", encoding="utf-8")
    black = folder / "black.png"
    cv2.imwrite(str(black), np.zeros((720, 1280, 3), np.uint8))
    huge = folder / "huge.png"
    _huge_png(huge)
    return {"good": good, "truncated": truncated, "text": text, "black": black,
            "huge": huge}


WHAT = {"truncated": "truncated", "text": "not a picture", "black": "black",
        "huge": f"{HUGE}x{HUGE}"}


def test_detect_reports_each_bad_file_in_one_line_and_reads_the_others(
        pictures: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    order = ["text", "good", "truncated", "black", "huge"]
    code = main(["vision", "detect", "--json", *(str(pictures[name]) for name in order)])
    out, err = capsys.readouterr()
    assert code == 1
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["image"] for line in lines] == [str(pictures["good"])]
    assert [card["card"] for card in lines[0]["cards"]] == ["QS"]
    problems = err.strip().splitlines()
    assert len(problems) == 4, err
    for line, name in zip(problems, [n for n in order if n != "good"], strict=True):
        assert str(pictures[name]) in line and WHAT[name] in line, line
    assert "Traceback" not in err


@pytest.mark.parametrize("name", sorted(WHAT))
def test_preview_of_a_bad_file_fails_in_one_line(
        pictures: dict[str, Path], name: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "preview.png"
    code = main(["vision", "preview", str(pictures[name]), "--out", str(out_file)])
    err = capsys.readouterr().err
    assert code == 1
    assert len(err.strip().splitlines()) == 1
    assert str(pictures[name]) in err and WHAT[name] in err
    assert not out_file.exists()


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux's /proc")
def test_a_huge_picture_is_refused_before_it_is_decoded(pictures: dict[str, Path]) -> None:
    """`tablectl vision detect` in a process of its own, whose peak memory is measured:
    the decoded picture alone would take 1.2 GB."""
    # VmHWM is this program's own peak (ru_maxrss would count the forked test runner's).
    code = ("import sys\n"
            "from tablectl.cli import main\n"
            "status = main(['vision', 'detect', sys.argv[1]])\n"
            "status_lines = open('/proc/self/status').read().splitlines()\n"
            "peak_kb = next(int(line.split()[1]) for line in status_lines\n"
            "               if line.startswith('VmHWM:'))\n"
            "print(status, peak_kb)\n")
    done = subprocess.run([sys.executable, "-c", code, str(pictures["huge"])], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    status, peak_kb = (int(v) for v in done.stdout.split())
    assert status == 1
    assert f"{HUGE}x{HUGE}" in done.stderr and str(MAX_IMAGE_SIDE) in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr
    assert peak_kb < 700 * 1024, peak_kb


def test_read_image_names_the_problem(pictures: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(ImageError, match="no such file"):
        read_image(tmp_path / "missing.png")
    with pytest.raises(ImageError, match="is a folder"):
        read_image(tmp_path)
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    with pytest.raises(ImageError, match="empty"):
        read_image(empty)
    frame = read_image(pictures["good"])
    assert frame.shape == (720, 1280, 3) and frame.dtype == np.uint8


def test_a_folder_camera_with_a_bad_still_says_which(pictures: dict[str, Path],
                                                     tmp_path: Path) -> None:
    folder = tmp_path / "stills"
    folder.mkdir()
    (folder / "a.png").write_bytes(pictures["good"].read_bytes())
    (folder / "b.jpg").write_bytes(pictures["truncated"].read_bytes())
    source = open_source(str(folder))
    first = source.read()
    assert first is not None and first.shape == (720, 1280, 3)
    with pytest.raises(SourceError, match=r"b\.jpg.*truncated"):
        source.read()
