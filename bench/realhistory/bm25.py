"""The plain baseline: Okapi BM25 over the same day files, one document per ``###`` entry.

Tokens: lower-cased words; runs of CJK characters (Han, kana, Hangul) become overlapping bigrams,
so a Chinese, Japanese or Korean question can match without a segmenter. No stemming, no stop words.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path

_TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]+|[^\W_]+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_COMMENT = re.compile(r"<!--.*?-->", re.S)


def tokens(text: str) -> list[str]:
    out: list[str] = []
    for run in _TOKEN.findall(_COMMENT.sub(" ", text).lower()):
        if _CJK.match(run):
            out.extend(run[i:i + 2] for i in range(max(1, len(run) - 1)))
        else:
            out.append(run)
    return out


def entries(memory: Path) -> list[tuple[str, str]]:
    """(day file:line, text) of every ``###`` entry of every day file under ``memory``."""
    docs: list[tuple[str, str]] = []
    for day in sorted(memory.glob("*.md")):
        lines = day.read_text(encoding="utf-8", errors="replace").split("\n")
        starts = [i for i, line in enumerate(lines) if line.startswith("### ")] + [len(lines)]
        for a, b in zip(starts, starts[1:]):
            docs.append((f"{day.name}:{a + 1}", "\n".join(lines[a:b])))
    return docs


class BM25:
    def __init__(self, docs: list[tuple[str, str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.docs, self.k1, self.b = docs, k1, b
        self.tf = [Counter(tokens(text)) for _key, text in docs]
        self.len = [sum(tf.values()) for tf in self.tf]
        self.avg = sum(self.len) / max(1, len(self.len))
        df = Counter(t for tf in self.tf for t in tf)
        n = len(docs)
        self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}

    def search(self, query: str, k: int) -> list[tuple[str, str]]:
        terms = [t for t in set(tokens(query)) if t in self.idf]
        scored = []
        for i, tf in enumerate(self.tf):
            norm = self.k1 * (1 - self.b + self.b * self.len[i] / self.avg)
            s = sum(self.idf[t] * tf[t] * (self.k1 + 1) / (tf[t] + norm) for t in terms if t in tf)
            if s > 0:
                scored.append((s, i))
        scored.sort(key=lambda x: (-x[0], x[1]))
        return [self.docs[i] for _s, i in scored[:k]]
