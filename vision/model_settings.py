"""The recognizer's settings file (`index_classifier.json` beside the classifier): read,
and the choices it makes among the recognizer's rules checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vision.combine import AGREEMENT_RULES
from vision.face_pips import FACE_PIPS_RULES
from vision.features import FEATURE_SIZE
from vision.networks import ModelError
from vision.pip_colour import PIP_COLOUR_RULES
from vision.reads import CONFLICT_RULES


def read_settings(model_path: Path, info_path: Path) -> dict[str, Any]:
    """The settings of the classifier at `model_path`; ModelError, naming the file, where
    either is missing, the settings are not a JSON object or the classifier was trained
    on other features than this code makes."""
    if not model_path.exists() or not info_path.exists():
        raise ModelError(f"index classifier {model_path.name} not found in "
                         f"{model_path.parent}: train it with `python tools/train_vision.py`")
    try:
        info = json.loads(info_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # unreadable, not UTF-8, not JSON
        raise ModelError(f"{info_path.name} in {info_path.parent} cannot be read "
                         f"({exc}): restore it as the package ships it") from None
    if not isinstance(info, dict):
        raise ModelError(f"{info_path.name} must hold the settings as a JSON object")
    if info.get("feature_size") != FEATURE_SIZE:
        raise ModelError(f"{info_path.name} was trained on {info.get('feature_size')} "
                         f"features, this code makes {FEATURE_SIZE}: retrain with "
                         "`python tools/train_vision.py`")
    return info


def rule_choices(info: dict[str, Any], info_path: Path) -> tuple[str, str, str]:
    """The settings' `agreement`, `conflicts` and `pip_colour` rules (`vision.combine`,
    `vision.reads`, `vision.pip_colour`); ModelError for a rule that is none of its kind."""
    chosen = (str(info.get("agreement", "none")), str(info.get("conflicts", "better")),
              str(info.get("pip_colour", "check")))
    for key, value, allowed in zip(("agreement", "conflicts", "pip_colour"), chosen,
                                   (AGREEMENT_RULES, CONFLICT_RULES, PIP_COLOUR_RULES),
                                   strict=True):
        if value not in allowed:
            raise ModelError(f"{info_path.name}: {key} {value!r} is none of "
                             f"{', '.join(allowed)}")
    return chosen


def lean_finder(info: dict[str, Any], info_path: Path) -> bool:
    """Whether the settings leave out the finder's passes the proposer makes redundant
    (`vision.candidates.LEAN_PASSES`); ModelError where it is not true or false."""
    lean = info.get("lean_finder", False)
    if not isinstance(lean, bool):
        raise ModelError(f"{info_path.name}: lean_finder {lean!r} is not true or false")
    return lean


def face_pips_rule(info: dict[str, Any], info_path: Path) -> str:
    """The settings' `face_pips` rule (`vision.face_pips`: "check", the default, or
    "off"); ModelError for anything else."""
    rule = info.get("face_pips", "check")
    if rule not in FACE_PIPS_RULES:
        raise ModelError(f"{info_path.name}: face_pips {rule!r} is none of "
                         f"{', '.join(FACE_PIPS_RULES)}")
    return str(rule)
