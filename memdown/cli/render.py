"""Text and JSON output of the query commands (standard library only).

Shared by the click commands and the warm fast path, so both print the
same bytes for the same answer.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

Write = Callable[[str], None]  # writes one line
SEARCH_FOOTER = "Expand a hit with: memdown expand <id>"


def to_json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, default=str)


def snippet(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def render(op: str, result: Any, *, as_json: bool, out: Write, err: Write) -> None:
    if as_json:
        out(to_json(result))
    elif op == "search":
        _search(result, out)
    elif op == "concepts":
        _concepts(result, out)
    elif op == "expand":
        _expand(result, out, err)
    elif op == "stats":
        _stats(result, out)


def _search(hits: list[dict[str, Any]], out: Write) -> None:
    if not hits:
        out("no matches")
        return
    for hit in hits:
        where = f"{hit['source']}:{hit['start_line']}-{hit['end_line']}"
        session = f"session {hit['session'][:8]}" if hit["session"] else ""
        meta = " ".join(x for x in (hit["kind"], hit["date"], session) if x)
        out(f"{hit['id'][:12]}  {hit['score']:.4f}  {where}  [{meta}]")
        out(f"    {hit['heading']}")
        out(f"    {snippet(hit['text'], 220)}")
    out(SEARCH_FOOTER)


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
    out("")
    out(exp["text"])


def _stats(data: dict[str, Any], out: Write) -> None:
    out(f"root: {data['root']}")
    out(f"index: {data['index_state']}; {data['files']} files, {data['chunks']} chunks, {data['index_bytes'] / 1e6:.1f} MB")
    for kind, count in data["chunks_by_kind"].items():
        out(f"  {kind}: {count}")
    out(f"model: {data['model']}")
    out(f"last indexed: {data['last_indexed'] or 'never'}")
    days = data["days"]
    out(f"days covered: {days['count']}" + (f" ({days['first']} to {days['last']})" if days["count"] else ""))
    capture = data["capture"]
    out(f"signal capture: {'on' if capture['enabled'] else 'off'} (from {capture['source']})")
