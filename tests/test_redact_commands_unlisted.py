"""Commands of programs that no table in ``redact.usages`` names (issue #27 item 1): the rule is by shape.

Every program here is made up, so only the mechanism can mask its secrets: a value glued to a one-letter
flag, a value on a ``\\``-continued line, a command with no flag at all on a line of text, and a random
run of letters that the word judgement (``commands.word_like``, letter pairs) must not take for a word.
"""
from __future__ import annotations

import pytest

from memdown.redact import redact
from memdown.redact.commands import redact_command, word_like

SECRET = "Qz8#mW2pLx9vT4"


@pytest.mark.parametrize("command", [
    f"frobctl -h db01 -u admin -p{SECRET} status",
    f"zorkdump -k{SECRET} --out dump.sql",
    f"quuxsync -a -r -hp{SECRET} src/ dst/",  # a cluster of letters, the value glued to the last
    f"blargcli -PHRAc5m9=9zzRBmx{SECRET[:4]} ping",  # a password holding "="
])
def test_a_value_glued_to_a_one_letter_flag_is_masked_in_any_program(command: str) -> None:
    shown = redact_command(command)
    assert SECRET[:6] not in shown and "HRAc5m9" not in shown
    assert shown.split()[0] in command and "[REDACTED:arg]" in shown


@pytest.mark.parametrize("command", [
    "gcc -O2 -Wall -Wl,-rpath,/usr/lib -I/usr/include/python3.11 -DNDEBUG=1 -std=c++17 -o app app.c",
    "curl -fsSL https://example.org/install.sh",
    "frobctl -uroot -h127.0.0.1 -P3306 -j8 -n5 -ojson",
    "tar -xzvf release-1.2.3.tgz -C /opt",
])
def test_flag_clusters_and_safe_glued_values_stay(command: str) -> None:
    assert redact_command(command) == command
    assert redact(command) == command


def test_a_continued_line_is_one_command_in_prose() -> None:
    text = f"Run this: zorkdump \\\n  --user=backup \\\n  -k'{SECRET}' shop > shop.sql and keep the file."
    shown = redact(text)
    assert SECRET not in shown and SECRET[4:] not in shown
    assert "zorkdump \\\n  --user=backup \\\n" in shown  # the lines and the kept words stay as they were


@pytest.mark.parametrize("line", [
    f"blorpctl connect admin {SECRET}",
    f"     1\tblorpctl connect admin {SECRET}",  # a Read result's numbered line
    "warpctl remote add store http://10.0.0.4:9000 storeadmin fCN02lUUHv98U8eu",
])
def test_a_command_with_no_flag_on_a_line_of_text_is_parsed(line: str) -> None:
    shown = redact(f"the notes say\n{line}\nand that was it")
    assert "[REDACTED:" in shown
    assert SECRET[3:] not in shown and "fCN02lUUHv98U8eu" not in shown
    assert shown.startswith("the notes say\n") and shown.endswith("\nand that was it")


@pytest.mark.parametrize("line", [
    "the build passed on main today after the rebase",
    "pytest tests/test_redact.py -q passed in 3.2s",
    "git log --oneline origin/main..HEAD shows 3 commits",
])
def test_plain_lines_stay(line: str) -> None:
    assert redact(line) == line


@pytest.mark.parametrize("run", ["rwzkmfTKYXQ", "nnnblAO", "kJhGfDsAqWeR", "THRXfEuzq"])
def test_a_random_run_of_letters_is_no_word(run: str) -> None:
    assert not word_like(run)
    assert run not in redact_command(f"frobctl login admin {run}")


@pytest.mark.parametrize("run", ["getUserByIdAndName", "XFrameOptionsMiddleware", "kMDItemDisplayName", "JSONParser",
                                 "GitHub", "macOS", "iPhone", "lastClientMsg", "TypeScript"])
def test_names_people_write_are_words(run: str) -> None:
    assert word_like(run)


@pytest.mark.parametrize("command, secret", [
    ("sqlplus -s app/tiger@//db02.internal:1521/PDB1 @report.sql", "tiger"),
    ("sqlldr userid=scott/tiger@orcl control=load.ctl", "tiger"),
    ("schtasks /create /tn Backup /sc daily /ru CORP\\svc /rp tiger", "tiger"),
    ("pdftotext -upw tiger statement.pdf out.txt", "tiger"),
])
def test_a_word_shaped_password_in_its_usage_place_is_masked(command: str, secret: str) -> None:
    shown = redact_command(command)
    assert secret not in shown and "[REDACTED:arg]" in shown
