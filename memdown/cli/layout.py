"""``memdown init`` (the memory layout) and ``memdown merge-file`` (its git merge driver)."""
from __future__ import annotations

from pathlib import Path

import click

from .common import dir_option, json_option, print_json, resolve_root

_EXISTING_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


@click.command()
@dir_option
@json_option
def init(memory_dir: Path | None, as_json: bool) -> None:
    """Create the memory layout (.memdown/ with memory/ and a .gitignore)."""
    from ..store.layout import init_layout

    root = resolve_root(memory_dir)
    created = init_layout(root, register_driver=True)
    if as_json:
        print_json({"root": str(root), "created": created})
        return
    click.echo(f"memory root: {root}")
    for item in created:
        click.echo(f"  created {item}")
    click.echo("Write markdown under memory/, then run `memdown index`.")


@click.command("merge-file")
@click.argument("base", type=_EXISTING_FILE)
@click.argument("ours", type=_EXISTING_FILE)
@click.argument("theirs", type=_EXISTING_FILE)
@click.argument("merged_path", required=False, default=None)
def merge_file(base: Path, ours: Path, theirs: Path, merged_path: str | None) -> None:
    """Git merge driver (set up by `memdown init`): merge memory files entry by entry into OURS.

    MERGED_PATH (git's %P) must be a memory file under the memory root; any other file (a
    `* merge=memdown` line would send code here) gets git's own line merge, conflicts marked.
    """
    from ..services.upkeep.merge import is_memory_file, merge_files, plain_merge

    if not is_memory_file(merged_path, Path.cwd()):
        click.echo(f"memdown: not a memory file, merged by git's own rules: {merged_path}", err=True)
        if not plain_merge(base, ours, theirs):
            click.get_current_context().exit(1)
        return
    if not merge_files(base, ours, theirs):
        click.echo(f"memdown: an entry was changed on both sides; marked in {ours}", err=True)
        click.get_current_context().exit(1)


COMMANDS = (init, merge_file)
