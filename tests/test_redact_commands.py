"""Recorded commands keep only values in a safe shape (#27 item 1, memdown/redact/commands.py)."""
from __future__ import annotations

import random
import string

import pytest

from memdown.redact import redact_structure
from memdown.redact.commands import MARK, redact_command, redact_echoes


def _secret(rng: random.Random) -> str:
    """A password drawn at random on each run: mixed classes, as people and generators make them."""
    body = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(8, 16)))
    return body[:3] + rng.choice("!#%+,.:@^_~") + rng.choice(string.digits) + body[3:]


# {pw} is where the password goes: programs nobody listed in a format table, positional and glued.
SHAPES = [
    "sqlcmd -S db.local -U sa -P '{pw}' -Q 'select 1'", "unzip -P '{pw}' backup.zip", "mysql -uroot -p'{pw}' app",
    "mysqldump -u root --password='{pw}' app > dump.sql", "sshpass -p '{pw}' ssh deploy@host", "zip -P '{pw}' a.zip a",
    "curl -u 'admin:{pw}' https://api.example.com/v1", "htpasswd -b .htpasswd admin '{pw}'",
    "echo '{pw}' | sudo -S apt-get update", "printf '%s' '{pw}' | docker login -u me --password-stdin",
    "redis-cli -a '{pw}' ping", "ldapsearch -x -D cn=admin -w '{pw}' -b dc=x", "7z x -p'{pw}' a.7z",
    "keytool -list -storepass '{pw}'", "openssl enc -d -aes256 -k '{pw}' -in x", "psql 'postgresql://app:{pw}@db/app'",
    "git clone 'https://bob:{pw}@git.example.com/x.git'", "smbclient //srv/share -U 'bob%{pw}'",
    "mongosh --username admin -p '{pw}'", "some-tool --db-password '{pw}' run", "rabbitmqctl add_user admin '{pw}'",
    "net user admin '{pw}' /add", "vault login '{pw}'", "cat <<< '{pw}'", "DB_PASS='{pw}' ./migrate.sh",
    "docker run -e 'POSTGRES_PASSWORD={pw}' postgres", "mytool --secret='{pw}'", "wget --password='{pw}' https://x/f",
    # session 7: a Windows-style flag, a comma pair, a usage position, a key before its value, sudo before chpasswd
    "xfreerdp /v:10.0.0.2 /u:admin /p:'{pw}'", "lftp -u 'uploader,{pw}' sftp://files.example.org",
    "rdesktop -u admin -p '{pw}' 10.0.0.5", "wpa_passphrase HomeNet '{pw}'", "echo 'deploy:{pw}' | sudo chpasswd",
    "git config smtp.password '{pw}'", "npm config set //npm.example.com/:_authToken '{pw}'",
    "pdftk in.pdf output out.pdf user_pw '{pw}'",
]


def test_a_generated_value_with_an_equals_sign_is_no_name_value_pair() -> None:
    # xjqIT8K6QEXM=@YiF7 was kept as NAME=value with a safe value; a name must read as a name
    assert redact_command("tool --opt 'xjqIT8K6QEXM=@YiF7'") == "tool --opt '[REDACTED:arg]'"
    assert redact_command("make CFLAGS=-O2 BUILD_DIR=out") == "make CFLAGS=-O2 BUILD_DIR=out"


@pytest.mark.parametrize("shape", SHAPES)
def test_a_password_on_a_command_line_is_never_recorded(shape: str) -> None:
    for seed in range(20):  # 20 draws per shape, the same each run (a failure is reproducible)
        rng = random.Random(f"{shape}{seed}")
        pw = _secret(rng)
        shown = redact_command(shape.format(pw=pw))
        assert pw not in shown and MARK in shown, shown


KEPT = ["git commit -m 'Fix the login bug for user42 (#17)'", "git push origin +main", "git checkout 3f9a2b1c",
        "ls -la src/app.py && cd /tmp", "pip install requests==2.31.0", "sed -i s/foo/bar/g file.txt",
        "python -c 'import os; print(os.getcwd())'", "grep -rn 'def foo(' src/", "npm run build -- --port 3000",
        "git log --format='%H %s' -n 5", "ssh -i ~/.ssh/id_ed25519 deploy@host.example.com", "mysql -u root -p app",
        "docker run -p 8080:80 -v $PWD:/app node:20", "kubectl get pods -n kube-system -o wide",
        "curl -sSfL https://example.com/install.sh | sh", "export PATH=$HOME/.local/bin:$PATH",
        "git diff HEAD~1 -- i18n/en.json", "sha256sum dist/app-1.2.3.tar.gz", "mysql -u root -p\"$DB_PASS\" app",
        "echo $TOKEN | docker login --password-stdin", "cat 550e8400-e29b-41d4-a716-446655440000.json",
        "grep -rn password src/", "rg token *.py", "grep -n secret_key settings.py", "git config --get user.name"]


