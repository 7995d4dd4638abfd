"""Random URL path segments that grant access by themselves (issue #18): a webhook path, a share, invite
or reset link. A segment is masked only in a URL with a word that says so (``hook``, ``token``, ``/share/``…);
ids in ordinary URLs (figma files, wiki pages, forms, images) are not secrets."""
from __future__ import annotations

from .general import HEX_OR_UUID, random_body
from .patterns import LazyPattern, Span

_URL = LazyPattern(r"https?://[^\s/\"'<>]+(?P<path>/[^\s?#\"'<>`)]*)")
# A word that says the URL grants access by itself: a webhook, a token, a share or invite link.
_URL_CRED_WORD = LazyPattern(r"(?i)hook|token|apikey|api_key|api-key|secret|/bot|auth|signature|[?&](?:sig|key)="
                             r"|/(?:share|shared|invite|magic|reset|verify|confirm|access|download|dl|s)/")


def find_url_segments(text: str) -> list[Span]:
    spans: list[Span] = []
    if "://" not in text:
        return spans
    from .commands import generated_like
    from .entropy import random_looking

    for m in _URL.finditer(text):
        says_secret = _URL_CRED_WORD.search(m.group()) is not None
        pos = m.start("path")
        for seg in m.group("path").split("/"):
            start, pos = pos, pos + len(seg) + 1
            if seg.startswith("[REDACTED") or len(seg) < 10:
                continue
            if not says_secret:
                continue  # ids in ordinary URLs (figma files, wiki pages, forms, images) are not secrets
            if len(seg) >= 16 and (random_body(seg) or (HEX_OR_UUID.match(seg.replace("@", "-")) and len(seg) >= 24)):
                spans.append(("url_path_secret", start, start + len(seg)))
            elif random_looking(seg) or generated_like(seg):
                # A capability link (https://host/share/<random>): the random segment is the key to it.
                spans.append(("url_path_secret", start, start + len(seg)))
    return spans
