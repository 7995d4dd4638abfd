"""Settings every quality benchmark (retrieval, conversations) shares."""
from __future__ import annotations


def every_vector(config) -> None:
    """Quality figures are taken on a complete index. A build that would embed more than
    ``index.defer_vectors_above`` chunks otherwise returns text-first and fills vectors in a
    detached process, and a search right after it ranks most rows by full text alone."""
    config.values["index"]["defer_vectors_above"] = 1 << 62
