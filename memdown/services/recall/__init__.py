"""Finding what was recorded: search, fusion, windows, expand, the drill-down, the digest and what a session is told."""
