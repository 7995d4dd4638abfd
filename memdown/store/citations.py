"""What an entry cites in the code: files, the symbols named next to them, and their fingerprints.

An entry written by memdown carries its citations in its anchor (never in the prose people read):

    <!-- session:… turn:… transcript:… commit:3f2a9c1b7d0e cites:src/auth.py#login~9c1e77a0,README.md -->

``commit`` is the repository's HEAD when the entry was written (for a turn imported later: the last
commit before the turn's time); each citation is ``path[#symbol][~fingerprint]``, the fingerprint
being a short hash of the cited symbol's lines (or the whole file) as they were on disk when the
entry was written. A hand-written entry has no such fields: its citations are read from its text
(:func:`cited_in_text`) and judged against git from its date.

Standard library only, language-agnostic: a symbol's lines are found by its definition line and the
indentation that follows (:func:`symbol_span`), which serves Python, JS/TS, Go, Rust, Java, Ruby…
"""
from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from pathlib import Path

from .anchors import anchor_escape, anchor_unescape

MAX_CITATIONS = 8
MAX_SPAN_LINES = 400


class Citation(NamedTuple):
    path: str  # relative to the repository's top, "/" separated
    symbol: str = ""  # a function, class, constant or key named next to the path ("" = the whole file)
    fingerprint: str = ""  # 12 hex of the cited lines when the entry was written ("" = not recorded)


_SEPARATORS = {",": "%2C", "#": "%23", "~": "%7E", ">": "%3E"}  # the cites value's own separators


def _escape(value: str) -> str:
    """The anchor's escape (``%``, whitespace, control and invisible characters as ``%XX``) plus the
    separators of a cites value, so any file name fits the anchor and reads back exactly."""
    return "".join(_SEPARATORS.get(ch, ch) for ch in anchor_escape(value))


def _unescape(value: str) -> str:
    return anchor_unescape(value)


def render_cites(citations: list[Citation]) -> str:
    """The anchor's ``cites:`` value (no spaces; "" for none)."""
    parts = []
    for cite in citations[:MAX_CITATIONS]:
        part = _escape(cite.path)
        if cite.symbol:
            part += "#" + _escape(cite.symbol)
        if cite.fingerprint:
            part += "~" + cite.fingerprint
        parts.append(part)
    return ",".join(parts)


def parse_cites(value: str) -> list[Citation]:
    found = []
    for part in value.split(","):
        if not part:
            continue
        part, _, fingerprint = part.partition("~")
        path, _, symbol = part.partition("#")
        if path:
            found.append(Citation(_unescape(path), _unescape(symbol), fingerprint if re.fullmatch(r"[0-9a-f]{6,40}", fingerprint) else ""))
    return found


# A path as people and agents write it: a folder part or a file extension, no URL scheme.
_PATH = re.compile(r"(?<![\w/.:@-])((?:\.{0,2}/)?(?:[\w.@+-]+/)*[\w@+-][\w.@+-]*\.[A-Za-z][\w]{0,9}|(?:[\w.@+-]+/)+[\w.@+-]+)(?![\w/])")
_SYMBOL = re.compile(r"`([A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*)(\(\))?`|(?<![\w.`])([A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*)\(\)")
_NOT_PATHS = re.compile(r"^(?:e\.g|i\.e|etc|vs|v?\d+(?:\.\d+)+\w*)$", re.I)
_KEYWORDS = frozenset("true false null none nil self this return if else for while import from def class function".split())


def _paths_in(sentence: str) -> list[tuple[int, str]]:
    found = []
    for match in _PATH.finditer(sentence):
        path = match.group(1)[2:] if match.group(1).startswith("./") else match.group(1)
        path = path.rstrip(".,;:")
        if "://" in sentence[max(0, match.start() - 8):match.start() + 3] or _NOT_PATHS.match(path) or "." not in path and "/" not in path:
            continue
        found.append((match.start(), path))
    return found


def cited_in_text(text: str) -> list[tuple[str, str]]:
    """(path, symbol) pairs an entry's text cites: each symbol goes with the nearest path in its sentence.

    A symbol with no path beside it is not a citation (nothing to check it against); a path alone
    cites the whole file.
    """
    pairs: dict[tuple[str, str], None] = {}
    for sentence in re.split(r"(?<=[.;!?])\s+|\n", text):
        paths = _paths_in(sentence)
        if not paths:
            continue
        cited_paths = {path for _, path in paths}
        for match in _SYMBOL.finditer(sentence):
            symbol = match.group(1) or match.group(3)
            if not symbol or symbol in cited_paths or symbol.lower() in _KEYWORDS or any(symbol in p for p in cited_paths):
                continue
            if match.group(1) and not match.group(2) and "_" not in symbol and symbol.islower() and len(symbol) < 4:
                continue  # `ls`, `go`: a word in backticks, not a symbol
            nearest = min(paths, key=lambda item: abs(item[0] - match.start()))[1]
            pairs.setdefault((nearest, symbol.split(".")[-1].split("::")[-1].split("#")[-1]), None)
        for _, path in paths:
            if not any(p == path for p, _ in pairs):
                pairs.setdefault((path, ""), None)
    return list(pairs)[:MAX_CITATIONS]


