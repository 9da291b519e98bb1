/*
 * The exporter-toolkit web configuration: what it accepts, what it refuses
 * (with file:line:col), bcrypt basic auth through libcrypt, the rate limit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <crypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/webconfig.h"

static struct web_config *parse_ok(const char *yaml)
{
	struct web_config *c = NULL;
	struct diag err;
	char msg[1024];
	diag_clear(&err);
	if (web_config_parse(yaml, strlen(yaml), "/etc/gpuscope/web.yml", WEBCFG_NO_FILES, &c, &err)) {
		diag_format(&err, msg, sizeof(msg));
		fail_msg("unexpected error: %s", msg);
	}
	return c;
}

/* Parses text that must fail; returns the formatted message (static). */
static const char *parse_bad(const char *yaml)
{
	static char msg[1024];
	struct web_config *c = NULL;
	struct diag err;
	diag_clear(&err);
	if (!web_config_parse(yaml, strlen(yaml), "web.yml", WEBCFG_NO_FILES, &c, &err)) {
		web_config_free(c);
		fail_msg("accepted: %s", yaml);
	}
	assert_null(c);
	diag_format(&err, msg, sizeof(msg));
	return msg;
}

#define ERR_HAS(yaml, text) \
	do { \
		const char *m_ = parse_bad(yaml); \
		if (!strstr(m_, text)) \
			fail_msg("error '%s' lacks '%s'", m_, text); \
	} while (0)

static void test_empty_and_full(void **state)
{
	struct web_config *c;
	(void)state;
	c = parse_ok("");
	assert_false(c->tls);
	assert_int_equal(c->nusers, 0);
	web_config_free(c);
	c = parse_ok("# nothing\n---\n");
	web_config_free(c);

	c = parse_ok(
		"tls_server_config:\n"
		"  cert_file: server.crt\n"
		"  key_file: /abs/server.key\n"
		"  client_auth_type: RequireAndVerifyClientCert\n"
		"  client_ca_file: ca.crt\n"
		"  client_allowed_sans: [scraper.example, 10.0.0.1]\n"
		"  min_version: TLS13\n"
		"  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]\n"
		"  curve_preferences: [X25519, CurveP256]\n"
		"  prefer_server_cipher_suites: true\n"
		"http_server_config:\n"
		"  http2: false\n"
		"  headers:\n"
		"    X-Frame-Options: deny\n"
		"    Strict-Transport-Security: max-age=31536000\n"
		"basic_auth_users:\n"
		"  alice: $2y$10$fkq3wbeUf68aiXQ7tvgQx.Fed1MmlMRGkaqX9lQUOf1qL6s/0exS6\n"
		"rate_limit:\n"
		"  interval: 1m30s\n"
		"  burst: 5\n");
	assert_true(c->tls);
	/* relative paths are relative to the file's directory */
	assert_string_equal(c->cert_pem, "(contents of /etc/gpuscope/server.crt)");
	assert_string_equal(c->key_pem, "(contents of /abs/server.key)");
	assert_string_equal(c->client_ca_pem, "(contents of /etc/gpuscope/ca.crt)");
	assert_int_equal(c->client_auth, CLIENT_AUTH_REQUIRE_AND_VERIFY);
	assert_int_equal(c->nsans, 2);
	assert_string_equal(c->allowed_sans[1], "10.0.0.1");
	assert_int_equal(c->min_version, 13);
	assert_int_equal(c->max_version, 13);
	assert_non_null(strstr(c->priorities, "+VERS-TLS1.3"));
	assert_null(strstr(c->priorities, "+VERS-TLS1.2"));
	assert_non_null(strstr(c->priorities, "+ECDHE-RSA"));
	assert_non_null(strstr(c->priorities, "-GROUP-ALL:+GROUP-X25519:+GROUP-SECP256R1"));
	assert_false(c->http2);
	assert_int_equal(c->nheaders, 2);
	assert_int_equal(c->nusers, 1);
	assert_string_equal(c->users[0].name, "alice");
	assert_true(c->rate_interval_s == 90);
	assert_int_equal(c->rate_burst, 5);
	web_config_free(c);

	/* inline PEM and the toolkit's defaults: TLS 1.2 to 1.3 */
	c = parse_ok(
		"tls_server_config:\n  cert: |\n    -----BEGIN CERTIFICATE-----\n    x\n"
		"  key: \"-----BEGIN PRIVATE KEY-----\"\n");
	assert_true(c->tls);
	assert_int_equal(c->min_version, 12);
	assert_non_null(strstr(c->priorities, "+VERS-TLS1.3:+VERS-TLS1.2"));
	assert_int_equal(c->client_auth, CLIENT_AUTH_NONE);
	web_config_free(c);

	/* an empty tls_server_config is no TLS */
	c = parse_ok("tls_server_config:\nbasic_auth_users: {}\n");
	assert_false(c->tls);
	web_config_free(c);
}

