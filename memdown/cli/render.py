"""Text and JSON output of the query commands (standard library only).

Shared by the click commands and the warm fast path, so both print the
same bytes for the same answer.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..store.anchors import strip_anchors  # anchors are for tools; the drill-down line carries them
from ..store.citations import summary_line as stale_line

Write = Callable[[str], None]  # writes one line
SEARCH_FOOTER = "Expand a hit with: memdown expand <id>"
SEARCH_FOOTER_WINDOWS = ("Each hit shows its entry and neighbouring turns (search.window_chars); "
                         "`memdown expand <id>` only for a clipped (…) entry")


def to_json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, default=str)


def snippet(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def render(op: str, result: Any, *, as_json: bool, out: Write, err: Write, fenced: bool = False) -> None:
    """Print ``result``; ``fenced`` (an agent reads it): labelled JSON records, or one fenced text block."""
    if fenced:
        from .recorded import Fenced, labelled

        if as_json:
            out(to_json(labelled(result)))
            return
        block = Fenced(op, out)
        _text(op, result, block, err)
        block.close()
    elif as_json:
        out(to_json(result))
    else:
        _text(op, result, out, err)


def _text(op: str, result: Any, out: Write, err: Write) -> None:
    if op == "search":
        _search(result, out)
    elif op == "concepts":
        _concepts(result, out)
    elif op == "expand":
        _expand(result, out, err)
    elif op == "stats":
        _stats(result, out)


def _search(hits: list[dict[str, Any]], out: Write) -> None:
    """Each hit as the window the agent reads (neighbouring sections, within search.window_chars)."""
    if not hits:
        out("no matches")
        return
    weak = weak_match_line(hits[0].get("match"))
    if weak:
        out(weak)
    windows = False
    for rank, hit in enumerate(hits, 1):
        window = hit.get("window")
        span = window or hit
        where = f"{hit['source']}:{span['start_line']}-{span['end_line']}"
        session = f"session {hit['session'][:8]}" if hit["session"] else ""
        meta = " ".join(x for x in (hit["kind"], hit["date"], session) if x)
        out(f"[{rank}] {hit['id'][:12]}  {hit['score']:.4f}  {where}  [{meta}]")
        out(f"    {hit['heading']}")
        for note in hit.get("notes") or ():
            out(f"    note: {note}")
        if stale_line(hit.get("freshness")):
            out(f"    {stale_line(hit.get('freshness'))}")
        if not window:
            out(f"    {snippet(hit['text'], 220)}")
            continue
        windows = True
        if window["stale"]:
            out("    (the file changed since indexing: the matched unit only; run `memdown index`)")
        for line in strip_anchors(window["text"]).split("\n"):
            if line.strip():
                out(f"    {line}")
        if hit["session"] and hit["turn"]:
            out(f"    drill down: memdown transcript {hit['session']} --turn {hit['turn'][:8]}")
    out(SEARCH_FOOTER_WINDOWS if windows else SEARCH_FOOTER)


def weak_match_line(match: dict[str, Any] | None) -> str:
    """One line when nothing matched strongly (services/recall/match.py), else ""."""
    if not match or not match.get("weak"):
        return ""
    cosine = match.get("cosine")
    meaning = f"best cosine {cosine:.2f}" if cosine is not None else "no vector evidence"
    return (f"weak match: no hit shares the query's meaning or most of its words ({meaning}, "
            f"{match.get('term_share', 0):.0%} of its words); memory may not hold an answer")


def _concepts(matches: list[dict[str, Any]], out: Write) -> None:
    if not matches:
        out("no session or file matches every concept")
    for m in matches:
        out(f"{m['group']}  score {m['score']:.4f}")
        for hit in m["hits"]:
            out(f"  {hit['id'][:12]}  {hit['source']}:{hit['start_line']}-{hit['end_line']}  {snippet(hit['text'], 100)}")


def _expand(exp: dict[str, Any], out: Write, err: Write) -> None:
    out(f"{exp['source']}:{exp['start_line']}-{exp['end_line']}  ({exp['kind']}{', ' + exp['date'] if exp['date'] else ''})")
    out(f"heading: {exp['heading']}")
    if exp["session"]:
        out(f"session: {exp['session']}  turn: {exp['turn'] or '-'}  transcript: {exp['transcript'] or '-'}")
        if exp["turn"]:
            out(f"drill down: memdown transcript {exp['session']} --turn {exp['turn'][:8]}")
    if exp["stale"]:
        err("note: the file changed since indexing; run `memdown index`")
    if stale_line(exp.get("freshness")):
        out(stale_line(exp.get("freshness")))
    out("")
    out(exp["text"])


def _stats(data: dict[str, Any], out: Write) -> None:
    out(f"root: {data['root']}")
    out(f"index: {data['index_state']}; {data['files']} files, {data['chunks']} chunks, {data['index_bytes'] / 1e6:.1f} MB")
    for kind, count in data["chunks_by_kind"].items():
        out(f"  {kind}: {count}")
    vectors = data.get("vectors")
    if vectors and vectors["filling"]:
        out(f"vectors: {vectors['embedded']:,} of {vectors['total']:,} embedded, filling newest first "
            f"({'running' if vectors['filler_running'] else 'not running; the next search or index resumes it'})")
    out(f"model: {data['model']}")
    out(f"last indexed: {data['last_indexed'] or 'never'}")
    days = data["days"]
    out(f"days covered: {days['count']}" + (f" ({days['first']} to {days['last']})" if days["count"] else ""))
    capture = data["capture"]
    out(f"signal mining: {'on' if capture['enabled'] else 'off'} (from {capture['source']})")
