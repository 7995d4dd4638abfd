"""The opt-out marker: a text carrying ``<memdown:skip>`` is never recorded.

Its own tiny module (standard library only) so the prompt hook can check it
without importing the redaction rules (tens of ms); ``memdown.redact``
re-exports it.
"""
from __future__ import annotations

import re

SKIP_MARKER = "<memdown:skip>"
_SKIP_RE = re.compile(re.escape(SKIP_MARKER), re.IGNORECASE)


def should_skip(text: str) -> bool:
    """True when ``text`` carries the opt-out marker: record nothing."""
    return bool(text) and _SKIP_RE.search(text) is not None
