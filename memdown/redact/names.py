"""Does a name say "secret"? And the words for "password" in many languages.

One predicate, ``name_says_secret``, is shared by every rule that judges a value by
the name in front of it: config and env lines in any case (``DB_PW=``,
``session.salt:``, ``_auth=``), command-line flags (``-storepass``, ``--passphrase``),
JSON keys (``{"pwd": …}`` in a tool input or an archived transcript) and kwargs.
A name is split into parts (``_ - .`` and camelCase); its head, the last part (qualifiers
like ``_PROD``, ``_2`` skipped), must *be* or *end in* a secret word, so ``storePassword``,
``PGPASSWORD``, ``signing_salt`` and ``DB_PASSWORD_PROD`` do, while ``keyboard``, ``author``,
``tokenizer``, ``max_tokens``, ``password_file``, ``key_id`` and ``SecretNamespace`` do not.

``strong`` names (password, secret, passphrase, salt, credential…) take any value
that is data; ``weak`` names (key, token, auth) only values that look random,
because ``key="name"`` is ordinary code.
"""
from __future__ import annotations

import re

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_STRONG_ENDINGS = ("password", "passwd", "passphrase", "passcode", "secret", "credential", "credentials",
                   "storepass", "keypass", "salt", "pass", "pwd", "pw", "pword", "pswd", "psk")
_STRONG_PARTS = frozenset(_STRONG_ENDINGS) | {"dsn", "privatekey", "secretkey", "creds"}  # psk (an ending): a pre-shared key
_WEAK_PARTS = frozenset({"key", "token", "auth", "apikey", "authkey", "accesskey", "authtoken", "pat",
                         "bearer", "cookie", "sessionid", "authorization"})
_WEAK_ENDINGS = ("key", "token", "apikey", "authkey", "authtoken")
# A last part that makes the whole name about something else (a path, a size, a flag).
NOT_SECRET_LAST = frozenset(
    "file files path dir directory name names id ids type types length len size ttl timeout expiry expires "
    "expiration enabled disabled mode count limit version prefix format region header headers algorithm alg "
    "policy policies url uri stdin fd env var field fields hint label prompt prompts hash hashed hashes "
    "helper cmd command store manager provider required min max reset strength regex pattern rotation "
    "tokens keys index chars bytes bits rounds iterations column columns schema kind error errors check "
    "ref refs age changed validator validators input form widget placeholder message msg text".split()
)
# A part that is one of these is a word that merely contains a secret word.
_NOT_SECRET_WORDS = frozenset(
    "keyboard keyword keywords monkey turkey hockey donkey keystroke keystrokes author authors authority "
    "authorize authorized tokenize tokenizer tokenizers tokenized passage passenger passing "
    "bypass compass passive passed passes overpass underpass surpass trespass "
    "hotkey whiskey jockey keynote keypad keyring keychain keystore pubkey publickey".split()
)


def name_parts(name: str) -> list[str]:
    parts: list[str] = []
    for chunk in re.split(r"[^A-Za-z0-9]+", name):
        parts += [p.lower() for p in _CAMEL.findall(chunk)] if not chunk.isupper() else [chunk.lower()]
    return [p for p in parts if p]


# A "key" qualified by one of these names an identifier, not a credential: fileKey, sort_key.
_ID_KEY_QUALIFIERS = frozenset(
    "file cache sort primary foreign partition object node row idempotency dedup dedupe lookup map hash "
    "s3 bucket registry index unique composite public pub react list group cluster shard routing "
    "translation i18n message lang locale config setting settings dict item entry record".split()
)


# Parts after the head noun that qualify it without changing what it names (DB_PASSWORD_PROD,
# SECRET_2, password_confirmation, secret_key_base): skipped when looking for the head.
_QUALIFIERS = frozenset(
    "prod production dev development test testing staging stage stg local live qa uat ci sandbox demo "
    "old new prev previous next current curr tmp temp default base value val str string raw plain plaintext "
    "clear cleartext enc encrypted b64 base64 hex confirm confirmation confirmed again repeat repeated "
    "override primary secondary backup main readonly ro rw admin root master env data".split()
)


def _part_strength(part: str, last: bool) -> str | None:
    if part in _NOT_SECRET_WORDS or part == "pass" and not last:
        return None  # pass_through_bwd, pass_rate: "pass" names a secret only at the end
    if part in _STRONG_PARTS or (len(part) > 3 and part.endswith(_STRONG_ENDINGS) and
                                 not part.endswith(("compass", "bypass", "surpass"))):
        return "strong"
    if part in _WEAK_PARTS or (part.endswith(_WEAK_ENDINGS) and len(part) > 5):
        return "weak"
    return None


def name_says_secret(name: str) -> str | None:
    """``"strong"``, ``"weak"`` or None for a config key, flag or JSON key.

    A compound name is about its head, its last part (qualifiers such as ``_PROD`` or ``_2``
    skipped): ``DB_PASSWORD``, ``SECRET_KEY`` and ``adminPassword`` name a secret;
    ``SecretNamespace``, ``KEY_CONSIDERED``, ``salt-handle`` and ``ResetPasswordDto`` name
    something else that merely contains a secret word (issue #27.6). A weak head (``key``,
    ``token``) after a strong part is strong: ``SECRET_KEY``, ``JWT_SECRET_KEY``."""
    parts = name_parts(name)
    while len(parts) > 1 and (parts[-1] in _QUALIFIERS or parts[-1].isdigit() or len(parts[-1]) == 1):
        parts = parts[:-1]
    if not parts or parts[-1] in NOT_SECRET_LAST:
        return None
    if parts[-1] == "key" and len(parts) > 1 and parts[-2] in _ID_KEY_QUALIFIERS:
        return None
    if name in ("PASS", "Pass"):
        return None  # a test result ("PASS: bf16 …"), a word in prose; a config key is "pass"
    head = _part_strength(parts[-1], True)
    if head == "weak" and any(_part_strength(p, False) == "strong" for p in parts[:-1]):
        return "strong"
    return head


