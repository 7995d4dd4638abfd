"""Typed errors of the memdown library.

The CLI turns every one of these into a one-line message and the exit code
named by ``exit_code``; nothing else in the package prints tracebacks.
"""
from __future__ import annotations


class MemdownError(Exception):
    """Base class: a problem the user can act on, told in one line."""

    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint

    def one_line(self) -> str:
        text = str(self).replace("\n", " ").strip()
        return f"{text} ({self.hint})" if self.hint else text


class UsageError(MemdownError):
    """Bad arguments or input the caller controls."""

    exit_code = 2


class NotInitializedError(MemdownError):
    """No memory root exists where one was expected."""

    exit_code = 3


class ConfigError(MemdownError):
    """The config file or a config value is invalid."""

    exit_code = 2


class ModelUnavailableError(MemdownError):
    """The embedding model cannot be loaded offline."""

    exit_code = 4


class IndexUnavailableError(MemdownError):
    """The index is missing, corrupted or incompatible and was not rebuilt."""

    exit_code = 5


class VectorsPendingError(IndexUnavailableError):
    """The index still has rows whose vectors are being filled in (a text-first build); not shareable yet."""


class NotFoundError(MemdownError):
    """An id, session or file that matches nothing."""

    exit_code = 6


class AmbiguousIdError(UsageError):
    """An id prefix that matches several chunks."""


class InputFileError(MemdownError):
    """A file that cannot be read as text (binary, invalid UTF-8, too large)."""

    exit_code = 7


class SpecialFileError(InputFileError):
    """A FIFO, device, socket or directory where a regular file was expected (refused, never read)."""


class LockTimeoutError(MemdownError):
    """Another process held a lock for longer than we were willing to wait."""

    exit_code = 8


class EditConflictError(LockTimeoutError):
    """A file kept changing under a read-modify-write (someone else saves it constantly); retried later."""


class NotApprovedError(MemdownError):
    """A change to CLAUDE.md that no one approved on this machine (repository memory is untrusted)."""

    exit_code = 9


class AgentRefusedError(MemdownError):
    """A command that changes a person's settings, rules or approvals, run from an agent's shell (see cli/agentsafe)."""

    exit_code = 11


class NotATranscriptError(InputFileError):
    """A path ``memdown transcript`` refuses: not a Claude Code transcript it may read."""


class SnapshotError(InputFileError):
    """An index snapshot that cannot be used (not a snapshot, corrupt, incomplete); the local index is untouched."""


class SnapshotMismatchError(MemdownError):
    """An index snapshot built with another embedding model or other index settings."""

    exit_code = 10
