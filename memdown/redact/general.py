"""Secrets by class, not by list (issue #18).

Each rule here covers a *shape of context*, not a provider:

- ``named``: a value after any name that says secret (``names.name_says_secret``), in
  every config syntax: ``NAME=v``, ``name: v``, ``name = "v"``, ``"name": "v"``,
  ``//host/:_auth=v``, ``Password=v;`` in a connection string, ``<password>v</password>``,
  ``define('DB_PASSWORD', 'v')`` / ``setenv("API_TOKEN", "v")``;
- ``flags``: ``--anything-secret v``, ``-storepass v``, ``--passphrase=v``, ``-passout pass:v``;
  single-letter password flags of the commands that have them (``ldapsearch -w``,
  ``redis-cli -a``, ``zip -P``, ``7z -p…``) and positional passwords (``htpasswd -b``,
  ``rabbitmqctl add_user``, ``net use … /user:x v``, ``user/pass@db``, ``-U user%pass``);
- ``prefixed``: a word prefix (any case: ``pscale_tkn_``, ``NRAK-``, ``ya29.``, ``dp.st.prd.``)
  followed by a random body of any alphabet and length (hex, upper-only, base64 > 300);
- credential files (``.pgpass`` lines, crypt hashes ``$apr1$…``) and base64-wrapped PEM private keys
  (kubeconfig). Random URL path segments (webhook paths) are ``url_paths.py``'s.

Values are judged by ``values.py`` (placeholders, code, paths stay); a weak name
(``key``, ``token``) needs a random-looking value, a strong one (``password``) any data.
"""
from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter

from .context import verb_pass
from .extent import bare_end, call_closes
from .names import name_says_secret
from .patterns import LazyPattern, Rule, Span
from .values import IDENT, PATH_LIKE, code_reference, is_placeholder, name_like

