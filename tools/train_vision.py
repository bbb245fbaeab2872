"""Train the camera's networks shipped in `vision/models/`: the glance filter, the index
classifier and the verifier.

    python tools/train_vision.py [--seed 1] [--cache var/examples.npz] [--keep-mlp]

Training data is generated from the renderer `hwsim.camera`, with the drawn
TUNING designs and the real decks of `hwsim.camera.artwork.TRAINING_DECKS`
only (the held-out designs and decks are never rendered here; it refuses them).
The work is split by job:

- `card_canvases`: card-level canvases, one to three cards fanned on a felt,
  spoiled, with the index glyphs' positions known;
- `training_examples`: the recognizer's own candidate pairs on those canvases
  and on rendered scenes, labelled (a card's index, "not an index", or left
  out), rendered on `--jobs` processes;
- `mlp_training`: the filter and the classifier, MLPs trained with numpy;
- `verifier_training`: the convolutional verifier, trained with PyTorch;
- this module: the command line, the example cache (`--cache`), and the
  settings file `index_classifier.json`.

Same seed, corpus, renderer and PyTorch build: same networks.
"""


from __future__ import annotations

import argparse
import json
import sys
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "hw-sim")]

from mlp_training import export, reuse_mlp, softmax, train, train_filter  # noqa: E402
from training_examples import Examples, make_examples  # noqa: E402
from verifier_training import VERIFIER_CHANNELS, VERIFIER_HIDDEN, train_verifier  # noqa: E402

from foundation.cards import RANKS, SUITS  # noqa: E402
from vision.combine import AGREEMENT_RULES  # noqa: E402
from vision.features import FEATURE_SIZE  # noqa: E402
from vision.reads import CONFLICT_RULES  # noqa: E402
from vision.recognizer import MODEL_FILE, NOT_INDEX  # noqa: E402
from vision.second_look import SECOND_VIEWS, VIEW_CEILING, view_setting  # noqa: E402


def probability(text: str) -> float:
    """A command-line probability: a number from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is not between 0 and 1")
    return value


def strength(text: str) -> float:
    """A command-line spoiling strength: a number of 0 (off) or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value >= 0.0:
        raise argparse.ArgumentTypeError(f"{text} is not 0 or more")
    return value


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--samples", type=int, default=10000, help="card-level canvases")
    parser.add_argument("--scenes", type=int, default=400,
                        help="rendered scenes of the tuning designs")
    parser.add_argument("--scene-indices", action="store_true",
                        help="take index examples from the scenes too, not only negatives")
    parser.add_argument("--cut-negatives", type=probability, default=0.0, metavar="V",
                        help="take the pairs of a card-level canvas's index 30%% to V open "
                             "(cut by the cards or chips over it) as \"not an index\"; "
                             "0: leave them out")
    parser.add_argument("--real-share", type=float, default=0.65,
                        help="share of the card-level canvases drawn from real decks, when "
                             "both drawn designs and real decks are trained on")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--verifier-channels", type=int, nargs=3, default=VERIFIER_CHANNELS,
                        help="channels of the verifier's three convolutions")
    parser.add_argument("--verifier-hidden", type=int, default=VERIFIER_HIDDEN,
                        help="units of the verifier's dense layer")
    parser.add_argument("--verifier-batchnorm", action="store_true",
                        help="batch normalisation after each of the verifier's convolutions "
                             "while training (folded into them in the file)")
    parser.add_argument("--verifier-epochs", type=int, default=12,
                        help="epochs of the convolutional verifier (0: none)")
    parser.add_argument("--verifier-shape", type=strength, default=0.0,
                        help="strength of the glyph-shape spoiling (slant, warp, stroke "
                             "width) of the verifier's training crops; 0: none")
    parser.add_argument("--verifier-scene", type=strength, default=0.0,
                        help="strength of the scene spoiling (glare, motion blur, shear) "
                             "of the verifier's training crops; 0: none")
    parser.add_argument("--verifier-smoothing", type=probability, default=0.0,
                        help="label smoothing of the verifier's rank and suit losses "
                             "(0: none)")
    parser.add_argument("--verify-below", type=float, default=0.9,
                        help="the verifier reads every pair the MLP gives less than this "
                             "probability of not being an index")
    parser.add_argument("--designs", nargs="+", default=["tuning", "real-training"],
                        help="designs and decks to train on, or the groups tuning and "
                             "real-training (default: both groups)")
    parser.add_argument("--keep-mlp", action="store_true",
                        help="keep the classifier and filter already in --out's folder "
                             "(and the settings its .json records for them) and train the "
                             "verifier only")
    parser.add_argument("--verifier-easy", type=float, default=0.15,
                        help="share of the pairs the classifier rejects outright that the "
                             "verifier also learns on (it never sees them at run time)")
    parser.add_argument("--jobs", type=int, default=2,
                        help="processes rendering examples (the result does not depend on it)")
    parser.add_argument("--out", type=Path, default=MODEL_FILE)
    parser.add_argument("--cache", type=Path, default=None,
                        help="keep the generated examples in this .npz and reuse them")
    parser.add_argument("--min-confidence", type=probability, default=0.6,
                        help="written to the settings: the rank x suit probability a read "
                             "needs (0.6 was chosen on the validation set, "
                             "docs/vision-measurements.md)")
    parser.add_argument("--agreement", choices=AGREEMENT_RULES, default="none",
                        help="written to the settings: must the classifier and the verifier "
                             "name the same card (vision.combine)")
    parser.add_argument("--ensemble", nargs="+", default=[], metavar="FOLDER",
                        help="written to the settings: folders beside --out holding the "
                             "other members' classifier and verifier (each trained by this "
                             "script with --out FOLDER/index_classifier.onnx); their readings "
                             "are combined with this run's (vision.members)")
    parser.add_argument("--conflicts", choices=CONFLICT_RULES, default="better",
                        help="written to the settings: how a card's two corners read as "
                             "different cards are settled (vision.reads)")
    return parser.parse_args(argv)


