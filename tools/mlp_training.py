"""The numpy-trained networks of `tools/train_vision.py`: the index classifier and the
glance filter (one hidden ReLU layer, Adam, cross-entropy, feature dropout), written
as ONNX by `vision.onnx_writer` with the feature standardisation folded in.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path[:0] = [str(ROOT), str(ROOT / "hw-sim")]

from verifier_training import NO_SUIT  # noqa: E402

from foundation.cards import RANKS, SUITS  # noqa: E402
from vision.features import GLANCE_START  # noqa: E402
from vision.onnx_writer import DenseLayer, mlp_to_onnx  # noqa: E402
from vision.recognizer import NOT_INDEX  # noqa: E402


class MLP:
    """One hidden ReLU layer and two softmax heads, trained with Adam."""

    def __init__(self, rng: np.random.Generator, inputs: int, hidden: int,
                 rank_classes: int = len(RANKS) + 1, suit_classes: int = len(SUITS)) -> None:
        def init(n_in: int, n_out: int) -> np.ndarray:
            return (rng.normal(0, np.sqrt(2.0 / n_in), (n_in, n_out))).astype(np.float32)

        self.params: dict[str, np.ndarray] = {
            "w1": init(inputs, hidden), "b1": np.zeros(hidden, np.float32),
            "wr": init(hidden, rank_classes), "br": np.zeros(rank_classes, np.float32),
            "ws": init(hidden, suit_classes), "bs": np.zeros(suit_classes, np.float32),
        }
        self._m = {k: np.zeros_like(v) for k, v in self.params.items()}
        self._v = {k: np.zeros_like(v) for k, v in self.params.items()}
        self._t = 0

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        p = self.params
        hidden = np.maximum(x @ p["w1"] + p["b1"], 0)
        return hidden, hidden @ p["wr"] + p["br"], hidden @ p["ws"] + p["bs"]

    def step(self, x: np.ndarray, rank: np.ndarray, suit: np.ndarray, lr: float,
             weight_decay: float = 1e-4) -> float:
        p = self.params
        hidden, rank_logits, suit_logits = self.forward(x)
        n = x.shape[0]
        rank_prob = softmax(rank_logits)
        loss = -np.log(rank_prob[np.arange(n), rank] + 1e-9).mean()
        d_rank = rank_prob
        d_rank[np.arange(n), rank] -= 1
        d_rank /= n
        has_suit = suit >= 0
        suit_prob = softmax(suit_logits)
        d_suit = np.zeros_like(suit_prob)
        if has_suit.any():
            idx = np.flatnonzero(has_suit)
            loss += -np.log(suit_prob[idx, suit[idx]] + 1e-9).mean()
            d_suit[idx] = suit_prob[idx]
            d_suit[idx, suit[idx]] -= 1
            d_suit /= max(idx.size, 1)
        grads = {
            "wr": hidden.T @ d_rank, "br": d_rank.sum(0),
            "ws": hidden.T @ d_suit, "bs": d_suit.sum(0),
        }
        d_hidden = (d_rank @ p["wr"].T + d_suit @ p["ws"].T) * (hidden > 0)
        grads["w1"] = x.T @ d_hidden
        grads["b1"] = d_hidden.sum(0)
        self._t += 1
        for key, grad in grads.items():
            if key.startswith("w"):
                grad = grad + weight_decay * p[key]
            self._m[key] = 0.9 * self._m[key] + 0.1 * grad
            self._v[key] = 0.999 * self._v[key] + 0.001 * grad * grad
            m_hat = self._m[key] / (1 - 0.9 ** self._t)
            v_hat = self._v[key] / (1 - 0.999 ** self._t)
            p[key] -= (lr * m_hat / (np.sqrt(v_hat) + 1e-8)).astype(np.float32)
        return float(loss)


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    result: np.ndarray = exp / exp.sum(axis=1, keepdims=True)
    return result


def train(features: np.ndarray, rank: np.ndarray, suit: np.ndarray, seed: int, epochs: int,
          hidden: int, rank_classes: int = len(RANKS) + 1) -> tuple[MLP, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    mean = features.mean(axis=0)
    std = features.std(axis=0) + 1e-3
    x = ((features - mean) / std).astype(np.float32)
    model = MLP(rng, x.shape[1], hidden, rank_classes)
    batch = 256
    for epoch in range(epochs):
        order = rng.permutation(x.shape[0])
        lr = 2e-3 * (0.5 * (1 + np.cos(np.pi * epoch / epochs))) + 5e-5
        losses = []
        for start in range(0, order.size, batch):
            chunk = order[start:start + batch]
            # Feature dropout: some robustness to details a new design draws differently.
            noisy = x[chunk] * (rng.random(x[chunk].shape) > 0.1) / 0.9
            losses.append(model.step(noisy.astype(np.float32), rank[chunk], suit[chunk], lr))
        if epoch % 5 == 0 or epoch == epochs - 1:
            print(f"epoch {epoch + 1}/{epochs}: loss {np.mean(losses):.4f}", flush=True)
    return model, mean, std


def export(model: MLP, mean: np.ndarray, std: np.ndarray, path: Path,
           filter_head: bool = False) -> None:
    p = model.params
    w1 = (p["w1"] / std[:, None]).astype(np.float32)
    b1 = (p["b1"] - (mean / std) @ p["w1"]).astype(np.float32)
    heads = ({"index": DenseLayer(p["wr"], p["br"])} if filter_head
             else {"rank": DenseLayer(p["wr"], p["br"]), "suit": DenseLayer(p["ws"], p["bs"])})
    path.write_bytes(mlp_to_onnx([DenseLayer(w1, b1)], heads))


# The filter's threshold lets 99.8% of the training indices through, but never goes
# under FILTER_FLOOR: with the finder's 632 pairs a frame, the 99.8% point fell to
# 0.0005 and let 40% of the other pairs through to the costlier look. 0.03 was the
# floor first; 0.01 reads 3 more corners of 2,993 validation corners and of 2,208
# fontval- corners (no wrong read more) for 135 pairs a frame given the full look
# instead of 86 (about 1.3 ms of 31).
FILTER_FLOOR = 0.01


def filter_threshold(index_scores: np.ndarray) -> float:
    """The filter score under which a pair is dropped, from the training indices' scores."""
    return float(min(0.1, max(FILTER_FLOOR, np.quantile(index_scores, 0.002))))


