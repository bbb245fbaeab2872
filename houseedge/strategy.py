"""The basic strategy chart of a profile, read off its combinatorial analysis."""

from __future__ import annotations

from typing import Any

from houseedge.mainbet import Analysis

UP_ORDER = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)
CODES = {
    "H": "hit", "S": "stand", "D": "double, else hit", "Ds": "double, else stand",
    "P": "split", "R": "surrender, else hit", "Rs": "surrender, else stand",
    "Rp": "surrender, else split",
}


def up_name(up: int) -> str:
    return "A" if up == 1 else "T" if up == 10 else str(up)


def code(analysis: Analysis, row: str, up: int) -> str:
    """The chart's code for a first decision: the best action and what replaces it."""
    best = analysis.chart[(row, up)]
    if best == "D":
        return "D" if analysis.fallback(row, up, "DRP") == "H" else "Ds"
    if best == "R":
        second = analysis.fallback(row, up, "RD")
        return {"H": "R", "S": "Rs", "P": "Rp"}[second]
    return best


def _rows(analysis: Analysis) -> dict[str, list[str]]:
    present = {row for row, _ in analysis.chart}
    hard = [f"H{t}" for t in range(5, 21) if f"H{t}" in present]
    soft = [f"S{t}" for t in range(13, 21) if f"S{t}" in present]
    pairs = [f"P{p}" for p in (2, 3, 4, 5, 6, 7, 8, 9, 10, 1) if f"P{p}" in present]
    return {"hard": hard, "soft": soft, "pairs": pairs}


def row_name(row: str) -> str:
    if row.startswith("P"):
        card = up_name(int(row[1:]))
        return f"{card}-{card}"
    if row.startswith("S"):
        return f"A-{int(row[1:]) - 11}"
    return row[1:]


def later_moves(analysis: Analysis, cards: int) -> dict[str, dict[str, str]]:
    """Hit or stand with `cards` cards or more (no double), by total and dealer card."""
    out: dict[str, dict[str, str]] = {}
    for label, ace, totals in (("hard", False, range(12, 18)), ("soft", True, range(17, 20))):
        for total in totals:
            hard = total - 10 if ace else total
            moves = {}
            for up in UP_ORDER:
                moves[up_name(up)] = analysis.later[up].get((hard, ace, cards, 1), "S")
            out[f"{label} {total}"] = moves
    return out


def chart_json(analysis: Analysis) -> dict[str, Any]:
    rows = _rows(analysis)
    two_card = {
        group: {row_name(row): {up_name(up): code(analysis, row, up) for up in UP_ORDER}
                for row in names}
        for group, names in rows.items()
    }
    later = {str(n): later_moves(analysis, n) for n in (3, 4, 5)}
    # Keep only the card counts whose moves differ from three cards.
    later = {k: v for k, v in later.items() if k == "3" or v != later["3"]}
    return {
        "profile": analysis.rules.name,
        "decks": analysis.decks,
        "kind": "total-dependent basic strategy",
        "insurance": "never",
        "even_money": "never",
        "two_cards": two_card,
        "later_hit_stand": later,
        "codes": CODES,
    }


def format_chart(analysis: Analysis) -> str:
    data = chart_json(analysis)
    ups = [up_name(u) for u in UP_ORDER]
    lines = [f"Basic strategy, {data['profile']} ({data['decks']} decks), "
             "total-dependent; insurance and even money never", ""]
    for group, rows in data["two_cards"].items():
        lines.append(f"{group:<9}" + "".join(f"{u:>4}" for u in ups))
        for name, moves in rows.items():
            lines.append(f"{name:<9}" + "".join(f"{moves[u]:>4}" for u in ups))
        lines.append("")
    for cards, table in data["later_hit_stand"].items():
        lines.append(f"{cards}+ cards".ljust(9) + "".join(f"{u:>4}" for u in ups))
        for name, moves in table.items():
            lines.append(f"{name:<9}" + "".join(f"{moves[u]:>4}" for u in ups))
        lines.append("")
    lines.append("; ".join(f"{k} {v}" for k, v in CODES.items()))
    return "\n".join(lines)
