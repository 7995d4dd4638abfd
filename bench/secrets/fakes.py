"""Fake credential values, generated at run time from a fixed seed.

No credential-shaped value sits verbatim in the repository (GitHub push
protection and other scanners would flag it, and a fake that looks real is
one copy-paste away from being mistaken for one). Every value here has the
documented shape of its provider's format -- prefix, length, alphabet -- and
random content, so detectors see what they would see in a real leak.
"""
from __future__ import annotations

import base64
import random
import string

LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
ALNUM = LOWER + UPPER + DIGITS
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


class Fakes:
    """``Fakes(seed).make(kind)``: one fresh fake value of a given format."""

    def __init__(self, seed: int = 42) -> None:
        self.rng = random.Random(seed)

    def chars(self, alphabet: str, n: int) -> str:
        # Make sure mixed alphabets really are mixed (a detector may require a digit).
        while True:
            out = "".join(self.rng.choice(alphabet) for _ in range(n))
            if alphabet != ALNUM or (any(c.isdigit() for c in out) and any(c.isupper() for c in out)):
                return out

    def b64(self, nbytes: int) -> str:
        return base64.b64encode(self.rng.randbytes(nbytes)).decode()

    def password(self) -> str:
        words = ["Tundra", "velvet", "Orbit", "maple", "Quartz", "ember", "Harbor", "lilac"]
        return (self.rng.choice(words) + self.rng.choice("!#%&*+-.?@^_~")
                + self.chars(DIGITS, 3) + self.rng.choice(words).lower() + self.rng.choice("!#%*"))

    def make(self, kind: str) -> str:  # noqa: C901 -- one branch per format, on purpose
        c, p = self.chars, "".join  # p(): assemble prefixes from pieces
        if kind == "aws_key_id":
            return p(["AK", "IA"]) + c(UPPER + DIGITS, 16)
        if kind == "aws_secret":
            return c(ALNUM + "+/", 40)
        if kind == "github_classic":
            return p(["gh", "p_"]) + c(ALNUM, 36)
        if kind == "github_fine":
            return p(["github", "_pat_"]) + c(UPPER + DIGITS, 22) + "_" + c(ALNUM, 59)
        if kind == "github_app":
            return p(["gh", "s_"]) + c(ALNUM, 36)
        if kind == "gitlab_pat":
            return p(["gl", "pat-"]) + c(URLSAFE, 20)
        if kind == "slack_bot":
            return p(["xo", "xb-"]) + c(DIGITS, 11) + "-" + c(DIGITS, 13) + "-" + c(ALNUM, 24)
        if kind == "slack_webhook_path":
            return "T" + c(UPPER + DIGITS, 10) + "/B" + c(UPPER + DIGITS, 10) + "/" + c(ALNUM, 24)
        if kind == "stripe_live":
            return p(["sk", "_live_"]) + c(ALNUM, 99)
        if kind == "stripe_restricted":
            return p(["rk", "_live_"]) + c(ALNUM, 99)
        if kind == "stripe_webhook":
            return p(["wh", "sec_"]) + c(ALNUM, 32)
        if kind == "google_api":
            return p(["AI", "za"]) + c(URLSAFE, 35)
        if kind == "google_oauth":
            return p(["GOC", "SPX-"]) + c(URLSAFE, 28)
        if kind == "azure_account_key":
            return self.b64(64)
        if kind == "azure_client_secret":
            return c(ALNUM, 3) + "8Q~" + c(ALNUM + "_.-~", 34)
        if kind == "openai":
            return p(["sk", "-proj-"]) + c(URLSAFE, 120)
        if kind == "anthropic":
            return p(["sk", "-ant-", "api03-"]) + c(URLSAFE, 93) + "AA"
        if kind == "huggingface":
            return p(["h", "f_"]) + c(ALNUM, 34)
        if kind == "npm":
            return p(["np", "m_"]) + c(ALNUM, 36)
        if kind == "pypi":
            return p(["py", "pi-"]) + "AgEIcHlwaS5vcmc" + c(URLSAFE, 70)
        if kind == "twilio_sid":
            return "AC" + c(HEX, 32)
        if kind == "twilio_key":
            return "SK" + c(HEX, 32)
        if kind == "hex32":
            return c(HEX, 32)
        if kind == "hex40":
            return c(HEX, 40)
        if kind == "hex64":
            return c(HEX, 64)
        if kind == "sendgrid":
            return p(["S", "G."]) + c(URLSAFE, 22) + "." + c(URLSAFE, 43)
        if kind == "mailgun":
            return p(["ke", "y-"]) + c(HEX, 32)
        if kind == "discord_bot":
            return c("MN", 1) + c(ALNUM, 23) + "." + c(URLSAFE, 6) + "." + c(URLSAFE, 38)
        if kind == "telegram_bot":
            return c(DIGITS, 10) + ":AA" + c(URLSAFE, 33)
        if kind == "jwt":
            head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
            body = base64.urlsafe_b64encode(
                ('{"sub":"%d","name":"dev","iat":%d}' % (self.rng.randrange(10**6), 1700000000)).encode()
            ).decode().rstrip("=")
            return f"{head}.{body}.{c(URLSAFE, 43)}"
        if kind == "pem_body":
            return "\n".join(self.b64(48) for _ in range(8))
        if kind == "password":
            return self.password()
        if kind == "shopify":
            return p(["shp", "at_"]) + c(HEX, 32)
        if kind == "digitalocean":
            return p(["do", "p_v1_"]) + c(HEX, 64)
        if kind == "vault":
            return p(["hv", "s."]) + c(URLSAFE, 24)
        if kind == "linear":
            return p(["lin", "_api_"]) + c(ALNUM, 40)
        if kind == "b64_24":
            return self.b64(24)
        if kind == "b64_32":
            return self.b64(32)
        if kind == "urlsafe40":
            return c(ALNUM, 40)
        raise KeyError(kind)