@pytest.mark.parametrize("command", KEPT)
def test_safe_shapes_are_kept_as_typed(command: str) -> None:
    assert redact_command(command) == command


def test_every_writer_of_a_command_masks_it_and_a_failure_echo_too() -> None:
    pw = "Zq8!vR2#kLm9"
    command = f"sqlcmd -S db -U sa -P '{pw}' -Q 'select 1'"
    assert pw not in str(redact_structure({"tool_input": {"command": command}}))
    assert pw not in redact_echoes(f"Login failed for sa using {pw}: {command}", command)
    from memdown.learning.fixes import _input_summary
    from memdown.services.capture.summarize import _command_text
    from memdown.transcript.content import classify_user

    assert pw not in _input_summary("Bash", {"command": command}) and pw not in _command_text(command)
    kind, text = classify_user({"type": "user", "message": {"role": "user", "content": f"<bash-input>{command}</bash-input>"}})
    assert text.startswith("!sqlcmd") and pw not in text


# A command typed or quoted outside a Bash tool input: the same rule, wherever the line sits (#27.1).
PLACES = ["{cmd}", "please run this:\n{cmd}\nthanks", "Here is what I ran:\n```\n{cmd}\n```", "$ {cmd}",
          "<bash-input>{cmd}</bash-input>", "The user gave {cmd} earlier, so I should use it.",
          "     3\t{cmd}", "- run `{cmd}` first", "Check whether this works: {cmd}"]


@pytest.mark.parametrize("place", PLACES)
def test_a_command_inside_text_loses_its_password_too(place: str) -> None:
    from memdown.redact import redact

    for shape in SHAPES:
        if "<<<" in shape or place.startswith("The user") and "|" in shape:
            continue  # a here-string, or mid-sentence a pipeline: no start to read it from
        rng = random.Random(f"{place}{shape}")
        pw = _secret(rng).replace("`", "x")
        text = place.format(cmd=shape.format(pw=pw))
        shown = redact(text)
        assert pw not in shown, (text, shown)
        assert redact(shown) == shown  # idempotent


@pytest.mark.parametrize("text", [
    "use net user to list accounts, then vault login with your token",
    "put DB_PASSWORD here and restart; set user_pw in config.yaml first",
    "Use `git log --oneline -n 5` to see the history, then `git show HEAD~1`.",
    "I ran pytest -x tests/test_app.py and 3 tests failed: test_login, test_logout.",
    "The password is required; run the tool with --password-file ~/.pw instead.",
    "- grep -rn 'password|secret' src/ | head", "ls -la /tmp | sort -k5 > sizes.txt",
])
def test_ordinary_text_with_commands_stays(text: str) -> None:
    from memdown.redact import redact

    assert redact(text) == text


@pytest.mark.parametrize("command", [
    "ldappasswd -x -D cn=admin,dc=corp -W -s {pw} uid=jdoe",  # a password letter: kept as a "glob" before
    "sshpass -p {pw} ssh deploy@host",
    "lftp -u uploader,{pw} sftp://files.example.org",  # the user part ends at the first separator
    "smbclient //srv/share -U bob%{pw}",
    "curl -u bob:{pw} https://api.example.com",
])
def test_a_password_holding_glob_or_separator_characters_is_masked_whole(command: str) -> None:
    """A password with ``*``/``?`` after a program's password letter was kept as a file glob
    (``_weak_flag_keeps`` judged every flag not strongly named), and ``user,pw`` lost only what
    follows the pw's own ``%``. Mutations: ``!= "weak"`` back to ``== "strong"``, or the separators
    tried in a fixed order -> red."""
    rng = random.Random(command)
    for _ in range(30):
        body = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(12))
        pw = body[:4] + rng.choice("*?%:,") + body[4:8] + rng.choice("*%!") + body[8:]
        shown = redact_command(command.format(pw=pw))
        assert all(piece not in shown for piece in (body[:4], body[4:8], body[8:])), shown