def training_designs(wanted: Sequence[str]) -> tuple[list[Any], list[str]]:
    """The designs to train on and their names; refuses every held-out design."""
    # The renderer is only needed here, never by the recognizer at run time.
    from hwsim.camera.artwork import HELD_OUT_DECKS, corpus_folder
    from hwsim.camera.dataset import resolve_designs
    from hwsim.camera.deck_corpus import ensure_corpus
    from hwsim.camera.designs import HELD_OUT_DESIGNS

    held = set(HELD_OUT_DESIGNS) | set(HELD_OUT_DECKS)
    if set(wanted) & (held | {"held-out", "real-held-out", "all"}):
        raise SystemExit("held-out designs are never trained on; choose training designs only")
    if "real-training" in wanted or any("-" in d for d in wanted):
        ensure_corpus(corpus_folder())
    designs = resolve_designs(list(wanted))
    names = [d.name for d in designs]
    assert not held & set(names), "a held-out design is listed for training"
    print(f"training on designs {names}; held out (never rendered here): {sorted(held)}")
    return designs, names


# What the examples depend on besides the seed. A cache made with other values is
# refused; one made with another seed is taken (verifiers of several seeds are trained
# on the same examples), and the settings record the seed it was made with.
# The settings tools/train_index_proposer.py and tools/train_index_refiner.py write (and
# the choices made with them), kept when these networks are retrained.
PROPOSER_KEYS = ("proposer_model", "proposer_threshold", "proposer", "refiner_model", "refiner",
                 "refine_unsure", "second_chance_confidence", "lean_finder",
                 "proposer_zoom_below", "fan_steps")
RECIPE_KEYS = ("samples", "scenes", "scene_indices", "real_share", "cut_negatives")


def example_recipe(args: argparse.Namespace, names: Sequence[str]) -> dict[str, Any]:
    return {"seed": args.seed, **{key: getattr(args, key) for key in RECIPE_KEYS},
            "designs": list(names)}


def load_examples(args: argparse.Namespace, designs: Sequence[Any],
                  names: Sequence[str]) -> tuple[Examples, dict[str, Any] | None]:
    """The examples of `--cache` where it exists, else rendered (and kept there), and
    how they were made (None: a cache from before caches recorded it)."""
    recipe = example_recipe(args, names)
    if args.cache is not None and args.cache.exists():
        try:
            cached = np.load(args.cache)
            made = json.loads(str(cached["recipe"])) if "recipe" in cached.files else None
            if not isinstance(made, (dict, type(None))):
                raise ValueError("its record of options is not a mapping")
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            raise SystemExit(f"{args.cache} is not an example cache this script can read "
                             f"({exc}); delete it or name another --cache") from None
        if made is not None:
            differ = [key for key in (*RECIPE_KEYS, "designs") if made.get(key) != recipe[key]]
            if differ:
                raise SystemExit(f"{args.cache} was made with other {', '.join(differ)} "
                                 f"({', '.join(f'{k}={made.get(k)!r}' for k in differ)}); "
                                 "name another --cache or give the same options")
        features, rank, suit, crops = (cached["features"], cached["rank"], cached["suit"],
                                       cached["crops"])
        print(f"examples from {args.cache}: {features.shape[0]}"
              + ("" if made is not None else " (made before caches recorded their options)"))
        return (features, rank, suit, crops), made
    features, rank, suit, crops = make_examples(args, designs, names)
    if args.cache is not None:
        np.savez(args.cache, features=features, rank=rank, suit=suit, crops=crops,
                 recipe=np.array(json.dumps(recipe)))
    return (features, rank, suit, crops), recipe


def beside(out: Path, kind: str) -> Path:
    """The file of another network beside the classifier `out` (filter, verifier)."""
    path = out.with_name(out.stem.replace("classifier", kind) + ".onnx")
    return path if path != out else out.with_name(f"{out.stem}_{kind}.onnx")


