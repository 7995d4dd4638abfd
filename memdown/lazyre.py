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
