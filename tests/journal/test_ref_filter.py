"""The journal's in-memory test of references: "not there" must be certain."""

from __future__ import annotations

from journal.ref_filter import RefFilter


def test_every_reference_added_is_reported_as_maybe_there() -> None:
    refs = [("shoe", f"{epoch}:{seq}@{seq * 37}") for epoch in range(3) for seq in range(5000)]
    refs += [("api", f"terminal-{n % 9}:{n}") for n in range(5000)]
    built = RefFilter(refs[:10000])
    for source, ref in refs[10000:]:
        built.add(source, ref)
    assert built.count == len(refs)
    assert all(built.may_contain(source, ref) for source, ref in refs)


def test_references_never_added_are_mostly_told_apart() -> None:
    known = RefFilter(("shoe", f"1:{seq}") for seq in range(100_000))
    strangers = [("shoe", f"2:{seq}") for seq in range(100_000)]
    strangers += [("api", f"1:{seq}") for seq in range(100_000)]  # another source
    maybe = sum(known.may_contain(source, ref) for source, ref in strangers)
    # Two bits each among 16 million: about (1 - e^(-2 * 100000 / 2^24))^2 = 0.014%.
    assert maybe < len(strangers) * 0.002
