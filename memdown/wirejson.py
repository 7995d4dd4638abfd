"""JSON for the hook fast path: the standard library's own C codec (``_json``), without ``import json``.

``import json`` compiles regular expressions at import (``json.decoder``, ``json.encoder``), which brings
``re`` and with it ``enum``: about 34 M instructions, a third of a capture hook's whole run. The C scanner
and encoder that ``json`` itself uses need none of that, so ``loads`` and ``dumps`` here give exactly what
``json.loads`` and ``json.dumps`` give (``tests/test_wirejson.py`` compares them). Anything the fast path
does not handle (invalid JSON, a BOM, an object ``json`` refuses, an interpreter without ``_json``) goes to
``json`` itself, so errors are ``json``'s own. Standard library only.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

try:
    import _json
except ImportError:  # pragma: no cover - an interpreter without the accelerator: plain json everywhere
    _json = None  # type: ignore[assignment]

_SPACE = " \t\n\r"  # json.decoder.WHITESPACE
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _Context:
    """The attributes ``_json.make_scanner`` reads from a ``json.JSONDecoder()`` with its defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = staticmethod(_CONSTANTS.__getitem__)


_scan = _json.make_scanner(_Context()) if _json is not None else None


def loads(text: str | bytes) -> Any:
    """``json.loads(text)``: a ``str``, or ``bytes`` in UTF-8 (other encodings and BOMs go to ``json``)."""
    if isinstance(text, (bytes, bytearray)):
        # json.detect_encoding says "utf-8" for these: no BOM, no NUL in the first four bytes
        if text.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")) or b"\x00" in text[:4]:
            import json

            return json.loads(text)
        text = text.decode("utf-8", "surrogatepass")
    if _scan is None:
        import json

        return json.loads(text)
    start, size = _skip(text, 0), len(text)
    try:
        value, end = _scan(text, start)
    except (StopIteration, SystemError):  # not a JSON value: json says where and why. An error inside a string
        value, end = None, -1              # is raised through json.decoder, only once that is loaded (else SystemError)
    if end < 0 or _skip(text, end) != size:
        import json

        return json.loads(text)  # raises json's own error (extra data, a BOM, ...)
    return value


def _skip(text: str, at: int) -> int:
    size = len(text)
    while at < size and text[at] in _SPACE:
        at += 1
    return at


def _default(value: object) -> object:
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


def dumps(value: Any, *, ensure_ascii: bool = True) -> str:
    """``json.dumps(value, ensure_ascii=...)`` with every other argument at its default."""
    if _json is not None:
        try:
            encode = _json.make_encoder({}, _default, _json.encode_basestring_ascii if ensure_ascii
                                        else _json.encode_basestring, None, ": ", ", ", False, False, True)
        except TypeError:  # pragma: no cover - another interpreter's encoder signature
            encode = None
        if encode is not None:
            return "".join(encode(value, 0))
    import json

    return json.dumps(value, ensure_ascii=ensure_ascii)
