"""Claude Code hook handlers. ``runner.main`` is the fail-open entry point.

Nothing here imports lancedb, fastembed, pyarrow or numpy; slow work is
handed to a detached ``memdown worker`` process.
"""

# The most hook JSON read from stdin (a client's payload is far smaller); a larger one is not read, not cut: half
# a payload is not JSON, and a guessed one is worse. Here, shared by the runner and the PreToolUse short path.
MAX_STDIN = 8 << 20
TOO_BIG = "payload over "


def too_big(limit: int = MAX_STDIN) -> str:
    """The hook log's words for a payload that was not read."""
    return f"{TOO_BIG}{limit >> 20} MB; not read, answered {{}}"
