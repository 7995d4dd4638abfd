"""Generated dev cases of issue #27, session 9: classes that no list names, written before the code changed.

Each family is a generator over programs, key spellings, dialects or formats, neighbours of the classes the
test half showed missing (``rar a -hpPW``, ``sqlplus u/PW@//h``, ``mc alias set NAME URL USER PW`` outside a
Bash input, a ``-p'…'`` on a ``\\``-continued line inside a sentence, ``psk="…"``, SQL ``IDENTIFIED BY``
unquoted, a ``.pgpass`` line in a sentence, a password ending in ``.xx`` before a full stop), never the test
cases themselves. Every generated case is in the **dev** half (``cases.build`` appends them after the
original corpus, so the original cases' draws and the test half stay as they were).

``{S}`` is the secret; ``{D}`` a secret that ends in ``.`` and two letters (the sentence's full stop follows).
"""
from __future__ import annotations

# 1. A value glued to a short flag, in programs no table lists (or in a cluster of letters: -hpPW).
GLUED_FLAGS: dict[str, str] = {
    "rar_cluster": "rar a -m5 -r -hp{S} site-backup.rar www/",
    "unrar_glued": "unrar x -p{S} site-backup.rar restore/",
    "arj_glued": "arj a -g{S} backup.arj docs/",
    "ipmitool": "ipmitool -I lanplus -H 10.0.0.9 -U admin -P{S} chassis power status",
    "sqsh": "sqsh -S SYBPROD -U sa -P{S} -D master",
    "tsql": "tsql -S mssql01 -p 1433 -U sa -P{S}",
    "vsql": "vsql -h vertica01 -U dbadmin -w{S} -c 'select 1'",
    "snmpwalk_v3": "snmpwalk -v3 -l authPriv -u monitor -a SHA -A{S} -x AES -X{S} 10.0.0.1",
    "smbmap": "smbmap -H 10.0.0.7 -u admin -p{S} -d CORP",
    "mosquitto_pub": "mosquitto_pub -h broker.local -u sensor -P{S} -t home/temp -m 21",
    "nxc": "nxc smb 10.0.0.0/24 -u admin -p{S} --shares",
    "ncftpget": "ncftpget -u webmaster -p{S} ftp.example.org . /pub/release.tgz",
    "sshpass_glued": "sshpass -p{S} scp build.tgz deploy@10.1.2.3:/srv/",
    "pdftotext_upw": "pdftotext -upw {S} statement.pdf statement.txt",
    "qpdf_password": "qpdf --password={S} --decrypt statement.pdf plain.pdf",
    "isql_fb": "isql-fb -user SYSDBA -password {S} /var/lib/firebird/employee.fdb",
    "hdiutil": "hdiutil attach -passphrase {S} vault.dmg",
    "jarsigner": "jarsigner -keystore release.jks -storepass {S} app-release.apk upload",
    "mysql_cluster_glued": "mysql -uroot -h127.0.0.1 -P3306 -p{S} shop",
    "zip_glued_cluster": "7z a -mhe=on -mx9 -p{S} secrets.7z conf/",
}

# 2. User and password by position in user/password CLIs, no flag to mark a command.
POSITIONAL: dict[str, str] = {
    "sqlplus_tns": "sqlplus -s app/{S}@//db02.internal:1521/PDB1 @report.sql",
    "sqlplus_plain": "sqlplus hr/{S}@XEPDB1",
    "rman": "rman target sys/{S}@prod catalog rco/rco@rcat",
    "expdp": "expdp system/{S}@XEPDB1 schemas=HR directory=DP dumpfile=hr.dmp",
    "sqlldr": "sqlldr userid=scott/{S}@orcl control=load.ctl log=load.log",
    "dgmgrl": "dgmgrl sys/{S}@primary 'show configuration'",
    "mc_config_host": "mc config host add store http://10.0.0.4:9000 storeadmin {S}",
    "mc_alias_s3": "mc alias set backup https://s3.example.net backupuser {S} --api S3v4",
    "rclone_create": "rclone config create r2 s3 provider Cloudflare access_key_id ci secret_access_key {S}",
    "db2_connect": "db2 connect to SAMPLE user db2inst1 using {S}",
    "net_use_pw_first": "net use \\\\fs01\\c$ {S} /user:CORP\\backup",
    "cmdkey": "cmdkey /add:fs01.corp.local /user:CORP\\svc /pass:{S}",
    "schtasks": "schtasks /create /tn Backup /tr C:\\ops\\backup.bat /sc daily /ru CORP\\svc /rp {S}",
    "psexec": "psexec \\\\web01 -u CORP\\admin -p {S} cmd /c ipconfig",
    "wmic": "wmic /node:srv01 /user:admin /password:{S} os get caption",
    "sc_config": "sc config MySvc obj= CORP\\svc password= {S}",
    "mosquitto_passwd": "mosquitto_passwd -b /etc/mosquitto/passwd sensor {S}",
    "rabbitmq_auth": "rabbitmqctl authenticate_user app {S}",
    "ipmitool_user": "ipmitool user set password 3 {S}",
    "redis_auth_user": "redis-cli -h cache01 AUTH default {S}",
    "influx_user": "influx user create -n grafana -p {S} -o acme",
    "couchbase": "couchbase-cli cluster-init -c cb01 --cluster-username Administrator --cluster-password {S}",
}

