"""Read every visible card index (rank and suit) in a camera frame.

Pipeline (see docs/vision.md):
1. `candidates`: ink blobs of glyph size on card-white ground, paired with
   every nearby blob of similar size (rank glyph -> suit pip, both orders);
   with `lean_finder` and the proposer reading, fewer of the finder's passes run;
2. `features`: each pair cut out upright and to scale, described by HOG, a
   thumbnail and the ink colour;
3. the index classifier (an MLP trained by `tools/train_vision.py`, run by
   `cv2.dnn` from `vision/models/index_classifier.onnx`) gives rank (or "not an
   index") and suit probabilities;
4. the pairs it gives some chance of being an index are read again by the
   verifier, a small convolutional network on the colour crop
   (`vision/models/index_verifier.onnx`), and the two readings are combined;
   the likely reads are read again on a slightly turned cut and the readings
   averaged (`vision.second_look`);
   where the settings name an ensemble (`vision.members`), each member's
   classifier and verifier read the same candidates and each kind's readings
   are combined first;
5. a read whose suit is of the other colour than the ink of its pip or rank
   glyph is not sure (`vision.pip_colour`);
6. a read of an ace to a nine whose card's face, open between its two corners,
   shows another number of pips is not taken (`vision.face_pips`); overlapping
   reads of one index are merged, and the two corners of one card (read upside
   down from each other) count once.
With `faint_passes`, once steps 2-5 have read the finder's pairs, fainter ink
passes add the pairs of glyphs the finder missed, and pairs a little outside its
limits where nothing was read (`vision.faint_glyphs`), read by steps 2-5 in
turn, before step 6. Then the learnt proposer (`vision.proposer`, where the settings
name it, and no house deck reads) marks index corners on the whole frame; those
away from every read so far are moved onto their glyphs by the learnt refiner
(`vision.refiner`, where the settings name it), cut at the rank and pip centres and
read by steps 2-5; with `fan_steps`, so are the places one fan step from the sure
reads (`vision.fan_steps`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from foundation.cards import RANKS, SUITS
from vision.candidates import (
    ALL_PASSES,
    LEAN_PASSES,
    Candidates,
    blobs_on,
    card_stock,
    given_pairs,
    pair_blobs,
)
from vision.combine import disagree, ensemble_mean, geometric_mean, parse_weight
from vision.deck_reads import read_by_house_deck
from vision.detection import Detection
from vision.face_pips import face_check
from vision.faint_glyphs import pairs_after_reads
from vision.fan_steps import fan_step_candidates, fan_steps_setting
from vision.features import candidate_features, net_input
from vision.house_deck import HouseDeck, load_house_deck
from vision.layout import Layout
from vision.members import MemberError, load_members
from vision.model_settings import face_pips_rule, lean_finder, read_settings, rule_choices
from vision.networks import (
    ModelError,
    Network,
    forward_all,
    model_id,
    named_net,
    resolve_runtime,
    softmax,
)
from vision.pip_colour import contradicted
from vision.proposer import load_proposer
from vision.quantized import exact_copies, int8_files
from vision.reads import (
    INK_COLOUR,
    NETWORKS_DISAGREE,
    UNKNOWN_CARD,
    UNSURE,
    _Read,
    boxes_of,
    drop_turned_twins,
    likely_cards,
    merge_corners,
    merge_reads,
    settle_conflicts,
    unknown_reads,
)
from vision.second_chance import reread_unsure, second_chance_settings
from vision.second_look import (
    NOT_INDEX,
    SECOND_VIEWS,
    VIEW_CEILING,
    SecondLook,
    look_again,
    parse_ceiling,
    parse_crop_sizes,
    parse_gates,
    parse_views,
    view_setting,
)

__all__ = ["MODEL_FILE", "NOT_INDEX", "UNKNOWN", "ModelError", "Recognizer", "boxes_of",
           "candidate_features", "forward_all", "merge_reads", "model_id"]

MODEL_DIR = Path(__file__).resolve().parent / "models"
MODEL_FILE = MODEL_DIR / "index_classifier.onnx"
MODEL_INFO = MODEL_DIR / "index_classifier.json"
FILTER_FILE = MODEL_DIR / "index_filter.onnx"
VERIFIER_FILE = MODEL_DIR / "index_verifier.onnx"
UNKNOWN = UNKNOWN_CARD  # an index corner seen but not read surely enough


class Recognizer:
    """Finds card indices in BGR frames; one instance per camera (not thread-safe)."""

    def __init__(self, model_path: Path | str = MODEL_FILE,
                 info_path: Path | str | None = None,
                 min_confidence: float | None = None,
                 house_deck: HouseDeck | Path | str | None = None,
                 runtime: str = "auto", faint_passes: bool = False,
                 proposer: bool = True) -> None:
        model_path = Path(model_path)
        # Whether the faint and medium ink passes (`vision.faint_glyphs`) look again once
        # the finder's pairs are read: a few more corners of unseen designs for about a
        # quarter more time a frame (docs/vision.md, "The faint passes").
        self.faint_passes = faint_passes
        info_path = Path(info_path) if info_path is not None else model_path.with_suffix(".json")
        info = read_settings(model_path, info_path)
        runtime = self.runtime = resolve_runtime(runtime)
        try:  # onnxruntime runs the verifiers' int8 copies where the settings name them
            copies = int8_files(info, model_path.parent) if runtime == "onnxruntime" else {}
        except ValueError as exc:
            raise ModelError(f"{info_path.name}: {exc}") from None
        # Each verifier runs the first copy this CPU runs exactly, else its float file.
        int8, self.int8_refused = exact_copies(copies, model_path.parent)
        self._net = Network(model_path, runtime)
        self.min_confidence = float(min_confidence if min_confidence is not None
                                    else info.get("min_confidence", 0.5))
        # The proposer's pairs and the unsure corners read again (`vision.second_chance`).
        self.second_chance_confidence, self.refine_unsure = second_chance_settings(
            info, info_path, self.min_confidence)
        # The quick first look that spares most non-index pairs the full features.
        self._filter = named_net(info, "filter_model", model_path.parent, info_path, runtime)
        self.filter_threshold = float(info.get("filter_threshold", 0.0))
        # The second look: a small convolutional network on the crops the MLP may take.
        self._verifier = named_net(info, "verifier_model", model_path.parent, info_path,
                                    runtime, int8)
        self.verify_below = float(info.get("verify_below", 1.0))
        # The learnt proposer's corners away from the finder's reads (`vision.proposer`),
        # where the settings name it and `proposer` is not switched off.
        self.proposer = (load_proposer(info, model_path.parent, info_path, runtime)
                         if proposer else None)
        # Its refiner also reads the places one fan step from the sure reads.
        self.fan_steps = fan_steps_setting(info, info_path)
        # With the proposer reading, the finder's passes it makes redundant are left out
        # (`vision.candidates.LEAN_PASSES`).
        self.lean_finder = lean_finder(info, info_path)
        try:
            self._members = load_members(info, model_path.parent, info_path, runtime)
        except MemberError as exc:
            raise ModelError(str(exc)) from None
        if self._members and self._verifier is None:
            raise ModelError(f"{info_path.name} names an ensemble but no verifier of its own")
        # "mean": the verifier's and the MLP's probabilities are combined (their
        # geometric mean); "verifier": the verifier's alone.
        self.combine = str(info.get("combine", "verifier"))
        # Whether the two networks must name the same card (`vision.combine`), and how a
        # card's two corners read as different cards are settled (`vision.reads`).
        # "check" for pip_colour: a read whose suit is of the other colour than its
        # glyphs' ink is not sure.
        self.agreement, self.conflicts, self.pip_colour = rule_choices(info, info_path)
        # "check": a card's face showing another number of pips than its read says.
        self.face_pips = face_pips_rule(info, info_path)
        # The MLP's weight in its mean with the verifier (0.5: as much as the verifier's),
        # and the verifier's second look at the likely reads (`vision.second_look`).
        try:
            self.classifier_weight = parse_weight(info.get("classifier_weight", 0.5))
            self.second_views = parse_views(
                info.get("second_views", [view_setting(v) for v in SECOND_VIEWS]))
            self.second_look_ceiling = parse_ceiling(
                info.get("second_look_ceiling", VIEW_CEILING))
            self.view_crops = parse_crop_sizes(info.get("view_crops", {}))
            self.view_gates = parse_gates(info.get("view_gates", {}))
        except ValueError as exc:
            raise ModelError(f"{info_path.name}: {exc}") from None
        # The other verifiers the views name, by file name.
        self._view_verifiers: dict[str, Network] = {}
        for name in sorted({v[2] for v in self.second_views if v[2]}):
            if not (model_path.parent / name).exists():
                raise ModelError(f"{name} (named in {info_path.name}, second_views) not "
                                 "found: restore it beside the classifier or take the view "
                                 "out of second_views")
            self._view_verifiers[name] = Network(model_path.parent / int8.get(name, name),
                                                 runtime)
        self.int8_copies = int8  # float file -> the int8 copy that runs in its place
        # The file that runs: a deck enrolled on one runtime is enrolled again for the other.
        self.verifier_id = model_id(self._verifier.path) if self._verifier else ""
        # The casino's enrolled deck: its corners are read by likeness to the enrolled ones.
        if house_deck is not None and not isinstance(house_deck, HouseDeck):
            house_deck = load_house_deck(house_deck, self.verifier_id)
        if house_deck is not None and self._verifier is None:
            raise ModelError("an enrolled house deck needs the verifier network, and this "
                             "model has none")
        self.house_deck = house_deck

    def detect(self, frame: np.ndarray, layout: Layout | None = None) -> list[Detection]:
        """Every card index read in the frame, one detection per card."""
        return self.detect_all(frame, layout)[0]

    def detect_all(self, frame: np.ndarray, layout: Layout | None = None
                   ) -> tuple[list[Detection], list[Detection]]:
        """The cards read, and the index corners seen but not read surely enough.

        An unsure corner is reported as card `UNKNOWN` at its place, never guessed:
        the networks call it an index but rank x suit probability stays under
        `min_confidence`, or (where the settings switch the rules on) the two
        networks name different cards (`agreement`), a card's two corners read
        as different cards (`conflicts`) or the read suit is of the other colour
        than the ink (`pip_colour`); its `reason` says which. Corners of cards that
        were read are not reported again.
        """
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"expected a BGR uint8 frame (HxWx3), got {frame.dtype} "
                             f"{frame.shape}")
        reads, unsure = self.corner_reads(frame)
        if layout is not None and tuple(layout.image_size) != (frame.shape[1], frame.shape[0]):
            layout = layout.scaled_to(frame.shape[1], frame.shape[0])
        found: list[list[Detection]] = []
        for group in (reads, unsure):
            boxes = boxes_of(group, layout) if layout is not None else [None] * len(group)
            found.append([Detection(r.card, r.x, r.y, r.confidence, box, r.reason or None,
                                     r.alternatives, r.deck_card or None, r.scale)
                          for r, box in zip(group, boxes, strict=True)])
        return found[0], found[1]

    def corner_reads(self, frame: np.ndarray) -> tuple[list[_Read], list[_Read]]:
        """`detect_all`'s cards read and unknown corners, as reads (with their index
        scale and facing), before they are placed in boxes."""
        candidates = self.read_candidates(frame, keep_unsure=True)
        sure = drop_turned_twins([r for r in candidates if r.card != UNKNOWN])
        sure, gainsaid = face_check(frame, sure) if self.face_pips == "check" else (sure, [])
        reads, conflicting = settle_conflicts(merge_corners(sure), self.conflicts)
        return reads, unknown_reads(
            [*conflicting, *gainsaid, *(r for r in candidates if r.card == UNKNOWN)], reads)

    def read_candidates(self, frame: np.ndarray, keep_unsure: bool = False,
                        pairs: tuple[np.ndarray, np.ndarray] | None = None,
                        proposed: list[Candidates] | None = None) -> list[_Read]:
        """Every candidate pair the classifier accepts, before merging.

        With `keep_unsure`, pairs called an index but read with too little
        confidence come too, as card `UNKNOWN`. With `pairs` ((n, 2) rank-glyph
        centres, (n, 2) suit-pip centres), those pairs are read instead of the
        candidate finder's. The pairs read are added to `proposed`, where given.
        """
        # Read once: another thread may set a new deck (or none) while a frame is read.
        deck = self.house_deck
        pairs_read = proposed if proposed is not None else []
        if pairs is not None:
            pairs_read.append(given_pairs(*pairs))
            return self._read_pairs(frame, pairs_read[-1], keep_unsure, deck)
        stock = card_stock(frame)
        # The proposer reads beside the lean finder; with a house deck it does not look.
        lean = self.lean_finder and self.proposer is not None and deck is None
        found = blobs_on(stock, LEAN_PASSES if lean else ALL_PASSES)
        pairs_read.append(pair_blobs(found))
        reads = self._read_pairs(frame, pairs_read[-1], keep_unsure, deck)
        if self.faint_passes:
            more_pairs = pairs_after_reads(stock, found, reads)
            pairs_read.append(more_pairs)
            if len(more_pairs):
                reads += self._read_pairs(frame, more_pairs, keep_unsure, deck)
        refiner = self.proposer.refiner if self.proposer is not None else None
        if self.refine_unsure and refiner is not None and deck is None:
            reads = reread_unsure(frame, reads, refiner, lambda pairs: self._read_pairs(
                frame, pairs, keep_unsure, None, self.second_chance_confidence))
        # A house deck's exemplars are of the finder's cuts; the proposer's lie elsewhere.
        if self.proposer is not None and deck is None:
            pairs_read.append(self.proposer.pairs_beside(frame, reads))
            reads += self._second_chances(frame, pairs_read[-1], keep_unsure)
            if self.fan_steps and refiner is not None:
                pairs_read.append(fan_step_candidates(frame, reads, refiner))
                reads += self._second_chances(frame, pairs_read[-1], keep_unsure)
        return reads

    def _second_chances(self, frame: np.ndarray, pairs: Candidates, keep_unsure: bool
                        ) -> list[_Read]:
        """The reads of pairs the finder did not give, at the second-chance confidence."""
        if not len(pairs):
            return []
        return self._read_pairs(frame, pairs, keep_unsure, None, self.second_chance_confidence)

    def _read_pairs(self, frame: np.ndarray, pairs: Candidates, keep_unsure: bool,
                    deck: HouseDeck | None, min_confidence: float | None = None) -> list[_Read]:
        """`read_candidates` of the given pairs, with the house deck `deck`; a read
        needs `min_confidence` (the recognizer's own where None)."""
        bar = self.min_confidence if min_confidence is None else min_confidence
        features, rank_at, suit_at, crops = candidate_features(frame, self.looks_like_index, pairs)
        if features.shape[0] == 0:
            return []
        rank_p, suit_p = self.classify(features)
        disagreeing = np.zeros(rank_p.shape[0], bool)
        look, embedding = np.zeros(0, np.intp), None  # the rows the verifier embeds
        if self._verifier is not None:
            # Orders the MLP gives some chance of being an index get the verifier's reading.
            look = np.flatnonzero(rank_p[:, NOT_INDEX] < self.verify_below)
            rank_p[rank_p[:, NOT_INDEX] >= self.verify_below] = np.eye(NOT_INDEX + 1)[NOT_INDEX]
            if look.size:
                mlp_rank, mlp_suit = rank_p[look], suit_p[look]
                v_rank, v_suit, embedding = self.verify_and_embed(crops[look])
                if deck is None:  # an enrolled deck names the card itself
                    disagreeing[look] = disagree(self.agreement, (rank_p[look], suit_p[look]),
                                                 (v_rank, v_suit))
                if self.combine == "mean":
                    v_rank = geometric_mean(v_rank, rank_p[look], self.classifier_weight)
                    v_suit = geometric_mean(v_suit, suit_p[look], self.classifier_weight)
                rank_p[look], suit_p[look] = v_rank, v_suit
                if self.second_views:
                    look_again(frame, look, (rank_at, suit_at), (rank_p, suit_p),
                               SecondLook(self.second_views, self.second_look_ceiling,
                                          self.verify_with,
                                          (mlp_rank, mlp_suit) if self.combine == "mean" else None,
                                          self.classifier_weight, self.view_crops,
                                          self.view_gates))
        rank = rank_p.argmax(axis=1)
        suit = suit_p.argmax(axis=1)
        confidence = rank_p.max(axis=1) * suit_p.max(axis=1)
        stopped_by_deck = np.full(rank.shape[0], "", object)  # why, where it did
        deck_cards = np.full(rank.shape[0], "", object)  # its nearest card there
        if deck is not None:
            stopped_by_deck, deck_cards = read_by_house_deck(
                deck, look, embedding, rank_p, rank, suit, confidence, bar)
        confident = (rank != NOT_INDEX) & (confidence >= bar)
        sure = confident & ~disagreeing
        miscoloured = np.zeros_like(sure)
        if self.pip_colour == "check" and sure.any():
            checked = np.flatnonzero(sure)
            miscoloured[checked] = contradicted(crops[checked], [SUITS[s] for s in suit[checked]])
            sure &= ~miscoloured
        unsure = ~sure & (rank_p[:, NOT_INDEX] < 0.5) if keep_unsure else np.zeros_like(sure)
        reads: list[_Read] = []
        for k in map(int, np.flatnonzero(sure | unsure)):
            down = suit_at[k] - rank_at[k]
            scale = float(np.hypot(down[0], down[1]))
            middle = (rank_at[k] + suit_at[k]) / 2.0
            code = RANKS[rank[k]] + SUITS[suit[k]] if sure[k] else UNKNOWN
            reason = ("" if sure[k] else INK_COLOUR if miscoloured[k]
                      else NETWORKS_DISAGREE if confident[k]
                      else stopped_by_deck[k] or UNSURE)
            reads.append(_Read(code, float(middle[0]),
                               float(middle[1]), float(confidence[k]), scale,
                               (float(down[0] / scale), float(down[1] / scale)), reason=reason,
                               alternatives=likely_cards(rank_p[k], suit_p[k], code),
                               deck_card=deck_cards[k]))
        return reads

    @property
    def verifier_path(self) -> Path | None:
        """The own verifier's file that runs (None: the model has no verifier)."""
        return self._verifier.path if self._verifier is not None else None

    @property
    def verifier_files(self) -> list[str]:
        """The verifier files that run: the own verifier's, then the second views' others."""
        return [net.path.name for net in (self._verifier, *self._view_verifiers.values())
                if net is not None]

    def looks_like_index(self, glance: np.ndarray) -> np.ndarray:
        """Which rows of glance features (thumbnail, colour) are worth the full look."""
        if self._filter is None or glance.shape[0] == 0:
            return np.ones(glance.shape[0], bool)
        logits = self._filter.run(glance)["index"]
        keep: np.ndarray = softmax(logits)[:, 1] >= self.filter_threshold
        return keep

    def verify_with(self, verifier: str, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rank and suit probabilities from the verifier file a view names ("": this
        recognizer's own verifier, with its ensemble's)."""
        if not verifier:
            return self.verify(crops)
        outputs = self._view_verifiers[verifier].run(net_input(crops))
        return softmax(outputs["rank"]), softmax(outputs["suit"])

    def verify(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The verifier's rank (14 classes) and suit (4) probabilities for colour crops."""
        rank_p, suit_p, _ = self.verify_and_embed(crops)
        return rank_p, suit_p

    def verify_and_embed(self, crops: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """The verifier's rank and suit probabilities and, where the model has one, its
        embedding of each crop (the last hidden layer, unit length), else None."""
        assert self._verifier is not None
        batch = net_input(crops)
        outputs = self._verifier.run(batch)
        embedding = outputs.get("embedding")
        if embedding is not None:
            norms = np.linalg.norm(embedding, axis=1, keepdims=True)
            embedding = embedding / np.maximum(norms, 1e-6)
        # An enrolled deck compares this verifier's embedding only; members add their reading.
        readings = [outputs, *(m.verifier.run(batch) for m in self._members)]
        return (ensemble_mean([softmax(r["rank"]) for r in readings]),
                ensemble_mean([softmax(r["suit"]) for r in readings]), embedding)

    def classify(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rank (14 classes, last = not an index) and suit (4) probabilities per row."""
        readings = [self._net.run(features), *(m.classifier.run(features)
                                                for m in self._members)]
        return (ensemble_mean([softmax(r["rank"]) for r in readings]),
                ensemble_mean([softmax(r["suit"]) for r in readings]))
