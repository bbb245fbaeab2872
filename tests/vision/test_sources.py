from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.sources import PiCameraSource, SourceError, StillsSource, frames, open_source


def _frame(k: int) -> np.ndarray:
    frame = np.full((120, 160, 3), 40, np.uint8)
    # A white square that walks to the right, one step per frame.
    cv2.rectangle(frame, (10 + 20 * k, 40), (40 + 20 * k, 80), (255, 255, 255), -1)
    return frame


def test_reads_a_video_file_written_by_videowriter(tmp_path: Path) -> None:
    path = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (160, 120))
    assert writer.isOpened()
    for k in range(5):
        writer.write(_frame(k))
    writer.release()

    source = open_source(str(path))
    got = list(frames(source))
    source.close()
    assert len(got) == 5
    for k, frame in enumerate(got):
        assert frame.shape == (120, 160, 3)
        # The square is where frame k drew it (JPEG inside the AVI: compare loosely).
        assert frame[60, 25 + 20 * k].min() > 200
        assert frame[60, 25 + 20 * k + 40].max() < 90


def test_folder_of_stills_in_name_order(tmp_path: Path) -> None:
    for k in (2, 0, 1):
        cv2.imwrite(str(tmp_path / f"frame_{k}.png"), _frame(k))
    (tmp_path / "notes.txt").write_text("not an image")
    source = open_source(str(tmp_path))
    assert isinstance(source, StillsSource)
    got = list(frames(source))
    assert len(got) == 3
    for k, frame in enumerate(got):
        assert np.array_equal(frame, _frame(k))


def test_single_still(tmp_path: Path) -> None:
    path = tmp_path / "one.jpg"
    cv2.imwrite(str(path), _frame(1))
    got = list(frames(open_source(path.as_posix())))
    assert len(got) == 1 and got[0].shape == (120, 160, 3)


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such file"):
        open_source(str(tmp_path / "nope.mp4"))


def test_file_that_is_not_a_video(tmp_path: Path) -> None:
    path = tmp_path / "garbage.mp4"
    path.write_bytes(b"this is not a video")
    with pytest.raises(SourceError, match="cannot open"):
        open_source(str(path))


def test_corrupt_still_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.png"
    path.write_bytes(b"not a png")
    source = open_source(str(path))
    with pytest.raises(SourceError, match="broken.png"):
        source.read()


def test_bad_specs() -> None:
    with pytest.raises(SourceError, match="empty"):
        open_source("  ")
    with pytest.raises(SourceError, match="picamera2:N"):
        open_source("picamera2:front")


def test_picamera2_missing_says_how_to_install() -> None:
    try:
        import picamera2  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        with pytest.raises(SourceError, match="python3-picamera2"):
            PiCameraSource()
    else:
        pytest.skip("picamera2 is installed here")
