"""Fixtures of the tests of the composition root: the camera's recognizer and the
simulated felt's layout, loaded once per module that uses them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from vision.layout import Layout
    from vision.recognizer import Recognizer


@pytest.fixture(scope="module")
def recognizer() -> Recognizer:
    from vision.recognizer import Recognizer

    return Recognizer()


@pytest.fixture(scope="module")
def layout() -> Layout:
    from hwsim.camera.table_frames import table_layout

    from vision.layout import layout_from_dict

    return layout_from_dict(table_layout())