# 3. Keys that name a credential, in many config formats.
KEYS = ("psk", "wpa_psk", "passphrase", "secret_access_key", "aws_secret_access_key", "client_secret",
        "private_key_password", "keystore_pass", "auth_pass", "sasl_password", "db_pwd", "passwd", "pwd",
        "shared_secret", "pre_shared_key", "PresharedKey", "secretKey", "SecretAccessKey", "consumer_secret",
        "smtp_pass", "bind_pw", "admin_passwd", "encryption_passphrase", "token_secret")
FORMATS: dict[str, str] = {
    "block_quoted": "network={{\n    ssid=\"Office\"\n    {K}=\"{S}\"\n}}\n",
    "ini": "[remote]\nhost = files.example.org\n{K} = {S}\n",
    "yaml": "storage:\n  bucket: backups\n  {K}: {S}\n",
    "yaml_quoted": "auth:\n  user: ci\n  {K}: \"{S}\"\n",
    "env": "REGION=eu-west-1\n{KU}={S}\n",
    "json": "{{\n  \"user\": \"ci\",\n  \"{K}\": \"{S}\"\n}}\n",
    "xml": "<settings>\n  <user>ci</user>\n  <{K}>{S}</{K}>\n</settings>\n",
    "conf_directive": "listen 1812\n{K} {S}\n",
    "php": "$config['{K}'] = '{S}';\n",
    "toml": "[auth]\nuser = \"ci\"\n{K} = \"{S}\"\n",
    "systemd": "[Service]\nEnvironment={KU}={S}\nExecStart=/usr/bin/agent\n",
    "nginx": "server {{\n    {K} {S};\n}}\n",
    "one_line_sentence": "I set {K}=\"{S}\" in the config and restarted it.",
    "inline_colon": "the {K}: {S} (from the vault)",
}

# 4. SQL statements that set a credential, in several dialects, quoted and not.
SQL: dict[str, str] = {
    "oracle_create_unquoted": "CREATE USER hr_ro IDENTIFIED BY {S} DEFAULT TABLESPACE users;",
    "oracle_alter_unquoted": "ALTER USER system IDENTIFIED BY {S} ACCOUNT UNLOCK;",
    "oracle_dblink": "CREATE DATABASE LINK remote CONNECT TO scott IDENTIFIED BY {S} USING 'orcl';",
    "oracle_grant": "GRANT CONNECT, RESOURCE TO app IDENTIFIED BY {S};",
    "oracle_lower": "alter user app_owner identified by {S};",
    "mysql_alter_with": "ALTER USER 'root'@'localhost' IDENTIFIED WITH mysql_native_password BY '{S}';",
    "mysql_set_password": "SET PASSWORD FOR 'app'@'%' = PASSWORD('{S}');",
    "mysql_set_plain": "SET PASSWORD FOR app = '{S}';",
    "mariadb_grant": "GRANT ALL ON shop.* TO 'app'@'10.0.%' IDENTIFIED BY '{S}';",
    "pg_create_role": "CREATE ROLE app LOGIN PASSWORD '{S}';",
    "pg_alter_with": "ALTER USER postgres WITH ENCRYPTED PASSWORD '{S}';",
    "pg_user_mapping": "CREATE USER MAPPING FOR app SERVER remote OPTIONS (user 'app', password '{S}');",
    "mssql_alter_login": "ALTER LOGIN sa WITH PASSWORD = N'{S}';",
    "mssql_master_key": "CREATE MASTER KEY ENCRYPTION BY PASSWORD = '{S}';",
    "mssql_open_key": "OPEN SYMMETRIC KEY PayKey DECRYPTION BY PASSWORD = '{S}';",
    "mssql_sp_addlogin": "EXEC sp_addlogin 'app', '{S}';",
    "snowflake": "CREATE USER loader PASSWORD = '{S}' DEFAULT_ROLE = etl;",
    "clickhouse": "CREATE USER reader IDENTIFIED WITH sha256_password BY '{S}';",
    "cassandra": "CREATE ROLE app WITH PASSWORD = '{S}' AND LOGIN = true;",
    "redis_acl": "ACL SETUSER app on >{S} ~cache:* +@read",
    "mongo_create": "db.createUser({{user: \"app\", pwd: \"{S}\", roles: [\"readWrite\"]}})",
    "neo4j": "CREATE USER reader SET PASSWORD '{S}' CHANGE NOT REQUIRED",
    "teradata_unquoted": "MODIFY USER etl AS PASSWORD = {S};",
    "vertica": "ALTER USER dbadmin IDENTIFIED BY '{S}';",
    "sql_in_sentence": "then run CREATE USER audit IDENTIFIED BY {S} in sqlplus as sysdba.",
}

