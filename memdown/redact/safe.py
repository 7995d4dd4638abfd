"""Known-safe shapes (issue #27.6): a finding whose text is one of them is kept, whatever rule found it.

Measured on real transcripts nobody here wrote, the rules changed code and names a reader needs:
``credentials?.password`` (optional chaining), ``Token::new`` (a Rust path after ``token:``),
``FORGOT_PASSWORD: "/auth/forgot-password"`` (a route), ``:password="auth.password"`` (an
attribute), ``ls`` listings of ``<UUID>.session`` files, ``**PASS: Functionality …**``. One
predicate for every rule: a value that is a path, code that continues an expression, a dotted
attribute of names, a word that a sentence goes on after, or a UUID (as a generic token, not after
a secret name: ``api_key=<uuid>`` stays a secret) is no secret.
"""
from __future__ import annotations

import re

from .names import key_before, names_an_id
from .values import code_reference, identifier_of_words, is_placeholder, name_like, version_like, words_by_humps

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?:\.[A-Za-z]\w{0,9})?$")
_ROUTE = re.compile(r"^/[A-Za-z][\w\-]*(?:/[\w\-.:{}]+)*/?$")
_PIECES = re.compile(r"[/\-_.:{}]+")
_NAME = re.compile(r"^-?[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$")
_TYPE = re.compile(r"^[A-Z][a-z][A-Za-z0-9_]*(?:<[A-Za-z0-9_, ]*>)?\??$")
_GENERIC_KINDS = frozenset({"high_entropy", "prefixed_token", "url_path_secret", "truncated"})


_CONSTANT = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_GENERIC_TYPE = re.compile(r"([A-Za-z_]{3,})<([A-Za-z_]{3,})")  # z.infer<typeof
_CALL = re.compile(r"^([A-Z][A-Z0-9\-]{2,})\(([a-z]{3,})[):,]")  # HMAC-SHA256(email:salt)
_CALL_WORD = re.compile(r"[A-Z]{2,6}\d*")  # an algorithm's name: HMAC, SHA256, MD5
_METHOD_CALL = re.compile(r"^([A-Za-z_$][\w$]*(?:[?!]?\.[A-Za-z_$][\w$]*)*)\((?:['\")]|[a-z]{3,}[\s,)])")
_HUMPED = re.compile(r"[a-z][A-Z]")
_ELIDED = re.compile(r"(?<![A-Za-z0-9])xxx+(?![A-Za-z0-9])")  # name@sha256:xxx
_OTHER_ASSIGNMENT = re.compile(r"^([a-z]+_[a-z_]+)=")  # include_attributes=True
_SECRET_WORD = re.compile(r"(?i)^(?:password|passwort|passphrase|pass|pin|secret|token|key|credentials?)[.!,:]?$")
_WORDS_GO_ON = re.compile(r"^ [a-z]{2,} [a-z(]")


def _code_or_reference(value: str, after: str) -> bool:
    """Code a reader needs, not a value (issue #27.6, found on the tune half of ../shared)."""
    generic = None if any(c.isdigit() for c in value) else _GENERIC_TYPE.search(value)
    call = _CALL.match(value + after)
    if generic and name_like(generic[1]) and name_like(generic[2]) or \
            call and all(_CALL_WORD.fullmatch(p) for p in call[1].split("-") if p) and name_like(call[2]):
        return True  # type XPasswordDto = z.infer<…>; password = HMAC-SHA256(email:…)
    if _CONSTANT.match(value) and name_like(value):
        return True  # FORGOT_PASSWORD = "FORGOT_PASSWORD": an enum constant's name
    other = _OTHER_ASSIGNMENT.match(value)
    if other and all(name_like(p) for p in other[1].split("_") if p):
        return True  # "pass `include_attributes=True`": the verb, then an argument of another name
    method = _METHOD_CALL.match(value + after)
    if method and len(method[1]) >= 6 and ("." in method[1] or _HUMPED.search(method[1])) and \
            name_like(method[1].split(".")[0].rstrip("?!")):
        return True  # password = document.getElementById('password'); x = useCallback(async …)
    words = value.split()
    if len(words) >= 2 and all(w.rstrip(".!,:").isalpha() for w in words) and any(_SECRET_WORD.match(w) for w in words):
        return True  # errors.password = 'Password is required': a message about the secret, not the secret
    if value.isalpha() and value.islower() and len(value) < 12 and (after[:1] == ";" or _WORDS_GO_ON.match(after)):
        return True  # request.token = jwt; (a variable), "Password = derived from email" (a sentence)
    if is_placeholder(value.rstrip(".…")) or _ELIDED.search(value) or value.startswith("\x1b"):
        return True  # newToken: 'undefined...'; "name@sha256:xxx"; PASS \x1b[39m: a colour code
    return value.isdigit() and len(value) <= 2  # journalctl -u 'unit@host:2': an instance number


