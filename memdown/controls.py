"""Terminal control characters: removed from what memdown writes, escaped in what it prints.

Recorded text (a pasted prompt, an answer, a tool's output, a committed file's name) can hold bytes a
terminal obeys: ESC sequences (CSI ``ESC [``, OSC ``ESC ]`` such as OSC 52 clipboard writes and title
changes, DCS ``ESC P``, SOS/PM/APC, two-byte escapes such as ``ESC c``, a full reset), their 8-bit C1
forms (``\\x9b`` is CSI), BEL, backspace, a lone carriage return that overwrites a line, DEL. Two rules,
each in one place:

- **Written: removed.** :func:`strip` drops every whole sequence (introducer, parameters, payload and
  terminator) and then every other C0 control but tab and newline (a CR stays only before a newline, so
  a CRLF file keeps its line ends), DEL and C1. ``fsutil.encode_text`` applies it to every text the file
  layer writes (day files, signals, learnings, improvements, the ledgers, state, logs, CLAUDE.md); the
  entry writer (``store.daily``) applies it too, so the ledger of written entries holds what the day file
  holds. An unterminated string sequence (OSC/DCS/… without BEL or ST on its line) loses only its
  introducer: a stray ``ESC ]`` cannot swallow the rest of a file.
- **Printed: escaped, visibly.** :func:`printable` shows each control character but tab and newline as
  ``\\u001b`` (``\\u009b``, ``\\u007f``, ``\\u000d``): the notation of JSON and Python, so a JSON document
  printed this way is still valid JSON with the same data (``json.dumps`` already writes C0 so; C1 and
  DEL it leaves raw), and a person sees that something was there. :class:`InertStream` applies it to
  every write; ``memdown.entry.main`` puts it in front of stdout and stderr before any command runs
  (click or the daemon fast path; terminal or pipe; text, JSON, errors, notices). memdown's own
  progress bar is the one writer of escapes, and writes them to the stream under the wrapper
  (:func:`raw_stream`), its text escaped.

Standard library only, nothing compiled at import (the entry point imports it for every command).
"""
from __future__ import annotations

import io

from .lazyre import LazyPattern

TYPE_CHECKING = False
if TYPE_CHECKING:  # not at run time: importing typing costs every hook
    from typing import Any, Callable

# Whole escape sequences, longest forms first (ECMA-48):
# - string sequences OSC/DCS/SOS/PM/APC, 7-bit (ESC ] P X ^ _) or 8-bit (9d 90 98 9e 9f), payload up to
#   BEL or ST (ESC \ or 9c) on the same line; the payload stops at any control, so a scan is linear;
# - CSI, 7-bit (ESC [) or 8-bit (9b): parameter bytes, intermediate bytes, a final byte;
# - any other ESC: intermediates (ESC ( B, ESC # 8) then one final byte (ESC c, ESC 7, ESC =).
SEQUENCES = LazyPattern(
    r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x00-\x1f\x7f-\x9f]*(?:\x07|\x1b\\|\x9c)"
    r"|(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|\x1b[ -/]*[0-~]"
)
# What starts a sequence: ESC and the 8-bit introducers.
INTRODUCERS = LazyPattern(r"[\x1b\x90\x98\x9b\x9d\x9e\x9f]")
# Every other control: C0 but tab and newline (a CR only before a newline survives a write), DEL, C1.
_LEFT_OVER = LazyPattern(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)")
# Format characters (Unicode Cf) a terminal lays out without showing: bidi embeddings, overrides, isolates and
# marks reorder the line around them (Trojan Source: "\u202e" makes `evil` read `live`), and zero-width spaces,
# word joiners, invisible operators, BOMs, tag characters and the soft hyphen hide text. The zero-width
# (non-)joiners U+200C/U+200D stay: Persian, Indic scripts and emoji sequences need them and they move nothing.
# Line and paragraph separators end a line for some terminals. tests/attack/test_terminal_format.py walks
# every Cf code point of the running Python.
FORMAT = ("\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b\u200e\u200f\u2028-\u202e"
          "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
          "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f")
# What a print escapes: every control character but tab and newline, and the format characters above.
_SHOWN = LazyPattern("[\x00-\x08\x0b-\x1f\x7f-\x9f" + FORMAT + "]")


def _plain(text: str) -> bool:
    """True when ``text`` has no control character at all (tab and newline aside): the usual case."""
    # Lines end in a newline and code has tabs: without them, printable text needs no pattern (a log line
    # compiles none, so a hook never imports ``re`` for it).
    return text.isprintable() or text.replace("\n", "").replace("\t", "").isprintable() or not _SHOWN.search(text)


def strip(text: str) -> str:
    """``text`` without escape sequences and control characters (tab, newline and CRLF stay)."""
    if _plain(text):
        return text
    return _LEFT_OVER.sub("", SEQUENCES.sub("", text))


def printable(text: str) -> str:
    """``text`` with every control character but tab and newline, and every format character that reorders or
    hides text (``FORMAT``), shown as ``\\uXXXX``; nothing else changes."""
    if _plain(text):
        return text
    return _SHOWN.sub(_escaped, text)


def _escaped(match: Any) -> str:
    """One character as JSON writes it: ``\\uXXXX``, a surrogate pair above U+FFFF (JSON stays JSON)."""
    code = ord(match.group(0))
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


class InertStream(io.TextIOBase):
    """A text stream that writes through :func:`printable` (or a stricter ``transform`` that also escapes
    control characters, such as the recorded-output gate's line cleaner): what it passes on cannot drive a terminal."""

    def __init__(self, target: Any, transform: Callable[[str], str] | None = None) -> None:
        self.target = target
        self.transform = transform or printable

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):  # click probes streams with b"": a text stream must refuse it
            raise TypeError("write() argument must be str")
        self.target.write(self.transform(text))
        return len(text)

    def flush(self) -> None:
        self.target.flush()

    def isatty(self) -> bool:
        return bool(self.target.isatty())

    def fileno(self) -> int:  # cli.failure.stdout_closed polls the real pipe
        return int(self.target.fileno())

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return str(getattr(self.target, "encoding", None) or "utf-8")

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.target, "errors", None)


# Commands that speak a protocol to a program, not text to a person: ``memdown mcp`` (JSON-RPC on stdio; the
# SDK claims the file descriptor and its buffer, and its JSON escapes C0 itself). ``hook`` and ``worker``
# never reach the wrapper either (their answer is JSON for the client, their output a log).
PROTOCOL_COMMANDS = frozenset({"mcp"})


def raw_stream(stream: Any) -> Any:
    """The stream under any :class:`InertStream` wrapping: only for memdown's own escapes (a progress bar)."""
    while isinstance(stream, InertStream):
        stream = stream.target
    return stream


def install() -> None:
    """Put :class:`InertStream` in front of stdout and stderr (once; the entry point calls it)."""
    import sys

    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, InertStream):
            setattr(sys, name, InertStream(stream))
