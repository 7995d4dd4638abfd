"""memdown: markdown-first memory for coding agents.

The public API lives in :mod:`memdown.api`; importing this package stays
cheap (no lancedb, fastembed, pyarrow or numpy) so hooks and ``--help`` are fast.
"""
__version__ = "0.1.0"
