"""Learning signals: detection (phrase tables + tool-call patterns), mining and markdown storage.

``mining.mine_session`` is the hook-facing entry point. Nothing here imports
lancedb, fastembed, pyarrow or numpy.
"""
