"""The round's phases as a `transitions` state machine: which event is legal in which phase.

Every input is a trigger (`bet`, `deal`, `card`, `decide`, ...) and every phase change
one too (`start_deal`, `finish`, `halt`, ...). A flow declares the transitions: the
phases a trigger is legal in (`source`), the phase it leads to (`dest`, None for an
event that stays), `conditions` and the `before`/`after` callbacks that do the work.
An event with no transition from the current phase is refused with the reason the
flow gives for that trigger and phase.

`transitions` builds and checks the machine; `fire` then runs it from a table
compiled out of the machine's own transitions, without the library's per-trigger
bookkeeping (a trigger through the library costs more than a whole card's work).
Only conditions, `unless`, `before`, `after` and `dest` are used; `fire` refuses a
machine that declares anything else.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from transitions import Machine

from table.checks import Refused

# The library logs every trigger at INFO.
logging.getLogger("transitions").setLevel(logging.WARNING)

PHASES = ["betting", "dealing", "insurance", "playing", "dealer", "settled", "halted", "void"]
IN_ROUND = ["dealing", "insurance", "playing", "dealer"]

Callback = Callable[..., Any]
# Why `trigger` is refused in `phase`, given the event that pulled it.
Refusal = Callable[[str, str, Any], str]
_Step = tuple[tuple[tuple[Callback, bool], ...], tuple[Callback, ...], tuple[Callback, ...],
              str | None]


class PhaseMachine:
    """The phase of one table and the legal moves out of it."""

    state: str

    def __init__(self, transitions: Sequence[dict[str, Any]], refusal: Refusal,
                 initial: str = "betting") -> None:
        self.refusal = refusal
        self.machine = Machine(model=self, states=PHASES, initial=initial,
                               auto_transitions=False, send_event=False, queued=False)
        for spec in transitions:
            self.machine.add_transition(**spec)
        self._steps = self._compile()
        # The same by phase, then trigger: no key to build per event. A transition that
        # stays in its phase and only runs one callback (most events) is kept apart.
        self._by_phase: dict[str, dict[str, tuple[_Step, ...]]] = {p: {} for p in PHASES}
        self._direct: dict[str, dict[str, Callback]] = {p: {} for p in PHASES}
        for (phase, trigger), steps in self._steps.items():
            self._by_phase[phase][trigger] = steps
            if len(steps) == 1:
                conditions, before, after, dest = steps[0]
                if not conditions and len(before) == 1 and not after and dest is None:
                    self._direct[phase][trigger] = before[0]

    def _compile(self) -> dict[tuple[str, str], tuple[_Step, ...]]:
        steps: dict[tuple[str, str], tuple[_Step, ...]] = {}
        for name, event in self.machine.events.items():
            for source, transitions in event.transitions.items():
                compiled = []
                for transition in transitions:
                    if transition.prepare:
                        raise ValueError(f"{name}: only conditions, before and after are used")
                    compiled.append((
                        tuple((self._callable(c.func), bool(c.target))
                              for c in transition.conditions),
                        tuple(self._callable(f) for f in transition.before),
                        tuple(self._callable(f) for f in transition.after),
                        transition.dest,
                    ))
                steps[(source, name)] = tuple(compiled)
        return steps

    @staticmethod
    def _callable(func: Any) -> Callback:
        if not callable(func):
            raise ValueError(f"callbacks are given as callables, not {func!r}")
        return func  # type: ignore[no-any-return]

    def legal(self, trigger: str, phase: str | None = None) -> bool:
        """Whether `trigger` has a transition from `phase` (conditions aside)."""
        return (phase or self.state, trigger) in self._steps

    def fire(self, trigger: str, event: Any = None) -> None:
        """Run `trigger` (with the event that pulled it, handed to every condition and
        callback) from the current phase, or raise `Refused` with the reason."""
        phase = self.state
        direct = self._direct[phase].get(trigger)
        if direct is not None:
            direct(event)
            return
        steps = self._by_phase[phase].get(trigger)
        if steps is not None:
            for conditions, before, after, dest in steps:
                if conditions and not all(bool(check(event)) is wanted
                                          for check, wanted in conditions):
                    continue
                for callback in before:
                    callback(event)
                if dest is not None:
                    self.state = dest
                for callback in after:
                    callback(event)
                return
        raise Refused(self.refusal(trigger, phase, event))

    def force(self, phase: str) -> None:
        """Put the machine in `phase` whatever it was (a fault in the table halts it)."""
        self.state = phase
