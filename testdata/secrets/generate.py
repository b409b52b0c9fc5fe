#!/usr/bin/env python3
"""Regenerates testdata/secrets/corpus.json (the secrets corpus) and
testdata/secrets/ordinary.json (ordinary error messages that must come back
unchanged).

Every secret is FAKE: random characters of the alphabet and length the
format's public documentation gives (prefixes, lengths, checksums are not
valid), generated from a fixed seed so the files are stable. The first
entries of corpus.json (the hand-written ones, up to the marker name
"generated:") are kept as they are; the rest is rewritten.

    python3 testdata/secrets/generate.py
"""
import json
import os
import random
import string

HERE = os.path.dirname(os.path.abspath(__file__))
rnd = random.Random(20261201)

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def r(alpha, n):
    # Make sure a digit and both cases occur when the alphabet has them, as
    # real keys almost always do.
    while True:
        s = "".join(rnd.choice(alpha) for _ in range(n))
        if n < 8 or not any(c.isdigit() for c in alpha) or any(c.isdigit() for c in s):
            return s


def jwt():
    head = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    body = "eyJ" + r(B64URL, 60)
    return head + "." + body + "." + r(B64URL, 43)


# (name, secret factory, [contexts]); {s} is the secret. Each context is one
# corpus entry.
FORMATS = [
    ("aws_session_token", lambda: "IQoJb3JpZ2luX2VjE" + r(B64, 300), [
        "aws: ExpiredToken: The security token included in the request is expired (aws_session_token={s})",
        "GET /bucket?X-Amz-Security-Token={s}&X-Amz-Date=20260101T000000Z returned 403",
        "export AWS_SESSION_TOKEN=\"{s}\"",
    ]),
    ("aws_session_token_fwo", lambda: "FwoGZXIvYXdzE" + r(B64, 250), [
        "sts assume-role output: SessionToken {s} expires 2026-01-01T01:00:00Z",
    ]),
    ("aws_secret_key_ini", lambda: r(B64, 40), [
        "[default]\naws_access_key_id = AKIA" + r(UPPER_ALNUM, 16) + "\naws_secret_access_key = {s}\n",
        "SignatureDoesNotMatch; credentials used: secretAccessKey: \"{s}\"",
    ]),
    ("google_oauth_access_token", lambda: "ya29." + r(B64URL, 160), [
        "googleapis: 401 Request had invalid authentication credentials. token ya29 used: {s}",
        "{{\"error\":\"invalid_token\",\"access\":\"{s}\"}}",
        "Authorization: Bearer {s}",
    ]),
    ("google_refresh_token", lambda: "1//0" + r(B64URL, 99), [
        "oauth2: cannot fetch token: 400 Bad Request Response: refresh {s} invalid_grant",
        "stored credential {{\"type\":\"authorized_user\",\"refresh\":\"{s}\"}}",
    ]),
    ("google_client_secret", lambda: "GOCSPX-" + r(B64URL, 28), [
        "oauth client misconfigured: client {s} rejected",
        "GOOGLE_CLIENT_SECRET={s}",
    ]),
    ("vault_service_token", lambda: "hvs." + r(B64URL, 91), [
        "vault: permission denied (token {s}) on path secret/data/app",
        "VAULT_TOKEN={s} vault kv get secret/app failed",
    ]),
    ("vault_batch_token", lambda: "hvb." + r(B64URL, 138), [
        "vault: batch {s} expired",
    ]),
    ("vault_long_service_token", lambda: "hvs.CAESI" + r(B64URL, 90), [
        "X-Vault-Token: {s}",
    ]),
    ("docker_pat", lambda: "dckr_pat_" + r(B64URL, 27), [
        "docker login -u ci --password-stdin <<< {s}: unauthorized",
        "registry-1.docker.io: denied for {s}",
    ]),
    ("pypi_token", lambda: "pypi-AgEIcHlwaS5vcmc" + r(B64URL, 160), [
        "twine upload failed: 403 Invalid or non-existent authentication information; used {s}",
        "[pypi]\n  username = __token__\n  password = {s}\n",
    ]),
    ("gitlab_deploy_token", lambda: "gldt-" + r(B64URL, 20), [
        "git clone https://gitlab+deploy-token-1:{s}@gitlab.com/group/repo.git failed",
        "deploy {s} revoked",
    ]),
    ("gitlab_runner_token", lambda: "glrt-" + r(B64URL, 20), [
        "gitlab-runner register --token {s}: 403 Forbidden",
    ]),
    ("gitlab_pipeline_trigger", lambda: "glptt-" + r(HEX, 40), [
        "curl -X POST -F token={s} -F ref=main https://gitlab.com/api/v4/projects/1/trigger/pipeline: 404",
    ]),
    ("gitlab_feed_token", lambda: "glft-" + r(B64URL, 20), [
        "feed {s} invalid",
    ]),
    ("grafana_service_account", lambda: "glsa_" + r(ALNUM, 32) + "_" + r(HEX, 8), [
        "grafana: 401 Unauthorized (Authorization: Bearer {s})",
        "provisioning: grafana api {s} rejected",
    ]),
    ("grafana_cloud_token", lambda: "glc_eyJvIjoi" + r(B64, 100), [
        "GRAFANA_CLOUD_TOKEN set to {s} is invalid",
    ]),
    ("groq_key", lambda: "gsk_" + r(ALNUM, 52), [
        "groq: 401 invalid_api_key {s}",
        "{{\"error\":{{\"message\":\"Invalid API Key: {s}\",\"type\":\"invalid_request_error\"}}}}",
    ]),
    ("xai_key", lambda: "xai-" + r(ALNUM, 80), [
        "x.ai: Incorrect API key provided: {s}. Obtain an API key from https://console.x.ai.",
        "XAI_API_KEY={s}",
    ]),
    ("replicate_token", lambda: "r8_" + r(ALNUM, 37), [
        "replicate: Unauthenticated: token {s} invalid",
        "REPLICATE_API_TOKEN={s}",
    ]),
    ("langsmith_pat", lambda: "lsv2_pt_" + r(HEX, 32) + "_" + r(HEX, 10), [
        "langsmith: 403 Forbidden for {s}",
    ]),
    ("langsmith_service_key", lambda: "lsv2_sk_" + r(HEX, 32) + "_" + r(HEX, 10), [
        "LANGCHAIN_API_KEY={s} rejected",
    ]),
    ("pinecone_key", lambda: "pcsk_" + r(ALNUM, 6) + "_" + r(ALNUM, 63), [
        "pinecone: UNAUTHORIZED: Invalid API Key {s}",
        "Api-Key: {s}",
    ]),
    ("databricks_token", lambda: "dapi" + r(HEX, 32), [
        "databricks: 403 Invalid access token {s}",
        "DATABRICKS_TOKEN={s}-2 rejected",
    ]),
    ("shopify_access_token", lambda: "shpat_" + r(HEX, 32), [
        "shopify: [API] Invalid API key or access token (unrecognized login or wrong password) {s}",
        "X-Shopify-Access-Token: {s}",
    ]),
    ("shopify_shared_secret", lambda: "shpss_" + r(HEX, 32), [
        "webhook hmac mismatch using {s}",
    ]),
    ("shopify_custom_app", lambda: "shpca_" + r(HEX, 32), [
        "custom app {s} uninstalled",
    ]),
    ("age_secret_key", lambda: "AGE-SECRET-KEY-1" + r(BECH32, 58), [
        "age: no identity matched any of the recipients; identity file holds {s}",
        "# created: 2026-01-01T00:00:00Z\n# public key: age1" + r(BECH32.lower(), 58) + "\n{s}\n",
    ]),
    ("slack_webhook", lambda: "T" + r(UPPER_ALNUM, 10) + "/B" + r(UPPER_ALNUM, 10) + "/" + r(ALNUM, 24), [
        "POST https://hooks.slack.com/services/{s} returned 404 no_service",
        "{{\"webhook\":\"https://hooks.slack.com/services/{s}\",\"ok\":false}}",
    ]),
    ("slack_workflow_webhook", lambda: "T" + r(UPPER_ALNUM, 10) + "/A" + r(UPPER_ALNUM, 10) + "/" + r(ALNUM, 24) + "/" + r(ALNUM, 24), [
        "workflow trigger https://hooks.slack.com/triggers/{s} failed",
    ]),
    ("discord_webhook", lambda: str(rnd.randrange(10**17, 10**18)) + "/" + r(B64URL, 68), [
        "discord: 401 Unauthorized POST https://discord.com/api/webhooks/{s}",
        "notify: https://discordapp.com/api/webhooks/{s}?wait=true timed out",
    ]),
    ("discord_bot_token", lambda: "MT" + r(ALNUM, 24) + "." + r(B64URL, 6) + "." + r(B64URL, 38), [
        "discord gateway closed 4004: Authentication failed (Authorization: Bot {s})",
        "DISCORD_BOT_TOKEN={s}",
    ]),
    ("telegram_bot_token", lambda: str(rnd.randrange(10**9, 10**10)) + ":AA" + r(B64URL, 33), [
        "telegram: 401 Unauthorized GET https://api.telegram.org/bot{s}/getUpdates",
        "TELEGRAM_BOT_TOKEN={s}",
    ]),
    ("sentry_dsn", lambda: r(HEX, 32), [
        "sentry: failed to send event to https://{s}@o" + str(rnd.randrange(10**5, 10**6)) + ".ingest.sentry.io/" + str(rnd.randrange(10**6, 10**7)),
        "SENTRY_DSN=https://{s}@sentry.example.com/42",
    ]),
    ("dsn_password_slash", lambda: r(ALNUM, 8) + "/" + r(ALNUM, 8), [
        "pq: connection refused: postgres://app:{s}@db.internal:5432/orders",
    ]),
    ("dsn_password_hash", lambda: r(ALNUM, 8) + "#" + r(ALNUM, 8), [
        "redis: dial redis://default:{s}@cache:6379/0: i/o timeout",
    ]),
    ("dsn_password_slash_hash", lambda: r(ALNUM, 6) + "/#" + r(ALNUM, 10), [
        "mongo: auth failed for mongodb://root:{s}@mongo-0:27017/admin",
    ]),
    ("mysql_p_flag", lambda: r(ALNUM, 16), [
        "command failed: mysql -h db -u root -p{s} orders < dump.sql: exit status 1",
        "mysqldump -uadmin -p{s} --all-databases: Access denied",
    ]),
    ("curl_u_user_pw", lambda: r(ALNUM, 18), [
        "exec: curl -sS -u deploy:{s} https://ci.example.com/api/json: exit status 22",
        "curl --user admin:{s} -X POST https://registry.example.com/v2/: 401",
    ]),
    ("odbc_pwd", lambda: r(ALNUM, 14), [
        "[Microsoft][ODBC Driver 18 for SQL Server]Login failed. Driver={{ODBC Driver 18}};Server=db;UID=sa;PWD={s};Encrypt=yes",
        "connection string Server=tcp:sql.example.com,1433;Database=app;User ID=app;Pwd={s};",
    ]),
    ("query_key", lambda: r(ALNUM, 32), [
        "GET https://maps.example.com/api/geocode/json?address=x&key={s} returned 403",
        "fetch failed: https://api.example.com/v2/items?key={s}&page=2",
    ]),
    ("query_access_key", lambda: r(HEX, 32), [
        "http://api.weatherstack.com/current?access_key={s}&query=Paris: 101 invalid_access_key",
    ]),
    ("query_sig", lambda: r(B64, 43) + "%3D", [
        "azure blob: 403 AuthenticationFailed https://acct.blob.core.windows.net/c/b?sv=2022-11-02&se=2026-01-01&sp=r&sig={s}",
    ]),
    ("kubeconfig_client_key_data", lambda: "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQp" + r(B64, 200), [
        "users:\n- name: admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t\n    client-key-data: {s}\n",
        "kubectl: error loading config: client-key-data: {s}: invalid",
    ]),
    ("bare_pkcs8_base64", lambda: "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ" + r(B64, 300), [
        "cannot parse private key (expected PEM): {s}",
        "{{\"key\":\"{s}\"}}",
    ]),
    ("jwt_glued_underscore", jwt, [
        "cache miss for session_{s}",
        "token file id_{s}.json not found",
    ]),
    # Escapes and glue around otherwise known formats.
    ("json_unicode_escape_openai", lambda: "sk-proj-" + r(B64URL, 100), [
        "{{\"error\":\"bad key \\u003c{s}\\u003e\"}}",
        "body: \\u0022{s}\\u0022 rejected",
    ]),
    ("glued_underscore_openai", lambda: "sk-proj-" + r(B64URL, 100), [
        "env key_{s} missing scope",
    ]),
    ("glued_underscore_github", lambda: "ghp_" + r(ALNUM, 36), [
        "secret name GH_{s} unknown",
    ]),
    ("nbsp_bearer", lambda: r(ALNUM, 40), [
        "Authorization: Bearer\u00a0{s}",
        "request rejected: bearer\u00a0{s} expired",
    ]),
    ("bearer_next_line", lambda: r(ALNUM, 40), [
        "401 from upstream; request headers were\nAuthorization: Bearer\n{s}\nAccept: */*",
    ]),
    ("url_encoded_password", lambda: r(ALNUM, 14), [
        "POST /login body=username%3Dadmin%26password%3D{s}%26remember%3D1 returned 500",
        "redirect to https://app.example.com/cb?state=x%26client_secret%3D{s}",
    ]),
    ("fullwidth_colon_password", lambda: r(ALNUM, 14), [
        "登录失败 password：{s}",
        "設定エラー: api_key：{s}",
    ]),
    # Other common formats.
    ("twilio_api_key", lambda: "SK" + r(HEX, 32), ["twilio: 20003 Authenticate: api key {s}"]),
    ("mailgun_key", lambda: "key-" + r(HEX, 32), ["mailgun: 401 Forbidden api:{s}"]),
    ("mailchimp_key", lambda: r(HEX, 32) + "-us12", ["mailchimp: API Key Invalid: {s}"]),
    ("square_access_token", lambda: "EAAA" + r(B64URL, 60), ["square: UNAUTHORIZED for access token {s}"]),
    ("digitalocean_pat", lambda: "dop_v1_" + r(HEX, 64), ["doctl: Unable to authenticate you ({s})"]),
    ("digitalocean_oauth", lambda: "doo_v1_" + r(HEX, 64), ["digitalocean: oauth {s} revoked"]),
    ("linear_api_key", lambda: "lin_api_" + r(ALNUM, 40), ["linear: Authentication required, not authenticated ({s})"]),
    ("notion_token", lambda: "ntn_" + r(ALNUM, 46), ["notion: API token is invalid: {s}"]),
    ("notion_secret", lambda: "secret_" + r(ALNUM, 43), ["notion integration {s} unauthorized"]),
    ("figma_pat", lambda: "figd_" + r(B64URL, 40), ["figma: 403 Invalid token {s}"]),
    ("postman_key", lambda: "PMAK-" + r(HEX, 24) + "-" + r(HEX, 34), ["postman: AuthenticationError {s}"]),
    ("supabase_pat", lambda: "sbp_" + r(HEX, 40), ["supabase: Unauthorized {s}"]),
    ("doppler_token", lambda: "dp.pt." + r(ALNUM, 43), ["doppler: Invalid Auth token {s}"]),
    ("sentry_user_token", lambda: "sntryu_" + r(HEX, 64), ["sentry-cli: API request failed (token {s})"]),
    ("sentry_org_token", lambda: "sntrys_eyJpYXQiOjE3" + r(B64URL, 120), ["SENTRY_AUTH_TOKEN={s}"]),
    ("newrelic_user_key", lambda: "NRAK-" + r(UPPER_ALNUM, 27), ["newrelic: 403 invalid user key {s}"]),
    ("perplexity_key", lambda: "pplx-" + r(ALNUM, 48), ["perplexity: 401 Invalid API key {s}"]),
    ("openrouter_key", lambda: "sk-or-v1-" + r(HEX, 64), ["openrouter: 401 No auth credentials found for {s}"]),
    ("deepseek_key", lambda: "sk-" + r(HEX, 32), ["deepseek: Authentication Fails (api key {s})"]),
    ("anthropic_oauth_token", lambda: "sk-ant-oat01-" + r(B64URL, 95), ["claude: 401 invalid oauth {s}"]),
    ("fireworks_key", lambda: "fw_" + r(ALNUM, 24), ["fireworks: Unauthorized: {s}"]),
    ("onepassword_service_token", lambda: "ops_eyJzaWduSW5BZGRyZXNzIjoi" + r(B64URL, 200), ["op: invalid service account token {s}"]),
    ("terraform_cloud_token", lambda: r(ALNUM, 14) + ".atlasv1." + r(ALNUM, 67), ["terraform: Error: Required token could not be found; got {s}"]),
    ("buildkite_token", lambda: "bkua_" + r(HEX, 40), ["buildkite: 401 Unauthorized {s}"]),
    ("circleci_pat", lambda: "CCIPAT_" + r(ALNUM, 22) + "_" + r(HEX, 40), ["circleci: Invalid token provided {s}"]),
    ("bitbucket_app_password", lambda: "ATBB" + r(ALNUM, 32), ["bitbucket: 401 for app password {s}"]),
    ("atlassian_api_token", lambda: "ATATT3xFfGF0" + r(B64URL, 180), ["jira: 401 Basic auth with api token {s} failed"]),
    ("nuget_key", lambda: "oy2" + r(LOWER_ALNUM, 43), ["nuget push: 403 The specified API key is invalid ({s})"]),
    ("rubygems_key", lambda: "rubygems_" + r(HEX, 48), ["gem push: Access Denied for {s}"]),
    ("clojars_token", lambda: "CLOJARS_" + r(LOWER_ALNUM, 60), ["deploy failed: {s}"]),
    ("alibaba_access_key", lambda: "LTAI" + r(ALNUM, 20), ["aliyun: InvalidAccessKeyId.NotFound {s}"]),
    ("tencent_secret_id", lambda: "AKID" + r(ALNUM, 32), ["tencentcloud: AuthFailure.SecretIdNotFound {s}"]),
    ("mapbox_secret_token", lambda: "sk.eyJ1Ijoi" + r(B64URL, 60) + "." + r(B64URL, 22), ["mapbox: Not Authorized - Invalid Token {s}"]),
    ("dropbox_short_lived", lambda: "sl." + r(B64URL, 135), ["dropbox: expired_access_token {s}"]),
    ("planetscale_token", lambda: "pscale_tkn_" + r(B64URL, 43), ["pscale: unauthorized {s}"]),
    ("planetscale_password", lambda: "pscale_pw_" + r(B64URL, 43), ["mysql: access denied using password {s}"]),
    ("pulumi_token", lambda: "pul-" + r(HEX, 40), ["pulumi: invalid access token {s}"]),
    ("sendinblue_key", lambda: "xkeysib-" + r(HEX, 64) + "-" + r(ALNUM, 16), ["brevo: Key not found {s}"]),
    ("contentful_pat", lambda: "CFPAT-" + r(B64URL, 43), ["contentful: AccessTokenInvalid {s}"]),
    ("dynatrace_token", lambda: "dt0c01." + r(UPPER_ALNUM, 24) + "." + r(UPPER_ALNUM, 64), ["dynatrace: 401 Token Authentication failed {s}"]),
    ("sourcegraph_token", lambda: "sgp_" + r(HEX, 40), ["src: 401 invalid access token {s}"]),
    ("openshift_token", lambda: "sha256~" + r(B64URL, 43), ["oc login --token={s}: Unauthorized"]),
    ("prefect_key", lambda: "pnu_" + r(ALNUM, 36), ["prefect: 401 Invalid authentication credentials {s}"]),
    ("readme_key", lambda: "rdme_" + r(LOWER_ALNUM, 70), ["readme: 401 {s}"]),
    ("typeform_pat", lambda: "tfp_" + r(B64URL, 44) + "_" + r(B64URL, 14), ["typeform: AUTHENTICATION_FAILED {s}"]),
    ("flutterwave_secret", lambda: "FLWSECK-" + r(HEX, 32) + "-X", ["flutterwave: Invalid authorization key {s}"]),
    ("easypost_key", lambda: "EZAK" + r(ALNUM, 54), ["easypost: APIKey.Inactive {s}"]),
    ("adafruit_io_key", lambda: "aio_" + r(ALNUM, 28), ["adafruit io: invalid key {s}"]),
    ("heroku_api_key_env", lambda: r(HEX, 8) + "-" + r(HEX, 4) + "-" + r(HEX, 4) + "-" + r(HEX, 4) + "-" + r(HEX, 12), ["HEROKU_API_KEY={s} heroku: Invalid credentials provided"]),
    ("cloudflare_api_token_env", lambda: r(B64URL, 40), ["CLOUDFLARE_API_TOKEN={s} cloudflare: 10000 Authentication error"]),
    ("datadog_api_key", lambda: r(HEX, 32), ["DD_API_KEY={s}: datadog forbidden"]),
    ("azure_client_secret", lambda: r(ALNUM, 3) + "8Q~" + r(B64URL, 34), ["AADSTS7000215: Invalid client secret provided. client_secret={s}"]),
    ("azure_sas_connection", lambda: r(B64, 43) + "=", ["Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={s}"]),
    ("firebase_server_key", lambda: "AAAA" + r(B64URL, 7) + ":APA91b" + r(B64URL, 134), ["fcm: 401 INVALID_KEY; FCM_API_KEY={s}"]),
    ("okta_api_token", lambda: "00" + r(B64URL, 40), ["okta: E0000011 Invalid token provided (Authorization: SSWS {s})"]),
    ("basic_auth_url_encoded", lambda: r(ALNUM, 16), ["ftp://backup:{s}@ftp.example.com/ refused"]),
    ("netrc_password", lambda: r(ALNUM, 18), ["machine api.example.com login ci password {s}"]),
    ("private_key_ppk", lambda: r(B64, 64), ["PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nPublic-Lines: 1\nAAAAB3NzaC1yc2EAAAADAQABAAABAQ\nPrivate-Lines: 1\n{s}\nPrivate-MAC: " + r(HEX, 64)]),
    ("github_oauth_escape_pct", lambda: "gho_" + r(ALNUM, 36), ["callback?token%3D{s}%26state%3Dx"]),
    ("jwt_percent_encoded_cookie", jwt, ["Cookie%3A%20session%3D{s}"]),
    ("jwt_json_escape_prefix", jwt, ["{{\"id_token\":\"\\u0022{s}\\u0022\"}}"]),
    ("aws_key_escaped", lambda: "AKIA" + r(UPPER_ALNUM, 16), ["creds \\u003c{s}\\u003e invalid"]),
    ("stripe_glued", lambda: "sk_live_" + r(ALNUM, 99), ["STRIPE_{s} not accepted"]),
    ("slack_escaped", lambda: "xoxb-" + str(rnd.randrange(10**11, 10**12)) + "-" + str(rnd.randrange(10**12, 10**13)) + "-" + r(ALNUM, 24), ["slack: {{\"token\":\"\\u003c{s}\\u003e\"}} invalid_auth"]),
    ("anthropic_nbsp_header", lambda: "sk-ant-api03-" + r(B64URL, 93) + "AA", ["x-api-key:\u00a0{s}"]),
    ("password_fullwidth_equals", lambda: r(ALNUM, 12), ["パスワード password＝{s} 不正"]),
    ("token_on_next_line_json", lambda: r(ALNUM, 48), ["{{\"headers\":\"Authorization: Bearer\\n{s}\"}}"]),
    ("private_key_pkcs8_pem_escaped", lambda: "MIIEvgIBADANBgkqhkiG9w0BAQEFAASC" + r(B64, 120), ["{{\"private_key\":\"-----BEGIN PRIVATE KEY-----\\n{s}\\n-----END PRIVATE KEY-----\\n\"}}"]),
    ("generic_secret_kv", lambda: r(ALNUM, 32), ["client_secret={s}&grant_type=client_credentials"]),
    ("passphrase_yaml", lambda: r(ALNUM, 20), ["ssh:\n  passphrase: \"{s}\"\n"]),
]

