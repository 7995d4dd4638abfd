"""Secret redaction for everything memdown writes to memory.

``redact(text)`` replaces secrets with ``[REDACTED:<kind>]`` markers. Vendor
tokens, PEM private keys, JWTs and ``<private>…</private>`` blocks are
replaced whole; for assignments (``password=…``, ``"api_key": "…"``,
``.env`` lines, ``user:pass@host`` URLs, ``Bearer …``) only the value is
replaced, so the memory still says *which* setting was involved:
``DATABASE_URL=[REDACTED:env]``.

Design rules:

- Precision over paranoia for ordinary prose and code: git SHAs, UUIDs,
  file paths, ``password reset flow``, ``password_hash``, ``max_tokens=100``,
  ``password=`` with nothing after it and variable references
  (``token=$TOKEN``, ``password=args.password``, ``key=get_key()``) stay.
- Idempotent: no rule matches a ``[REDACTED:…]`` marker, so
  ``redact(redact(x)) == redact(x)``.
- Linear time: every pattern starts at a boundary its own character class
  cannot cross, and unbounded scans (PEM, ``<private>``) resume after their
  match, so a 1 MB input costs a few passes, never a quadratic blow-up.

Standard library only: hooks call this on their fast path.
"""
from __future__ import annotations

import re
from collections.abc import Callable

SKIP_MARKER = "<memdown:skip>"
_SKIP_RE = re.compile(re.escape(SKIP_MARKER), re.IGNORECASE)

MARKER_PREFIX = "[REDACTED:"


def marker(kind: str) -> str:
    return f"{MARKER_PREFIX}{kind}]"


def should_skip(text: str) -> bool:
    """True when ``text`` carries the opt-out marker: record nothing."""
    return bool(text) and _SKIP_RE.search(text) is not None


# --- value filters ----------------------------------------------------------

_NULLISH = frozenset(
    "none null nil undefined true false yes no on off empty required optional "
    "str string bytes int integer bool boolean any secretstr include omit same-origin "
    "await new yield lambda function async typeof not this self".split()
)
_REFERENCE = re.compile(
    r"""^(?:
        \$[A-Za-z_][A-Za-z0-9_]*$          # $VAR
      | \$\{[^}]*\}$                        # ${VAR}
      | \$\(                                # $(command)
      | %\(?[A-Za-z_]*\)?s?%?$              # %s, %(name)s, %VAR%
      | \{\{.*\}\}$                         # {{ template }}
      | \{[A-Za-z_][A-Za-z0-9_.]*\}$        # {name} (f-string, format)
      | <[^>]*>$                            # <your-token>
      | \[[A-Z_]+\]$                        # [UNK], [MASK]
      | [*xX.\u2022_-]+$                    # ****, xxxx, ..., ----
      | (?:process\.env|os\.environ|os\.getenv|getenv|ENV\[|env\.|secrets\.|vars\.)
    )""",
    re.X,
)
_DOTTED_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SECRET_WORD_IN_IDENT = re.compile(r"pass|pwd|secret|token|key|cred|auth", re.I)
_PATH_LIKE = re.compile(r"^(?:~?/|\.\.?/)[^:]*$")


def _placeholder(value: str) -> bool:
    v = value.strip()
    if not v or v.startswith(MARKER_PREFIX):
        return True
    if v.lower() in _NULLISH:
        return True
    if "${" in v or "{{" in v:
        return True
    return _REFERENCE.match(v) is not None


def _secret_looking(value: str) -> bool:
    """Loose test for values found in prose-like context (``the password: x``)."""
    return len(value) >= 6 and any(not c.isalpha() for c in value)


def _line_prefix(text: str, pos: int) -> str:
    # Only the last 200 characters matter (and this stays O(1) on huge lines).
    lo = max(0, pos - 200)
    nl = text.rfind("\n", lo, pos)
    return text[nl + 1 if nl >= 0 else lo:pos]