def train_filter(features: np.ndarray, rank: np.ndarray, seed: int,
                 path: Path) -> float:
    """The quick first look: index or not from the glance features; returns its threshold.

    The threshold lets 99.8% of the training indices through (at most 0.1), so
    the filter costs almost no recall and spares most pairs the HOG.
    """
    glance = features[:, GLANCE_START:]
    is_index = (rank != NOT_INDEX).astype(np.int64)
    model, mean, std = train(glance, is_index, np.full(is_index.size, NO_SUIT), seed + 1,
                             epochs=15, hidden=32, rank_classes=2)
    _, logits, _ = model.forward(((glance - mean) / std).astype(np.float32))
    score = softmax(logits)[:, 1]
    threshold = filter_threshold(score[is_index == 1])
    passed = score >= threshold
    print(f"filter: threshold {threshold:.4f} keeps {passed[is_index == 1].mean():.4f} of the "
          f"indices and {passed[is_index == 0].mean():.4f} of the rest")
    export(model, mean, std, path, filter_head=True)
    return threshold


def reuse_mlp(features: np.ndarray, rank: np.ndarray, classifier: Path,
              filter_path: Path) -> tuple[float, np.ndarray]:
    """The filter's threshold and the classifier's "not an index" probabilities, from the
    networks an earlier run trained on the same examples (`--keep-mlp`)."""
    from vision.networks import Network

    if not classifier.exists() or not filter_path.exists():
        raise SystemExit(f"--keep-mlp needs {classifier} and {filter_path} from an earlier run")
    net, filter_net = Network(classifier, "opencv"), Network(filter_path, "opencv")
    is_index = rank != NOT_INDEX
    not_index, score = [], []
    for start in range(0, features.shape[0], 8192):
        chunk = features[start:start + 8192]
        not_index.append(softmax(net.run(chunk)["rank"])[:, NOT_INDEX])
        score.append(softmax(filter_net.run(chunk[:, GLANCE_START:])["index"])[:, 1])
    scores = np.concatenate(score)
    threshold = filter_threshold(scores[is_index])
    print(f"kept the classifier and filter of {classifier.parent}; filter threshold "
          f"{threshold:.4f}", flush=True)
    return threshold, np.concatenate(not_index)
