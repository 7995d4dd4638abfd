"""``memdown forget``: remove an entry, a session, a day or every entry matching a text, everywhere
memdown keeps it (``services.upkeep.forget``). It shows what it will remove and asks first, unless ``--yes``."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from .common import dir_option, json_option, open_memory, print_json

_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


@click.command("forget")
@click.argument("ids", nargs=-1)
@click.option("--session", default="", help="Forget every entry of this session (an id or a unique prefix) and "
                                            "its whole archived transcript.")
@click.option("--day", default="", help="Forget every entry of this day (YYYY-MM-DD).")
@click.option("--text", default="", help="Forget every entry holding this text (case-insensitive).")
@click.option("--yes", is_flag=True, help="Do not ask (required when no terminal can answer).")
@dir_option
@json_option
def forget_cmd(ids: tuple[str, ...], session: str, day: str, text: str, yes: bool, memory_dir: Path | None,
               as_json: bool) -> None:
    """Forget entries: IDS are search hit ids or turn uuids. The markdown keeps a tombstone line (no
    content); the index, the embedding cache, the healing ledger, signals and the archived transcript lose
    them, and nothing writes them back."""
    from ..errors import NotFoundError, UsageError
    from ..services.upkeep.forget import describe, forget, plan_forget

    if day and not _DAY.fullmatch(day):
        raise UsageError(f"--day takes YYYY-MM-DD, not {day!r}")
    mem = open_memory(memory_dir)
    plan = plan_forget(mem, ids=ids, session=session, day=day, text=text)
    if not plan.entries and not plan.signals:
        raise NotFoundError("nothing to forget: no entry matches")
    if not yes:
        if not sys.stdin.isatty():
            raise UsageError("forget removes memory for good: run it at a terminal to confirm, or add --yes")
        for line in describe(plan, mem.root):
            click.echo(f"  {line}", err=True)
        click.confirm(f"Forget {len(plan.entries)} entr(ies) everywhere memdown keeps them?", abort=True, err=True)
    report = forget(mem, plan)
    if as_json:
        print_json({**plan.to_dict(mem.root), "removed": report.to_dict()})
        return
    click.echo(f"forgot {report.entries} entr(ies), {report.signals} signal(s), {report.archives} archived "
               f"transcript(s); {report.vectors} cached vector(s) dropped, {report.index_files} file(s) re-indexed")


COMMANDS = (forget_cmd,)
