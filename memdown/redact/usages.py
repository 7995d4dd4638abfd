"""Where programs' usages put a password (issue #27 item 1): the tables ``redact.commands`` reads.

The rule for commands is by shape (``commands``: a value is kept only in a safe shape, whatever the
program); these tables only add the places where a value is masked *even when it is word-shaped*
(``mysql -ptiger``, ``sqlplus scott/tiger@orcl``, ``db2 connect … using tiger``). A program missing
here still has every random-looking value masked, glued (``-pX9#k…``) or separate.
"""
from __future__ import annotations

# Programs whose own flag (by letter) takes a password; glued (-pPW) or separate.
PASSWORD_FLAGS = {"mysql": "p", "mysqldump": "p", "mysqladmin": "p", "mariadb": "p", "mariadb-dump": "p",
                  "sshpass": "p", "sqlcmd": "P", "bcp": "P", "osql": "P", "isql": "P", "unzip": "P", "zip": "P",
                  "7z": "p", "7za": "p", "rar": "p", "unrar": "p", "redis-cli": "a", "ldapsearch": "w",
                  "ldapmodify": "w", "ldapadd": "w", "ldapdelete": "w", "ldappasswd": "ws", "mongo": "p",
                  "mongosh": "p", "mongodump": "p", "mongorestore": "p", "mongoexport": "p", "mongoimport": "p",
                  "openssl": "k", "rdesktop": "p", "vncpasswd": "", "smbpasswd": "", "pg_dump": "", "keytool": "",
                  "psexec": "p", "ipmitool": "P"}
GLUED_ONLY = frozenset({"mysql", "mysqldump", "mysqladmin", "mariadb", "mariadb-dump"})  # -p alone prompts
USER_PASS_FLAGS = {"curl": ("-u", "--user", "--proxy-user", "-U"), "wget": ("--user",), "smbclient": ("-U", "--user"),
                   "rpcclient": ("-U",), "net": ("-U",), "svn": ("--password",), "lftp": ("-u", "--user"),
                   "ncftp": ("-u",)}
# A password by its position after a subcommand: (program, subcommand) -> position (1 = the first word after it).
POSITIONAL_SECRETS = {("htpasswd", "-b"): 3, ("rabbitmqctl", "add_user"): 2, ("rabbitmqctl", "change_password"): 2,
                      ("rabbitmqctl", "authenticate_user"): 2, ("mosquitto_passwd", "-b"): 3,
                      ("net", "user"): 2, ("vault", "login"): 1, ("openssl", "passwd"): -1, ("redis-cli", "auth"): 1,
                      ("redis-cli", "AUTH"): 1, ("smbpasswd", "-a"): 2, ("dscl", "-passwd"): 3,
                      ("wpa_passphrase", None): 2, ("db2", "using"): 1, ("db2", "USING"): 1,
                      ("mc", "add"): 4, ("mc", "set"): 4, ("ipmitool", "password"): 2}
STDIN_READERS = frozenset({"chpasswd", "passwd", "sudo", "docker", "podman", "helm", "vault", "kinit", "gpg",
                           "openssl", "cryptsetup", "htpasswd", "mysql", "psql", "sqlcmd", "ssh-add", "expect"})
# Flag names (any program) whose value is a password though the name is no secret word: poppler's and
# pdftk's user/owner passwords, schtasks' run-as password.
PASSWORD_FLAG_NAMES = frozenset({"upw", "opw", "rp", "pw", "passin", "passout", "pass"})
# Oracle tools: a plain word ``user/PW@db`` (or ``userid=user/PW@db``) is a connect string.
CONNECT_STRING_PROGRAMS = frozenset({"sqlplus", "rman", "expdp", "impdp", "exp", "imp", "sqlldr", "dgmgrl", "tkprof",
                                     "sqlcl", "sql", "orapwd", "lsnrctl", "adrci", "wrap", "loadjava", "dropjava"})
