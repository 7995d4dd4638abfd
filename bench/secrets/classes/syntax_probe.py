"""Adversarial probe: generated passwords with punctuation in syntaxes no issue or test named.

    python bench/secrets/classes/syntax_probe.py

100 values per syntax (seeded), each 10-20 letters and digits with 1-3 symbols the syntax allows;
a value leaks when any 6 of its characters in a row survive ``redact``. Prints the syntaxes that
leak and the total (docs/redaction.md, "An adversarial pass").
"""
from __future__ import annotations

import random
import string
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from memdown.redact import redact  # noqa: E402

ALNUM = string.ascii_letters + string.digits
rng = random.Random(7)
def rnd(n):
    while True:
        s = "".join(rng.choice(ALNUM) for _ in range(n))
        if any(c.isdigit() for c in s) and any(c.isalpha() for c in s): return s
def pw(symbols, n=200):
    out=[]
    for _ in range(n):
        v=list(rnd(rng.randint(10,20)))
        for _ in range(rng.randint(1,3)):
            v.insert(rng.randint(1,len(v)), rng.choice(symbols))
        out.append("".join(v))
    return out
ANY = "!#$%&()*+,-./:;<=>?@[]^_{|}~"
SHELL = "!#%*+,-./:=?@^_~"
NOQ = "!#$%&()*+,-./:;<=>?@[]^_{|}~"
SYN = [
 ('[database]\npassword = "{v}"', ANY),
 ("[database]\npassword = {v}", ANY),
 ("db.password={v}", ANY),
 ("db.password = {v}", ANY),
 ('password = "{v}"\n', ANY),
 ('variable "x" {{\n  password = "{v}"\n}}', ANY),
 ("environment:\n  - POSTGRES_PASSWORD={v}", ANY),
 ("    - POSTGRES_PASSWORD={v}", ANY),
 ('environment: ["POSTGRES_PASSWORD={v}"]', ANY.replace('"','')),
 ("stringData:\n  password: {v}", ANY),
 ("machine api.example.com login bob password {v}", SHELL),
 ("curl -u bob:{v} https://x", SHELL),
 ("curl -u 'bob:{v}' https://x", ANY.replace("'","")),
 ("curl --user bob:{v} https://x", SHELL),
 ("jdbc:postgresql://db:5432/app?user=bob&password={v}", "!#$%()*+,-./:;<=>?@[]^_{|}~"),
 ("jdbc:mysql://db/app?user=bob&password={v}&useSSL=false", "!#$%()*+,-./:;<=>?@[]^_{|}~"),
 ('{{"password": "{v}", "user": "bob"}}', ANY),
 ('"{{\\"password\\": \\"{v}\\"}}"', ANY),
 ('$env:DB_PASSWORD = "{v}"', ANY),
 ("$env:DB_PASSWORD='{v}'", ANY),
 ('$password = ConvertTo-SecureString "{v}" -AsPlainText -Force', ANY),
 ("set PASSWORD={v}", SHELL),
 ('set "PASSWORD={v}"', SHELL),
 ("connect(host='x', password='{v}')", ANY),
 ("connect(host=x, password={v})", SHELL),
 ("const cfg = {{ password: '{v}' }}", ANY),
 ("const cfg = {{ password: \"{v}\", user: 'x' }}", ANY),
 ("password: >-\n  {v}", ANY),
 ("export PASSWORD=\"{v}\"", ANY.replace('"','').replace('$','').replace('!','')),
 ("PASSWORD='{v}' ./run.sh", ANY),
 ("| DB_PASSWORD | {v} |", "!#$%&()*+,-./:;<=>?@[]^_{}~"),
 ("mongodb://admin:{v}@db:27017", "!$&()*+,;=-._~"),
 ("postgres://admin:{v}@db/app", "!$&()*+,;=-._~"),
 ("docker run -e DB_PASSWORD={v} img", SHELL),
 ("ENV DB_PASSWORD {v}", SHELL),
 ("ENV DB_PASSWORD={v}", SHELL),
 ("kubectl create secret generic x --from-literal=password={v}", SHELL),
 ("client_secret {v}", SHELL),
 ("password is {v}", SHELL),
 ("-Djavax.net.ssl.keyStorePassword={v}", SHELL),
 ("requests.post(url, auth=('bob', '{v}'))", ANY),
 ("Authorization: Basic {v}", SHELL),
 ("mysql --password={v} db", SHELL),
 ("sshpass -p {v} ssh host", SHELL),
 ("<add key=\"Password\" value=\"{v}\" />", ANY.replace('"','').replace('&','').replace('<','')),
 ("password: |\n  {v}\n", ANY),
 ("PASSWORD := {v}", ANY),
 ("let password = \"{v}\";", ANY),
 ("password <- \"{v}\"", ANY),
 ("password => '{v}',", ANY),
 ("\"password\" => \"{v}\",", ANY),
 ("SECRET_KEY = '{v}'", ANY),
 ("export AWS_SECRET_ACCESS_KEY={v}", SHELL),
 ("aws_secret_access_key = {v}", ANY),
 ("os.environ['DB_PASSWORD'] = '{v}'", ANY),
 ("os.environ[\"DB_PASSWORD\"] = \"{v}\"", ANY),
 ("ENV['DB_PASSWORD'] = '{v}'", ANY),
 ("System.setProperty(\"db.password\", \"{v}\")", ANY),
 ("props.put(\"password\", \"{v}\");", ANY),
 ("cfg.Password = \"{v}\"", ANY),
 ("\tpassword\t{v}", SHELL),
 ("password\n  {v}", SHELL),
]
tot=0
for tpl, sym in SYN:
    vals = pw(sym, 100)
    leaks=[]
    for v in vals:
        out = redact(tpl.format(v=v))
        if any(v[i:i+6] in out for i in range(len(v)-5)):
            leaks.append(out)
    tot+=len(leaks)
    if leaks: print(f"{len(leaks):3d} {tpl!r}: e.g. {leaks[0]!r}")
print("total", tot)
