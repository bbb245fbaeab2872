"""`tablectl rtp` and `tablectl strategy`: every bet's house edge, and the strategy it assumes."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from houseedge.bets import BetFigure
from houseedge.games import math_for
from houseedge.options import profile_with_options
from table.profiles import ProfileError, Rules, list_profiles


def register(subparsers: Any) -> None:
    """Add this group's commands to the top-level parser."""
    rtp = subparsers.add_parser("rtp", help="house edge and return of every bet of a profile")
    _common(rtp)
    rtp.add_argument("--json", action="store_true", help="print the figures as JSON")
    rtp.add_argument("--simulate", type=int, metavar="N", default=0,
                     help="also simulate N hands of the main game (and Dealer Bust)")
    rtp.add_argument("--seed", type=int, default=1, help="seed of the simulation's shuffles")
    rtp.add_argument("--report", metavar="FOLDER",
                     help="write the profile's math report (FOLDER/PROFILE.md); PROFILE 'all' "
                          "writes every shipped profile's")
    rtp.set_defaults(func=_rtp)

    strategy = subparsers.add_parser(
        "strategy", help="the basic strategy chart computed from a profile's rules")
    _common(strategy)
    strategy.add_argument("--json", action="store_true", help="print the chart as JSON")
    strategy.set_defaults(func=_strategy)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("profile", help="a shipped profile's name or a profile TOML file")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="change one rule of the profile (repeatable), e.g. decks=8")


def _rules(args: argparse.Namespace) -> Rules | None:
    try:
        rules = profile_with_options(args.profile, args.option)
    except ProfileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None
    return rules


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.4f}%"


def _reports(args: argparse.Namespace) -> int:
    from pathlib import Path

    from houseedge.report import write_report

    names = list_profiles() if args.profile == "all" else [args.profile]
    for name in names:
        try:
            rules = profile_with_options(name, args.option)
        except ProfileError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        hands = args.simulate or 2_000_000
        print(write_report(rules, Path(args.report), hands))
    return 0


def _rtp(args: argparse.Namespace) -> int:
    if args.report:
        return _reports(args)
    rules = _rules(args)
    if rules is None:
        return 2
    if args.simulate < 0:
        print("error: --simulate takes a number of hands, 0 or more", file=sys.stderr)
        return 2
    figures = math_for(rules).figures(rules, args.simulate, args.seed)
    if args.json:
        doc = {"profile": rules.name, "decks": rules.decks,
               "bets": [figure.to_json() for figure in figures]}
        print(json.dumps(doc, indent=2, ensure_ascii=False))
        return 0
    print(f"{rules.name}: {rules.description}")
    print(f"strategy: {figures[0].strategy}")
    print(f"{'bet':<34}{'house edge':>12}{'RTP':>12}  method")
    for figure in figures:
        print(_line(figure))
    return 0


def _line(figure: BetFigure) -> str:
    method = figure.method
    if figure.stderr is not None:
        method += f", ±{100 * figure.stderr:.4f}% (1 s.e.), {figure.hands:,} hands"
    text = f"{figure.bet:<34}{_percent(figure.house_edge):>12}{_percent(figure.rtp):>12}  {method}"
    if figure.note:
        text += f"\n{'':<36}({figure.note})"
    return text


def _strategy(args: argparse.Namespace) -> int:
    rules = _rules(args)
    if rules is None:
        return 2
    print(math_for(rules).strategy(rules, args.json))
    return 0
