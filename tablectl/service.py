"""The table service: the one writer of table state.

Every input (a shoe frame, a button, a terminal's API call, the camera, the
simulated dealer) arrives as a `Submission` on one queue, applied in order.
The service's loop applies each event to the table at once (so the lamps
follow without waiting for the disk) and appends it to the journal. A
committer thread stores what the loop has appended in one transaction (group
commit) and only then answers each submitter: the shoe's frame is
acknowledged and the API call returns once its event is on disk. While one
commit waits for the disk the loop goes on applying, so the next commit takes
everything that came in meanwhile.
"""
from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any, TypeVar

from journal import Journal, JournalError
from table.events import ScenarioError, parse_event
from table.machine import Table
from table.views import Outcome
from tablectl.recent_answers import RECENT_ANSWERS, RecentAnswers, RefKey
from tablectl.round_record import RoundListener, RoundRecorder
from tablectl.submission import (
    NOTHING_TO_STORE,
    Answer,
    Derive,
    JournalFaultRetry,
    Receipt,
    Reply,
    ServiceStatus,
    Snapshot,
    Submission,
)

# The service's vocabulary, importable from here as from its own modules.
__all__ = ["NOTHING_TO_STORE", "RECENT_ANSWERS", "Derive", "Receipt", "RefKey", "Reply",
           "ServiceStatus", "Snapshot", "Submission", "TableService"]

log = logging.getLogger(__name__)

T = TypeVar("T")

Listener = Callable[["TableService"], None]
# Called on the loop thread right after each event applied, with its outcome.
EventListener = Callable[[dict[str, Any], Outcome], None]
# Called after each round of answers (on the thread that answered), e.g. to send
# the shoe one cumulative acknowledgement for every frame just stored.
AnsweredHook = Callable[[], None]
# Called on the loop when the table was rebuilt from the journal after a fault; calls
# its argument (from any thread) once its source is ready to send again.
RecoveryHook = Callable[[Callable[[], None]], None]


