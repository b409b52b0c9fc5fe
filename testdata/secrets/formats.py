#!/usr/bin/env python3
"""Writes testdata/secrets/formats.json: the second layer's corpus as
templates, never as secrets.

Every template holds slots that the tests (internal/secrets.Fresh) and the
peer script (tools/secretpeers) fill with values made afresh on every run, so
no test can pass by remembering a string:

  {pw}      a password: 10 to 24 characters, letters and digits, sometimes a symbol
  {pwpct}   the same password, percent-encoded as a URL userinfo writes it
  {pwodbc}  the same password in an ODBC braced value, each '}' written twice
  {tok}     a high-entropy token: 24 to 48 letters and digits
  {hex}     40 to 64 hex digits of key material
  {b64}     base64 of 32 to 48 random bytes
  {fernet}  a Fernet / Laravel key: base64url of 32 bytes
  {words}   a BIP-39 mnemonic of 12 or 24 words
  {wordlines} the same, one word per line (a seed phrase file, a wallet's backup screen)
  {bytes}   a keypair as a JSON array of 64 byte values
  {basic}   base64 of "user:{pw}" (HTTP Basic, Docker's auth)
  {plain}   base64 of "\\0user\\0{pw}" (SMTP AUTH PLAIN)

Each template has one secret slot; the secret is that slot's value. A
format is a template in one encoding: the `encodings` list names the ways a
producer escapes its text, and every "core" template is written in each.

    python3 testdata/secrets/formats.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

formats = []


def add(cls, name, template):
    assert template.count("{") - template.count("{{") >= 1, name
    formats.append({"class": cls, "name": name, "template": template})


# --- Command-line tools given a password or a token ------------------------
CLI = [
    ("sshpass -p", "ssh failed: sshpass -p {pw} ssh deploy@10.0.0.5 uptime"),
    ("sshpass -p quoted", "exit 5: sshpass -p '{pw}' scp build.tgz ops@bastion:/srv"),
    ("redis-cli -a", "NOAUTH: redis-cli -h cache -a {pw} ping"),
    ("redis-cli --pass", "redis-cli --user app --pass {pw} -p 6380 INFO failed"),
    ("ldapsearch -w", "ldapsearch -x -D cn=admin,dc=corp -w {pw} -b dc=corp"),
    ("ldapmodify -w", "ldap_bind: Invalid credentials (49) running ldapmodify -H ldap://dc1 -D uid=svc -w {pw} -f add.ldif"),
    ("mysql -pX", "ERROR 1045: mysql -u root -p{pw} -h db"),
    ("mysql --password=", "mysql --user=app --password={pw} --host=db app < dump.sql exited 1"),
    ("mysqladmin -pX", "mysqladmin -uroot -p{pw} status: Access denied"),
    ("--password X", "cli exited 1: deploy --user ops --password {pw} --region eu"),
    ("--password=X", "usage error in: pg_dump --password={pw} app"),
    ("--passwd X", "tool --host h --passwd {pw} failed"),
    ("--db-password X", "migrate --db-host pg --db-password {pw} up: connection refused"),
    ("--client-secret X", "oauth2-proxy --client-id web --client-secret {tok} exited 2"),
    ("--token X", "kubectl --server https://k8s:6443 --token {tok} get pods: Unauthorized"),
    ("--token=X", "vault kv get --token={tok} secret/app: permission denied"),
    ("--api-key X", "uploader --api-key {tok} --file a.bin: 403"),
    ("--auth-token X", "relay --auth-token={tok} --port 9000 refused"),
    ("curl -u user:pw", "curl -sS -u admin:{pw} https://registry.local/v2/_catalog returned 401"),
    ("curl --user", "curl --user deploy:{pw} -X POST https://ci.local/job/build returned 403"),
    ("curl -H Authorization", "curl -H 'Authorization: Token {tok}' https://api.local/v1/items -> 401"),
    ("wget --password", "wget --user=bob --password={pw} https://files.local/a.tgz: 401 Unauthorized"),
    ("smbclient -U user%pw", "smbclient //fs/share -U alice%{pw} -c ls: NT_STATUS_LOGON_FAILURE"),
    ("htpasswd -b", "htpasswd -b /etc/nginx/.htpasswd admin {pw} failed: permission denied"),
    ("openssl -passin pass:", "openssl pkcs12 -in cert.p12 -passin pass:{pw} -nokeys: mac verify failure"),
    ("openssl -pass pass:", "openssl enc -aes-256-cbc -pass pass:{pw} -in a -out b: bad decrypt"),
    ("docker login -p", "docker login -u ci -p {pw} registry.local: unauthorized"),
    ("docker login --password", "docker login --username ci --password {pw} ghcr.io failed"),
    ("helm repo add --password", "helm repo add charts https://charts.local --username ci --password {pw}: 401"),
    ("mongosh --password", "mongosh mongodb://db:27017 --username app --password {pw} --authenticationDatabase admin: Authentication failed"),
    ("mongo -p", "mongo admin -u root -p {pw} --eval 'db.stats()' failed"),
    ("sqlcmd -P", "sqlcmd -S db -U sa -P {pw} -Q 'SELECT 1': Login failed for user 'sa'"),
    ("keytool -storepass", "keytool -list -keystore app.jks -storepass {pw}: Keystore was tampered with"),
    ("keytool -keypass", "keytool -importkeystore -srckeystore a.p12 -keypass {pw} -alias app failed"),
    ("zip -P", "zip -P {pw} backup.zip data/ returned 12"),
    ("7z -pX", "7z x archive.7z -p{pw} -oout: Wrong password"),
    ("unrar -pX", "unrar x -p{pw} logs.rar: CRC failed"),
    ("az login -p", "az login -u ops@corp.example -p {pw}: AADSTS50126"),
    ("net use", "net use \\\\fs01\\share {pw} /user:CORP\\svc failed with System error 1326"),
    ("rabbitmqctl add_user", "rabbitmqctl add_user worker {pw}: user already exists"),
    ("rabbitmqctl change_password", "rabbitmqctl change_password worker {pw} failed: nodedown"),
    ("nmcli password", "nmcli dev wifi connect office password {pw}: Secrets were required"),
    ("wpa_passphrase", "wpa_passphrase office {pw} > wpa.conf failed"),
    ("echo | sudo -S", "echo {pw} | sudo -S systemctl restart app: incorrect password attempt"),
    ("echo | docker login --password-stdin", "echo \"{pw}\" | docker login -u ci --password-stdin: Error response from daemon"),
    ("git clone userinfo", "git clone https://ci-bot:{pw}@git.local/team/app.git: Authentication failed"),
    ("pip --index-url", "pip install --index-url https://deploy:{pw}@pypi.local/simple app: 401"),
    ("npm --_authToken", "npm publish --//registry.local/:_authToken={tok} failed with E401"),
    ("psql PGPASSWORD", "PGPASSWORD={pw} psql -h db -U app -c 'select 1': FATAL: password authentication failed"),
    ("MYSQL_PWD env", "MYSQL_PWD={pw} mysqldump app > a.sql exited 2"),
    ("RSYNC_PASSWORD env", "RSYNC_PASSWORD={pw} rsync -av rsync://backup@nas/vol/ ./ failed"),
    ("sshpass -e SSHPASS", "SSHPASS={pw} sshpass -e ssh ops@h: Permission denied"),
    ("printf | sudo -S", "printf '%s\\n' '{pw}' | sudo -S apt-get update: 3 incorrect password attempts"),
    ("echo -n | kinit", "echo -n '{pw}' | kinit ci@CORP.LOCAL: Password incorrect while getting initial credentials"),
    ("here-string | sudo -S", "sudo -S systemctl restart app <<< '{pw}': incorrect password attempt"),
    ("here-string | passwd", "chpasswd: (user ops) pam_chauthtok() failed after passwd --stdin ops <<< '{pw}'"),
    ("rclone obscure", "rclone obscure {pw} | rclone config update nas pass: exit status 1"),
    ("mc alias set", "mc alias set backup http://minio:9000 backup-user {pw}: Unable to initialize new alias"),
    ("gh auth --with-token", "echo {tok} | gh auth login --with-token: HTTP 401"),
    ("lftp -u", "lftp -u backup,{pw} sftp://nas.local: Login failed"),
]
for n, t in CLI:
    add("cli", n, t)

# --- Terminal and protocol transcripts -------------------------------------
TRANSCRIPTS = [
    ("FTP PASS", "220 ready\nUSER alice\nPASS {pw}\n530 Login incorrect"),
    ("POP3 PASS", "+OK POP3 ready\nUSER alice\nPASS {pw}\n-ERR [AUTH] Authentication failed."),
    ("IMAP LOGIN", "* OK IMAP4rev1\na001 LOGIN alice {pw}\na001 NO [AUTHENTICATIONFAILED]"),
    ("IMAP LOGIN quoted", "* OK ready\nA1 LOGIN \"alice@corp\" \"{pw}\"\nA1 NO LOGIN failed"),
    ("SMTP AUTH PLAIN", "250-AUTH PLAIN LOGIN\nAUTH PLAIN {plain}\n535 5.7.8 Authentication credentials invalid"),
    ("SMTP AUTH LOGIN", "334 VXNlcm5hbWU6\nYWxpY2U=\n334 UGFzc3dvcmQ6\n{basic}\n535 5.7.8 Error: authentication failed"),
    ("Redis AUTH", "> AUTH {pw}\n(error) WRONGPASS invalid username-password pair"),
    ("Redis AUTH user", "127.0.0.1:6379> AUTH default {pw}\n(error) WRONGPASS"),
    ("echoed passphrase", "Enter passphrase: {pw}\nBad passphrase, try again"),
    ("Password prompt echo", "ops@bastion's password: {pw}\nPermission denied, please try again."),
    ("sudo prompt echo", "[sudo] password for ops: {pw}\nSorry, try again."),
    ("telnet login", "login: admin\nPassword: {pw}\nLogin incorrect"),
    ("mysql prompt echo", "Enter password: {pw}\nERROR 1045 (28000): Access denied for user 'root'@'localhost'"),
    ("HTTP Basic header", "GET /admin HTTP/1.1\nHost: a.local\nAuthorization: Basic {basic}\n\nHTTP/1.1 401"),
    ("Proxy-Authorization Basic", "CONNECT api:443 HTTP/1.1\nProxy-Authorization: Basic {basic}\nHTTP/1.1 407"),
    ("expect send", "expect: send \"{pw}\\r\" timed out waiting for prompt"),
    ("expect then send", "spawn ssh ops@bastion\nexpect \"assword:\"\nsend \"{pw}\\r\"\nexpect: timed out waiting for prompt"),
    ("pytest assertion", "    def test_login():\n>       assert password != \"{pw}\"\nE       AssertionError: assert 'x' != 'x'"),
    ("Jest code frame", "  > 12 |   expect(user.password).toBe(\"{pw}\");\n       |                         ^\n    Expected: \"x\""),
    ("JUnit assertEquals", "org.opentest4j.AssertionFailedError: expected: <x> but was: <y>\n\tat LoginTest.java:31: assertEquals(\"{pw}\", user.getPassword());"),
    ("smtplib login(user, pw)", "  File \"mail.py\", line 9, in send\n    server.login(user, \"{pw}\")\nsmtplib.SMTPAuthenticationError: (535, b'5.7.8 Username and Password not accepted')"),
    ("MySQL temporary password", "2024-05-01T10:00:00.123456Z 6 [Note] [MY-010454] [Server] A temporary password is generated for root@localhost: {pw}"),
    ("SQL IDENTIFIED BY", "ERROR 1396 (HY000): Operation CREATE USER failed: CREATE USER 'app'@'%' IDENTIFIED BY '{pw}'"),
    ("SQL WITH PASSWORD", "ERROR: role \"app\" already exists: CREATE ROLE app LOGIN WITH PASSWORD '{pw}'"),
    ("SQL ALTER USER", "statement failed: ALTER USER app WITH PASSWORD '{pw}';"),
    ("SQL SET PASSWORD", "ERROR 1133: SET PASSWORD FOR 'app'@'%' = '{pw}'"),
    ("Mongo db.auth", "MongoServerError: Authentication failed. at db.auth(\"app\", \"{pw}\")"),
    ("Mongo createUser", "db.createUser({{user: \"app\", pwd: \"{pw}\", roles: []}}) failed: already exists"),
]
for n, t in TRANSCRIPTS:
    add("transcript", n, t)

# --- Connection strings ----------------------------------------------------
CONN = [
    ("JDBC sqlserver password", "jdbc:sqlserver://db:1433;databaseName=app;user=sa;password={pw};encrypt=true"),
    ("JDBC mysql query", "Communications link failure: jdbc:mysql://db:3306/app?user=app&password={pw}&useSSL=false"),
    ("JDBC postgresql query", "FATAL: jdbc:postgresql://pg:5432/app?user=app&password={pw}&ssl=true"),
    ("JDBC oracle thin", "ORA-01017: jdbc:oracle:thin:app/{pw}@//ora:1521/ORCL"),
    ("ODBC Pwd braces", "Driver={{ODBC Driver 18}};Server=db;Uid=sa;Pwd={{{pwodbc}}};"),
    ("ODBC PWD=", "[unixODBC] DSN=prod;UID=report;PWD={pw};DATABASE=sales login timeout"),
    ("ADO.NET Password=", "SqlException: Server=tcp:db,1433;Initial Catalog=app;User ID=app;Password={pw};Encrypt=True"),
    ("ADO.NET Password quoted", "Npgsql: Host=pg;Username=app;Password='{pw}';Database=app: 28P01"),
    ("Spring datasource", "spring.datasource.url=jdbc:postgresql://pg/app\nspring.datasource.password={pw}"),
    ("SQLAlchemy URL", "sqlalchemy.exc.OperationalError: (psycopg2) postgresql+psycopg2://app:{pw}@pg:5432/app"),
    ("SQLAlchemy mysql URL", "create_engine('mysql+pymysql://app:{pw}@db/app') failed"),
    ("DSN percent-encoded", "dial postgres://app:{pwpct}@pg.internal:5432/app?sslmode=require: timeout"),
    ("mongodb+srv", "MongoServerSelectionError: mongodb+srv://app:{pw}@cluster0.mongodb.net/app"),
    ("redis URL", "redis.exceptions.ConnectionError: redis://:{pw}@cache:6379/0"),
    ("rediss user URL", "dial rediss://default:{pw}@cache.example.com:6380: i/o timeout"),
    ("amqp URL", "AMQPConnectionError: amqp://worker:{pw}@rabbit:5672/%2F"),
    ("smtp URL", "smtplib: smtp://mailer:{pw}@smtp.example.com:587 refused"),
    ("ftp URL", "urlopen error ftp://backup:{pw}@nas.local/pub/ timed out"),
    ("Go mysql DSN", "dial: app:{pw}@tcp(db:3306)/app?parseTime=true: connection refused"),
    ("Oracle EZConnect", "sqlplus app/{pw}@//ora:1521/ORCL: ORA-12541"),
    (".pgpass line", "could not read ~/.pgpass: db.internal:5432:app:alice:{pw}"),
    ("Kafka JAAS", "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"svc\" password=\"{pw}\";"),
    ("Kafka SCRAM JAAS", "ScramLoginModule required username='svc' password='{pw}'; SaslAuthenticationException"),
    ("LDAP URL bind", "ldap bind failed for ldaps://cn=svc:{pw}@dc1.corp:636"),
    ("Elasticsearch URL", "ConnectionError: https://elastic:{pw}@es.local:9200/_bulk"),
    ("ClickHouse DSN", "clickhouse://default:{pw}@ch:9000/default: code 516"),
    ("Snowflake URL", "snowflake://report:{pw}@acct.eu-west-1/db/public failed"),
    ("Neo4j auth", "Neo4jError: neo4j+s://neo4j:{pw}@graph.local:7687 unauthorized"),
    ("MSSQL URL", "sqlserver://sa:{pw}@db:1433?database=app: login error"),
    ("Azure SharedAccessKey", "Endpoint=sb://bus.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey={b64}"),
    ("Azure AccountKey", "DefaultEndpointsProtocol=https;AccountName=store;AccountKey={b64};EndpointSuffix=core.windows.net"),
]
for n, t in CONN:
    add("connection", n, t)

# --- Config and environment dumps -----------------------------------------
CONFIG = [
    ("YAML name/value", "env:\n  - name: AWS_SECRET_ACCESS_KEY\n    value: {tok}\n  - name: REGION\n    value: eu-west-1"),
    ("YAML name/value quoted", "- name: DB_PASSWORD\n  value: \"{pw}\""),
    ("YAML name/value single quoted", "- name: STRIPE_WEBHOOK_SIGNING\n  value: '{tok}'"),
    ("ECS env JSON name/value", "ClientException: Container.environment: [{{\"name\": \"REGION\", \"value\": \"eu-west-1\"}}, {{\"name\": \"DB_PASSWORD\", \"value\": \"{pw}\"}}]"),
    ("SSM parameter", "{{\n    \"Parameter\": {{\n        \"Name\": \"/prod/app/db-password\",\n        \"Type\": \"SecureString\",\n        \"Value\": \"{pw}\",\n        \"Version\": 3\n    }}\n}}"),
    ("Java properties XML", "InvalidPropertiesFormatException in config.xml: <entry key=\"db.password\">{pw}</entry>"),
    (".NET settings value", "ConfigurationErrorsException: <setting name=\"DbPassword\" serializeAs=\"String\"><value>{pw}</value></setting>"),
    ("CloudFormation parameter", "ValidationError: Parameters: [{{\"ParameterKey\": \"DBPassword\", \"ParameterValue\": \"{pw}\"}}] must have values"),
    ("k8s Secret data", "apiVersion: v1\nkind: Secret\ndata:\n  password: {basic}\n  username: YWRtaW4="),
    ("compose env list", "environment:\n  - POSTGRES_USER=app\n  - POSTGRES_PASSWORD={pw}"),
    ("compose env map", "environment:\n  MYSQL_ROOT_PASSWORD: {pw}\n  MYSQL_DATABASE: app"),
    (".env DB_PASS", "loaded .env: DB_HOST=pg\nDB_PASS={pw}\nDB_PORT=5432"),
    (".env quoted", "MAIL_PASSWORD=\"{pw}\"\nMAIL_PORT=587"),
    ("env grep", "$ env | grep -i pass\nREDIS_PASSWORD={pw}"),
    ("RABBITMQ_DEFAULT_PASS", "RABBITMQ_DEFAULT_PASS={pw} RABBITMQ_DEFAULT_USER=admin"),
    ("nested JSON credentials", "config dump: {{\"db\":{{\"credentials\":{{\"user\":\"app\",\"password\":\"{pw}\"}}}}}}"),
    ("nested JSON secret", "{{\"oauth\": {{\"client_id\": \"web\", \"client_secret\": \"{tok}\"}}}}"),
    ("JSON pretty", "{{\n  \"auth\": {{\n    \"token\": \"{tok}\"\n  }}\n}}"),
    ("Laravel APP_KEY", "RuntimeException: APP_KEY=base64:{fernet} is invalid"),
    ("Fernet key", "cryptography.fernet.InvalidToken while loading FERNET_KEY={fernet}"),
    ("Fernet key in prose", "Fernet(b'{fernet}') could not decrypt the token"),
    ("Django SECRET_KEY", "ImproperlyConfigured: SECRET_KEY = '{tok}' is too short"),
    ("Rails secret_key_base", "production:\n  secret_key_base: {hex}"),
    ("wpa_supplicant psk", "network={{\n ssid=\"office\"\n psk=\"{pw}\"\n}}"),
    ("hostapd wpa_passphrase", "hostapd.conf: wpa_passphrase={pw}\nwpa_key_mgmt=WPA-PSK"),
    ("INI password", "[database]\nhost = pg\npassword = {pw}\n"),
    ("TOML password", "[db]\nuser = \"app\"\npassword = \"{pw}\""),
    ("XML appSettings", "<appSettings><add key=\"SmtpPassword\" value=\"{pw}\" /></appSettings>"),
    ("Java properties", "db.url=jdbc:h2:mem\ndb.password={pw}\ndb.user=sa"),
    ("jwt.secret property", "jwt.secret={tok}\njwt.ttl=3600"),
    ("keystore.password", "server.ssl.key-store-password={pw}"),
    ("PHP define", "define('DB_PASSWORD', '{pw}'); // wp-config.php line 29"),
    ("PHP variable", "$password = \"{pw}\"; in config.inc.php"),
    ("Python kwargs", "psycopg2.connect(host='pg', user='app', password='{pw}')"),
    ("Python dict", "{{'user': 'app', 'passwd': '{pw}', 'host': 'db'}}"),
    ("Ruby hash", "{{:user=>\"app\", :password=>\"{pw}\"}}"),
    ("Ruby keyword", "Net::SMTP.start('smtp', 587, user: 'mailer', secret: '{tok}') failed"),
    ("HCL password", "resource \"aws_db_instance\" \"db\" {{\n  password = \"{pw}\"\n}}"),
    (".netrc", "machine api.local login deploy password {pw}"),
    ("npmrc _auth", "//registry.local/:_auth={basic}\nalways-auth=true"),
    ("npmrc _password", "//registry.local/:_password={b64}"),
    ("git credentials", "~/.git-credentials: https://ci:{pw}@git.local"),
    ("docker config auth", "{{\"auths\":{{\"registry.local\":{{\"auth\":\"{basic}\"}}}}}}"),
    (".my.cnf", "[client]\nuser=root\npassword={pw}"),
    ("pip.conf", "[global]\nindex-url = https://u:{pw}@pypi.local/simple"),
    ("WireGuard PrivateKey", "[Interface]\nPrivateKey = {b64}\nAddress = 10.8.0.2/32"),
    ("application.yml mail", "spring:\n  mail:\n    password: {pw}"),
    ("SMTP_PASS", "SMTP_HOST=smtp.local SMTP_PASS={pw} SMTP_PORT=25"),
    ("Go struct dump", "&Config{{User:\"app\", Password:\"{pw}\", Host:\"db\"}}"),
    ("Java toString", "DataSourceConfig{{url=jdbc:pg://db, username=app, password={pw}}}"),
    ("Python repr", "Settings(db_user='app', db_password='{pw}', debug=False)"),
    ("log kv", "level=error msg=\"login failed\" user=app password={pw} attempt=3"),
    ("logfmt token", "ts=2026-01-01T00:00:00Z level=warn refresh_token={tok} msg=expired"),
]
for n, t in CONFIG:
    add("config", n, t)

# --- Header lines and cookies ---------------------------------------------
HEADERS = [
    "X-Insert-Key", "Api-Key", "X-Api-Key", "X-Honeycomb-Team", "X-Auth-Token", "X-Access-Token",
    "X-Vault-Token", "Private-Token", "Ocp-Apim-Subscription-Key", "X-Goog-Api-Key", "X-API-Token",
    "X-Secret", "X-Session-Token", "X-Figma-Token", "X-Shopify-Access-Token", "X-Consul-Token",
    "X-Nomad-Token", "X-Algolia-API-Key", "X-Postmark-Server-Token", "X-Riot-Token",
]
for h in HEADERS:
    add("header", h + " header", "403 from upstream; request headers: " + h + ": {tok}\nAccept: */*")
for scheme in ["Token", "ApiKey", "Key", "Bearer", "Secret"]:
    add("header", "Authorization " + scheme, "GET /v1/things\nAuthorization: " + scheme + " {tok}\nAccept: */*")
COOKIES = [
    "connect.sid", ".AspNetCore.Session", ".AspNetCore.Cookies", "JSESSIONID", "PHPSESSID",
    "laravel_session", "_session_id", "session", "sid", "remember_token", "ASP.NET_SessionId",
    "sessionid", "_gitlab_session", "__Secure-next-auth.session-token", "auth_token",
]
for c in COOKIES:
    add("cookie", c + " cookie", "Cookie: theme=dark; " + c + "={tok}; lang=en")
    add("cookie", c + " Set-Cookie", "Set-Cookie: " + c + "={tok}; Path=/; HttpOnly")
add("cookie", "connect.sid signed", "session lost (connect.sid=s%3A{tok})")

# --- SAML, WS-Security, keys ----------------------------------------------
KEYS = [
    ("WS-Security Password", "<wsse:UsernameToken><wsse:Username>svc</wsse:Username><wsse:Password Type=\"#PasswordText\">{pw}</wsse:Password></wsse:UsernameToken>"),
    ("SAML SignatureValue", "<saml:Assertion><ds:Signature><ds:SignatureValue>{b64}</ds:SignatureValue></ds:Signature></saml:Assertion>"),
    ("SAMLResponse param", "POST /acs SAMLResponse={b64}&RelayState=home failed validation"),
    ("XML Password", "<config><password>{pw}</password></config>"),
    ("XML ClientSecret", "<oauth><ClientSecret>{tok}</ClientSecret></oauth>"),
    ("XML attribute password", "<datasource user=\"app\" password=\"{pw}\" url=\"jdbc:db\"/>"),
    ("JWK RSA d", "{{\"kty\":\"RSA\",\"n\":\"0vx7agoebGc\",\"e\":\"AQAB\",\"d\":\"{tok}\"}}"),
    ("JWK oct k", "{{\"kty\":\"oct\",\"alg\":\"HS256\",\"k\":\"{tok}\"}}"),
    ("JWK OKP d", "{{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"11qYAYKx\",\"d\":\"{tok}\"}}"),
    ("keypair array", "loaded keypair: {bytes}"),
    ("keypair file", "id.json: {bytes} is not a valid keypair"),
    ("BIP-39 mnemonic", "wallet import failed: mnemonic \"{words}\" has a bad checksum"),
    ("BIP-39 seed phrase", "seed phrase: {words}"),
    ("BIP-39 bare", "recovering from {words} failed"),
    ("BIP-39 one word per line", "restore from backup.txt failed:\n{wordlines}\n(bad checksum)"),
    ("private key hex", "signing failed: private_key={hex}"),
    ("HMAC secret hex", "webhook HMAC mismatch using secret {hex}"),
    ("encryption key b64", "decrypt failed with encryption_key: {b64}"),
]
for n, t in KEYS:
    add("key", n, t)

# --- Bare tokens in prose --------------------------------------------------
BARE = [
    "upstream said: {tok} is not valid",
    "rejected key {tok}, check the dashboard",
    "the value {tok} was not accepted",
    "401: {tok}",
    "could not authenticate with {tok}",
    "invalid: {tok}",
    "{tok} expired yesterday",
    "using {tok} for the upstream call failed",
    "denied ({tok})",
    "provider returned 403 for '{tok}'",
]
for i, t in enumerate(BARE):
    add("bare", "bare token %d" % (i + 1), t)

# --- Credential words in every common syntax ------------------------------
PASSWORD_KEYS = ["password", "PASSWORD", "Password", "db_password", "DB-PASSWORD", "dbPassword",
                 "passwd", "pwd", "PWD", "pass", "passphrase", "psk", "admin_pass", "userPassword"]
WEAK_KEYS = ["secret", "client_secret", "token", "access_token", "refresh_token", "api_key", "apiKey",
             "API-KEY", "auth", "auth_token", "credential", "credentials", "key", "secret_key",
             "session_key", "signing_key", "cookie", "session_token", "private_key", "webhook_secret"]
SYNTAX = [
    ("k=v", "request failed: {k}={v} host=db"),
    ("k: v", "config error\n{k}: {v}\nretries: 3"),
    ("\"k\": \"v\"", "body was {{\"user\": \"app\", \"{k}\": \"{v}\"}}"),
    ("<k>v</k>", "<request><{k}>{v}</{k}></request>"),
    ("k v in prose", "login rejected with {k} {v} for app"),
    ("k => v", "{{:{k} => '{v}'}}"),
    ("k := v", "{k} := \"{v}\" // from vault"),
    ("--k v", "run --{k} {v} failed"),
]
for key in PASSWORD_KEYS:
    for sn, t in SYNTAX:
        add("password_word", "%s %s" % (key, sn), t.replace("{k}", key).replace("{v}", "{pw}"))
for key in WEAK_KEYS:
    for sn, t in SYNTAX:
        add("weak_word", "%s %s" % (key, sn), t.replace("{k}", key).replace("{v}", "{tok}"))

# The formats written in every encoding.
CORE = [
    "sshpass -p", "redis-cli -a", "mysql -pX", "--password X", "FTP PASS", "IMAP LOGIN",
    "JDBC sqlserver password", "ODBC Pwd braces", ".pgpass line", "YAML name/value",
    "nested JSON credentials", "Laravel APP_KEY", "wpa_supplicant psk", "X-Insert-Key header",
    "connect.sid cookie", "WS-Security Password", "bare token 1", "password k=v",
    "token \"k\": \"v\"", "api_key k: v", "DSN percent-encoded", "BIP-39 seed phrase",
    "HTTP Basic header", "Api-Key header", "JWK oct k",
]
ENCODINGS = [
    "json_unicode",      # every character \\u-escaped, as a JSON encoder with ASCII-only output can
    "percent",           # percent-encoded once
    "double_percent",    # percent-encoded twice
    "form",              # form-encoded: spaces as '+', the rest percent-encoded (urlencode, quote_plus)
    "html_decimal",      # HTML decimal entities
    "html_hex",          # HTML hex entities
    "python_bytes",      # Python \\x escapes of every byte
    "hex",               # the text's bytes as hex
    "base64",            # the text's bytes as base64
    "fullwidth",         # fullwidth Unicode forms (NFKC folds them back)
    "ansi",              # an ANSI colour escape between every character
    "wrapped",           # soft-wrapped: a newline every 16 characters, as a narrow terminal does
]
names = {f["name"] for f in formats}
assert len(names) == len(formats), "duplicate names"
for c in CORE:
    assert c in names, c

# --- Ordinary messages: nothing secret, must come back unchanged ---------
# Slots filled afresh on every run: {sha256} {sha1} {md5} (hex digests),
# {fp} (an OpenSSH SHA256 fingerprint), {uuid}, {jsonb64} (base64 of a JSON
# object), {b62_N} (N letters and digits, for ids with a documented prefix),
# {hex_N}, {num}.
ORDINARY = [
    # digests after a hash name
    "pulling image sha256:{sha256} failed: manifest unknown",
    "registry.local/app@sha256:{sha256}: not found",
    "Digest: sha256:{sha256}",
    "checksum mismatch: expected sha256 {sha256}, got sha256 {sha256}",
    "sha1: {sha1} does not match the archive",
    "md5={md5} differs from the manifest",
    "ETag \"{md5}\" is stale",
    "integrity sha512-{b64_86}== failed for lodash",
    "verifying go.sum: h1:{b64_43}= mismatch",
    "SHA-256 of the upload ({sha256}) differs",
    "content hash {sha256} (sha256) already stored",
    "blob {sha1} missing from object store",
    "commit {sha1} broke the build",
    "git checkout {sha1}: reference is not a tree",
    "cherry-pick of {hex_12} failed with conflicts",
    "container {hex_12} exited with code 137",
    "docker: Error response from daemon: Conflict. The container name \"/app\" is already in use by container \"{sha256}\"",
    "layer sha256:{sha256} is still uploading",
    "/nix/store/{nix32}-openssl-3.0.13 is corrupt",
    # fingerprints
    "SHA256:{fp} is the host key fingerprint",
    "The ECDSA key fingerprint is SHA256:{fp}.",
    "Host key verification failed. Offending key SHA256:{fp}",
    "gpg: key {hex_16}: public key not found",
    "certificate fingerprint SHA1 {colonhex_20} does not match the pin",
    "MD5:{colonhex_16} is not an accepted key",
    # ids
    "uuid {uuid} not found",
    "request {uuid} timed out after 30s",
    "x-request-id: {uuid}",
    "trace {hex_32} dropped",
    "traceparent 00-{hex_32}-{hex_16}-01 rejected",
    "span {hex_16} has no parent",
    "request id req_{hex_32}",
    "request-id: req_011C{b62_20}",
    "chatcmpl-{b62_29} finished with reason length",
    "message msg_01{b62_22} was truncated",
    "file-{b62_24} is still processing",
    "assistant asst_{b62_24} not found",
    "thread_{b62_24} is locked by run run_{b62_24}",
    "batch_{hex_32} expired",
    "organization org-{b62_24} has no access to this model",
    "project proj_{b62_24} is archived",
    "Stripe: No such customer: 'cus_{b62_14}'",
    "payment intent pi_{b62_24} requires action",
    "charge ch_{b62_24} was refunded",
    "Slack channel C{upper_10} not found",
    "instance i-0{hex_16} is stopping",
    "security group sg-0{hex_16} is in use",
    "ami-0{hex_16} is not available in eu-west-1",
    "vpc-0{hex_16} has dependencies",
    "subscription {uuid} is disabled",
    "tenant {uuid}: AADSTS700016 application not found",
    "ObjectId('{hex_24}') not found",
    "document {hex_24} was modified concurrently",
    "job {num} failed on runner {num}",
    "pod api-{lhex_10}-{lower_5} OOMKilled",
    "resourceVersion {num} is too old",
    "snowflake id {num} out of range",
    "upload {ulid} incomplete",
    "event {ulid} could not be delivered",
    "GCP operation operation-{num}-{lhex_13}-{lhex_8}-{lhex_8} failed",
    "Vertex job projects/{num}/locations/us-central1/batchPredictionJobs/{num} failed",
    # ARNs
    "arn:aws:secretsmanager:us-east-1:{digits_12}:secret:prod/db-{b62_6} not found",
    "AccessDenied on arn:aws:secretsmanager:eu-west-1:{digits_12}:secret:app/api-key-{b62_6}",
    "arn:aws:iam::{digits_12}:role/deploy is not authorized to perform sts:AssumeRole",
    "arn:aws:kms:us-east-1:{digits_12}:key/{uuid} is disabled",
    "arn:aws:ssm:us-east-1:{digits_12}:parameter/app/db_password not found",
    "arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-5-sonnet-20240620-v1:0 throttled",
    # base64 that is not a secret
    "payload {jsonb64} failed schema validation",
    "event data: {jsonb64}",
    "cursor {jsonb64} is expired",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg== is not a supported image",
    "page token {jsonb64} is invalid",
    # placeholders and masks after credential words
    "key ${{OPENAI_API_KEY}} is not set",
    "password: ${{DB_PASSWORD}}",
    "password={{{{ .Values.db.password }}}} was not rendered",
    "api_key: <your-api-key>",
    "token=$GITHUB_TOKEN is empty",
    "password=%(db_password)s could not be interpolated",
    "client_secret: YOUR_CLIENT_SECRET",
    "password ******** was masked",
    "password: <redacted>",
    "password: [REDACTED]",
    "api_key=***REDACTED***",
    "token: ••••••••",
    "Incorrect API key provided: sk-proj-********************abcd.",
    "secret: XXXXXXXXXXXX",
    "password=<hidden>",
    "token: (none)",
    "password: null",
    "api_key=\"\"",
    # a credential's name with no value beside it
    "ClientException: Container.environment: [{{\"name\": \"DB_HOST\", \"value\": \"db.internal\"}}]",
    "{{\"Name\": \"MaxPasswordAge\", \"Value\": \"90\"}}",
    "{{\"name\": \"password_min_length\", \"value\": 12}}",
    "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      key: password\n      name: db",
    "A new password is generated for each user and the password is set to expire in 90 days",
    # prose about credentials
    "the password was rejected",
    "password must be at least 12 characters",
    "Invalid password: too short",
    "passwords do not match",
    "password reset email sent to alice@example.com",
    "token expired at 2026-01-01T00:00:00Z",
    "invalid token type: Bearer",
    "api key not found",
    "the api key header is missing",
    "session expired, please sign in again",
    "cookie consent required",
    "secret not found: prod/db",
    "credentials file ~/.aws/credentials is missing",
    "auth method not supported: kerberos",
    "key too short: need 32 bytes",
    "you shall not pass",
    "passed 12 of 14 checks",
    "pass the --verbose flag for details",
    "monkey patching failed in module keyboard",
    "token limit: 128000 tokens",
    "max_tokens must be at most 4096",
    "nextPageToken expired",
    "This model's maximum context length is 128000 tokens. However, you requested 130512 tokens.",
    "secret scanning blocked the push",
    "token: read-only",
    "auth: required",
    "key: user_id",
    "secret_name=prod-db-credentials",
    "password_policy=strong",
    "PWD=/home/runner/work/app failed to chdir",
    "session_id cookie missing",
    "psk mode not supported by this access point",
    "api_key_id={digits_6} is revoked",
    "key id {hex_16} not trusted",
    # versions, models, hosts, numbers
    "model gpt-4o-2024-08-06 is overloaded",
    "model meta-llama/Llama-3.1-70B-Instruct is currently loading",
    "claude-3-5-sonnet-20241022 is not available",
    "gemini-1.5-pro-002 returned SAFETY",
    "version v{num}.{num}.{num}-rc.{num}+build.{hex_7} is not supported",
    "go1.26.0 linux/amd64 required",
    "node v20.11.1 is too old",
    "user alice logged in from 10.0.{num}.{num}",
    "ETIMEDOUT connecting to 203.0.113.{num}:443",
    "listen tcp [::1]:{num}: bind: address already in use",
    "retry after {num}s; rate limit reached for requests per min",
    "Rate limit reached for gpt-4o in organization org-{b62_24} on tokens per min (TPM): Limit 30000, Used 29876, Requested 512.",
    "quota exceeded for quota metric 'Requests' and limit 'Requests per minute' of service 'generativelanguage.googleapis.com'",
    "exit status 137 (OOMKilled) after 3m12s",
    "java.lang.NullPointerException at com.example.Service.handle(Service.java:{num})",
    "at Object.<anonymous> (/app/node_modules/openai/index.js:{num}:{num})",
    "File \"/usr/lib/python3.11/site-packages/httpx/_client.py\", line {num}, in send",
    "duplicate key value violates unique constraint \"users_email_key\"",
    "GET https://api.example.com/v1/users?page=2&limit=50 returned 502 Bad Gateway",
    "open /var/run/secrets/kubernetes.io/serviceaccount/token: no such file or directory",
    "error: the server doesn't have a resource type \"secrets\"",
    "unsupported grant_type: implicit",
    "invalid api version 2023-06-01; supported: 2024-10-21",
    "Missing required header: X-Api-Key",
    "access denied: missing permission storage.objects.get",
    "请求超时，请稍后重试。",
    "Die Anfrage ist fehlgeschlagen: Zeitüberschreitung",
    "batch 12/40 failed: 3 items rejected",
    "cron job backup-nightly missed its schedule by 2h",
    "disk /dev/nvme0n1p{num} is {num}% full",
    "TLS handshake failed: x509: certificate signed by unknown authority",
    "HTTP/1.1 429 Too Many Requests\nRetry-After: {num}\nContent-Type: application/json",
    "Set-Cookie: theme=dark; Path=/; Max-Age={num}",
    "Cookie: lang=en; theme=dark",
    "Authorization header missing",
    "WWW-Authenticate: Bearer realm=\"api\", error=\"invalid_token\"",
    "X-RateLimit-Remaining: 0\nX-RateLimit-Reset: {num}",
    "anthropic-ratelimit-tokens-reset: 2026-01-01T00:00:{num}Z",
    "openai-organization: org-{b62_24}",
    "x-ratelimit-reset-tokens: 6m0s",
    "cf-ray: {hex_16}-AMS",
    "x-amzn-RequestId: {uuid}",
    "x-goog-request-params: name=projects/p{num}",
    "build {uuid} of pipeline {num} failed at step lint",
    "artifact app-{hex_7}.tar.gz is missing",
    "helm release app-{num} is in state pending-upgrade",
    "terraform state lock {uuid} held by ci@runner-{num}",
    "lease {hex_16} expired in etcd",
    "kafka offset {num} out of range for partition {num}",
    "S3 ETag \"{md5}-{num}\" does not match the multipart upload",
    "Sentry event {hex_32} dropped: rate limited",
    "Datadog trace_id={num} span_id={num}",
    "user 5f{hex_22} has no role",
    "license key expired on 2026-01-01",
    "secret rotation scheduled for 2026-02-01",
    "session {num} of {num} finished",
    "token bucket empty: 0 of {num} remaining",
    "password_last_changed={num}",
    "keyId={uuid} is not active",
    "passkey registration failed: NotAllowedError",
]

out = {"formats": formats, "core": CORE, "encodings": ENCODINGS, "ordinary": ORDINARY}
with open(os.path.join(HERE, "formats.json"), "w") as f:
    json.dump(out, f, indent=1, ensure_ascii=False)
    f.write("\n")
print("%d templates, %d core × %d encodings: %d formats; %d ordinary shapes" % (
    len(formats), len(CORE), len(ENCODINGS), len(formats) + len(CORE) * len(ENCODINGS), len(ORDINARY)))
