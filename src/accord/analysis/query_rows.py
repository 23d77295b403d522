"""The rows of `accord query`'s views, kept under their old name: they are built by the run
index (`accord.index.rows`), which the query reads."""

from __future__ import annotations

from accord.index.rows import (
    Columns,
    MessageExtractor,
    MessageRow,
    extractor,
    parse,
    register_messages,
)

__all__ = ["Columns", "MessageExtractor", "MessageRow", "extractor", "parse", "register_messages"]