def classifier_stage(args: argparse.Namespace, examples: Examples,
                     filter_path: Path) -> tuple[float, np.ndarray]:
    """Train (or with `--keep-mlp` reuse) the classifier and the filter; returns the
    filter's threshold and the classifier's "not an index" probability of each example."""
    features, rank, suit, _ = examples
    if args.keep_mlp:
        return reuse_mlp(features, rank, args.out, filter_path)
    model, mean, std = train(features, rank, suit, args.seed, args.epochs, args.hidden)
    _, rank_logits, suit_logits = model.forward(((features - mean) / std).astype(np.float32))
    rank_ok = (rank_logits.argmax(1) == rank).mean()
    has_suit = suit >= 0
    suit_ok = (suit_logits.argmax(1)[has_suit] == suit[has_suit]).mean()
    print(f"training accuracy: rank/not-index {rank_ok:.4f}, suit {suit_ok:.4f}")
    export(model, mean, std, args.out)
    threshold = train_filter(features, rank, args.seed, filter_path)
    return threshold, softmax(rank_logits)[:, NOT_INDEX]


def verifier_stage(args: argparse.Namespace, examples: Examples,
                   mlp_not: np.ndarray) -> dict[str, Any]:
    """Train the verifier on what the classifier may take; returns its settings."""
    _, rank, suit, crops = examples
    verifier_path = beside(args.out, "verifier")
    is_index = rank != NOT_INDEX
    verify_below = args.verify_below
    looked = mlp_not < verify_below
    # The verifier reads only what the classifier may take: it learns on every index,
    # every pair the classifier would hand it, and a share of the easy rest.
    easy = np.random.default_rng(args.seed + 3).random(rank.size) < args.verifier_easy
    chosen = np.flatnonzero(is_index | looked | easy)
    print(f"verifier: {chosen.size} examples ({is_index.sum()} indices, "
          f"{(looked & ~is_index).sum()} pairs the classifier hands it)", flush=True)
    probabilities = train_verifier(crops[chosen], rank[chosen], suit[chosen], args.seed + 2,
                                   args.verifier_epochs, verifier_path,
                                   tuple(args.verifier_channels), args.verifier_hidden,
                                   args.verifier_batchnorm, args.verifier_shape,
                                   args.verifier_smoothing, args.verifier_scene)
    v_rank, v_suit = probabilities(crops[chosen])
    ok = ((v_rank.argmax(1) == rank[chosen])
          & ((v_suit.argmax(1) == suit[chosen]) | ~is_index[chosen]))
    print(f"verifier: looks below {verify_below:.4f} (at {looked[is_index].mean():.4f} of "
          f"the indices, {looked[~is_index].mean():.4f} of the rest); training accuracy "
          f"{ok[is_index[chosen]].mean():.4f} of the indices, "
          f"{ok[~is_index[chosen]].mean():.4f} of the rest")
    return {"verifier_model": verifier_path.name, "verify_below": round(verify_below, 6),
            "combine": "mean", "verifier_epochs": args.verifier_epochs,
            "verifier_channels": list(args.verifier_channels),
            "verifier_hidden": args.verifier_hidden, "verifier_easy": args.verifier_easy,
            "verifier_batchnorm": args.verifier_batchnorm,
            "verifier_shape": args.verifier_shape,
            "verifier_smoothing": args.verifier_smoothing,
            "verifier_scene": args.verifier_scene}


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    designs, names = training_designs(args.designs)
    examples, recipe = load_examples(args, designs, names)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    filter_path = beside(args.out, "filter")
    info_path = args.out.with_suffix(".json")
    classifier: dict[str, Any] = {
        "seed": args.seed, "samples": args.samples, "scenes": args.scenes,
        "real_share": args.real_share, "epochs": args.epochs, "hidden": args.hidden,
        "designs": names}
    if args.keep_mlp and info_path.exists():
        # The kept classifier's own settings, as the run that trained it recorded them.
        kept = json.loads(info_path.read_text(encoding="utf-8"))
        verifier_run = {"verifier_samples": args.samples, "verifier_scenes": args.scenes,
                        "verifier_real_share": args.real_share, "verifier_designs": names,
                        "verifier_examples": recipe}
        classifier = ({key: kept[key] for key in (*classifier, "examples") if key in kept}
                      | verifier_run)
    else:
        classifier["examples"] = recipe
    threshold, mlp_not = classifier_stage(args, examples, filter_path)
    info: dict[str, Any] = {
        "feature_size": FEATURE_SIZE, "ranks": RANKS + "-", "suits": SUITS,
        "min_confidence": args.min_confidence, "filter_model": filter_path.name,
        "filter_threshold": round(threshold, 6), **classifier}
    if args.verifier_epochs > 0:
        info.update(verifier_stage(args, examples, mlp_not))
    info.update({"agreement": args.agreement, "conflicts": args.conflicts,
                 "second_views": [view_setting(view) for view in SECOND_VIEWS],
                 "second_look_ceiling": VIEW_CEILING})
    if args.ensemble:
        info["ensemble"] = list(args.ensemble)
    if info_path.exists():  # the proposer has its own training script: keep its settings
        before = json.loads(info_path.read_text(encoding="utf-8"))
        info.update({key: before[key] for key in PROPOSER_KEYS if key in before})
    info_path.write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KiB) and {info_path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
