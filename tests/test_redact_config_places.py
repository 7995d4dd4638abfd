"""Secrets in SQL, credential-file lines and config directives (issue #27.4, session 10).

The placement corpus (bench/secrets/placements/generated.py) names a set of dialects, files and keys; the
cases here are other members of the same classes, in shapes no table there holds: SQL Server's ``CREATE
LOGIN``, a dollar-quoted PostgreSQL password, ``sp_password``, two Redis ACL passwords, a sasl_passwd line,
a chap-secrets line with quoted fields, an ipsec ``%any : XAUTH`` line, numbered Read results, a conf
directive whose value holds ``#``. ``KEPT`` holds ordinary text of the same shapes (statements without a
credential, bind variables, prose with the same words, code with four fields on a line) that must stay
byte for byte.
"""
from __future__ import annotations

import pytest

from memdown.redact import redact

PW = "Qz8#mTr2vLp"
PW2 = "Wn4kTp9xRq2"

SECRET = [
    # SQL: the value of a credential clause, quoted or not, in dialects and spellings the corpus lacks
    (f"CREATE LOGIN app WITH PASSWORD = '{PW}', CHECK_POLICY = OFF;", PW),
    (f"create role reporting login encrypted password '{PW}';", PW),
    (f"ALTER ROLE app PASSWORD '{PW}' VALID UNTIL '2027-01-01';", PW),
    ("CREATE USER 'bob'@'%' IDENTIFIED BY 'it''s-Q9z!x7Lp';", "s-Q9z!x7Lp"),
    (f'ALTER USER bob IDENTIFIED BY "{PW}";', PW),
    ("CREATE ROLE x LOGIN PASSWORD $$Qz8m'Tr2vLp$$;", "Tr2vLp$"),
    (f"EXEC sp_password '{PW}', '{PW2}', 'sa';", PW2),
    (f"EXEC sp_password '{PW}', '{PW2}', 'sa';", PW),
    (f"ALTER USER scott IDENTIFIED BY tiger9x REPLACE {PW};", "tiger9x"),
    ("ALTER USER scott IDENTIFIED BY tiger;", "tiger"),
    (f"ACL SETUSER ci on >{PW} >{PW2} allkeys +@all", PW2),
    (f"     3\tALTER USER etl IDENTIFIED BY {PW} ACCOUNT UNLOCK;", PW),
    (f"  12→CREATE USER etl WITH PASSWORD '{PW}';", PW),
    # credential-file records, in the file and quoted in a sentence
    (f"my /etc/postfix/sasl_passwd has [smtp.gmail.com]:587 me@example.com:{PW} now", PW),
    (f"the rsyncd.secrets line is mirror:{PW}.", PW),
    (f'     4\t"vpnuser" pptpd "{PW}" *', PW),
    (f"vpn2 l2tpd {PW} 10.0.0.7", PW),
    (f'%any 10.1.0.1 : XAUTH "{PW}"', PW),
    (f"the entry 10.0.0.5:6432:*:pgbouncer:{PW}) is read first", PW),
    # conf directives: a value under a credential name is a literal
    (f"requirepass {PW} # rotated 2026-11", PW),
    ("listen 1812\nsecretKey QfYNzvyNfC.n7NvZ\n", "QfYNzvyNfC.n7NvZ"),
    # a pre-shared key is a credential in every syntax
    (f"[wifi]\nssid = Office\npsk = {PW}\n", PW),
    (f'hostapd:\n  wpa_psk: "{PW}"\n', PW),
    # a passphrase with blanks under a credential key is a value, not a sentence
    ("db:\n  user: app\n  password: correct horse battery staple\n", "horse battery"),
    ("[smtp]\nhost = mail.example.org\npassphrase = purple monkey dishwasher 42\n", "monkey dishwasher"),
    # values of formats without code are literals: a dotted word or a call shape is no reference there
    ("DB_HOST=db\nDB_PASSWORD=k(9mP2qL7wR4vZ)\n", "9mP2qL7wR4vZ"),
    ("DB_PASSWORD=k(9mP2qL7wR4vZ)", "9mP2qL7wR4vZ"),
    ("export DB_PASSWORD=hunter.twotwo.prod", "twotwo"),
    ("db:\n  host: x\n  password: hunter.twotwo.prod\n", "twotwo"),
]