def _structured_context(text: str, pos: int) -> bool:
    """Is ``pos`` where a config key starts (line start, list item, dict/JSON)?"""
    prefix = _line_prefix(text, pos)
    if not prefix.strip(" \t>*#/-"):
        return True  # line start, YAML list item, markdown quote, comment
    return prefix.rstrip()[-1:] in ("{", "(", ",", "[")


# --- rules --------------------------------------------------------------------

Span = tuple[str, int, int]
Handler = Callable[[re.Match[str], str], "Span | None"]

_B = r"(?<![A-Za-z0-9_\-])"  # start boundary for token-like secrets

_PRIVATE_BLOCK = re.compile(r"<private>[\s\S]*?(?:</private\s*>|\Z)", re.I)
_PEM = re.compile(
    r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
    r"(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|\Z)"
)
_AWS_KEY_ID = re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])")
_AWS_SECRET = re.compile(
    r"(?i:aws_?secret_?(?:access_?)?key)[\"']?[ \t]*(?:=>|:=|=|:)[ \t]*[\"']?"
    r"(?P<v>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
)
_GITHUB = re.compile(_B + r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})")
_ANTHROPIC = re.compile(_B + r"sk-ant-[A-Za-z0-9_\-]{20,}")
_OPENAI = re.compile(_B + r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}")
_SLACK = re.compile(_B + r"(?:xox[abposre]-[A-Za-z0-9\-]{10,}|xapp-[A-Za-z0-9\-]{10,})")
_SLACK_WEBHOOK = re.compile(
    r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<v>(?!\[)[A-Za-z0-9_/\-]+)"
)
_GOOGLE_KEY = re.compile(_B + r"AIza[0-9A-Za-z_\-]{30,}")
_GOOGLE_OAUTH = re.compile(_B + r"GOCSPX-[A-Za-z0-9_\-]{20,}")
_STRIPE = re.compile(r"(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|(?<![A-Za-z0-9_])pk_live_[A-Za-z0-9]{10,}")
_STRIPE_WHSEC = re.compile(r"(?<![A-Za-z0-9_])whsec_[A-Za-z0-9+/=]{16,}")
_JWT = re.compile(_B + r"eyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-+/=]*")
_BEARER = re.compile(
    r"(?<![A-Za-z0-9_])(?i:bearer)[ \t]+(?P<v>(?!\[REDACTED:)[A-Za-z0-9\-._~+/]+=*)"
)
_AUTH_HEADER = re.compile(
    r"(?<![A-Za-z0-9_\-])(?i:(?:proxy-)?authorization)\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?"
    r"(?:(?P<scheme>(?i:bearer|basic|token|bot|digest|negotiate|ntlm|apikey|sso-key))[ \t]+)?"
    r"(?P<v>(?!\[REDACTED:)[^\s\"'`,;()\\]+)"
)
_URL_CREDS = re.compile(r"(?<=://)[^\s:/@?#\[\]]+:(?P<v>(?!\[REDACTED:)[^\s@/?#]+)@")
_ENV_LINE = re.compile(
    r"(?:(?P<ls>^)[ \t]*(?:-[ \t]+)?(?:(?:export|ENV|ARG)[ \t]+)?|(?<=[ \t;&|(]))"
    r"(?P<key>[A-Z_][A-Z0-9_]*)(?P<pre>[ \t]*)=(?P<post>[ \t]*)"
    r"(?:\\\"(?P<eq>(?:[^\"\\\n]|\\[^\"\n])*)(?:\\\")?"  # \"value\" inside JSON-escaped text
    r"|\"(?P<dq>(?:[^\"\\\n]|\\.)*)\"?|'(?P<sq>[^'\n]*)'?|(?P<bare>(?![\"'\\])[^\s\\]+))",
    re.M,
)
_ASSIGN_KEYWORDS = r"""(?:
      password|passwd|passphrase|(?<![A-Za-z])pass|(?<![A-Za-z])pwd
    | secret
    | (?:api|access|secret|private|auth|signing|encryption|master|client)[_\-]?key
    | token
    | credentials?
    | (?<![A-Za-z])dsn
)"""
_ASSIGN = re.compile(
    r"""
    (?<![A-Za-z0-9_.\-])
    (?P<kq>["']?)
    (?P<key>[A-Za-z0-9_.\-]*?""" + _ASSIGN_KEYWORDS + r""")
    \\?(?P=kq)
    (?:[ \t]*:[ \t]*[A-Za-z_][A-Za-z0-9_.\[\], |]{0,40}?(?=[ \t]*=[^=>]))?   # a: str = ...
    (?P<pre>[ \t]*)
    (?P<sep>=>|:=|=|:)
    (?P<post>[ \t]*)
    (?:
        \\"(?P<eq>(?:[^"\\\n]|\\[^"\n])*)(?:\\")?      # \"value\" inside JSON-escaped text
      | "(?P<dq>(?:[^"\\\n]|\\.)*)"?
      | '(?P<sq>(?:[^'\\\n]|\\.)*)'?
      | (?P<bare>(?![=>"'])[^\s"'`,;&<>(){}\[\]\\]+)
    )
    """,
    re.X | re.I,
)
_CLI_FLAG = re.compile(
    r"(?<![A-Za-z0-9_\-])--?(?i:password|passwd|pass|token|api-key|apikey|secret|"
    r"client-secret|auth-token|access-token)[ \t]+"
    r"(?:\"(?P<dq>[^\"\n]*)\"|'(?P<sq>[^'\n]*)'|(?P<bare>(?![-\"'\[<$])[^\s\"'`;&|<>]+))"
)
_CURL_USER = re.compile(
    r"(?<!\S)(?:-u|--user)[ \t]+[\"']?(?P<user>[^\s:\"']+):(?P<v>(?!\[REDACTED:)[^\s\"']+)"
)