_TEMPLATE = LazyPattern(r"%[-#0-9.]*[sdfrxi]|\{\d*\}")  # "VS%0.f0COMNTOOLS" % version: a format string
_WORDISH = LazyPattern(r"[a-z]{4,}|[A-Z][a-z]{3,}")
_UUID = LazyPattern(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
HEX_OR_UUID = LazyPattern(r"^(?:[0-9a-f\-]+|[0-9A-F\-]+)$")
_FILE_LIKE = LazyPattern(r"^[\w\-./]+\.(?:[a-z]{1,5})$|^v?\d+(?:\.\d+)+$")
_NAMESPACED_DIGEST = LazyPattern(r"^(?:v\d{1,3}|sha\d{0,3}|md5|blake\w{0,3}|xxh\d{0,3}):(?:[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{64})$")


def _classes(c: str) -> int:
    return 0 if c.isdigit() else 1 if c.islower() else 2 if c.isupper() else 3


def _pronounceable(word: str) -> bool:
    low = word.lower()
    vowels = sum(c in "aeiouy" for c in low)
    return vowels / len(low) >= 0.25 and not re.search(r"[^aeiouy]{5}", low)


def random_body(value: str, min_len: int = 16) -> bool:
    """Random-looking in any alphabet: hex, upper-only, lower-only, base64, with separators."""
    core = re.sub(r"[^A-Za-z0-9]", "", value)
    n = len(core)
    if n < min_len or not any(c.isdigit() for c in core) or not any(c.isalpha() for c in core):
        return False
    if sum(len(w) for w in _WORDISH.findall(core) if _pronounceable(w)) / n > 0.4:
        return False  # identifiers and prose: test_some_function_name_2
    flips = sum(_classes(a) != _classes(b) for a, b in zip(core, core[1:])) / (n - 1)
    entropy = -sum(k / n * math.log2(k / n) for k in Counter(core).values())
    return flips >= 0.22 and entropy >= min(3.3, math.log2(n) - 1.2)


def _random_part(value: str) -> bool:
    return any(len(part) >= 16 and random_body(part) for part in value.split("."))


def _format_string(v: str) -> bool:
    """``%s``, ``VS%0.f0COMNTOOLS``, ``user %s``: a template around words, not a password that
    holds a ``%s`` (``fXruLA0Y%sg~152f``)."""
    rest = _TEMPLATE.sub("", v)
    return len(rest) < 6 or " " in rest or bool(IDENT.match(rest)) and name_like(rest)


def _generated_stem(value: str) -> bool:
    """``qvj2JwnPV.eu``: a generated password with a dot, not a file name (``db_pass.txt``)."""
    from .values import mixed_like_generated

    return mixed_like_generated(value)


_FILE_EXTENSIONS = frozenset(
    "txt json yml yaml toml ini cfg conf env pem key crt cer der p12 pfx jks gpg asc pub sh py js ts rb go md csv xml "
    "html log db sqlite bin dat enc age kdbx zip gz tar".split())


def _unknown_extension(value: str) -> bool:
    """``hunter.twotwo.prod``: the part after the last dot is no file type, so the dotted literal is no file name."""
    tail = value.rsplit(".", 1)[-1].lower()
    return not tail.isdigit() and tail not in _FILE_EXTENSIONS


def data_value(value: str, strength: str, quoted: bool, after: str = "") -> bool:
    """Is ``value`` (after a secret name) data worth redacting?"""
    v = value.strip()
    if is_placeholder(v) or PATH_LIKE.match(v) or "://" in v and "@" not in v:
        return False
    if v.startswith(("!", "|", ">", "-", "&", "*")) and " " not in v and not any(c.isdigit() for c in v):
        return False  # YAML tags, block scalars, anchors, flags
    if not quoted and code_reference(v, after) and (after and after in "([{" or not _random_part(v)):
        return False  # win32api.RegOpenKeyEx is code; pat5ikqXf3Y9QxGtk.e568e6… is a token
    if _FILE_LIKE.match(v) and not _generated_stem(v) and not (quoted and strength == "strong" and _unknown_extension(v)) \
            or _TEMPLATE.search(v) and _format_string(v):
        return False  # a file name or version; a literal password is never one with an unknown extension (hunter.twotwo.prod)
    if strength == "weak":
        if _NAMESPACED_DIGEST.match(v):
            return False  # "key": "v2:<sha256>": a versioned content digest (a cache key), not a credential
        return " " not in v and (random_body(v, 12) or len(v) > 300)
    if len(v) < 4 or not any(c.isalnum() for c in v):
        return False
    if not quoted and IDENT.match(v) and not any(c.isdigit() for c in v) and len(v) < 12:
        return False  # password = pw, token = tok: variables
    return True


# --- named values ------------------------------------------------------------

_NAMED = LazyPattern(
    r"""(?:(?<=[\s;&?,{(:|\["'=])|(?<=\s-D)|(?<=^-D)|^)
    (?P<kq>\\?["']?)(?=[\w.\-@$]{0,81}?(?i:pas|pw|psw|psk|secret|cred|salt|dsn|key|tok|auth|pat|bearer|cookie|session))
    (?P<key>[A-Za-z_@$][A-Za-z0-9_.\-]{0,80})(?P=kq)(?:(?<=["'])\])?
    (?P<pre>[ \t]*)(?P<sep>=>|:=|=|<-|:(?![/:]))(?P<post>[ \t]*)
    (?:\\"(?P<eq>(?:[^"\\\n]|\\[^"\n])*)\\"
      | "(?P<dq>(?:[^"\\\n]|\\.)*)"
      | '(?P<sq>(?:[^'\\\n]|\\.)*)'
      | (?P<bare>(?![=>"'\\])[^\s"'`,;&<>(){}\[\]\\]{1,512}))""",
    re.X | re.M,
)
# The lookahead holds every word names.name_says_secret knows (as in idioms._TABLE): a line of
# `a=a=a=…` or `x: y` pairs is not judged pair by pair in Python.
# Values are matched up to CAP characters (a rejected candidate then costs at most CAP, so a
# scan stays linear); an accepted value that reached the cap is extended to its real end.
CAP = 512
_BARE_REST = LazyPattern(r"[^\s\"'`,;&<>(){}\[\]\\]*")
_FLAG_REST = LazyPattern(r"[^\s'\"`;|&<>()]*")


def _extend(text: str, end: int, capped: bool, rest: LazyPattern) -> int:
    return rest.match(text, end).end() if capped else end


_PAIR = LazyPattern(r"""(?<=\()[ \t]*(?P<q>["'])(?P<key>[A-Za-z_][\w.\-]{1,60})(?P=q)[ \t]*,[ \t]*(?P<vq>["'])(?P<v>[^"'\n]{1,400})(?P=vq)""")
_XML = LazyPattern(r"<(?P<key>[A-Za-z_][\w.\-:]{0,60})>(?P<v>[^<\s][^<\n]{0,400})</(?P=key)>")


def _kind(key: str) -> str:
    low = key.lower()
    return "password" if ("pass" in low or "pw" in low) else "secret"


def _named(m: re.Match[str], text: str) -> Span | None:
    strength = name_says_secret(m.group("key").lstrip("@$"))
    if strength is None:
        return None
    for name in ("eq", "dq", "sq", "bare"):
        if m.group(name) is not None:
            break
    value = m.group(name)
    if verb_pass(m.group("key"), text, m.start("key"), value):
        return None
    if m.group("sep") == ":" and name == "bare" and not m.group("post") and not m.group("kq"):
        if not (m.group("key").startswith("_") or strength == "strong" and random_body(value, 8)):
            return None  # "a:b" in prose or code (dict slices, URLs), unless it is clearly a value
    if name == "bare" and m.group("sep") in ("=", ":=") and bool(m.group("pre")) != bool(m.group("post")):
        return None  # "password= then" in prose
    end = _extend(text, m.end(name), name == "bare" and len(value) == CAP, _BARE_REST)
    # NAME=value with nothing around "=": an env/shell assignment, whose value is a literal (never a.b or f(x))
    env_literal = name == "bare" and m.group("sep") == "=" and not m.group("pre") and not m.group("post") \
        and m.group("key").isupper() and not m.group("kq")
    if not data_value(value, strength, name != "bare" or env_literal, text[m.end():m.end() + 1]):
        # `abc&def123XY` stops the match at `&`, `U[VVvPHX8H` at `[`: judge the whole value,
        # unless what stopped it opens a call or subscript: of a dotted name (`hmac.HMAC(` on a
        # line that goes on) or one that closes on its line (`f(x)`).
        if name != "bare" or end == len(text) or text[end] == "\n" or not env_literal and (
                "." in value and text[end] in "([{" or call_closes(text, end)):
            return None
        end = bare_end(text, m.start(), end)
        if env_literal and text[end:end + 1] == ")" and text.count("(", m.start(name), end) > text.count(")", m.start(name), end):
            end += 1  # k(9mP2qL7wR4vZ): the parenthesis the value opened is its own
        value = text[m.start(name):end]
        if not data_value(value, strength, env_literal, text[end:end + 1]):
            return None
    elif name == "bare":
        end = bare_end(text, m.start(), end)
    if value.lower() == m.group("key").rsplit(".", 1)[-1].lower():
        return None
    if env_literal and any(c in value for c in ".()"):
        from .listing import KIND as JUDGED  # a literal judged here: its member-access or call shape is no code
        return (JUDGED, m.start(name), end)
    return (_kind(m.group("key")), m.start(name), end)


def _pair(m: re.Match[str], text: str) -> Span | None:
    strength = name_says_secret(m.group("key"))
    if strength is None or not data_value(m.group("v"), strength, True):
        return None
    return (_kind(m.group("key")), m.start("v"), m.end("v"))


def _xml(m: re.Match[str], text: str) -> Span | None:
    strength = name_says_secret(m.group("key").rsplit(":", 1)[-1])
    if strength is None or not data_value(m.group("v"), strength, True):
        return None
    return (_kind(m.group("key")), m.start("v"), m.end("v"))


# --- command lines --------------------------------------------------------------

_FLAG = LazyPattern(
    r"(?<![\w\-/])(?P<flag>--?[A-Za-z][A-Za-z0-9_\-]{1,40})(?:[ \t]+|=|:(?=\S))"
    r"""(?:'(?P<sq>[^'\n]{0,512})'|"(?P<dq>[^"\n]{0,512})"|(?P<bare>[^\s'"`;|&<>()]{1,512}))"""
)
_PASS_SOURCE = LazyPattern(r"^(?:pass:)(?P<v>.+)$")


def _flag(m: re.Match[str], text: str) -> Span | None:
    strength = name_says_secret(m.group("flag").lstrip("-"))
    if strength is None:
        return None
    name = next(n for n in ("sq", "dq", "bare") if m.group(n) is not None)
    value, start = m.group(name), m.start(name)
    source = _PASS_SOURCE.match(value)
    if source:  # openssl -passout pass:X (env:, file:, fd:, stdin are references)
        value, start = source.group("v"), start + source.start("v")
    elif re.match(r"^(?:env|file|fd):|^stdin$", value):
        return None
    if value.startswith("-") or not data_value(value, strength, name != "bare", text[m.end():m.end() + 1]):
        return None
    end = _extend(text, start + len(value), name == "bare" and len(m.group(name)) == CAP, _FLAG_REST)
    return (_kind(m.group("flag")), start, end)


_VALUE = r"""(?:'(?P<sq>[^'\n]*)'|"(?P<dq>[^"\n]*)"|(?P<bare>[^\s'"`;|&<>]+))"""
_ARG = r"""(?:'[^'\n]*'|"[^"\n]*"|[^\s'"`;|&<>]+)"""
# Commands whose password is a single-letter flag or a positional argument.
_POSITIONAL = LazyPattern(
    r"(?<![\w\-])(?:"
    r"ldap(?:search|modify|add|delete|passwd|whoami|compare|modrdn)\b[^\n;|&]{0,200}?[ \t]-w[ \t]+"
    r"|redis-cli\b[^\n;|&]{0,200}?[ \t]-a[ \t]+"
    r"|zip\b[^\n;|&]{0,200}?[ \t]-P[ \t]+"
    r"|7za?\b[^\n;|&]{0,200}?[ \t]-p(?=\S)"
    r"|htpasswd(?:[ \t]+-\w+)*?[ \t]+-\w*b\w*(?:[ \t]+-\w+)*(?:[ \t]+" + _ARG + r"){1,2}?[ \t]+(?=" + _ARG + r"[ \t]*(?:$|[;|&\n]))"
    r"|rabbitmqctl[ \t]+(?:add_user|change_password)[ \t]+" + _ARG + r"[ \t]+"
    r"|net[ \t]+use\b[^\n]{0,200}?/user:\S+[ \t]+"
    r"|-U[ \t]+[\w.\\/\-]+%"
    r")" + _VALUE,
    re.M,
)


def _positional(m: re.Match[str], text: str) -> Span | None:
    name = next(n for n in ("sq", "dq", "bare") if m.group(n) is not None)
    value = m.group(name)
    if is_placeholder(value) or value.startswith(("-", "/")) or len(value) < 3:
        return None
    return ("password", m.start(name), m.end(name))


# scott/tiger@ORCL, app/s3cret@//db:1521/svc (Oracle-style connect strings)
_SLASH_AT = LazyPattern(r"(?<![\w/.@\-#?=&:])[A-Za-z_][\w.\-]{0,40}/(?P<v>[^\s/@'\"?=&#]{4,80})@(?=/{0,2}[A-Za-z][\w.\-]*)")


def _slash_at(m: re.Match[str], text: str) -> Span | None:
    v = m.group("v")
    has_digit_or_symbol = any(c.isdigit() or c in "!#$%&*+=?^~_" for c in v)
    if not (has_digit_or_symbol and any(c.isalpha() for c in v)) or re.match(r"^v?\d", v):
        return None
    if text[m.end():m.end() + 2].lower().startswith(("v", "ma")) and re.match(r"v\d|main|master", text[m.end():m.end() + 6]):
        return None  # actions/setup-python@v5
    return ("password", m.start("v"), m.end("v"))


# --- credential files -------------------------------------------------------------

# A .pgpass line ``host:port:db:user:password``, alone on its line or quoted in a sentence ("I added
# db:5432:*:report:PW to ~/.pgpass"); a full stop or bracket after it is the sentence's.
_PGPASS = LazyPattern(
    r"(?:^|(?<=[\s`'\"(]))(?=\*:|[^:\s]*[A-Za-z]|\d{1,3}(?:\.\d{1,3}){3}:)(?:\*|[\w.\-\[\]]+):(?:\d{2,5}|\*):[\w.\-*]+:[\w.\-@*]+:"
    r"(?P<v>(?:\\:|[^\s:`'\"])(?:\\:|[^\s:`'\"]){2,})(?=[\s`'\"]|$)",
    re.M)


def _pgpass(m: re.Match[str], text: str) -> Span | None:
    value = m.group("v").rstrip(".,;)]")
    if len(value) < 3 or is_placeholder(value):
        return None
    return ("password", m.start("v"), m.start("v") + len(value))
_CRYPT = LazyPattern(
    r"(?<![\w$])\$(?:1|2[abxy]|5|6|7|y|apr1|argon2(?:id|i|d)|scrypt|pbkdf2(?:-sha\d+)?)\$[^\s:'\"]{8,}"
)


# --- prefixed tokens of any alphabet -------------------------------------------------

_PREFIXED = LazyPattern(
    r"(?<![A-Za-z0-9_\-./+=%~])"
    r"(?P<prefix>(?:[A-Za-z][A-Za-z0-9]{0,11}[_\-.]){1,3})"
    r"(?P<body>[A-Za-z0-9][A-Za-z0-9_\-.+/]{11,}[A-Za-z0-9]={0,2})(?![A-Za-z0-9_\-+/=])"
)
# Object ids and digests that look like prefixed tokens but are not secrets.
_ID_PREFIX_WORDS = frozenset(
    "toolu tooluse srvtoolu mcpsrv msg msgbatch req chatcmpl call run file asst thread batch evt cus ch pi pm sub in acct txn "
    "job sha sha1 sha256 sha384 sha512 md5 blake2b commit rev uuid id build trace span git gh-pages py "
    "test tests tmp temp session sess conv step node pod img image pr issue user usr org project proj "
    "cache chunk entry turn seed hash v www cdn http https".split()
)
_LEADING_WORD = LazyPattern(r"[A-Za-z]+[_\-.]")
_CRED_PREFIX = LazyPattern(
    r"(?i)(?:^|[_\-.])(?:api|\w*key|\w*token|tok|tkn|secret|auth|pat|sk|pw|pass|cred\w*|access)(?=[_\-.])")


def _prefix_body_ok(prefix: str, body: str) -> bool:
    words = [w.lower() for w in re.split(r"[_\-.]", prefix) if w]
    if words[0] in _ID_PREFIX_WORDS or re.match(r"^(?:sha|md5|blake)", words[0]):
        return False
    if body.count(".") >= 2 and not random_body(body.split(".")[-1], 8) and "." in prefix:
        return False  # dotted names: a.b.c.d
    core = body.replace("-", "")
    credential_prefix = bool(_CRED_PREFIX.search(prefix))
    if not credential_prefix and (len(re.sub(r"[^A-Za-z0-9]", "", body)) < 20 or body.startswith("01")):
        return False  # generated ids: cube_sm_image_<16>, mcpsrv_01<ulid-like>
    if _UUID.search(body) and not credential_prefix:
        return False  # m-<uuid>-first, agent-<uuid>: ids built from a uuid
    if HEX_OR_UUID.match(body):
        if len(core) < 24 or (not credential_prefix and (len(core) != len(body) or len(prefix) < 4)):
            return False  # a uuid after an ordinary word: an object id
        return any(c.isdigit() for c in core) and any(c.isalpha() for c in core)
    if max(len(s) for s in re.split(r"[_\-.]", body)) < 12:
        return False  # TLS_CHACHA20_POLY1305_SHA256: short named parts, not one random run
    return random_body(body) and not _FILE_LIKE.match(body)


def _prefixed(m: re.Match[str], text: str) -> Span | None:
    token = m.group()
    if PATH_LIKE.match(token):
        return None
    if _UUID.search(token) and not _CRED_PREFIX.search(token[:_UUID.search(token).start()]):
        return None  # <uuid>-<timestamp>_Name.docx, agent-<uuid>: an id built from a uuid, cut anywhere
    # The regex takes the longest prefix; a uuid body ("api-<8>-<4>-…") needs a shorter one.
    # A body that starts with a word is not the random part yet (cube_sm_image_<random>).
    cuts = [i + 1 for i, c in enumerate(token[:40]) if c in "_-."]
    for cut in cuts[:3]:
        if _LEADING_WORD.match(token, cut):
            continue
        if _prefix_body_ok(token[:cut], token[cut:]):
            return ("prefixed_token", m.start(), m.end())
    return None


# --- base64 PEM ---------------------------------------------------------------

_B64_PEM = LazyPattern(r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{10,}={0,2}")


def _b64_pem(m: re.Match[str], text: str) -> Span | None:
    head = m.group()[:120]
    try:
        decoded = base64.b64decode(head[: len(head) // 4 * 4]).decode("ascii", "replace")
    except (binascii.Error, ValueError):
        return None
    return ("private_key", m.start(), m.end()) if "PRIVATE KEY" in decoded else None


def _whole(kind: str):
    def handler(m: re.Match[str], text: str) -> Span | None:
        v = "v" if "v" in m.re.groupindex else 0
        return (kind, m.start(v), m.end(v))

    return handler


GENERAL_RULES: list[Rule] = [
    (("ls0tls1crudjti",), _B64_PEM, _b64_pem),
    (("=", ":", "<-"), _NAMED, _named),
    (("',", "\",", "' ,", "\" ,"), _PAIR, _pair),
    (("</",), _XML, _xml),
    (("-",), _FLAG, _flag),
    (("ldap", "redis-cli", "zip", "7z", "htpasswd", "rabbitmqctl", "net use", "-u"), _POSITIONAL, _positional),
    (("/",), _SLASH_AT, _slash_at),
    ((":",), _PGPASS, _pgpass),
    (("$",), _CRYPT, _whole("password_hash")),
    (("_", "-", "."), _PREFIXED, _prefixed),
]
