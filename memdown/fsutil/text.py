"""Text that can always be written, and cannot drive a terminal: lone UTF-16 surrogates repaired and
terminal controls removed (``controls.strip``) once, here: every text the file layer writes passes
``encode_text``."""
from __future__ import annotations

from ..controls import strip as strip_controls


def clean_text(text: str) -> str:
    """``text`` with lone UTF-16 surrogates replaced by U+FFFD (valid pairs are joined).

    JSON may escape half an emoji (``"\\ud83d"``) and ``surrogateescape``
    decoding leaves ``\\udcXX``; neither can be written as UTF-8, so they are
    repaired once, here, instead of failing a write.
    """
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def clean_json(value: object) -> object:
    """``value`` (parsed JSON) with every string passed through ``clean_text``."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_text(k): clean_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean_json(v) for v in value]
    return value


def encode_text(text: str) -> bytes:
    """UTF-8 bytes of ``text`` without terminal controls (escape sequences, C0 but tab and newline, DEL,
    C1; see ``controls``); lone surrogates become U+FFFD instead of raising."""
    text = strip_controls(text)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return clean_text(text).encode("utf-8")