class TableService:
    """Applies, journals and answers; call `run` on the loop thread."""

    def __init__(
        self,
        table: Table,
        journal: Journal,
        *,
        commit_batch: int = 256,
        recent_answers: Iterable[tuple[RefKey, Outcome]] = (),
    ) -> None:
        """`recent_answers`: the outcomes of the newest referenced events in the
        journal, oldest first (the replay at startup gives them)."""
        self.table = table
        self.journal = journal
        self.commit_batch = commit_batch
        self._recent = RecentAnswers(journal, recent_answers)
        self.status = ServiceStatus()
        self._inbox: queue.SimpleQueue[Submission | None] = queue.SimpleQueue()
        self._listeners: list[Listener] = []
        self._event_listeners: list[EventListener] = []
        self._answered_hooks: list[AnsweredHook] = []
        self._rounds = RoundRecorder(journal)
        self.journal_fault: str | None = None
        # Resumes after a journal fault (the daemon's); None: the table stays halted.
        self.retry: JournalFaultRetry | None = None
        self.recovery_hooks: list[RecoveryHook] = []
        self.events_applied = 0
        self.batches = 0
        self.stop_requested = threading.Event()
        self._stopped = threading.Event()
        self._running = False
        self._snapshot_lock = threading.Lock()
        self.snapshot = Snapshot(table.due(), table.view(), None, True,
                                 journal.last_committed_seq)
        # Answers the committer gives once what the loop appended is on disk.
        self._unanswered: list[tuple[Submission, Receipt]] = []
        self._commit_wanted = threading.Condition()
        self._loop_done = False

    # Any thread ----------------------------------------------------------

    def submit(self, submission: Submission) -> None:
        self._inbox.put(submission)

    def submit_and_wait(
        self, event: dict[str, Any], source: str, source_ref: str | None = None,
        timeout_s: float = 5.0, keep_refused: bool = True,
    ) -> Receipt:
        """Submit from another thread and block until the event's fate is on disk."""
        answer: Answer[Receipt] = Answer()
        self.submit(Submission(event, source, source_ref, reply=answer.give,
                               keep_refused=keep_refused))
        receipt = answer.wait(timeout_s)
        if receipt is None:
            return Receipt(False, False, "the table did not answer in time; try again")
        return receipt

    def call(self, action: Callable[[TableService], None]) -> None:
        """Run `action` on the loop thread (the only writer of service state)."""
        def derive(_: Table) -> list[dict[str, Any]]:
            action(self)
            return []

        self.submit(Submission(None, "service", derive=derive))

    def ask(self, question: Callable[[Table], T], timeout_s: float = 5.0) -> T:
        """Evaluate `question` on the loop thread (a consistent look at the table)."""
        answer: Answer[tuple[T]] = Answer()

        def derive(table: Table) -> list[dict[str, Any]]:
            answer.give((question(table),))
            return []

        self.submit(Submission(None, "service", derive=derive))
        given = answer.wait(timeout_s)
        if given is None:
            raise TimeoutError("the table's loop did not answer; is it running?")
        return given[0]

    def on_change(self, listener: Listener) -> None:
        """Called on the loop thread after every applied batch (lamps, display)."""
        self._listeners.append(listener)

    def on_event(self, listener: EventListener) -> None:
        """Called on the loop thread after each event applied (a live view that must
        see every phase, not only the table after each batch)."""
        self._event_listeners.append(listener)

    def on_round_recorded(self, listener: RoundListener) -> None:
        """Called on the loop thread with each round's result as the journal records
        it: when the next round begins (a card drawn after the settlement may still
        change it until then) or, for a round over, at the stop. Each round once,
        however many rounds one batch holds."""
        self._rounds.listeners.append(listener)

    def after_answers(self, hook: AnsweredHook) -> None:
        """Call `hook` after each round of answers, once every reply of it was given."""
        self._answered_hooks.append(hook)

    def stop(self) -> None:
        self.stop_requested.set()
        self._inbox.put(None)

    def wait_stopped(self, timeout_s: float) -> bool:
        return self._stopped.wait(timeout_s)

    # Loop thread ---------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._running

    @property
    def recorded_round(self) -> int:
        """The newest round recorded in the journal (or pending there)."""
        return self._rounds.recorded_round

    def run(self) -> None:
        """Apply submissions until `stop()`; a committer thread stores and answers.
        Returns once everything applied is stored (or the journal failed) and answered."""
        self._running = True
        committer = threading.Thread(target=self._commit_loop, name="journal-commit",
                                     daemon=True)
        committer.start()
        try:
            self.notify()
            while not self.stop_requested.is_set():
                batch = self._take_batch()
                if batch:
                    self._hand_to_committer(self._apply_batch(batch))
                if self.journal_fault is not None and self.retry is not None:
                    self.retry.poll()
        finally:
            with self._commit_wanted:
                self._loop_done = True
                self._commit_wanted.notify()
            committer.join()
            self._record_round_over_at_stop()
            self._stopped.set()

    def _take_batch(self) -> list[Submission]:
        """Wait for one submission, then take whatever else is already waiting."""
        try:
            first = self._inbox.get(timeout=0.1)
        except queue.Empty:
            return []
        if first is None:
            return []
        batch = [first]
        while len(batch) < self.commit_batch:
            try:
                item = self._inbox.get_nowait()
            except queue.Empty:
                break
            if item is None:
                self.stop_requested.set()
                break
            batch.append(item)
        return batch

    def process(self, batch: Iterable[Submission]) -> None:
        """Apply, journal and commit one batch, then answer its submitters, all on
        the calling thread (before `run`, and in tests)."""
        answers = self._apply_batch(batch)
        stored = self._commit()
        if not stored:
            self.notify()  # the alarm
        self._answer(answers, stored)

    def _apply_batch(self, batch: Iterable[Submission]) -> list[tuple[Submission, Receipt]]:
        answers = [(submission, self._handle(submission)) for submission in batch]
        # The lamps follow the table at once: they need not wait for the disk.
        self.notify()
        self.batches += 1
        return answers

    def _hand_to_committer(self, answers: list[tuple[Submission, Receipt]]) -> None:
        with self._commit_wanted:
            self._unanswered.extend(answers)
            self._commit_wanted.notify()

    # Committer thread ------------------------------------------------------------

    def _commit_loop(self) -> None:
        """Store what the loop appended, as much as there is at each turn, then answer.
        Every answer taken here belongs to an event appended before the seal."""
        while True:
            with self._commit_wanted:
                while not self._unanswered and not self._loop_done:
                    self._commit_wanted.wait()
                if not self._unanswered and self._loop_done:
                    return
                answers, self._unanswered = self._unanswered, []
                # Judged under the lock: the loop clears a fault only after it answered
                # every earlier event itself (`restart_from_journal`).
                stored = self.journal_fault is None
                sealed = self.journal.seal() if stored else None
            if sealed is not None:
                try:
                    self.journal.write(sealed)
                except JournalError as error:
                    self._journal_failed(error)
                    self.journal.discard_unstored()
                    stored = False
                    self.call(lambda service: service.notify())  # the alarm, on the loop
            self._answer(answers, stored)

    def _answer(self, answers: list[tuple[Submission, Receipt]], stored: bool) -> None:
        # Readers of the state see the batch stored (or the journal's fault) before
        # anyone hears back, so a caller that reads the state after its answer sees
        # its own event.
        if stored:
            with self._snapshot_lock:
                self.snapshot = replace(self.snapshot,
                                        journal_seq=self.journal.last_committed_seq)
        # An event sealed by an earlier commit is stored even if this one failed.
        committed = self.journal.last_committed_seq
        for submission, receipt in answers:
            if receipt is NOTHING_TO_STORE:
                if not stored:
                    receipt = Receipt(False, False, self.journal_fault)
            elif receipt.stored and (receipt.journal_seq is None
                                     or receipt.journal_seq > committed):
                receipt = Receipt(
                    False, receipt.accepted, self.journal_fault, None, False, receipt.flags
                )
            if submission.reply is not None:
                submission.reply(receipt)
        for hook in self._answered_hooks:
            hook()

    def restart_from_journal(self, table: Table) -> None:
        """On the loop, the journal faulted: answer every event not stored as such,
        drop them, and go on from `table`, rebuilt from what the journal stored."""
        with self._commit_wanted:
            answers, self._unanswered = self._unanswered, []
        self._answer(answers, False)
        self.journal.discard_unstored()
        self.table = table
        self._rounds.reread()
        self.notify()

    def clear_journal_fault(self) -> None:
        """On the loop: the journal stores again, the table plays on."""
        log.warning("the journal stores again: the table resumes from what it stored "
                    "(seq %d)", self.journal.last_committed_seq)
        self.journal_fault = None
        self.notify()

    def notify(self) -> None:
        due, view = self.table.due(), self.table.view()
        with self._snapshot_lock:
            self.snapshot = Snapshot(due, view, self.journal_fault, self.status.shoe_online,
                                     self.journal.last_committed_seq,
                                     "" if self.status.shoe_online else self.status.shoe_note)
        for listener in self._listeners:
            try:
                listener(self)
            except Exception:  # a display must never stop the table
                log.exception("a table listener failed")

    def _handle(self, submission: Submission) -> Receipt:
        if submission.derive is not None:
            receipt = NOTHING_TO_STORE
            for event in submission.derive(self.table):
                receipt = self._apply_one(event, submission.source, None)
            return receipt
        if submission.event is None:
            return NOTHING_TO_STORE if self.journal_fault is None else Receipt(
                False, False, self.journal_fault)
        return self._apply_one(submission.event, submission.source, submission.source_ref,
                               submission.keep_refused)

    def _apply_one(
        self, event: dict[str, Any], source: str, source_ref: str | None,
        keep_refused: bool = True,
    ) -> Receipt:
        if self.journal_fault is not None:
            return Receipt(False, False, self.journal_fault)
        try:
            parsed = parse_event(event, "event")
        except ScenarioError as error:
            return Receipt(False, False, str(error), malformed=True)
        try:
            stored_as = (None if source_ref is None
                         else self.journal.seq_of_source_ref(source, source_ref))
            if stored_as is not None:
                assert source_ref is not None
                return self._recent.answer_again((source, source_ref), stored_as, event)
            # Parsed once; the journal stores the dict.
            outcome = self.table.apply(parsed, keep_refused=keep_refused)
            if not outcome.accepted and not keep_refused:
                return Receipt(False, False, outcome.reason, refused=True)
            self.events_applied += 1
            for listener in self._event_listeners:
                self._tell(listener, event, outcome)
            if source_ref is not None:
                self._recent.remember((source, source_ref), event, outcome)
            # Before the append: the event that began a round is the new round's first.
            self._rounds.record_finished(self.table)
            seq = self.journal.append(event, source, source_ref, known_new=True,
                                      refused=None if outcome.accepted else outcome.reason)
        except (JournalError, ValueError) as error:
            self._journal_failed(error)
            return Receipt(False, False, self.journal_fault)
        return Receipt(True, outcome.accepted, outcome.reason, seq, False, outcome.flags)

    @staticmethod
    def _tell(listener: Callable[..., None], *args: Any) -> None:
        try:
            listener(*args)
        except Exception:  # a view must never stop the table
            log.exception("a table listener failed")

    def _record_round_over_at_stop(self) -> None:
        if self.journal_fault is not None:
            return
        try:
            self._rounds.record_over_at_stop(self.table)
        except (JournalError, ValueError) as error:
            self._journal_failed(error)

    def _commit(self) -> bool:
        if self.journal_fault is not None:
            return False
        try:
            self.journal.commit()
        except JournalError as error:
            self._journal_failed(error)
            return False
        return True

    def _journal_failed(self, error: Exception) -> None:
        if self.journal_fault is None:
            log.error("journal fault: %s", error)
        self.journal_fault = (
            f"the journal cannot store events ({error}); the table is halted and nothing "
            "more is acknowledged: free disk space on the journal's storage and the table "
            "resumes by itself from what the journal stored (the shoe re-sends the rest)"
        )

