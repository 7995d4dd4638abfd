"""Keeping the index in step with the markdown: indexing, vectors, verify and repair, snapshots, merge, forget."""
