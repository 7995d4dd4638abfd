"""The markdown store: reading memory files, chunking, anchors, kinds, daily logs."""