_DEFINERS = (r"(?:export\s+)?(?:default\s+)?(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:static\s+)?(?:public\s+|private\s+|protected\s+)?"
             r"(?:def|class|function\*?|func|fn|const|let|var|type|struct|interface|enum|trait|impl|module|object|val|fun)\s+")


def _definition(lines: list[str], symbol: str) -> int | None:
    name = re.escape(symbol)
    patterns = (
        re.compile(rf"^\s*{_DEFINERS}(?:\([^)]*\)\s*)?{name}\b"),  # def x / class X / func (r *T) X / fn x
        re.compile(rf"^\s*(?:async\s+)?(?:[\w<>\[\],*&]+\s+)+{name}\s*\([^;]*$"),  # Java/C: Type name(args) {
        re.compile(rf"^\s*{name}\s*(?:=|:(?!:))"),  # NAME = … / key: …
        re.compile(rf"^\s*{name}\s*\([^)]*\)\s*{{"),  # JS method shorthand
    )
    candidates = [number for number, line in enumerate(lines) if symbol in line]  # C-speed filter first
    for pattern in patterns:
        for number in candidates:
            if pattern.match(lines[number]):
                return number
    return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def symbol_span(source: str, symbol: str) -> tuple[int, int] | None:
    """(first, last) 0-based lines of ``symbol``'s definition in ``source``, or None when not defined there.

    The block is the definition line and every following line indented deeper (blank lines inside
    included), plus one closing line at the definition's own indentation (``}``, ``end``, ``)``).
    """
    lines = source.split("\n")
    start = _definition(lines, symbol)
    if start is None:
        return None
    base = _indent(lines[start])
    end = start
    for number in range(start + 1, min(len(lines), start + MAX_SPAN_LINES)):
        line = lines[number]
        if not line.strip():
            continue
        if _indent(line) > base:
            end = number
            continue
        if re.match(r"^\s*(?:[}\])]+[;,)]*|end\b)", line):
            end = number
        break
    return start, end


def fingerprint(text: str) -> str:
    """12 hex of ``text`` with trailing spaces and blank lines ignored (an editor's save changes nothing)."""
    normal = "\n".join(line.rstrip() for line in text.split("\n") if line.strip())
    return hashlib.blake2b(normal.encode("utf-8", "surrogatepass"), digest_size=6).hexdigest()


def cited_lines(source: str, symbol: str) -> str | None:
    """The text a citation fingerprints: the symbol's block, or the whole file; None if the symbol is gone."""
    if not symbol:
        return source
    span = symbol_span(source, symbol)
    if span is None:
        return None
    return "\n".join(source.split("\n")[span[0]:span[1] + 1])


def quick_check(repo: "Path", cites: str) -> str:
    """What changed of an anchor's fingerprinted citations, from the files alone (no git: cheap enough for
    SessionStart's digest): "" when all hold, else e.g. "src/auth.py login changed"."""
    from .. import fsutil

    changed = []
    for cite in parse_cites(cites):
        if not cite.fingerprint:
            continue
        try:
            source = fsutil.read_text(repo / cite.path, root=repo, errors="replace")  # never outside it
        except (OSError, ValueError):
            changed.append(f"{cite.path} gone or moved")
            continue
        lines = cited_lines(source, cite.symbol)
        if lines is None or fingerprint(lines) != cite.fingerprint:
            changed.append(f"{cite.path}{' ' + cite.symbol if cite.symbol else ''} changed")
    return ", ".join(changed)


def summary_line(freshness: dict[str, Any] | None) -> str:
    """One short line for a hit that is not fresh ("" for fresh or unknown)."""
    if not freshness or freshness.get("state") in (None, "fresh", "unknown"):
        return ""
    parts = []
    for cite in freshness.get("cited", []):
        if cite["state"] in ("fresh", "unknown"):
            continue
        what = f"{cite['path']}" + (f" {cite['symbol']}" if cite.get("symbol") else "")
        if cite["state"] == "moved":
            parts.append(f"{what} moved to {cite['moved_to']}")
        elif cite["state"] == "gone":
            parts.append(f"{what} deleted")
        else:
            since = f"{cite['commits_since']} commit(s) since" if cite.get("commits_since") else "edited since"
            last = cite.get("last_change") or {}
            tail = f"; last {last['date']} \"{last['subject']}\"" if last else ""
            parts.append(f"{what} changed ({since}{tail})")
    return f"stale: {'; '.join(parts)}" if parts else ""
