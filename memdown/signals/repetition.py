"""Repetition is memory: an instruction one user restates across prompts, found in any script.

A user who adds "sem código ainda" or "precisão cirúrgica, sem quebrar etapas anteriores" to prompt
after prompt is telling the agent a standing preference, whatever the language. No phrase table or
English-only embedding sees that; character trigrams do, in every script (Latin, CJK, Cyrillic,
Arabic, Hangul).

A prompt is cut into clauses (sentence and clause punctuation of every script, line breaks). Clauses
that look like code, paths, URLs or pasted output are not instructions and are skipped. Two clauses of
different prompts are the same when their trigram sets overlap (Jaccard) by ``SAME`` or more. A group
spanning ``min_prompts`` different prompts is a repeated instruction, unless it is each time the whole
prompt (a template such as "continue", a greeting or a re-sent task is not a standing rule: the
restatement rides along with other requests). Standard library only; fast enough for a hook-free pass
over a user's whole history (an inverted trigram index, rare trigrams first).
"""
from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

SAME = 0.5                 # trigram Jaccard at which two clauses are one instruction restated
MIN_PROMPTS = 3            # "a preference a user restated three times"
MIN_CHARS, MAX_CHARS = 6, 160
MAX_PROMPT_CHARS = 4000    # longer prompts are pasted material: their clauses are not the user's restating
COMMON_GRAM = 400          # a trigram in more clauses than this says nothing about which clause it is

_SPLIT = re.compile(r"[\n\r!?;。！？；，、,：]+|[.:](?=\s|$)|\s[-–—]\s")
_CODE = re.compile(r"[/\\`{}<>=$|#@\[\]]|https?:|\w+\.\w{1,4}\b|\b\w+_\w+\b|\d{3,}")
_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
_DENSE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
SAME_PROMPT = 0.5          # two prompts asking this alike besides the clause are one prompt sent again


@dataclass(frozen=True)
class Repeated:
    """One instruction restated: its first wording, every prompt holding it and each wording used."""
    quote: str
    prompts: tuple            # prompt ids in first-seen order, one per prompt
    quotes: tuple[str, ...]   # the user's own words in each of those prompts

    @property
    def count(self) -> int:
        return len(self.prompts)


def clauses(text: str) -> list[str]:
    """The clauses of a prompt that could be an instruction (not code, paths, numbers or pasted output)."""
    if len(text) > MAX_PROMPT_CHARS:
        return []
    out = []
    for part in _SPLIT.split(text):
        part = " ".join(part.split()).strip(" \"'()*-")
        if MIN_CHARS <= len(part) <= MAX_CHARS and not _CODE.search(part) and _wordy(part):
            out.append(part)
    return out


def _wordy(part: str) -> bool:
    """At least two words (or four characters of a script written without spaces): one word is a topic."""
    return len(_DENSE.findall(part)) >= 4 or sum(1 for w in part.split() if len(_LETTER.findall(w)) >= 2) >= 2


def grams(clause: str) -> frozenset[str]:
    """Character trigrams of the folded clause (NFKC, lower case, punctuation as one space)."""
    folded = " " + _NON_WORD.sub(" ", unicodedata.normalize("NFKC", clause).lower()).strip() + " "
    return frozenset(folded[i:i + 3] for i in range(len(folded) - 2))


def repeated_instructions(prompts: Iterable[tuple[object, str]], *, min_prompts: int = MIN_PROMPTS,
                          same: float = SAME) -> list[Repeated]:
    """Instructions restated in at least ``min_prompts`` of one user's prompts, most restated first.

    ``prompts`` is (id, text) in time order. Each group is connected by clause pairs of different
    prompts at trigram Jaccard ``same`` or more."""
    items: list[tuple[object, str, str, frozenset[str]]] = []   # (prompt id, clause, whole prompt, grams)
    for pid, text in prompts:
        for clause in dict.fromkeys(clauses(text or "")):
            items.append((pid, clause, text, grams(clause)))
    parent = list(range(len(items)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in _similar_pairs(items, same):
        parent[find(i)] = find(j)
    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(len(items)):
        groups[find(i)].append(i)
    found = [_repeated(items, members) for members in groups.values()]
    found = [r for r in found if r is not None and r.count >= min_prompts]
    return sorted(found, key=lambda r: -r.count)


def _similar_pairs(items, same: float) -> Iterable[tuple[int, int]]:
    index: dict[str, list[int]] = defaultdict(list)
    for i, (_pid, _clause, _text, g) in enumerate(items):
        for gram in g:
            index[gram].append(i)
    for i, (pid, _clause, _text, g) in enumerate(items):
        shared: dict[int, int] = defaultdict(int)
        for gram in g:
            posting = index[gram]
            if len(posting) > COMMON_GRAM:
                continue
            for j in posting:
                if j > i and items[j][0] != pid:
                    shared[j] += 1
        for j, inter in shared.items():
            other = items[j][3]
            if inter >= same * (len(g) + len(other) - inter):
                yield i, j


def _repeated(items, members: list[int]) -> Repeated | None:
    chosen: list[int] = []
    seen: list[frozenset[str]] = []
    for i in sorted(members):
        whole = grams(items[i][2].replace(items[i][1], " "))   # what the prompt asks besides the restatement
        if any(items[j][0] == items[i][0] for j in chosen) or any(_jaccard(whole, g) >= SAME_PROMPT for g in seen):
            continue   # the same prompt, or a prompt sent again: one statement, not a restatement
        chosen.append(i)
        seen.append(whole)
    # the same words as the whole prompt each time: a template or a greeting, not a rule riding along
    riding = sum(1 for i in chosen if len(items[i][1]) < 0.8 * len(" ".join(items[i][2].split())))
    if riding * 2 < len(chosen):
        return None
    return Repeated(items[chosen[0]][1], tuple(items[i][0] for i in chosen), tuple(items[i][1] for i in chosen))


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0