static void test_refusals(void **state)
{
	(void)state;
	ERR_HAS("tls_server_config:\n  cert_file: a\n", "missing one of key or key_file");
	ERR_HAS("tls_server_config:\n  key_file: a\n", "missing one of cert or cert_file");
	/* mutual-TLS settings alone would have been served as plain HTTP */
	ERR_HAS("tls_server_config:\n  client_allowed_sans: [scraper.example]\n",
		"web.yml:2:3: field 'client_allowed_sans': 'client_allowed_sans' needs a certificate and key");
	ERR_HAS("tls_server_config:\n  client_allowed_sans: []\n", "field 'client_allowed_sans'");
	ERR_HAS("tls_server_config:\n  client_auth_type: RequireAndVerifyClientCert\n",
		"field 'client_auth_type'");
	ERR_HAS("tls_server_config:\n  max_version: TLS12\n", "field 'max_version'");
	ERR_HAS("tls_server_config:\n  curve_preferences: [X25519]\n", "field 'curve_preferences'");
	ERR_HAS("tls_server_config:\n  prefer_server_cipher_suites: false\n",
		"field 'prefer_server_cipher_suites'");
	ERR_HAS("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca_file: c\n",
		"without a client_auth_type");
	ERR_HAS("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: Sometimes\n",
		"web.yml:4:21: field 'client_auth_type': invalid client_auth_type 'Sometimes'");
	ERR_HAS("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: VerifyClientCertIfGiven\n"
		"  client_ca_file: c\n  client_allowed_sans: [x]\n",
		"client_allowed_sans requires");
	ERR_HAS("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS14\n",
		"unknown TLS version 'TLS14'");
	ERR_HAS("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS13\n  max_version: TLS12\n",
		"min_version is above max_version");
	ERR_HAS("tls_server_config:\n  cert_file: a\n  key_file: b\n  cipher_suites: [TLS_FAST]\n",
		"unknown cipher 'TLS_FAST'");
	ERR_HAS("tls_server_config:\n  cert_file: a\n  key_file: b\n  curve_preferences: [P-999]\n",
		"unknown curve 'P-999'");
	ERR_HAS("tls_server_config:\n  cert_file: a\n  certfile: b\n",
		"web.yml:3:3: field 'certfile': unknown field 'certfile'");
	ERR_HAS("tls_config:\n  cert_file: a\n", "unknown field 'tls_config'");
	ERR_HAS("http_server_config:\n  headers:\n    Server: gpuscope\n",
		"HTTP header 'Server' can not be configured");
	ERR_HAS("http_server_config:\n  headers:\n    X-Frame-Options: always\n",
		"invalid value 'always' for X-Frame-Options");
	ERR_HAS("http_server_config:\n  http2: maybe\n", "expected true or false, got 'maybe'");
	ERR_HAS("basic_auth_users:\n  bob: secret\n",
		"web.yml:2:8: field 'basic_auth_users': the password of user 'bob' is not a bcrypt hash");
	ERR_HAS("basic_auth_users:\n  bob: $2y$03$fkq3wbeUf68aiXQ7tvgQx.Fed1MmlMRGkaqX9lQUOf1qL6s/0exS6\n",
		"not a bcrypt hash");
	ERR_HAS("rate_limit:\n  interval: soon\n", "expected a duration like 1s or 250ms, got 'soon'");
	ERR_HAS("rate_limit:\n  burst: -1\n", "expected an integer between 0");
	ERR_HAS("basic_auth_users: [a, b]\n", "expected a mapping");
	ERR_HAS("basic_auth_users:\n  a: $2y$10$fkq3wbeUf68aiXQ7tvgQx.Fed1MmlMRGkaqX9lQUOf1qL6s/0exS6\n"
		"  a: $2y$10$fkq3wbeUf68aiXQ7tvgQx.Fed1MmlMRGkaqX9lQUOf1qL6s/0exS6\n",
		"appears twice");
	ERR_HAS("tls_server_config: {cert_file: [a]}\n", "expected a string");
	ERR_HAS("key: [unclosed\n", "web.yml:2:1: YAML:");
	ERR_HAS("- a\n- b\n", "expected a mapping");
}

