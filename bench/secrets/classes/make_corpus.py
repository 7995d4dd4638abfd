"""Generate the class corpus for issue #18 (secrets by class, not by list).

Written from knowledge of real credential shapes, before reading memdown/redact/ or the
old 57-format list, and committed before any tuning. Every value is generated from a
fixed seed: realistic shape, never a real credential. Each format is one line (or a
short block) in the context where such a secret really shows up: a log line, a shell
command, a config or env line, a JSON tool input, prose.

Split: sha256(format id) -> first byte even = dev, odd = test. Tune on dev only.

    python bench/secrets/classes/make_corpus.py   # rewrites formats.jsonl
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid
from pathlib import Path

R = random.Random(18_2026)
ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def pick(chars: str, n: int) -> str:
    return "".join(R.choice(chars) for _ in range(n))


def fake_uuid() -> str:
    return str(uuid.UUID(int=R.getrandbits(128), version=4))


def b64_of(n_bytes: int) -> str:
    return base64.b64encode(bytes(R.getrandbits(8) for _ in range(n_bytes))).decode()


def human_password() -> str:
    words = ["sommer", "Kaffee", "bluebird", "Tortuga", "maple", "Orion", "velvet", "Panda",
             "river", "Kirsche", "falcon", "Lumiere", "cobalt", "Mistral", "zebra", "Nordlicht"]
    return R.choice(words) + R.choice(["!", "#", "_", "", "&", "."]) + str(R.randint(10, 9999)) + R.choice(
        ["", "x", "Q", "$", "!"])


def pem_body(n_bytes: int) -> str:
    raw = b64_of(n_bytes)
    return "\n".join(raw[i:i + 64] for i in range(0, len(raw), 64))


FORMATS: list[dict] = []


def add(fid: str, klass: str, secret: str, text: str) -> None:
    assert secret in text, fid
    FORMATS.append({"id": fid, "class": klass, "secret": secret, "text": text})


def prefixed_tokens() -> None:  # long: one call per provider shape, a flat list reads best
    k = "prefixed"
    s = "ghp_" + pick(ALNUM, 36)
    add("github_classic_pat", k, s, f"git remote set-url origin https://{s}@github.com/acme/billing.git")
    s = "github_pat_11" + pick(UPPER_ALNUM, 20) + "_" + pick(ALNUM, 59)
    add("github_fine_grained", k, s, f"export GH_ENTERPRISE_CRED={s}")
    s = "glpat-" + pick(B64URL, 20)
    add("gitlab_pat", k, s, f"curl --header 'PRIVATE-TOKEN: {s}' https://gitlab.example.com/api/v4/projects")
    s = "glrt-" + pick(B64URL, 20)
    add("gitlab_runner", k, s, f"gitlab-runner register --url https://gitlab.example.com --token {s}")
    s = f"xoxb-{R.randint(10**11, 10**12)}-{R.randint(10**12, 10**13)}-{pick(ALNUM, 24)}"
    add("slack_bot", k, s, f"2026-11-02 10:14:07 INFO slack client init token={s[:5]}… full={s}")
    s = f"xapp-1-A0{pick(UPPER_ALNUM, 9)}-{R.randint(10**12, 10**13)}-{pick(HEX, 64)}"
    add("slack_app_level", k, s, f"SocketModeHandler(app, \"{s}\").start()")
    tail = pick(ALNUM, 24)
    s = f"T0{pick(UPPER_ALNUM, 8)}/B0{pick(UPPER_ALNUM, 9)}/{tail}"
    add("slack_webhook_path", k, tail, f"POST https://hooks.slack.com/services/{s} -> 200 ok")
    tail = pick(B64URL, 68)
    add("discord_webhook", k, tail,
        f"webhook_url: https://discord.com/api/webhooks/{R.randint(10**17, 10**18)}/{tail}")
    s = "sk_live_" + pick(ALNUM, 99)
    add("stripe_live_secret", k, s, f"Stripe::StripeClient.new(\"{s}\")")
    s = "rk_live_" + pick(ALNUM, 99)
    add("stripe_restricted", k, s, f"stripe listen --api-key {s}")
    s = "whsec_" + pick(ALNUM, 32)
    add("stripe_webhook_secret", k, s, f"endpoint_secret = '{s}'  # from the dashboard")
    s = "sk-proj-" + pick(B64URL, 156)
    add("openai_project", k, s, f"The request failed with key {s} (429 rate limit)")
    s = "sk-ant-api03-" + pick(B64URL, 93) + "AA"
    add("anthropic_api", k, s, f"$ claude config set apiKey {s}")
    s = "gsk_" + pick(ALNUM, 52)
    add("groq", k, s, f"client = Groq(api_key=\"{s}\")")
    s = "glsa_" + pick(ALNUM, 32) + "_" + pick(HEX, 8)
    add("grafana_service_account", k, s, f"grafana: Authorization: Bearer {s}")
    s = "glc_" + pick(B64, 80).replace("/", "A").replace("+", "B") + "=="
    add("grafana_cloud", k, s, f"grafana_cloud_policy_token = \"{s}\"")
    s = "pscale_pw_" + pick(B64URL, 43)
    add("planetscale_password", k, s, f"mysql://xkq2w9:{s}@aws.connect.psdb.cloud/shop?sslaccept=strict")
    s = "pscale_tkn_" + pick(B64URL, 43)
    add("planetscale_token", k, s, f"pscale auth login --service-token {s} --service-token-id 7kqz")
    s = "npm_" + pick(ALNUM, 36)
    add("npm_token", k, s, f"npm ERR! 401 Unauthorized - token {s} is expired")
    s = "pypi-AgEIcHlwaS5vcmc" + pick(B64URL, 160)
    add("pypi_token", k, s, f"twine upload dist/* -u __token__ -p {s}")
    s = "hf_" + pick(ALNUM, 34)
    add("huggingface", k, s, f"huggingface-cli login --token {s}")
    s = "AIza" + pick(B64URL, 35)
    add("google_api_key", k, s, f"https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key={s}")
    s = "ya29." + pick(B64URL, 160)
    add("google_oauth_access", k, s, f"refreshed: {s} expires_in=3599 scope=drive.readonly")
    s = "1//0" + pick(B64URL, 98)
    add("google_refresh_token", k, s, f"gcloud stored refresh token {s} for bob@example.com")
    s = f"dp.st.prd.{pick(ALNUM, 43)}"
    add("doppler_service", k, s, f"doppler run --token {s} -- ./server")
    s = "AGE-SECRET-KEY-1" + pick(BECH32, 58)
    add("age_secret_key", k, s, f"# created: 2026-11-02T10:00:00Z\n# public key: age1{pick(BECH32.lower(), 58)}\n{s}")
    s = "NRAK-" + pick(UPPER_ALNUM, 27)
    add("newrelic_user_key", k, s, f"newrelic profile add --profile prod --apiKey {s} --region us")
    s = pick(HEX, 32)
    add("datadog_header", k, s, f"curl -X POST https://api.datadoghq.com/api/v2/series -H \"DD-API-KEY: {s}\"")
    s = "key-" + pick(HEX, 32)
    add("mailgun", k, s, f"mg = Mailgun(domain='mg.example.com', api='{s}')")
    s = "SG." + pick(B64URL, 22) + "." + pick(B64URL, 43)
    add("sendgrid", k, s, f"sendgrid.setApiKey('{s}');")
    s = "shpat_" + pick(HEX, 32)
    add("shopify_admin", k, s, f"X-Shopify-Access-Token: {s}")
    s = "lin_api_" + pick(ALNUM, 40)
    add("linear", k, s, f"LinearClient({{ apiKey: \"{s}\" }})")
    s = "ntn_" + pick(ALNUM, 46)
    add("notion", k, s, f"notion = Client(auth=\"{s}\")")
    s = "dop_v1_" + pick(HEX, 64)
    add("digitalocean", k, s, f"doctl auth init --access-token {s}")
    s = "hvs.CAESI" + pick(B64URL, 86)
    add("vault_service_token", k, s, f"Success! You are now authenticated. token {s} policies [default]")
    s = pick(ALNUM, 14) + ".atlasv1." + pick(ALNUM, 67)
    add("terraform_cloud", k, s, f'credentials "app.terraform.io" {{ token = "{s}" }}')
    s = "dapi" + pick(HEX, 32)
    add("databricks", k, s, f"databricks configure --host https://adb-123.azuredatabricks.net --token {s}")
    s = "pat" + pick(ALNUM, 14) + "." + pick(HEX, 64)
    add("airtable_pat", k, s, f"airtable base read appXk2 --pat {s}")
    s = "PMAK-" + pick(HEX, 24) + "-" + pick(HEX, 34)
    add("postman", k, s, f"newman run coll.json --postman-api-key {s}")
    s = pick(HEX, 32)
    add("sentry_dsn", k, s, f"sentry_sdk.init(dsn=\"https://{s}@o4504.ingest.sentry.io/4505123\")")
    s = "FlyV1 fm2_" + pick(B64, 300).replace("/", "_")
    add("flyio", k, s.split(" ")[1], f"fly deploy --access-token '{s}'")
    s = "ATATT3xFfGF0" + pick(B64URL, 180) + "=" + pick(HEX, 8).upper()
    add("atlassian_api", k, s, f"jira login --token {s} --login bob@example.com")
    s = b64_of(64)
    add("azure_storage_conn", k, s,
        f"DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey={s};EndpointSuffix=core.windows.net")
    s = f"{R.randint(10**8, 10**9)}:AA{pick(B64URL, 33)}"
    add("telegram_bot", k, s, f"https://api.telegram.org/bot{s}/sendMessage?chat_id=42")
    s = f"{fake_uuid()}@{fake_uuid()}/IncomingWebhook/{pick(HEX, 32)}/{fake_uuid()}"
    add("teams_webhook_path", k, s.split("/")[2], f"teams url https://acme.webhook.office.com/webhookb2/{s}")
    s = "api-" + fake_uuid().upper()
    add("api_uuid", k, s, f"[warn] retrying request with header x-api-key: {s}")
    s = "sk.eyJ1Ijoi" + pick(B64URL, 60) + "." + pick(B64URL, 22)
    add("mapbox_secret", k, s, f"MAPBOX_DOWNLOADS: {s}")
    s = "AAAA" + pick(B64URL, 7) + ":APA91b" + pick(B64URL, 134)
    add("firebase_fcm", k, s, f"fcm.send(to, data, server_key=\"{s}\")")
    s = "sq0csp-" + pick(B64URL, 43)
    add("square_oauth_secret", k, s, f"square app secret {s} (rotate before launch)")
    s = "EAACEdEose0cBA" + pick(ALNUM, 180)
    add("facebook_access", k, s, f"GET https://graph.facebook.com/v19.0/me?access_token={s}")
    s = "rubygems_" + pick(HEX, 48)
    add("rubygems", k, s, f":rubygems_api_key: {s}")
    s = "dckr_pat_" + pick(B64URL, 27)
    add("dockerhub_pat", k, s, f"echo {s} | docker login -u acmebot --password-stdin")
    s = "sbp_" + pick(HEX, 40)
    add("supabase_pat", k, s, f"supabase login --token {s}")
    s = "lsv2_pk_" + pick(HEX, 32) + "_" + pick(HEX, 10)
    add("langsmith", k, s, f"tracing to smith with {s} since monday")
    s = "r8_" + pick(ALNUM, 37)
    add("replicate", k, s, f"replicate.Client(api_token='{s}')")
    s = "tskey-auth-k" + pick(ALNUM, 16) + "-" + pick(ALNUM, 33)
    add("tailscale_authkey", k, s, f"sudo tailscale up --authkey={s} --ssh")
    s = "AKCp" + pick(ALNUM, 69)
    add("artifactory", k, s, f"jf c add rt --url https://acme.jfrog.io --access-token {s}")
    s = "ops_eyJ" + pick(B64URL, 600)
    add("onepassword_service", k, s, f"OP_SERVICE_ACCOUNT_TOKEN={s} op item list")
    s = "xoxp-" + "-".join(str(R.randint(10**11, 10**12)) for _ in range(3)) + "-" + pick(HEX, 32)
    add("slack_user", k, s, f"Slack says invalid_auth for {s}")
    s = "v1.0-" + pick(HEX, 24) + "-" + pick(HEX, 146)
    add("cloudflare_origin_ca", k, s, f"origin ca key {s}")
    s = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + pick(B64URL, 80) + "." + pick(B64URL, 43)
    add("jwt_bearer", k, s, f"> Authorization: Bearer {s}")
    s = pick(ALNUM, 40)
    add("opaque_bearer", k, s, f"curl -H 'Authorization: Bearer {s}' https://api.internal.example/v2/jobs")


def blobs() -> None:
    k = "blob"
    s = "IQoJb3JpZ2luX2VjE" + pick(B64, 380) + "=="
    add("aws_session_token", k, s, f"[default]\naws_access_key_id = ASIA{pick(UPPER_ALNUM, 16)}\naws_session_token = {s}")
    s = pick(B64, 40)
    add("aws_secret_key_env", k, s, f"AWS_ACCESS_KEY_ID=AKIA{pick(UPPER_ALNUM, 16)} AWS_SECRET_ACCESS_KEY={s} aws s3 ls")
    pem = "-----BEGIN RSA PRIVATE KEY-----\n" + pem_body(600) + "\n-----END RSA PRIVATE KEY-----\n"
    s = base64.b64encode(pem.encode()).decode()
    add("kubeconfig_client_key", k, s,
        f"users:\n- name: admin\n  user:\n    client-certificate-data: {b64_of(30)}\n    client-key-data: {s}")
    s = base64.b64encode(human_password().encode()).decode()
    add("k8s_secret_data", k, s,
        f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  password: {s}")
    body = pem_body(380)
    add("openssh_private_block", k, body.splitlines()[1],
        f"cat ~/.ssh/id_ed25519\n-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n-----END OPENSSH PRIVATE KEY-----")
    s = b64_of(700)
    add("k8s_tls_secret", k, s, f"data:\n  tls.crt: {b64_of(40)}\n  tls.key: {s}")


def command_lines() -> None:  # long: one call per tool, a flat list reads best
    k = "cmdline"
    s = human_password()
    add("keytool_storepass", k, s, f"keytool -importcert -alias ca -keystore truststore.jks -storepass {s} -noprompt")
    s = human_password()
    add("gpg_passphrase", k, s, f"gpg --batch --pinentry-mode loopback --passphrase '{s}' -d backup.tar.gpg")
    s = human_password()
    add("htpasswd_b", k, s, f"htpasswd -b -c /etc/nginx/.htpasswd admin {s}")
    s = human_password()
    add("mysql_p", k, s, f"mysql -h 10.0.3.7 -u root -p{s} shop < dump.sql")
    s = human_password()
    add("curl_u", k, s, f"curl -u deploy:{s} https://ci.example.com/job/build/api/json")
    s = human_password()
    add("url_userinfo", k, s, f"DATABASE_URL=postgres://app_user:{s}@db.internal:5432/app")
    s = human_password()
    add("sqlplus_slash", k, s, f"sqlplus scott/{s}@ORCLPDB1 @migrate.sql")
    s = human_password()
    add("openssl_passout", k, s, f"openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{s}")
    s = human_password()
    add("sshpass", k, s, f"sshpass -p '{s}' ssh ops@10.1.2.3 uptime")
    s = human_password()
    add("docker_login_p", k, s, f"docker login registry.example.com -u ci -p {s}")
    s = human_password()
    add("pgpassword_env", k, s, f"PGPASSWORD={s} psql -h localhost -U postgres -c 'select 1'")
    s = human_password()
    add("mongodb_srv", k, s, f"mongosh \"mongodb+srv://admin:{s}@cluster0.ab1cd.mongodb.net/test\"")
    s = human_password()
    add("redis_cli_a", k, s, f"redis-cli -h cache.internal -a {s} ping")
    s = human_password()
    add("smbclient_percent", k, s, f"smbclient //fs01/share -U CORP/alice%{s}")
    s = human_password()
    add("wget_password", k, s, f"wget --user=bob --password={s} https://files.example.com/dump.gz")
    s = pick(B64URL, 20)
    add("git_clone_oauth2", k, s, f"git clone https://oauth2:{s}@gitlab.example.com/acme/infra.git")
    s = human_password()
    add("jarsigner_keypass", k, s, f"jarsigner -keystore rel.jks -storepass changeit -keypass {s} app.apk release")
    s = human_password()
    add("zip_P", k, s, f"zip -r -P {s} secrets.zip ./keys")
    s = human_password()
    add("sevenzip_p", k, s, f"7z a -p{s} -mhe=on archive.7z docs/")
    s = human_password()
    add("ansible_become_pass", k, s, f"ansible-playbook site.yml -e \"ansible_become_pass={s}\"")
    s = human_password()
    add("net_use", k, s, f"net use Z: \\\\fs01\\projects /user:CORP\\bob {s}")
    s = human_password()
    add("ldapsearch_w", k, s, f"ldapsearch -x -H ldap://dc1 -D 'cn=admin,dc=acme,dc=org' -w {s} '(uid=bob)'")
    s = human_password()
    add("az_login_password", k, s, f"az login --service-principal -u http://ci --password {s} --tenant acme.onmicrosoft.com")
    s = human_password()
    add("rabbitmqctl_add_user", k, s, f"rabbitmqctl add_user admin {s}")
    s = human_password()
    add("psql_conninfo", k, s, f"psql \"host=db port=5432 user=app password={s} dbname=app\"")


def config_lines() -> None:  # long: one call per config shape, a flat list reads best
    k = "config"
    s = human_password()
    add("pgpass", k, s, f"db.internal:5432:app:app_user:{s}")
    s = b64_of(18)
    add("npmrc_auth", k, s, f"//registry.npmjs.org/:_auth={s}")
    s = pick(ALNUM, 36)
    add("npmrc_authtoken", k, s, f"//npm.pkg.github.com/:_authToken={s}")
    s = human_password()
    add("db_pw_env", k, s, f"DB_PW={s}")
    s = pick(HEX, 64)
    add("session_salt", k, s, f"SESSION_SALT={s}")
    s = pick(HEX, 128)
    add("secret_key_base", k, s, f"SECRET_KEY_BASE={s}")
    s = pick(ALNUM, 40)
    add("generic_token_env", k, s, f"export CI_DEPLOY_TOKEN={s}")
    s = b64_of(32)
    add("encryption_key_env", k, s, f"APP_ENCRYPTION_KEY=\"{s}\"")
    s = human_password()
    add("yaml_passphrase", k, s, f"ssh:\n  key_file: ~/.ssh/deploy\n  passphrase: \"{s}\"")
    s = human_password()
    add("netrc", k, s, f"machine api.example.com login bob password {s}")
    s = human_password()
    add("pip_conf_index", k, s, f"index-url = https://ci:{s}@pypi.acme.internal/simple")
    s = b64_of(24)
    add("docker_config_auth", k, s, f'{{"auths": {{"ghcr.io": {{"auth": "{s}"}}}}}}')
    s = human_password()
    add("spring_datasource", k, s, f"spring.datasource.password={s}")
    s = human_password()
    add("wp_config", k, s, f"define( 'DB_PASSWORD', '{s}' );")
    s = "django-insecure-" + pick(LOWER_ALNUM + "!@#$%^&*(-_=+)", 50)
    add("django_secret_key", k, s, f"SECRET_KEY = '{s}'")
    s = "$apr1$" + pick(ALNUM, 8) + "$" + pick(ALNUM + "./", 22)
    add("htpasswd_line", k, s, f"admin:{s}")
    s = human_password()
    add("ini_pwd", k, s, f"[database]\nhost = 10.0.0.5\nuser = report\npwd = {s}")
    s = pick(ALNUM, 32)
    add("toml_api_secret", k, s, f"[shopify]\napi_secret = \"{s}\"")
    s = human_password()
    add("xml_password", k, s, f"<server><id>nexus</id><username>deploy</username><password>{s}</password></server>")
    s = pick(B64URL, 40)
    add("oauth_client_secret", k, s, f"GOOGLE_CLIENT_ID=123-abc.apps.googleusercontent.com\nGOOGLE_CLIENT_SECRET=GOCSPX-{s}")
    s = human_password()
    add("mail_password", k, s, f"MAIL_USERNAME=noreply@acme.io\nMAIL_PASSWORD={s}")
    s = pick(ALNUM, 48)
    add("jwt_signing_salt", k, s, f"config :app, AppWeb.Endpoint, signing_salt: \"{s}\"")
    s = human_password()
    add("gradle_store_password", k, s, f"storePassword={s}\nkeyAlias=upload")
    s = human_password()
    add("lowercase_env_pass", k, s, f"redis_pass: {s}")
    s = pick(ALNUM, 32)
    add("auth_key_php", k, s, f"define('AUTH_KEY',         '{s}');")
    s = human_password()
    add("credential_colon", k, s, f"smtp credential: {s}")
    s = pick(HEX, 40)
    add("private_token_header", k, s, f"Private-Token: {s}")
    s = human_password()
    add("connection_string_pwd", k, s, f"Server=tcp:sql01,1433;Database=erp;User ID=erp;Password={s};Encrypt=True")


def prose() -> None:
    k = "prose"
    lines = {
        "en": "fyi the wifi password for the office guest network is {s}",
        "de": "Das Passwort für den Router ist {s}, bitte nicht weitergeben.",
        "fr": "Le mot de passe du serveur de test est {s} (à changer lundi).",
        "es": "La contraseña de la base de datos es {s} hasta que rotemos.",
        "pt": "A senha do painel admin é {s}, não compartilhe.",
        "it": "La password dell'account di staging è {s}",
        "nl": "Het wachtwoord voor de NAS is {s}",
        "ru": "Пароль от сервера: {s}, никому не говори.",
        "zh": "数据库的密码是 {s} ，别外传。",
        "ja": "ステージングのパスワードは {s} です。",
        "ko": "관리자 비밀번호는 {s} 입니다.",
        "pl": "Hasło do VPN to {s}",
        "tr": "Sunucunun şifresi {s} olarak ayarlandı.",
        "sv": "Lösenordet till kontot är {s}",
        "uk": "Пароль до бази: {s}",
        "cs": "Heslo k serveru je {s}",
    }
    for lang, template in lines.items():
        s = human_password()
        add(f"prose_{lang}", k, s, template.format(s=s))


def encoded() -> None:
    k = "encoded"
    s = human_password()
    add("json_unicode_escape_key", k, s, '{"user": "bob", "\\u0070assword": "' + s + '"}')
    s = human_password()
    add("json_escaped_quotes", k, s, '"{\\"db_pass\\": \\"' + s + '\\", \\"host\\": \\"db\\"}"')
    s = "Pa%24%24" + pick(ALNUM, 6) + "%21"
    add("percent_key_and_value", k, s, f"POST /login body=user=bob&pass%77ord={s}")
    s = pick(ALNUM, 32)
    add("percent_api_key_query", k, s, f"GET /v1/data?api%5Fkey={s}&page=2")
    s = human_password()
    add("json_escaped_token_value", k, s, '{"command": "mysql -u root -p' + s + ' -e \\"show tables\\""}')


def structured() -> None:
    k = "json"
    s = human_password()
    add("mcp_password", k, s, json.dumps({"tool": "mcp__db__connect", "input": {"host": "db", "password": s}}))
    s = human_password()
    add("nested_pwd", k, s, json.dumps({"db": {"user": "report", "pwd": s}}))
    s = "Basic " + base64.b64encode(f"bob:{human_password()}".encode()).decode()
    add("header_authorization_basic", k, s.split(" ")[1],
        json.dumps({"method": "GET", "headers": {"Authorization": s}}))
    s = pick(ALNUM, 32)
    add("camel_api_key", k, s, json.dumps({"apiKey": s, "region": "eu-west-1"}))
    s = pick(B64URL, 40)
    add("json_client_secret", k, s, json.dumps({"client_id": "web-app", "client_secret": s}))
    pem = "-----BEGIN PRIVATE KEY-----\n" + pem_body(300) + "\n-----END PRIVATE KEY-----\n"
    add("gcp_service_account", k, pem.splitlines()[2],
        json.dumps({"type": "service_account", "private_key_id": pick(HEX, 40), "private_key": pem}))
    s = pick(B64, 40)
    add("secret_access_key_camel", k, s, json.dumps({"accessKeyId": "AKIA" + pick(UPPER_ALNUM, 16), "secretAccessKey": s}))
    s = human_password()
    add("json_passphrase", k, s, json.dumps({"key": "deploy.pem", "passphrase": s}))


def write(path: Path) -> None:
    for build in (prefixed_tokens, blobs, command_lines, config_lines, prose, encoded, structured):
        build()
    ids = [f["id"] for f in FORMATS]
    assert len(ids) == len(set(ids))
    with path.open("w", encoding="utf-8") as out:
        for fmt in FORMATS:
            fmt["split"] = "dev" if hashlib.sha256(fmt["id"].encode()).digest()[0] % 2 == 0 else "test"
            out.write(json.dumps(fmt, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    write(Path(__file__).with_name("formats.jsonl"))