_ENV_SHORT_WORDS = frozenset({"KEY", "PASS", "PWD", "AUTH", "DSN", "PAT", "KEYS"})
_ENV_LONG_WORDS = (
    "SECRET", "TOKEN", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL",
    "PRIVATE", "APIKEY", "ACCESSKEY",
)
_ENV_NOT_SECRET_SUFFIX = frozenset(
    "PATH FILE DIR DIRECTORY TTL TIMEOUT LENGTH SIZE ENABLED DISABLED EXPIRY EXPIRES "
    "EXPIRATION TYPE NAME HEADER ALGORITHM ALG MODE COUNT LIMIT ID VERSION PREFIX "
    "FORMAT REGION".split()
)


def _env_key_is_secret(key: str) -> bool:
    if "DATABASE_URL" in key:
        return True
    parts = [p for p in key.split("_") if p]
    if not parts or parts[-1] in _ENV_NOT_SECRET_SUFFIX:
        return False
    for part in parts:
        if part in _ENV_SHORT_WORDS:
            return True
        if any(part.endswith(w) or part.endswith(w + "S") for w in _ENV_LONG_WORDS):
            return True  # PGPASSWORD, GITHUB_TOKEN, CREDENTIALS (not TOKENIZER)
    return False


def _whole(kind: str) -> Handler:
    def handler(m: re.Match[str], text: str) -> Span | None:
        return (kind, m.start(), m.end())

    return handler


def _group(kind: str, name: str = "v") -> Handler:
    def handler(m: re.Match[str], text: str) -> Span | None:
        if _placeholder(m.group(name)):
            return None
        return (kind, m.start(name), m.end(name))

    return handler


def _has_digit_and_letter(s: str) -> bool:
    return any(c.isdigit() for c in s) and any(c.isalpha() for c in s)


def _openai(m: re.Match[str], text: str) -> Span | None:
    return ("openai_key", m.start(), m.end()) if _has_digit_and_letter(m.group()) else None


def _bearer(m: re.Match[str], text: str) -> Span | None:
    v = m.group("v")
    mixed = any(c.isupper() for c in v) and any(c.islower() for c in v)
    if len(v) >= 12 and (any(c.isdigit() for c in v) or (len(v) >= 20 and mixed)):
        return ("bearer", m.start("v"), m.end("v"))
    return None