static void test_files(void **state)
{
	char dir[] = "/tmp/gpuscope-webcfg-XXXXXX", path[300], yml[600];
	struct web_config *c;
	struct diag err;
	FILE *f;
	char msg[1024];
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/web.yml", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "tls_server_config:\n  cert_file: missing.crt\n  key_file: missing.key\n");
	fclose(f);
	diag_clear(&err);
	assert_int_equal(web_config_load(path, &c, &err), -1);
	diag_format(&err, msg, sizeof(msg));
	snprintf(yml, sizeof(yml), "cannot read '%s/missing.crt'", dir);
	assert_non_null(strstr(msg, yml));
	assert_non_null(strstr(msg, ":2:14: field 'cert_file'"));
	unlink(path);
	diag_clear(&err);
	assert_int_equal(web_config_load(path, &c, &err), -1);
	diag_format(&err, msg, sizeof(msg));
	assert_non_null(strstr(msg, "cannot read the web config"));
	rmdir(dir);
}

static void test_basic_auth(void **state)
{
	char salt[CRYPT_GENSALT_OUTPUT_SIZE], yaml[400];
	struct crypt_data cd;
	struct web_config *c;
	const char *hash;
	(void)state;
	assert_true(web_config_bcrypt_supported());
	/* a cost-4 hash made here, so the test is quick */
	assert_non_null(crypt_gensalt_rn("$2y$", 4, NULL, 0, salt, sizeof(salt)));
	memset(&cd, 0, sizeof(cd));
	hash = crypt_r("s3cret:with:colons", salt, &cd);
	assert_non_null(hash);
	assert_int_equal(strncmp(hash, "$2y$04$", 7), 0);
	snprintf(yaml, sizeof(yaml), "basic_auth_users:\n  alice: '%s'\n", hash);
	c = parse_ok(yaml);
	assert_true(web_config_check_user(c, "alice", "s3cret:with:colons"));
	assert_true(web_config_check_user(c, "alice", "s3cret:with:colons")); /* cached */
	assert_false(web_config_check_user(c, "alice", "s3cret"));
	assert_false(web_config_check_user(c, "alice", ""));
	assert_false(web_config_check_user(c, "bob", "s3cret:with:colons"));
	assert_false(web_config_check_user(c, "bob", "s3cret:with:colons")); /* cached refusal */
	web_config_free(c);
}

/* a cost-4 bcrypt hash of password, in static storage */
static const char *quick_hash(const char *password)
{
	static struct crypt_data cd;
	char salt[CRYPT_GENSALT_OUTPUT_SIZE];
	assert_non_null(crypt_gensalt_rn("$2y$", 4, NULL, 0, salt, sizeof(salt)));
	memset(&cd, 0, sizeof(cd));
	return crypt_r(password, salt, &cd);
}