# 5. Credential-file lines inside a sentence, and continued command lines inside a sentence.
FILE_LINES: dict[str, str] = {
    "pgpass_sentence": "I added db.internal:5432:*:report:{S} to ~/.pgpass so psql stops asking.",
    "pgpass_wildcard": "the line *:*:*:postgres:{S} in .pgpass does it",
    "netrc_sentence": "my .netrc has machine api.example.com login deploy password {S} in it",
    "git_credentials_sentence": "put https://ci-bot:{S}@git.example.com in ~/.git-credentials and retry",
    "smbcredentials": "~/.smbcredentials holds username=backup and password={S} for the mount",
    "rsyncd_secrets": "rsyncd.secrets now reads backup:{S} (chmod 600)",
    "chap_secrets": "chap-secrets: vpnuser * {S} *",
    "ipsec_secrets": "in ipsec.secrets: : PSK \"{S}\"",
    "s3cfg": "the .s3cfg has secret_key = {S} under [default]",
    "aws_credentials": "~/.aws/credentials: aws_secret_access_key={S}",
    "htpasswd_plain_sentence": "the .htpasswd-like file has admin:{S} as its only line",
    "mycnf_sentence": "my.cnf [client] has password={S} for root",
}
CONTINUED: dict[str, str] = {
    "mysqldump_cont": "Run this: mysqldump \\\n  --user=backup \\\n  -p'{S}' shop > shop.sql and keep the file.",
    "sqlcmd_cont": "I used sqlcmd -S sql01 \\\n  -U sa \\\n  -P '{S}' -Q 'SELECT 1' to check it.",
    "docker_login_cont": "try docker login registry.example.com \\\n  -u ci \\\n  -p'{S}' again",
    "curl_cont": "the request was curl -s \\\n  -u 'deploy:{S}' \\\n  https://ci.example.org/api then it failed",
    "psql_cont": "connect with PGPASSWORD='{S}' \\\n  psql -h db -U app shop, it works",
    "redis_cont": "Use redis-cli -h cache \\\n  -a '{S}' ping to test it.",
}

# 6. A password that ends in ".xx" right before a sentence's full stop.
DOTTED: dict[str, str] = {
    "en_is": "The new admin password is {D}.",
    "en_set_to": "I changed the root password to {D}.",
    "de_ist": "Das Passwort ist jetzt {D}.",
    "colon": "password: {D}.",
    "fr_est": "Le mot de passe est {D}.",
    "es_es": "La contraseña es {D}.",
}

# (family, natural placement, templates); each template also goes into two placements by rotation.
FAMILIES: list[tuple[str, str, str, dict[str, str]]] = [
    ("glued_flags", "command", "bash_input", GLUED_FLAGS),
    ("positional", "command", "prompt", POSITIONAL),
    ("sql", "config", "code_block", SQL),
    ("file_lines", "prose", "prompt", FILE_LINES),
    ("continued", "prose", "thinking", CONTINUED),
    ("dotted", "prose", "answer", DOTTED),
]
# Placements where no Bash input marks a command: the rotation draws from these first.
TEXT_PLACES = ("prompt", "thinking", "answer", "code_block", "tool_error", "bash_output", "task_prompt",
               "mcp_input", "slash_args", "bang_bash", "read_result", "write")


def config_templates() -> dict[str, str]:
    """Each credential key in three formats (rotating), named ``KEY@FORMAT``."""
    names = list(FORMATS)
    out = {}
    for i, key in enumerate(KEYS):
        for j in range(3):
            fmt = names[(i * 3 + j) % len(names)]
            out[f"{key}@{fmt}"] = FORMATS[fmt].replace("{KU}", key.upper()).replace("{K}", key)
    return out


def templates() -> list[tuple[str, str, str, str, str]]:
    """``(family, group, natural placement, template id, template)`` for every generated template."""
    rows = [(family, group, place, tid, text) for family, group, place, table in FAMILIES for tid, text in table.items()]
    rows += [("config_keys", "config", "read_result", tid, text) for tid, text in config_templates().items()]
    return rows