KEPT = [
    "SELECT password FROM users WHERE id = 1;",
    "ALTER USER x PASSWORD EXPIRE;",
    "CREATE USER x IDENTIFIED EXTERNALLY;",
    "ALTER USER x IDENTIFIED BY &new_password;",
    "CREATE USER x IDENTIFIED BY :pw;",
    "CREATE USER x IDENTIFIED BY '${DB_PASSWORD}';",
    "ALTER USER x IDENTIFIED BY <password>;",
    "ALTER ROLE x WITH PASSWORD :'pw';",
    "UPDATE users SET password = crypt(:pw, gen_salt('bf'));",
    "users are identified by their email address",
    "    // Set password permanently so user is CONFIRMED",
    "    ├→ Set password = HMAC-SHA256(email:social)",
    "ACL SETUSER ci on #5e884898da28047151d0e56f8dc62927 allkeys",
    # credential-file words near ordinary pairs
    "see host:8080 in the secrets doc",
    "the secrets doc says mirror:hunter22 passed",  # user:value; "secrets" is no file name here
    "X:\\03_ACG\\addons\\models\\applicant.py:239:    def action_generate_portal_credentials(self):",
    "the .htpasswd lines look like user:hash, one a line",
    "localhost:5432:mydb:postgres:password",
    "4. **17:37:28.813-17:38:22** - Polling keeps trying to resume",
    # four fields on a line that are code, not a chap-secrets record
    "    case none = 0",
    "    if n < 50:",
    "    retries = 0",
    "eth0 UP 10Gb 1.5k",  # four fields, the last no address
    # directives that are words or references
    "requirepass foobared",
    "secret sauce",
    "auth_pass ${PW}",
    "secret_key_file /etc/x.key",
    # blanks in a message, a placeholder in groups; code keeps its references
    "db:\n  user: app\n  password: Password is required\n",
    "form:\n  user: name\n  password: Enter your password\n",
    'MAIL_USER=x\nMAIL_PASSWORD="xxxx xxxx xxxx xxxx"\n',
    "cfg = {\n  user: cfg.user,\n  password: cfg.password,\n}",
    "    user = settings.DB_USER\n    password = settings.DB_PASS\n",
    'SECRET_KEY=os.environ["X"]',
    "JWT_SECRET=secret",
    "SECRET_KEY=change_this_to_random_secret",
    'password = "secrets.json"',
]


@pytest.mark.parametrize("text,secret", SECRET)
def test_a_credential_in_its_place_is_masked(text, secret):
    out = redact(text)
    assert secret not in out, out
    assert redact(out) == out


@pytest.mark.parametrize("text", KEPT)
def test_ordinary_text_of_the_same_shape_is_kept(text):
    assert redact(text) == text


@pytest.mark.parametrize("line", [
    "CREATE USER x IDENTIFIED BY " + "[" * 200_000,
    "SET PASSWORD = " + "$$" * 100_000,
    "rsyncd.secrets " + "a:b " * 50_000,
    "a b c " * 35_000 + "*",
    "ACL SETUSER x " + ">a" * 100_000,
    "db:5432:*:u:" + "x" * 200_000,
])
def test_adversarial_lines_are_read_in_linear_time(line):
    """A 200 KB line is read once: the SQL lexer sees at most one statement's first characters."""
    redact(line)  # a quadratic scan of 200 KB takes minutes; CI's timeout stops it


def test_without_sqlparse_the_clause_is_still_masked(monkeypatch):
    """An environment made before sqlparse became a dependency reads the statement with a plain lexer."""
    import sys

    for name in [n for n in sys.modules if n == "sqlparse" or n.startswith("sqlparse.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "sqlparse", None)  # import sqlparse now raises ImportError
    for text, secret in SECRET[:13]:
        assert secret not in redact(text), text
    for text in KEPT[:13]:
        assert redact(text) == text
