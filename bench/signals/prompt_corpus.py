"""The real user prompts of ../shared/transcripts, read in place with memdown's one transcript parser.

    python bench/signals/prompt_corpus.py --dump /tmp/prompts.jsonl   # for labelling (never inside the repo)

A prompt is a turn of kind ``prompt`` in a main-session transcript (``parse_transcript``
with ``include_subagents=False``): tool results, ``isMeta`` entries, compaction summaries,
slash-command wrappers, bash-mode lines and other plugins' ``attachment`` output are not
prompts (``memdown.transcript.content.classify_user``). Subagent files (``subagents/``,
``agent-*.jsonl``) and side files (``journal.jsonl``) are not main sessions. Each prompt
comes with the turn before it (what the agent had just said and done), because a correction
answers something the agent just did.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO))

SHARED = REPO.parent / "shared" / "transcripts"
_SIDE_FILES = {"journal.jsonl"}


@dataclass
class Prompt:
    file: str          # path relative to the transcripts folder
    uuid: str
    repo: str          # owner-repo: the split unit (one author per repository)
    lang: str
    text: str
    prev_said: str     # the assistant's last words before the prompt ('' at the start)
    prev_tools: int    # tool calls in the turn before
    prev_calls: str    # the last few tool calls before, one line each
    position: int      # 0-based among the transcript's prompts


def repo_of(rel: str) -> str:
    """``real/<owner-repo>/…`` and ``semi-synthetic/<owner-repo>/…`` → ``owner-repo`` (same author, same side)."""
    return rel.split("/")[1]


_SCRIPTS = [("zh", re.compile(r"[\u4e00-\u9fff]")), ("ja", re.compile(r"[\u3040-\u30ff]")),
            ("ko", re.compile(r"[\uac00-\ud7af]")), ("cyr", re.compile(r"[\u0400-\u04ff]"))]
_FR = re.compile(r"\b(?:je|tu|nous|vous|est|les|des|une|pas|c'est|j'ai|pour|avec|mais|ça|fais|peux)\b", re.I)
_ES = re.compile(r"\b(?:el|los|las|una|por|para|que|pero|está|hazlo|puedes|quiero|haz|esto|como|con)\b", re.I)
_EN = re.compile(r"\b(?:the|is|and|to|you|it|this|that|of|for|with|not|can|we|do|please|use|i)\b", re.I)


def language(text: str) -> str:
    """A coarse language tag from the script, then from function words (for reporting by language)."""
    counts = {name: len(rx.findall(text)) for name, rx in _SCRIPTS}
    if counts["ja"] >= 2:
        return "ja"
    best = max(counts, key=counts.get)
    if counts[best] >= 2:
        return "ru" if best == "cyr" else best
    en, fr, es = (len(rx.findall(text)) for rx in (_EN, _FR, _ES))
    if fr > en and fr >= es and fr >= 2:
        return "fr"
    if es > en and es > fr and es >= 2:
        return "es"
    return "en"


def transcript_files(shared: Path = SHARED) -> list[Path]:
    from memdown.transcript.layout import is_agent_file

    out = []
    for path in sorted(shared.rglob("*.jsonl")):
        rel = path.relative_to(shared)
        if "subagents" in rel.parts or is_agent_file(path) or path.name in _SIDE_FILES:
            continue
        out.append(path)
    return out


def iter_prompts(shared: Path = SHARED) -> Iterator[tuple[Prompt, object, object]]:
    """(prompt, its turn, the turn before or None) for every real prompt, in file order."""
    from memdown.transcript.parser import parse_transcript

    for path in transcript_files(shared):
        rel = path.relative_to(shared).as_posix()
        turns = parse_transcript(path, include_subagents=False).turns
        prev = None
        position = 0
        for turn in turns:
            if turn.kind == "prompt" and turn.prompt.strip():
                said = prev.assistant_texts[-1] if prev is not None and prev.assistant_texts else ""
                calls = [c.summary() for c in prev.tool_calls[-3:]] if prev is not None else []
                yield (Prompt(rel, turn.uuid, repo_of(rel), language(turn.prompt), turn.prompt, said,
                              len(prev.tool_calls) if prev is not None else 0, " | ".join(calls), position),
                       turn, prev)
                position += 1
            prev = turn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument("--dump", type=Path, required=True)
    args = parser.parse_args()
    if not args.shared.is_dir():
        print("no shared transcripts: nothing to dump")
        return
    with args.dump.open("w", encoding="utf-8") as out:
        for prompt, _turn, _prev in iter_prompts(args.shared):
            out.write(json.dumps(asdict(prompt), ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
