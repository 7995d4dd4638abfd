"""Provider token formats, recognised by their documented prefix and shape.

Each rule is ``(needles, pattern, handler)``: the rule runs only when one
needle occurs in the lowercased text, and the handler turns a match into a
``(kind, start, end)`` span (or None to reject it). A token is replaced
whole. Every pattern starts at a boundary its own character class cannot
cross, so a scan is linear in the input.

The maintained detector (``maintained.py``, Yelp's detect-secrets) covers
some of these formats as well; they are kept here too because hooks redact
on their fast path, where detect-secrets' import (~0.3 s, it pulls in
``requests``) is not allowed. Formats detect-secrets does not know at all:
Anthropic, OpenAI project keys, Google API and OAuth secrets, Hugging Face,
npm ``npm_`` tokens outside ``.npmrc``, Mailgun, Shopify, DigitalOcean,
Vault, Linear, Azure client secrets, Slack app tokens, Stripe webhook
secrets.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from ..lazyre import LazyPattern  # noqa: F401  (the redact modules import it from here)

Span = tuple[str, int, int]
Handler = Callable[[re.Match[str], str], "Span | None"]
Rule = tuple[tuple[str, ...], "re.Pattern[str] | LazyPattern", Handler]

B = r"(?<![A-Za-z0-9_\-])"  # start boundary for token-like secrets
E = r"(?![A-Za-z0-9_\-])"   # end boundary

# An unclosed <private> ends at the end of its paragraph (a blank line), not of the file:
# one forgotten closing tag must not erase the rest of a day's log.
# A closed block may span paragraphs (up to 50,000 characters and no other opening tag,
# which keeps a scan of many unclosed tags linear).
PRIVATE_BLOCK = re.compile(
    r"<private>(?:(?:(?!<private>)[\s\S]){0,50000}?</private\s*>|[\s\S]*?(?=\n[ \t]*\n)|[\s\S]*\Z)", re.I)
PEM = re.compile(
    r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
    r"(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|\Z)"
)
PUTTY = re.compile(r"PuTTY-User-Key-File-\d:[\s\S]*?(?:Private-MAC:[ \t]*[0-9a-fA-F]+|\Z)")
AWS_KEY_ID = re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])")
GITHUB = re.compile(B + r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})")
GITLAB = re.compile(
    B + r"(?:(?:glpat|gldt|glft|glsoat|glrt|glcbt|glimt|glptt|glagent|gloas)-[A-Za-z0-9_\-]{20,}"
    r"|GR1348941[A-Za-z0-9_\-]{20,})"
)
ANTHROPIC = re.compile(B + r"sk-ant-[A-Za-z0-9_\-]{20,}")
OPENAI = re.compile(B + r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}")
SLACK = re.compile(B + r"(?:xox[abposre]-[A-Za-z0-9\-]{10,}|xapp-[A-Za-z0-9\-]{10,})")
GOOGLE_KEY = re.compile(B + r"AIza[0-9A-Za-z_\-]{30,}")
GOOGLE_OAUTH = re.compile(B + r"GOCSPX-[A-Za-z0-9_\-]{20,}")
STRIPE = re.compile(
    r"(?<![A-Za-z0-9_])(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|pk_live_[A-Za-z0-9]{10,})"
)
STRIPE_WHSEC = re.compile(r"(?<![A-Za-z0-9_])whsec_[A-Za-z0-9+/=]{16,}")
JWT = re.compile(B + r"eyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-+/=]*")
HUGGINGFACE = re.compile(B + r"hf_[A-Za-z0-9]{30,}" + E)
NPM = re.compile(B + r"npm_[A-Za-z0-9]{36}" + E)
PYPI = re.compile(B + r"pypi-Ag[A-Za-z0-9_\-]{50,}")
SENDGRID = re.compile(B + r"SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64}")
MAILGUN = re.compile(B + r"key-[0-9a-f]{32}" + E)
MAILCHIMP = re.compile(B + r"[0-9a-f]{32}-us\d{1,2}" + E)
TWILIO = re.compile(r"(?<![A-Za-z0-9])(?:AC|SK)[0-9a-f]{32}(?![A-Za-z0-9])")
TELEGRAM = re.compile(r"(?:(?<=/bot)|(?<![A-Za-z0-9]))\d{8,10}:AA[A-Za-z0-9_\-]{33}" + E)
DISCORD = re.compile(B + r"[MNO][A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,}" + E)
SHOPIFY = re.compile(B + r"shp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}" + E)
DIGITALOCEAN = re.compile(B + r"do[opr]_v1_[0-9a-f]{64}" + E)
VAULT = re.compile(B + r"hv[sbr]\.[A-Za-z0-9_\-]{20,}" + E)
LINEAR = re.compile(B + r"lin_(?:api|oauth)_[A-Za-z0-9]{32,}" + E)
AZURE_CLIENT_SECRET = re.compile(B + r"[A-Za-z0-9_~.\-]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}" + r"(?![A-Za-z0-9_~.\-])")
SQUARE = re.compile(B + r"sq0(?:csp|atp)-[0-9A-Za-z_\-]{22,}")
AZURE_ACCOUNT_KEY = re.compile(r"(?i:AccountKey|SharedAccessKey)=(?P<v>(?!\[REDACTED:)[A-Za-z0-9+/=]{20,})")


def whole(kind: str) -> Handler:
    def handler(m: re.Match[str], text: str) -> Span | None:
        return (kind, m.start(), m.end())

    return handler


def group(kind: str, name: str = "v") -> Handler:
    def handler(m: re.Match[str], text: str) -> Span | None:
        return (kind, m.start(name), m.end(name))

    return handler


def _has_digit_and_letter(s: str) -> bool:
    return any(c.isdigit() for c in s) and any(c.isalpha() for c in s)


def _openai(m: re.Match[str], text: str) -> Span | None:
    return ("openai_key", m.start(), m.end()) if _has_digit_and_letter(m.group()) else None


def _discord(m: re.Match[str], text: str) -> Span | None:
    return ("discord_token", m.start(), m.end()) if _has_digit_and_letter(m.group()) else None


def _azure_client_secret(m: re.Match[str], text: str) -> Span | None:
    v = m.group()
    ok = any(c.isdigit() for c in v) and any(c.isupper() for c in v) and any(c.islower() for c in v)
    return ("azure_client_secret", m.start(), m.end()) if ok else None


# Token rules: a token alone is the secret, whatever surrounds it. multiline.py
# runs these again over tokens that were wrapped across lines.
TOKEN_RULES: list[Rule] = [
    (("akia", "asia", "abia", "acca", "a3t"), AWS_KEY_ID, whole("aws_access_key")),
    (("gh", "github_pat_"), GITHUB, whole("github_token")),
    (("gl", "gr1348941"), GITLAB, whole("gitlab_token")),
    (("sk-ant-",), ANTHROPIC, whole("anthropic_key")),
    (("sk-",), OPENAI, _openai),
    (("xox", "xapp-"), SLACK, whole("slack_token")),
    (("aiza",), GOOGLE_KEY, whole("google_api_key")),
    (("gocspx-",), GOOGLE_OAUTH, whole("google_oauth_secret")),
    (("_live_", "_test_"), STRIPE, whole("stripe_key")),
    (("whsec_",), STRIPE_WHSEC, whole("stripe_webhook_secret")),
    (("eyj",), JWT, whole("jwt")),
    (("hf_",), HUGGINGFACE, whole("huggingface_token")),
    (("npm_",), NPM, whole("npm_token")),
    (("pypi-ag",), PYPI, whole("pypi_token")),
    (("sg.",), SENDGRID, whole("sendgrid_key")),
    (("key-",), MAILGUN, whole("mailgun_key")),
    (("-us",), MAILCHIMP, whole("mailchimp_key")),
    (("ac", "sk"), TWILIO, whole("twilio_key")),
    ((":aa",), TELEGRAM, whole("telegram_token")),
    ((".",), DISCORD, _discord),
    (("shp",), SHOPIFY, whole("shopify_token")),
    (("_v1_",), DIGITALOCEAN, whole("digitalocean_token")),
    (("hvs.", "hvb.", "hvr."), VAULT, whole("vault_token")),
    (("lin_",), LINEAR, whole("linear_key")),
    (("q~",), AZURE_CLIENT_SECRET, _azure_client_secret),
    (("sq0",), SQUARE, whole("square_secret")),
]

# Block rules come first: they swallow everything inside them.
BLOCK_RULES: list[Rule] = [
    (("<private",), PRIVATE_BLOCK, whole("private")),
    (("private key",), PEM, whole("private_key")),
    (("putty-user-key-file",), PUTTY, whole("private_key")),
    (("accountkey=", "sharedaccesskey="), AZURE_ACCOUNT_KEY, group("azure_storage_key")),
]
