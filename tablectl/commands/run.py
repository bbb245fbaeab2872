"""`tablectl` commands: run (not implemented yet)."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    """Add this group's commands to the top-level parser."""
    del subparsers


def _unused(args: argparse.Namespace) -> int:
    return 0
