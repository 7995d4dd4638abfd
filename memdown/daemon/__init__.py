"""The live index: a single-writer watch daemon that also answers queries warm."""