_GO_PSEUDO_VERSION = re.compile(r"^v\d+\.\d+\.\d+-(?:[\w.]+\.)?\d{14}-[0-9a-f]{12}\b")
_PUBLIC_KEY_BLOB = ("AAAAC3NzaC1", "AAAAB3NzaC1", "AAAAE2VjZHNh", "AAAAB3NzaC1kc3")  # ssh-ed25519/rsa/ecdsa/dss
# A host name: 3+ labels ending in a common top-level or cloud-internal domain (db-1.c9ak.eu-west-1.rds.amazonaws.com).
_HOSTNAME = re.compile(r"^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.){2,}(?:com|net|org|io|dev|app|cloud|ai|co|internal|"
                       r"local|localdomain|lan|cn|de|uk|jp|fr|ru|in|br|nl|eu|us|me|sh|so|xyz|tech|site|run|svc)$")
# A host by its place: a shell prompt or an ssh/scp target (root@iZ2ze…Z:~/app#, [deploy@ip-10-0-0-5 app]$).
_AT_USER = re.compile(r"(?:^|[\s(\[])[a-z_][a-z0-9_.\-]{0,31}@$")
_AFTER_HOST = re.compile(r"^(?::[~/]| [^\s\]]{0,40}\][#$])")
_HOST_LABELS = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9\-]{1,63})*$")
_MANGLED = re.compile(r"^_{1,2}Z(?:T[hvVIS]|[NLS]|\d)")  # an Itanium C++ symbol: _ZThn16_NSt3__1…, _ZTv0_n24_…
_EXPORT_ID = re.compile(r"^[a-z]+\d+_\d+_[A-Za-z0-9]+$")  # filter0_0_SFaJaU9mAq: an SVG/design export id
# An age public key (bech32 "age1" and 58 characters): a recipient, shared on purpose. Its secret key is AGE-SECRET-KEY-1….
_AGE_RECIPIENT = re.compile(r"^age1[02-9ac-hj-np-z]{58}$")
# A finding that starts right after a separator of a file system path is a file or folder name (Saved to
# C:\Users\x\Downloads\tumblr_<id>_640 1.png, …\pip\cache\<hex>…): a path from a drive, a UNC share, ~, ./ or a
# system root, whose folders are names. A URL's path (://) is no file system path: a route can carry a token.
_PATH_BEFORE = re.compile(
    r"(?:^|[\s\"'`(\[=,>])(?P<root>[A-Za-z]:[\\/]|\\\\|~[\\/]|\.{1,2}[\\/]|/(?:Users|home|var|tmp|private|opt|usr|mnt|"
    r"Volumes|root|srv|Library|Applications|etc|nix|workspace)/)(?P<folders>(?:[^\\/\"'`<>|*?:\n]+[\\/])*)$")
# A user of letters with no password may stand (postgresql://alice@localhost); https://abc123@o1.ingest.sentry.io holds a key.
_URL_NO_USER = re.compile(r"^[a-z][a-z0-9+.\-]*://(?:[A-Za-z][A-Za-z._\-]*@)?[^@\s?]*$")


def _generated_free_url(value: str) -> bool:
    """sqlite:///./data/app.db, postgres://db:5432/app, postgresql://alice@localhost/app: a URL with no password,
    query or random segment (a key in the user's place, https://<key>@…, is the URL rules' finding)."""
    from .commands import generated_like
    from .entropy import random_looking

    return bool(_URL_NO_USER.match(value)) and not any(
        random_looking(seg) or generated_like(seg) for seg in value.split("/"))


def _ascending(token: str) -> bool:
    """An alphabet written out (``123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefgh…``), not a random draw."""
    return sum(a < b for a, b in zip(token, token[1:])) * 10 >= (len(token) - 1) * 8


def _known_generic(value: str) -> bool:
    """Shapes a generic token rule takes for random that are not secrets."""
    return bool(_UUID.match(value) or _GO_PSEUDO_VERSION.match(value) or _EXPORT_ID.match(value)) \
        or value.startswith(_PUBLIC_KEY_BLOB) \
        or "_ZN" in value or _MANGLED.match(value) or words_by_humps(value) or _ascending(value)


