"""Claude Code hook handlers. ``runner.main`` is the fail-open entry point.

Nothing here imports lancedb, fastembed, pyarrow or numpy; slow work is
handed to a detached ``memdown worker`` process.
"""
