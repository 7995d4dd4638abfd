"""The index layer: embeddings and the LanceDB table (a cache of the markdown)."""
