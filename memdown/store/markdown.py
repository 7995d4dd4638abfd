"""Markdown helpers shared by every store of memory files: a block-structure parser and one-line values.

Signals and learning use them through ``memdown.signals.text`` too; they live
here, in the bottom layer, because the entry store (``store.entries``) needs them.
"""
from __future__ import annotations


def one_line(text: str, limit: int = 0) -> str:
    flat = " ".join(str(text or "").split())
    if limit and len(flat) > limit:
        return flat[: limit - 1].rstrip() + "…"
    return flat


_block_md = None


def block_parser():
    """markdown-it for block structure only (inline content stays raw); built on first use."""
    global _block_md
    if _block_md is None:
        from markdown_it import MarkdownIt

        _block_md = MarkdownIt("commonmark", {"html": True}).disable("inline")
    return _block_md
