"""The ensemble's other members: classifier and verifier pairs trained on other data.

The settings (`index_classifier.json`) may name, under `ensemble`, folders
beside the classifier that each hold another `index_classifier.onnx` and
`index_verifier.onnx` with their own `index_classifier.json` (as
`tools/train_vision.py --out FOLDER/index_classifier.onnx` writes them). Every
candidate is then read by each member's networks too, and the readings of each
kind are combined (`vision.combine.ensemble_mean`). The first model's filter,
thresholds and rules apply to all: a member only adds its reading.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vision.features import FEATURE_SIZE
from vision.networks import Network

MEMBER_CLASSIFIER = "index_classifier.onnx"
MEMBER_VERIFIER = "index_verifier.onnx"
MEMBER_INFO = "index_classifier.json"


class MemberError(RuntimeError):
    """A member the settings name is missing or does not fit this code."""


@dataclass(frozen=True)
class Member:
    name: str
    classifier: Network
    verifier: Network


def load_members(info: dict[str, Any], folder: Path, info_path: Path,
                 runtime: str) -> list[Member]:
    """The members `info["ensemble"]` names (folders beside the classifier), in order."""
    names = info.get("ensemble", [])
    if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
        raise MemberError(f"{info_path.name}: ensemble must be a list of folder names, "
                          f"not {names!r}")
    members = []
    for name in names:
        where = folder / name
        missing = [f for f in (MEMBER_CLASSIFIER, MEMBER_VERIFIER, MEMBER_INFO)
                   if not (where / f).is_file()]
        if missing:
            raise MemberError(f"ensemble member {name!r} (named in {info_path.name}) lacks "
                              f"{', '.join(missing)} in {where}")
        try:
            member_info = json.loads((where / MEMBER_INFO).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise MemberError(f"ensemble member {name!r}: {MEMBER_INFO} unreadable: "
                              f"{exc}") from None
        if not isinstance(member_info, dict) or member_info.get("feature_size") != FEATURE_SIZE:
            raise MemberError(f"ensemble member {name!r} was not trained on this code's "
                              f"{FEATURE_SIZE} features: retrain it with "
                              "`python tools/train_vision.py`")
        members.append(Member(name, Network(where / MEMBER_CLASSIFIER, runtime),
                              Network(where / MEMBER_VERIFIER, runtime)))
    return members