/* A reload keeps what was verified for the users whose hash it leaves alone, and only that. */
static void test_keep_verified(void **state)
{
	char ha[128], hb[128], yaml[600];
	struct web_config *old, *same, *changed, *gone;
	(void)state;
	snprintf(ha, sizeof(ha), "%s", quick_hash("pa"));
	snprintf(hb, sizeof(hb), "%s", quick_hash("pb"));
	snprintf(yaml, sizeof(yaml), "basic_auth_users:\n  alice: '%s'\n  bob: '%s'\n", ha, hb);
	old = parse_ok(yaml);
	assert_true(web_config_check_user(old, "alice", "pa"));
	assert_true(web_config_check_user(old, "bob", "pb"));
	assert_false(web_config_check_user(old, "bob", "wrong"));
	assert_true(web_config_cached_user(old, "alice", "pa"));

	/* the same file, users in another order: both stay verified, the refusal is not carried */
	snprintf(yaml, sizeof(yaml), "basic_auth_users:\n  bob: '%s'\n  alice: '%s'\n", hb, ha);
	same = parse_ok(yaml);
	assert_false(web_config_cached_user(same, "alice", "pa")); /* a new file starts empty */
	web_config_keep_verified(same, old);
	assert_true(web_config_cached_user(same, "alice", "pa"));
	assert_true(web_config_cached_user(same, "bob", "pb"));
	assert_false(web_config_cached_user(same, "bob", "wrong"));
	web_config_keep_verified(same, old); /* twice: no duplicates pushing others out */
	assert_true(web_config_cached_user(same, "alice", "pa"));

	/* bob's password changed: his old one is not verified any more; alice's is */
	snprintf(yaml, sizeof(yaml), "basic_auth_users:\n  alice: '%s'\n  bob: '%s'\n", ha, quick_hash("pb2"));
	changed = parse_ok(yaml);
	web_config_keep_verified(changed, old);
	assert_true(web_config_cached_user(changed, "alice", "pa"));
	assert_false(web_config_cached_user(changed, "bob", "pb"));
	assert_false(web_config_check_user(changed, "bob", "pb"));

	/* alice removed */
	snprintf(yaml, sizeof(yaml), "basic_auth_users:\n  bob: '%s'\n", hb);
	gone = parse_ok(yaml);
	web_config_keep_verified(gone, old);
	assert_false(web_config_cached_user(gone, "alice", "pa"));
	assert_true(web_config_cached_user(gone, "bob", "pb"));
	web_config_free(old);
	web_config_free(same);
	web_config_free(changed);
	web_config_free(gone);
}

static void test_rate_limit(void **state)
{
	struct web_config *c;
	int i, allowed = 0;
	(void)state;
	c = parse_ok("rate_limit:\n  interval: 1h\n  burst: 3\n");
	for (i = 0; i < 10; i++)
		allowed += web_config_rate_allow(c, 0);
	assert_int_equal(allowed, 3);
	/* requests with a verified password have a bucket of their own, with the same limit */
	for (i = allowed = 0; i < 10; i++)
		allowed += web_config_rate_allow(c, 1);
	assert_int_equal(allowed, 3);
	assert_false(web_config_rate_allow(c, 0));
	web_config_free(c);
	c = parse_ok("");
	for (i = 0; i < 10; i++)
		assert_true(web_config_rate_allow(c, i & 1));
	web_config_free(c);
	c = parse_ok("rate_limit:\n  interval: 1000000\n  burst: 1\n"); /* nanoseconds */
	assert_true(c->rate_interval_s == 0.001);
	web_config_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_and_full), cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_files),          cmocka_unit_test(test_basic_auth),
		cmocka_unit_test(test_keep_verified),  cmocka_unit_test(test_rate_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
