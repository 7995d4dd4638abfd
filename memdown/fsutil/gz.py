"""Bounded decompression: a gzip file is read as a stream, never past a limit on what it decompresses to.

A committed ``.jsonl.gz`` of a few hundred KB can decompress to gigabytes (a gzip bomb). Every gzip
memdown reads goes through :class:`BoundedGzip` (a stream) or :func:`gunzip` (bytes in memory): once the
decompressed size passes :func:`decompressed_limit` of the compressed size, the read stops with
:class:`TooLargeError`, a ``RefusedFileError`` (one line naming the file, exit 7; callers that go on with
other files count it with ``fsutil.notice``). Nothing is decompressed whole before the check.

The limit: at most ``RATIO`` times the compressed size (real Claude Code transcripts compress 1.6x to
14x, 5x on average over the 40 largest in ``../shared/transcripts``), at least ``FLOOR`` (a small
transcript may compress better), never more than ``CEILING``.
"""
from __future__ import annotations

import gzip
import os
import zlib
from typing import BinaryIO

from .safe import RefusedFileError

RATIO = 40
FLOOR = 16 << 20
CEILING = 256 << 20


def decompressed_limit(compressed_size: int) -> int:
    return min(CEILING, max(FLOOR, RATIO * max(0, int(compressed_size))))


def _mb(size: int) -> str:
    return f"{size / (1 << 20):.0f} MB" if size >= 1 << 20 else f"{max(1, size >> 10)} KB"


class TooLargeError(RefusedFileError):
    """A gzip file that decompresses past its limit: refused, one line."""

    def __init__(self, path: str | os.PathLike[str], compressed: int, limit: int) -> None:
        super().__init__(path, f"a gzip file of {_mb(compressed)} that decompresses to more than {_mb(limit)} "
                               f"(memdown reads at most {RATIO}x the compressed size, {_mb(CEILING)} in all)")


class BoundedGzip:
    """A gzip stream (``read``, ``readline``, ``seek``, ``tell``, ``close``) that raises ``TooLargeError``
    before it returns a byte past the limit. ``handle`` is the compressed file, opened by the file layer."""

    def __init__(self, handle: BinaryIO, path: str | os.PathLike[str], compressed_size: int) -> None:
        self._inner = gzip.GzipFile(fileobj=handle, mode="rb")
        self._handle = handle
        self.path, self.compressed = path, compressed_size
        self.limit = decompressed_limit(compressed_size)

    def _room(self, size: int) -> int:
        """How much to ask for: never more than one byte past the limit (that byte proves it is passed)."""
        room = self.limit - self._inner.tell() + 1
        return room if size is None or size < 0 else min(size, room)

    def _check(self, data: bytes) -> bytes:
        if self._inner.tell() > self.limit:
            raise TooLargeError(self.path, self.compressed, self.limit)
        return data

    def read(self, size: int = -1) -> bytes:
        return self._check(self._inner.read(self._room(size)))

    def readline(self, size: int = -1) -> bytes:
        return self._check(self._inner.readline(self._room(size)))

    def seek(self, offset: int, whence: int = 0) -> int:
        if whence == 0 and offset > self.limit:
            raise TooLargeError(self.path, self.compressed, self.limit)
        return self._inner.seek(offset, whence)

    def tell(self) -> int:
        return self._inner.tell()

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            self._handle.close()

    def __enter__(self) -> "BoundedGzip":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def gunzip(data: bytes, path: str | os.PathLike[str]) -> bytes:
    """``data`` (one or more gzip members) decompressed, at most :func:`decompressed_limit` bytes."""
    compressed = len(data)
    limit = decompressed_limit(compressed)
    out: list[bytes] = []
    total = 0
    while data:
        engine = zlib.decompressobj(wbits=31)
        while data:
            piece = engine.decompress(data, limit - total + 1)
            total += len(piece)
            out.append(piece)
            if total > limit:
                raise TooLargeError(path, compressed, limit)
            data = engine.unconsumed_tail
            if engine.eof:
                break
        if not engine.eof:
            raise EOFError("a gzip member ends early")
        data = engine.unused_data.lstrip(b"\x00")  # members may follow, or gzip's trailing padding
    return b"".join(out)
