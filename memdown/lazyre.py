"""One regular expression compiled on its first use, for modules every hook imports (``fence``) and
for the redactor's big tables: importing them compiles nothing, and a process pays for a pattern
only once it uses it. Standard library only."""
from __future__ import annotations

TYPE_CHECKING = False  # ``re`` itself is imported on the first compile: it brings ``enum`` (~27 M instructions)
if TYPE_CHECKING:
    import re

IGNORECASE = 2  # re.IGNORECASE (tests/test_wirejson.py checks it), for patterns declared without importing re


class LazyPattern:
    """``re.compile(source, flags)`` on first use; every method of the compiled pattern works on it."""

    __slots__ = ("_source", "_flags", "_compiled")

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source, self._flags, self._compiled = source, flags, None

    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            import re

            self._compiled = re.compile(self._source, self._flags)
        return self._compiled

    # The calls the scanners make in loops, without __getattr__'s detour.
    def search(self, *args) -> re.Match[str] | None:
        return self.compiled().search(*args)

    def match(self, *args) -> re.Match[str] | None:
        return self.compiled().match(*args)

    def finditer(self, *args):
        return self.compiled().finditer(*args)

    def __getattr__(self, name: str):  # sub, findall, pattern, ...: the compiled pattern's own
        return getattr(self.compiled(), name)


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"  # ``\w`` on an ASCII character


def ascii_phrase_found(text: str, phrases: tuple[str, ...], whole_words: bool = False) -> bool | None:
    """Whether ``re.compile("|".join(phrases), IGNORECASE)`` (with ``\\b`` around it when ``whole_words``) finds
    something in ``text``, decided without ``re`` when ``text`` is ASCII; None when it is not (compile then).

    On ASCII text ``IGNORECASE`` is ``str.lower`` (its other equivalences, the Kelvin sign for ``k`` or ``ſ``
    for ``s``, pair an ASCII letter with a non-ASCII one), so a lowercase phrase is found by ``str.find``;
    ``\\b`` beside a phrase that starts and ends with a word character is a non-word character or the end.
    The hook that checks every prompt (UserPromptSubmit) then imports no ``re`` (and no ``enum``) for most.
    """
    if not text.isascii():
        return None
    low = text.lower()
    for phrase in phrases:
        at = low.find(phrase)
        while at >= 0:
            end = at + len(phrase)
            if not whole_words or ((at == 0 or not _word_char(low[at - 1]))
                                   and (end == len(low) or not _word_char(low[end]))):
                return True
            at = low.find(phrase, at + 1)
    return False