def _file_name_in_path(before: str) -> bool:
    """Does ``before`` end inside a file system path, right after a separator? Its first two folders must be
    names (as in ``values.named_path``); below them a generated folder (a temp dir, a cache's hex) is a name too."""
    path = _PATH_BEFORE.search(before[before.rfind("\n") + 1:])
    return bool(path) and all(name_like(word) for folder in re.split(r"[\\/]", path["folders"])[:2]
                              for word in re.split(r"[ .\-]+", folder) if word)


# A URL written as a template for its user and password (rtsp://user:pass@ip:554/…, postgres://USER:PASS@HOST/DB).
_URL_USER_BEFORE = re.compile(r"://(?i:user(?:name)?|usr|login|name)?:$")
_PASSWORD_WORDS = frozenset({"pass", "password", "passwd", "pwd", "pw", "secret"})


# A name an expression is cast to: `fromJSON(creds) as OAuth2Client;`. (A markdown code span alone is too weak a
# place: 3 % of random 20-character keys read as identifier_of_words, and `KEY` in backticks is common.)
_CAST_BEFORE = re.compile(r"[)\]][ \t]+as[ \t]+$")


def _name_in_code(value: str, before: str) -> bool:
    """An identifier spelled in words and acronyms (``values.identifier_of_words``) that an expression is cast to:
    a type name, not a value (issue #27.6)."""
    return bool(_CAST_BEFORE.search(before)) and identifier_of_words(value)


def known_safe(kind: str, value: str, after: str, before: str = "") -> bool:
    """Is the ``value`` a finding of ``kind`` covers (between ``before`` and ``after``) a known-safe shape?"""
    if version_like(value) or _AGE_RECIPIENT.match(value) or _name_in_code(value, before):
        return True  # "jsonwebtoken": "^9.0.2", curl 7.88.1-10+deb12u14: a version; age1…: a public key
    if kind == "url_password" and value.lower() in _PASSWORD_WORDS and _URL_USER_BEFORE.search(before):
        return True  # rtsp://user:pass@ip:554: the words that say where a user and a password go
    if _HOST_LABELS.match(value) and _AT_USER.search(before) and _AFTER_HOST.match(after):
        return True  # root@iZ2zeao9u22qw8abfjd8bwZ:~/app# ls: a host in a prompt or an ssh/scp target
    # A quoted camelCase word is a string literal; a quoted member access is a bound expression in a template
    # (:password="auth.password", [token]="session.token"). A URL's password is text: only an expansion names it.
    literal = after[:1] in ("'", '"', "`") and "." not in value or kind == "url_password"
    if code_reference(value, after, quoted=literal):
        return True  # next_token="$1", cfg.S3.SecretKey = s3Secret, config.apiKey!, auth.password: code names it
    if _code_or_reference(value, after) or _generated_free_url(value) or _HOSTNAME.match(value):
        return True
    if value.count("\\") >= 2 and all(name_like(p) for p in re.split(r"[\\:.\-（）()*]+", value) if p.isalpha()):
        return True  # C:\Users\x\.claude\projects: a Windows path
    if value.startswith(("?.", "::", ":")) and value[-1:].isalnum():
        return True  # credentials?.email, Token::new: code goes on
    if _ROUTE.match(value) and all(name_like(p) or p.isdigit() for p in _PIECES.split(value) if p):
        return True  # /auth/forgot-password, /api/v1/token: a route or path of names
    if value[:1] in "?*&" and _NAME.match(value[1:]) and name_like(value[1:]):
        return True  # *details.CorrelationToken (Go), ${DB_PASSWORD:?set it}, ${X:-default} (shell)
    if _TYPE.match(value) and (name_like(value.rstrip("?")) or after[:1] == ";" and words_by_humps(value)) and \
            (value.endswith("?") or after[:2] in (" =", ") ", ", ") or after[:1] in (")", ",", ";")):
        return True  # pass: String? = null, fun f(pass: String), credentials?: XCredentials;: a type
    if value.isalpha() and value[:1].isupper() and after[:1] == " " and after[1:2].isalpha() and name_like(value):
        return True  # **PASS: Functionality Validation**: a sentence goes on
    return kind in _GENERIC_KINDS and (_known_generic(value) or _file_name_in_path(before) or _under_an_id_key(before))


def _under_an_id_key(before: str) -> bool:
    """{"projectId":"prj_…","orgId":"team_…"}: a random value a generic rule found, under a key that names an id
    (``names.names_an_id``, as the entropy rule asks of its own tokens)."""
    key = key_before(before)
    return bool(key) and names_an_id(key)
