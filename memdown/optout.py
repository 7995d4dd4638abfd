"""The opt-out marker: a text carrying ``<memdown:skip>`` is never recorded.

Its own tiny module (standard library only) so the prompt hook can check it
without importing the redaction rules (tens of ms); ``memdown.redact``
re-exports it.
"""
from __future__ import annotations

from .lazyre import IGNORECASE, LazyPattern, ascii_phrase_found

SKIP_MARKER = "<memdown:skip>"
# Compiled only for text that is not ASCII (``ascii_phrase_found``): the prompt hook imports no ``re`` for the rest.
_SKIP_RE = LazyPattern("<memdown:skip>", IGNORECASE)  # SKIP_MARKER has no character re treats as special


def should_skip(text: str) -> bool:
    """True when ``text`` carries the opt-out marker: record nothing."""
    if not text:
        return False
    found = ascii_phrase_found(text, (SKIP_MARKER,))
    return found if found is not None else _SKIP_RE.search(text) is not None