# Key position (issue #27.6): the text right before a value is a key and its separator -- an
# assignment or colon label (``api_key = "``, ``"token": "``, ``new api creds: ```), a flag
# (``--token ``, ``--token=``) -- not a word somewhere on the line. Each alternative is anchored
# at the end of a short window and has no nested repetition: linear.
_KEY_BEFORE = re.compile(
    r"""(?:(?P<key>[A-Za-z_@$][\w.\-]{0,60})["'\]]?[ \t]*(?:=>|:=|=|:)"""
    r"""|(?P<label>[A-Za-z][\w\-]{0,30}(?:[ \t][A-Za-z][\w\-]{0,30}){1,3})[ \t]*:"""
    r"""|(?<![\w\-])(?P<flag>--?[A-Za-z][\w\-]{1,40})(?:[ \t]+|=))[ \t]*["'`]?$""")
_ID_HEADS = frozenset("id ids uuid guid sha hash digest checksum etag ref node version path file name url uri "
                      "fingerprint commit rev revision".split())


def key_before(before: str) -> str | None:
    """The key a value right after ``before`` sits under, or None when it is not in key position."""
    m = _KEY_BEFORE.search(before[-80:])
    if m is None:
        return None
    return m.group("key") or m.group("label") or m.group("flag").lstrip("-")


def names_an_id(name: str) -> bool:
    """``fileKey``, ``node_id``, ``commit sha``, ``File key``: a key under which a random value is an id."""
    parts = name_parts(name)
    return bool(parts) and (parts[-1] in _ID_HEADS or parts[-1] == "key" and len(parts) > 1
                            and parts[-2] in _ID_KEY_QUALIFIERS)


# --- "password" in other words and other languages ---------------------------------

# Each entry is a regex fragment: a stem with the endings its language inflects or glues on
# (Russian "паролем", Finnish "salasanalla", Turkish "şifreyle", Hungarian "jelszóval"), so every
# form is matched, not only the lemma (issue #27.3). Latin/Cyrillic/Greek ones are matched on word
# boundaries; ``PASSWORD_COMPOUND_ENDS`` also at the end of a compound ("beheerderswachtwoord",
# "WLAN-Passwort", "root-lösenordet").
PASSWORD_WORDS = (
    # en
    r"pass(?:word|wd|phrase|code)(?:s|'s)?", r"pw", r"pwd", r"creds", r"credentials?",
    # de, nl, sv/da/no, is
    r"zugangsdaten", r"kodeord(?:et|ene)?", r"lykilorð\w{0,3}",
    # fi, et
    r"salas[õo]n\w{0,4}", r"parool\w{0,4}",
    # fr, es, pt, it, ro, ca, lv, tr ("parola", "parolei", "parolayla", "paroli")
    r"mot(?:s)? de passe", r"mdp", r"contraseñ[ao]s?", r"claves?", r"senhas?", r"palavras?-passe",
    r"parola d'ordine", r"parol\w{0,5}", r"contrasenyes", r"contrasenya",
    # pl, cs/sk, hu, tr, hr/sr/bs, sl, lt
    r"ha[sś][lł]\w{0,3}", r"hesl\w{0,3}", r"jelsz[óoa]\w{0,5}", r"[şs]ifre\w{0,5}", r"[šs]ifr[aeuo]\w{0,3}",
    r"lozink\w{0,3}", r"zapork\w{0,3}", r"gesl\w{0,3}", r"slaptažod\w{0,4}",
    # el, ru/uk/be/bg, sr/mk (Cyrillic), uk "гасло"
    r"κωδικ\w{0,3}", r"συνθηματικ\w{0,3}", r"парол\w{0,4}", r"лозинк\w{0,3}", r"гасл\w{0,3}",
    # vi, id/ms, sw
    r"mật khẩu", r"kata sandi\w{0,3}", r"kata laluan\w{0,3}", r"nenosiri", r"neno la siri",
)
PASSWORD_COMPOUND_ENDS = (
    r"passw(?:ort|örter)(?:e?s|n)?", r"kennw(?:ort|örter)(?:e?s|n)?", r"wachtwoord(?:en|s)?",
    r"lösenord(?:et|en|s)?", r"adgangskode(?:n|r|rne)?", r"passord(?:et|ene)?", r"salasan\w{0,6}",
)
# CJK and other scripts without spaces: no word boundaries (glued particles: "পাসওয়ার্ডটি", "הסיסמה").
PASSWORD_WORDS_NOSPACE = (
    r"密码", r"密碼", r"口令", r"パスワード", r"暗証番号", r"비밀번호", r"패스워드", r"암호",
    r"كلمة (?:المرور|السر|مرور)", r"رمز (?:عبور|المرور)", r"گذرواژه", r"סיסמ[הא]", r"पासवर्ड",
    r"পাসওয়ার্ড", r"รหัสผ่าน", r"பாஸ்வேர்ட்", r"கடவுச்சொல்",
)
