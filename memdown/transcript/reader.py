"""Byte-exact, fault-tolerant reading of JSONL transcripts (plain or gzip).

Standard library only: hooks call this on their fast path.

Offsets are byte offsets into the *decompressed* stream, so one offset scheme
works for a live ``.jsonl`` and for its ``.jsonl.gz`` archive copy.
"""
from __future__ import annotations

import json
import os
import re
import stat
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from ..errors import InputFileError, NotFoundError, SpecialFileError
from .. import fsutil
from ..fsutil import RefusedFileError, clean_json
from ..fsutil.gz import BoundedGzip

GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"
# A single transcript line can hold a whole file read or an image as base64;
# tens of MB is plausible, hundreds is a corrupt file we refuse to hold in memory.
MAX_LINE_BYTES = 64 * 1024 * 1024
_SNIFF_BYTES = 8192
_SURROGATE_ESCAPE = re.compile(r"\\[uU][dD][89a-fA-F]")


def open_stream(path: Path) -> BinaryIO:
    """Open ``path`` for binary reading, transparently gunzipping.

    Raises ``NotFoundError`` for a missing file and ``InputFileError`` for
    anything else we cannot open, so callers never see a raw ``OSError``.
    """
    path = Path(path)
    try:
        # The file layer opens with O_NONBLOCK (a FIFO must not wait for a writer) and no link, and checks
        # the type on the opened descriptor, so a swapped-in special file is caught too.
        fd, _st = fsutil.open_file(path, os.O_RDONLY, links_ok=True)
    except FileNotFoundError:
        raise NotFoundError(f"transcript not found: {path}") from None
    except SpecialFileError:
        raise
    except OSError as exc:
        raise InputFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise SpecialFileError(f"{path} is {_kind(mode)}, not a transcript file")
        os.set_blocking(fd, True)
        handle = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    try:
        magic = handle.read(2)
        handle.seek(0)
    except OSError as exc:
        handle.close()
        raise InputFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    if magic == GZIP_MAGIC:
        # Sniff by content, not suffix: an archived copy may be renamed. Bounded: a gzip bomb stops at
        # fsutil.gz's limit with one line (TooLargeError), never read whole.
        return BoundedGzip(handle, path, os.fstat(handle.fileno()).st_size)  # type: ignore[return-value]
    return handle


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a special file"


def decode_line(raw: bytes) -> dict | None:
    """One JSONL line to a dict, or None when it is not a JSON object.

    Bad text is repaired rather than rejected: invalid UTF-8 bytes and lone
    UTF-16 surrogates escaped in the JSON (``\\ud83d``, half an emoji) become
    U+FFFD, so one bad character never costs the entry, or the session's
    later turns (a lone surrogate cannot be written as UTF-8 downstream).
    """
    # A NUL run (a crash mid-append) may sit before the next writer's line: it is not part of it.
    # A UTF-8 byte order mark (a file saved by an editor or tool that writes one) is not part of the JSON.
    text = raw.strip(b"\x00 \t\r\n").removeprefix(_BOM).decode("utf-8", errors="replace")
    if not text:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict):
        return None
    if "\\u" in text and _SURROGATE_ESCAPE.search(text):
        value = clean_json(value)
    return value  # type: ignore[return-value]


class LineReader:
    """Iterate ``(offset, end, entry)`` over complete lines from ``start_offset``.

    ``entry`` is None for a complete line that is not a JSON object (counted in
    ``bad_lines``). A trailing line without a newline is yielded only when it
    already parses (some writers omit the final newline); otherwise it is
    assumed to be mid-write, left unread and flagged by ``truncated_tail``.
    ``end_offset`` is the offset just after the last line consumed, i.e. where
    an incremental reader should resume.
    """

    def __init__(self, path: Path, start_offset: int = 0) -> None:
        self.path = Path(path)
        self.start_offset = max(0, int(start_offset))
        self.end_offset = self.start_offset
        self.bad_lines = 0
        self.good_lines = 0
        self.truncated_tail = False
        self.binary_head = False  # NUL bytes in the first 8 KB (binary, or a crash's NUL run)

    def __iter__(self) -> Iterator[tuple[int, int, dict | None]]:
        stream = open_stream(self.path)
        try:
            yield from self._read(stream)
        except RefusedFileError:  # a gzip bomb: refused with its own line, not taken for a torn tail
            raise
        except (OSError, EOFError, zlib.error) as exc:
            # A truncated or corrupt gzip member: keep what we already yielded.
            if self.good_lines == 0 and self.start_offset == 0:
                raise InputFileError(f"cannot read {self.path}: {exc}") from None
            self.truncated_tail = True
        finally:
            stream.close()

    def _read(self, stream: BinaryIO) -> Iterator[tuple[int, int, dict | None]]:
        if self.start_offset:
            stream.seek(self.start_offset)
        else:
            # NUL never occurs in JSON text, but a crash mid-append leaves a run of them in a real
            # transcript: only a file where no line parses is called binary (parser.parse_transcript).
            self.binary_head = b"\x00" in stream.read(_SNIFF_BYTES)
            stream.seek(0)
        pos = self.start_offset
        while True:
            line = stream.readline(MAX_LINE_BYTES)
            if not line:
                return
            if not line.endswith(b"\n"):
                if len(line) >= MAX_LINE_BYTES:
                    skipped, complete = self._skip_rest(stream, len(line))
                    if not complete:
                        self.truncated_tail = True
                        return
                    self.bad_lines += 1
                    pos += skipped
                    self.end_offset = pos
                    continue
                entry = decode_line(line)
                if entry is not None:
                    self.good_lines += 1
                    end = pos + len(line)
                    self.end_offset = end
                    yield pos, end, entry
                elif line.strip():
                    self.truncated_tail = True
                return
            end = pos + len(line)
            if line.strip():
                entry = decode_line(line)
                if entry is None:
                    self.bad_lines += 1
                else:
                    self.good_lines += 1
                self.end_offset = end
                yield pos, end, entry
            else:
                self.end_offset = end
            pos = end

    @staticmethod
    def _skip_rest(stream: BinaryIO, already: int) -> tuple[int, bool]:
        """Discard the rest of an oversized line; return (bytes, ended with newline)."""
        skipped = already
        while True:
            chunk = stream.readline(MAX_LINE_BYTES)
            skipped += len(chunk)
            if not chunk:
                return skipped, False
            if chunk.endswith(b"\n"):
                return skipped, True


def iter_entries(path: Path, start_offset: int = 0) -> Iterator[tuple[int, dict]]:
    """Yield ``(byte offset, entry)`` for every JSON-object line from ``start_offset``.

    Corrupt lines are skipped; a trailing partial line is not read.
    """
    for offset, _end, entry in LineReader(path, start_offset):
        if entry is not None:
            yield offset, entry