_AUTH_SCHEMES = frozenset(
    "bearer basic token bot digest negotiate ntlm apikey sso-key".split()
)


def _auth_header(m: re.Match[str], text: str) -> Span | None:
    v = m.group("v")
    if v.lower() in _AUTH_SCHEMES or _placeholder(v) or _code_like(v, text[m.end():m.end() + 1]):
        return None
    if not m.group("scheme") and not _secret_looking(v):
        return None  # "authorization: the user must ..." in prose
    return ("auth_header", m.start("v"), m.end("v"))


def _value_group(m: re.Match[str]) -> tuple[str, str] | None:
    for name in ("eq", "dq", "sq", "bare"):
        if name in m.re.groupindex and m.group(name) is not None:
            return name, m.group(name)
    return None


_CALL = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*[(\[]")


def _code_like(value: str, after: str) -> bool:
    """A bare value that reads as code (a call, attribute, variable), not data."""
    if after in ("(", "[", "{") or _CALL.match(value):
        return True  # get_secret(), os.environ["X"], ${X}
    if _DOTTED_IDENT.match(value):
        return True  # args.password, settings.SECRET_KEY
    if _IDENT.match(value) and _SECRET_WORD_IN_IDENT.search(value):
        # token = auth_token, this.sessionToken = sessionToken: a variable.
        return "_" in value or not any(c.isdigit() for c in value)
    return False


def _env_line(m: re.Match[str], text: str) -> Span | None:
    if m.group("pre") or m.group("post"):
        return None  # "FOO_KEY = 'x'" is code; the assignment rule judges it
    if not _env_key_is_secret(m.group("key")):
        return None
    found = _value_group(m)
    if found is None:
        return None
    name, value = found
    if _placeholder(value):
        return None
    if name == "bare":
        if value.isdigit() and len(value) <= 5 or _PATH_LIKE.match(value):
            return None
        if _code_like(value, text[m.end():m.end() + 1]):
            return None
        if value[0] in "([{" and (value[0] == "(" or len(value) == 1):
            return None  # KEYS=("a" "b") / PRIMARY_KEY={: a literal in code
    return ("env", m.start(name), m.end(name))


def _assign_kind(key: str) -> str:
    k = key.lower()
    if "pass" in k or "pwd" in k:
        return "password"
    if "token" in k:
        return "token"
    if "secret" in k:
        return "secret"
    if "key" in k:
        return "api_key"
    if "cred" in k:
        return "credential"
    return "dsn"


def _assignment(m: re.Match[str], text: str) -> Span | None:
    found = _value_group(m)
    if found is None:
        return None
    name, value = found
    if _placeholder(value):
        return None
    key, sep = m.group("key"), m.group("sep")
    if name != "bare":
        if not any(c.isalnum() for c in value):
            return None
        if sep == ":" and not m.group("kq") and not m.group("post"):
            return None  # 'if not token:",' -- a colon glued to a quote is not YAML
    if name == "bare":
        if m.group("kq") and value.isdigit():
            return None  # "password": 1234 in JSON is a count or an id, not a secret
        after = text[m.end():m.end() + 1]
        if _code_like(value, after) or _PATH_LIKE.match(value):
            return None
        if value.lower() == key.rsplit(".", 1)[-1].lower():
            return None  # password=password (a keyword argument)
        if _IDENT.match(value):
            if after in (",", ")"):
                return None  # f(password=pw, ...)
        if sep in ("=", ":=") and bool(m.group("pre")) != bool(m.group("post")):
            return None  # "password= then": prose, not an assignment
        if sep == ":" and not m.group("kq") and not _structured_context(text, m.start()):
            if not _secret_looking(value):
                return None  # "the token: it expires" in prose
    return (_assign_kind(key), m.start(name), m.end(name))


def _cli_flag(m: re.Match[str], text: str) -> Span | None:
    found = _value_group(m)
    if found is None:
        return None
    name, value = found
    if _placeholder(value) or (name == "bare" and not _secret_looking(value)):
        return None
    return ("password" if "pass" in m.group().lower() else "token", m.start(name), m.end(name))


def _curl_user(m: re.Match[str], text: str) -> Span | None:
    if m.group("user").isdigit() or _placeholder(m.group("v")):
        return None  # docker -u 1000:1000
    return ("password", m.start("v"), m.end("v"))


# (needles, pattern, handler): a rule runs only when one needle occurs in the
# lowercased text. Order is priority when two spans start at the same place.
_RULES: list[tuple[tuple[str, ...], re.Pattern[str], Handler]] = [
    (("<private",), _PRIVATE_BLOCK, _whole("private")),
    (("private key",), _PEM, _whole("private_key")),
    (("akia", "asia", "abia", "acca"), _AWS_KEY_ID, _whole("aws_access_key")),
    (("secret",), _AWS_SECRET, _group("aws_secret_key")),
    (("gh", "github_pat_"), _GITHUB, _whole("github_token")),
    (("sk-ant-",), _ANTHROPIC, _whole("anthropic_key")),
    (("sk-",), _OPENAI, _openai),
    (("xox", "xapp-"), _SLACK, _whole("slack_token")),
    (("hooks.slack.com",), _SLACK_WEBHOOK, _group("slack_webhook")),
    (("aiza",), _GOOGLE_KEY, _whole("google_api_key")),
    (("gocspx-",), _GOOGLE_OAUTH, _whole("google_oauth_secret")),
    (("_live_", "_test_"), _STRIPE, _whole("stripe_key")),
    (("whsec_",), _STRIPE_WHSEC, _whole("stripe_webhook_secret")),
    (("eyj",), _JWT, _whole("jwt")),
    (("bearer",), _BEARER, _bearer),
    (("authorization",), _AUTH_HEADER, _auth_header),
    (("://",), _URL_CREDS, _group("url_password")),
    (("=",), _ENV_LINE, _env_line),
    (("=", ":"), _ASSIGN, _assignment),
    (("-pass", "-token", "-api", "-secret", "-client", "-auth", "-access"), _CLI_FLAG, _cli_flag),
    (("-u", "--user"), _CURL_USER, _curl_user),
]


def _value_start(m: re.Match[str]) -> int:
    names = m.re.groupindex
    for name in ("v", "eq", "dq", "sq", "bare"):
        if name in names and m.start(name) >= 0:
            return m.start(name)
    return m.end()


def find_secrets(text: str) -> list[Span]:
    """Non-overlapping ``(kind, start, end)`` spans that ``redact`` replaces.

    Overlapping findings are merged into one span (never leak a tail); the
    earliest-starting finding names it, ties going to the more specific rule.
    """
    if not text:
        return []
    low = text.lower()
    found: list[tuple[int, int, int, str]] = []
    for priority, (needles, pattern, handler) in enumerate(_RULES):
        if not any(n in low for n in needles):
            continue
        pos = 0
        while True:
            m = pattern.search(text, pos)
            if m is None:
                break
            span = handler(m, text)
            if span is not None and span[2] > span[1]:
                found.append((span[1], priority, span[2], span[0]))
                pos = m.end()
            else:
                # Rejected ("password= password: x"): rescan from the value, which
                # may itself start the real finding.
                pos = max(m.start() + 1, _value_start(m))
    found.sort()
    merged: list[list] = []
    for start, _priority, end, kind in found:
        if merged and start < merged[-1][2]:
            merged[-1][2] = max(merged[-1][2], end)
        else:
            merged.append([kind, start, end])
    return [(k, s, e) for k, s, e in merged]


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``."""
    spans = find_secrets(text)
    if not spans:
        return text
    out: list[str] = []
    pos = 0
    for kind, start, end in spans:
        out.append(text[pos:start])
        out.append(marker(kind))
        pos = end
    out.append(text[pos:])
    return "".join(out)