# Ordinary error messages: realistic, full of ids, digests and names, and
# "name: problem" phrasing, none holding a secret. They must come back
# exactly as sent.
def uuid():
    return "-".join(r(HEX, n) for n in (8, 4, 4, 4, 12))


ORDINARY = [
    "password: must contain a digit",
    "password: must be at least 12 characters",
    "token: expired",
    "token: missing",
    "sessionId: abc not found",
    "jwt: expired",
    "jwt: malformed",
    "credentials: not found in ~/.aws/credentials",
    "Bearer authentication failed",
    "Bearer token expired",
    "auth: required",
    "session: closed",
    "secret: not set",
    "api_key: missing",
    "authorization: missing",
    "cookie: expired",
    "passphrase: does not match",
    "client_secret: required for confidential clients",
    "refresh_token: revoked",
    "access_token: invalid",
    "signature: mismatch",
    "request " + uuid() + " failed: upstream timed out after 30s",
    "request id req_" + r(ALNUM, 24) + ": rate limited, retry in 20s",
    "trace_id=" + r(HEX, 32) + " span_id=" + r(HEX, 16) + " status=UNAVAILABLE",
    "x-request-id: " + uuid(),
    "image sha256:" + r(HEX, 64) + " not found in registry",
    "layer digest sha256:" + r(HEX, 64) + " does not match manifest",
    "commit " + r(HEX, 40) + " not found",
    "model gpt-4o-2024-08-06 does not exist or you do not have access to it",
    "model claude-sonnet-4-20250514 is overloaded",
    "model gemini-1.5-pro-002 returned SAFETY",
    "model meta-llama/Llama-3.1-70B-Instruct is currently loading",
    "arn:aws:iam::123456789012:role/deploy is not authorized to perform: sts:AssumeRole",
    "User: arn:aws:sts::123456789012:assumed-role/ci/session-1 is not authorized to perform: s3:GetObject on resource: arn:aws:s3:::bucket/key.txt",
    "arn:aws:lambda:us-east-1:123456789012:function:resize failed: Runtime.ExitError",
    "projects/my-project/locations/us-central1/endpoints/1234567890 not found",
    "traceparent 00-" + r(HEX, 32) + "-" + r(HEX, 16) + "-01 dropped",
    "dial tcp 10.0.3.17:5432: connect: connection refused",
    "context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
    "rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing\"",
    "open /var/run/secrets/kubernetes.io/serviceaccount/token: no such file or directory",
    "failed to read ~/.ssh/id_ed25519: permission denied",
    "x509: certificate signed by unknown authority",
    "tls: failed to verify certificate: x509: certificate has expired or is not yet valid",
    "429 Too Many Requests: Rate limit reached for requests per min (RPM): Limit 500, Used 500, Requested 1",
    "Rate limit reached for gpt-4o in organization org-" + r(ALNUM, 24) + " on tokens per min (TPM): Limit 30000, Used 29876, Requested 512.",
    "max_tokens: must be less than or equal to 8192",
    "messages.1.content: Input should be a valid list",
    "invalid_request_error: prompt is too long: 210000 tokens > 200000 maximum",
    "tool use id toolu_" + r(ALNUM, 24) + " has no matching result",
    "chatcmpl-" + r(ALNUM, 29) + " finished with reason length",
    "msg_" + r(ALNUM, 24) + ": overloaded_error",
    "job 4f1c2e7a-9b3d-4c8e-a1f0-" + r(HEX, 12) + " cancelled by user",
    "pod api-7d9f8b6c5d-x2k4q in namespace default: CrashLoopBackOff",
    "deployment.apps/web scaled to 0 replicas",
    "error: the server doesn't have a resource type \"secrets\"",
    "kubectl get secret db-credentials: forbidden",
    "secretsmanager: ResourceNotFoundException: Secrets Manager can't find the specified secret.",
    "vault: no handler for route \"secret/data/app\"",
    "the token endpoint returned 503",
    "GET https://api.example.com/v1/users?page=2&limit=50 returned 502 Bad Gateway",
    "POST https://api.openai.com/v1/chat/completions: 500 Internal Server Error",
    "https://status.example.com/incidents/" + r(LOWER_ALNUM, 12) + " reports degraded performance",
    "file not found: /home/runner/work/app/app/config/settings.yaml",
    "PWD=/home/runner/work/app failed to chdir",
    "exit status 137 (OOMKilled) after 3m12s",
    "panic: runtime error: index out of range [5] with length 5",
    "goroutine 17 [running]:\nmain.handler(0xc000123456)\n    /app/main.go:42 +0x1d",
    "Traceback (most recent call last):\n  File \"app.py\", line 10, in <module>\nKeyError: 'user_id'",
    "TypeError: Cannot read properties of undefined (reading 'map')",
    "java.lang.NullPointerException at com.example.Service.handle(Service.java:88)",
    "ERROR 1045 (28000): Access denied for user 'app'@'10.0.0.5' (using password: YES)",
    "FATAL: password authentication failed for user \"postgres\"",
    "ORA-01017: invalid username/password; logon denied",
    "SQLSTATE[HY000] [2002] Connection refused",
    "duplicate key value violates unique constraint \"users_email_key\"",
    "upstream connect error or disconnect/reset before headers. reset reason: connection termination",
    "no healthy upstream",
    "DNS resolution failed for api.internal.example.com: NXDOMAIN",
    "certificate for *.example.com expires in 3 days",
    "quota exceeded for quota metric 'Requests' and limit 'Requests per minute' of service 'generativelanguage.googleapis.com'",
    "Resource has been exhausted (e.g. check quota).",
    "The model is overloaded. Please try again later. (request id " + uuid() + ")",
    "billing: your credit balance is too low to access the API",
    "organization org-" + r(ALNUM, 24) + " has been deactivated",
    "invalid api version 2023-06-01; supported: 2024-10-21",
    "tool search::web_query failed: network unreachable",
    "tool github::create_issue returned 422 Validation Failed: title is too long",
    "sandbox: script exceeded 30000 ms",
    "read-only file system: /etc/hosts",
    "unsupported grant_type: implicit",
    "scope user:email is not granted",
    "nextPageToken: invalid",
    "idempotency key reused with different parameters",
    "webhook delivery 7 of 10 failed: 410 Gone",
    "cron job backup-nightly missed its schedule by 2h",
    "disk /dev/nvme0n1p1 is 97% full",
    "memory usage 15.8 GiB of 16 GiB (98.7%)",
    "checksum mismatch: expected crc32c 0x1a2b3c4d, got 0x5e6f7a8b",
    "etag W/\"" + r(HEX, 16) + "\" does not match If-Match",
    "batch 12/40 failed: 3 items rejected",
    "user alice@example.com is not a member of team platform",
    "invalid email address: bob@",
    "phone +1-555-0100 is not reachable",
    "La requête a échoué : délai d'attente dépassé",
    "请求超时，请稍后重试。",
    "認証に失敗しました (status 401)",
    "Ошибка: превышен лимит запросов",
    "version 1.24.3 is older than the minimum 1.25.0",
    "feature flag new-checkout is disabled for tenant acme",
    "ETIMEDOUT connecting to 203.0.113.10:443",
    "ECONNRESET while reading from socket",
    "WARN: retrying in 2.5s (attempt 3 of 5)",
    "The API key field is required.",
    "Please provide an API key in the Authorization header.",
    "Missing required header: X-Api-Key",
    "Your session has expired. Please sign in again.",
    "Invalid password: too short",
    "credential helper 'osxkeychain' not found",
    "secret scanning push protection blocked the push",
    "access denied: missing permission storage.objects.get",
    "auth_required: sign in to continue",
    "token budget exceeded: 120000 of 100000",
    "key not found: user:1234:profile",
    "pagination cursor c_" + r(LOWER_ALNUM, 10) + " expired",
    # Exceptions and errors as libraries print them (dotted names, ids, digests): none holds a secret.
    "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='api.openai.com', port=443): Max retries exceeded with url: /v1/chat/completions (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f9c2b1e4d30>: Failed to establish a new connection: [Errno 111] Connection refused'))",
    "anthropic.RateLimitError: Error code: 429 - {'type': 'error', 'error': {'type': 'rate_limit_error', 'message': 'Number of request tokens has exceeded your per-minute rate limit'}}",
    "botocore.exceptions.ClientError: An error occurred (ThrottlingException) when calling the InvokeModel operation (reached max retries: 4): Too many requests, please wait before trying again.",
    "botocore.exceptions.NoCredentialsError: Unable to locate credentials",
    "java.net.SocketTimeoutException: Read timed out at java.base/sun.nio.ch.NioSocketImpl.timedRead(NioSocketImpl.java:288)",
    "Microsoft.Data.SqlClient.SqlException (0x80131904): Login failed for user 'app'.",
    "Npgsql.PostgresException (0x80004005): 28P01: password authentication failed for user \"app\"",
    "Error: connect ECONNREFUSED 127.0.0.1:5432 at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)",
    "TypeError: Cannot read properties of undefined (reading 'choices') at OpenAIClient.parseResponse (/app/node_modules/openai/core.js:412:18)",
    "rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing: dial tcp 10.0.0.5:50051: connect: connection refused\"",
    "fatal: Authentication failed for 'https://github.com/org/repo.git/'",
    "ERROR 1045 (28000): Access denied for user 'root'@'localhost' (using password: YES)",
    "redis.exceptions.AuthenticationError: invalid username-password pair or user is disabled.",
    "elasticsearch.exceptions.AuthenticationException: AuthenticationException(401, 'security_exception', 'missing authentication credentials for REST request [/_search]')",
    "Error from server (Forbidden): pods is forbidden: User \"system:serviceaccount:default:runner\" cannot list resource \"pods\" in API group \"\" in the namespace \"prod\"",
    "litellm.exceptions.ContextWindowExceededError: litellm.BadRequestError: ContextWindowExceededError: OpenAIException - This model's maximum context length is 8192 tokens.",
    "grpc._channel._InactiveRpcError: <_InactiveRpcError of RPC that terminated with: status = StatusCode.UNAVAILABLE details = \"failed to connect to all addresses\">",
    "psycopg2.errors.UniqueViolation: duplicate key value violates unique constraint \"users_email_key\"",
    "psycopg2.OperationalError: could not connect to server: Connection refused",
    "at com.example.service.UserService.login(UserService.java:42)",
    "at org.apache.catalina.core.ApplicationFilterChain.internalDoFilter(ApplicationFilterChain.java:166)",
    "goroutine 17 [running]: github.com/org/repo/pkg/client.(*Client).Do(0xc000123450, 0xc0001a2b00) /go/src/github.com/org/repo/pkg/client/client.go:88 +0x1c5",
    "Back-off restarting failed container api in pod api-deployment-7c9f8d6b5-x2x7q_prod(3f2a1b4c-5d6e-7f80-9a1b-2c3d4e5f6a7b)",
    "Failed to pull image \"123456789012.dkr.ecr.us-east-1.amazonaws.com/app@sha256:4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b\": rpc error: code = NotFound",
    "An error occurred (AccessDeniedException) when calling the InvokeModel operation: User: arn:aws:sts::123456789012:assumed-role/BedrockRole/botocore-session-1712345678 is not authorized",
    "Operation failed: projects/my-project/locations/us-central1/operations/operation-1712345678901-61a2b3c4d5e6f-7a8b9c0d-1e2f3a4b",
    "Azure OpenAI: The API deployment for this resource does not exist. x-ms-request-id: 8f7e6d5c-4b3a-2918-0706-f5e4d3c2b1a0",
    "trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7 error=\"deadline exceeded\"",
    "Error: Cannot find module '@openai/agents-core/dist/runner.js' imported from /app/node_modules/@openai/agents/dist/index.mjs",
    "ModuleNotFoundError: No module named 'langchain_community.chat_models.azureml_endpoint'",
    "AttributeError: 'ChatCompletionMessageToolCall' object has no attribute 'model_dump_json'",
    "error[E0599]: no method named `into_inner` found for struct `tokio::sync::MutexGuard<'_, HashMap<String, Vec<u8>>>` in the current scope",
    "Unhandled exception. System.InvalidOperationException: Unable to resolve service for type 'Microsoft.Extensions.Logging.ILogger`1[MyApp.Services.TokenService]'",
    "NoMethodError: undefined method `access_token' for nil:NilClass (app/services/oauth_client.rb:27:in `refresh!')",
    "Fatal error: Uncaught GuzzleHttp\\Exception\\ClientException: Client error: `POST https://api.stripe.com/v1/charges` resulted in a `402 Payment Required` response",
    "ERROR: Could not find a version that satisfies the requirement tensorflow-gpu==2.15.0post1 (from versions: none)",
    "npm ERR! 404 Not Found - GET https://registry.npmjs.org/@myorg%2fprivate-pkg - Not found",
    "error: failed to select a version for `openssl-sys`. required by package `reqwest v0.11.27`",
    "The conversation_id 01HZX3K9QF7T2M8N4P6R5S1V0W was not found",
    "Invalid value for 'previous_response_id': resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b not found",
    "tool_call_id call_Kx7pQ2mN9vL4rT8wZ3yB5dF1 did not have a response message",
    "file_id file-AbCdEf123456GhIjKl7890 not found in vector store vs_abc123",
    "Model claude-3-5-sonnet-20241022 is not available in region eu-west-3",
    "The model `gpt-4o-2024-08-06` does not support `response_format` with `json_schema` when `stream=true`",
    "Checksum mismatch for go.opentelemetry.io/otel/sdk@v1.28.0: h1:5Ek3wR8YhNqvXz3qW2cVd1aBmKfG6p0r9s8tU7vZxY4=",
    "Your account org-9aB3cD5eF7gH1jK2lM4nP6qR is not active",
    "session 4f8e2a1c-9b7d-4e3f-a6c5-d2b1e0f9a8c7 expired",
    # Agent frameworks', MCP clients' and providers' SDK errors, OAuth and API answers.
    "McpError: MCP error -32602: Invalid params: tool \"search_docs\" expects argument \"query\" of type string",
    "Error: MCP server \"github\" exited with code 1: Error: GITHUB_PERSONAL_ACCESS_TOKEN environment variable is required",
    "ToolException: Error executing tool fetch_url: HTTPStatusError: Client error '403 Forbidden' for url 'https://example.com/private'",
    "openai.BadRequestError: Error code: 400 - {'error': {'message': \"Invalid 'tools[0].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.\", 'type': 'invalid_request_error', 'param': 'tools[0].function.name', 'code': 'invalid_value'}}",
    "openai.AuthenticationError: Error code: 401 - {'error': {'message': 'Incorrect API key provided: sk-proj-********************************************xY9z. You can find your API key at https://platform.openai.com/account/api-keys.', 'type': 'invalid_request_error', 'param': None, 'code': 'invalid_api_key'}}",
    "anthropic.BadRequestError: Error code: 400 - {'type': 'error', 'error': {'type': 'invalid_request_error', 'message': 'messages.1.content.0.tool_use.id: String should match pattern ^[a-zA-Z0-9_-]+$'}}",
    "google.genai.errors.ClientError: 400 INVALID_ARGUMENT. {'error': {'code': 400, 'message': 'API key not valid. Please pass a valid API key.', 'status': 'INVALID_ARGUMENT', 'details': [{'@type': 'type.googleapis.com/google.rpc.ErrorInfo', 'reason': 'API_KEY_INVALID', 'domain': 'googleapis.com', 'metadata': {'service': 'generativelanguage.googleapis.com'}}]}}",
    "mistralai.models.sdkerror.SDKError: API error occurred: Status 422 {\"object\":\"error\",\"message\":{\"detail\":[{\"type\":\"missing\",\"loc\":[\"body\",\"messages\"],\"msg\":\"Field required\",\"input\":{\"model\":\"mistral-large-latest\"}}]},\"type\":\"invalid_request_message_error\"}",
    "cohere.errors.TooManyRequestsError: status_code: 429, body: {'message': 'You are using a Trial key, which is limited to 10 API calls / minute.'}",
    "groq.RateLimitError: Error code: 429 - {'error': {'message': 'Rate limit reached for model `llama-3.1-70b-versatile` in organization `org_01hq2x3y4z5a6b7c8d9e0f1g2h` on tokens per minute (TPM): Limit 6000, Used 5830, Requested 1024. Please try again in 8.54s.', 'type': 'tokens', 'code': 'rate_limit_exceeded'}}",
    "Error: 429 {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"This request would exceed the rate limit for your organization (8f6e2c4a-1b3d-4e5f-9a7b-0c2d4e6f8a1b) of 80,000 input tokens per minute.\"},\"request_id\":\"req_011CUHxqYdwL9hJ7tVjX4kRm\"}",
    "AI_APICallError: Invalid JSON response at handleFetchError (file:///app/node_modules/@ai-sdk/provider-utils/dist/index.mjs:599:11)",
    "AI_RetryError: Failed after 3 attempts. Last error: Service Unavailable",
    "LangGraphRecursionError: Recursion limit of 25 reached without hitting a stop condition. You can increase the limit by setting the `recursion_limit` config key.",
    "crewai.agents.parser.OutputParserException: Invalid Format: I missed the 'Action:' after 'Thought:'. I will do right next, and don't use a tool I have already used.",
    "autogen_core.exceptions.CantHandleException: agent 'assistant/default' cannot handle message of type TextMessage",
    "ValueError: Tool call id 'toolu_01A09q90qw90lq917835lq9' not found in previous messages",
    "HTTP 401: {\"detail\":\"Could not validate credentials\"}",
    "{\"error\":\"invalid_grant\",\"error_description\":\"Token has been expired or revoked.\"}",
    "{\"error\":\"invalid_client\",\"error_description\":\"Client authentication failed (e.g., unknown client, no client authentication included, or unsupported authentication method).\"}",
    "WWW-Authenticate: Bearer realm=\"api\", error=\"invalid_token\", error_description=\"The access token expired\"",
    "403 Forbidden: Resource not accessible by integration (https://docs.github.com/rest/pulls/pulls#create-a-pull-request)",
    "Slack API error: not_authed",
    "Stripe: No such customer: 'cus_QxY3zA1bC2dE4f'; a similar object exists in live mode, but a test mode key was used to make this request.",
    "Twilio: Authenticate (HTTP 401) error code 20003",
    "SendGrid: The provided authorization grant is invalid, expired, or revoked",
    "'username' is not a valid field for password reset",
    "'secret' is not a valid authentication method for password grant",
    "None is not of type 'string' for password",
    "'scram-sha-256' is not a valid password encryption method",
    "The password you provided does not match our records.",
    "'{0}' is not a valid password",
    "Expected 'password' to be a string but got 'None'",
    "The value 'never' for password expiry is invalid",
    "unsupported encoding 'latin-1' for password",
    "unknown hash algorithm 'sha3' for password",
]


def main():
    path = os.path.join(HERE, "corpus.json")
    with open(path, encoding="utf-8") as f:
        old = json.load(f)
    kept = [e for e in old if not e["name"].startswith("generated:")]
    out = list(kept)
    for name, make, contexts in FORMATS:
        for i, ctx in enumerate(contexts):
            secret = make()
            out.append({"name": "generated:%s_%d" % (name, i + 1), "secret": secret, "text": ctx.format(s=secret)})
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=2, ensure_ascii=False)
        f.write("\n")
    with open(os.path.join(HERE, "ordinary.json"), "w", encoding="utf-8") as f:
        json.dump(ORDINARY, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print("corpus: %d entries (%d generated); ordinary: %d" % (len(out), len(out) - len(kept), len(ORDINARY)))


if __name__ == "__main__":
    main()
