/*
 * The exporter-toolkit web configuration file (--web-config FILE), the
 * format node_exporter, dcgm-exporter and nvidia_gpu_exporter read with
 * --web.config.file, so an existing file works unchanged:
 *
 *	tls_server_config:
 *	  cert_file: server.crt          # or inline cert: / key:
 *	  key_file: server.key
 *	  client_auth_type: RequireAndVerifyClientCert
 *	  client_ca_file: ca.crt         # or inline client_ca:
 *	  client_allowed_sans: [scraper.example]
 *	  min_version: TLS12             # TLS10 .. TLS13
 *	  max_version: TLS13
 *	  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]
 *	  curve_preferences: [X25519, CurveP256]
 *	  prefer_server_cipher_suites: true
 *	http_server_config:
 *	  http2: true                    # accepted; this server speaks HTTP/1.1
 *	  headers: {X-Frame-Options: deny}
 *	basic_auth_users:
 *	  alice: $2y$10$...              # bcrypt
 *	rate_limit: {interval: 1s, burst: 10}
 *
 * The rules are the toolkit's: unknown keys are errors; relative paths are
 * relative to the file's directory; a client CA needs a client_auth_type;
 * only the five security headers may be set; passwords are bcrypt hashes
 * ($2a$, $2b$ or $2y$), checked with libcrypt.  The YAML is read with
 * libyaml, loaded at run time (libyaml-0.so.2).
 */
#ifndef GPUSCOPE_EXPORT_WEBCONFIG_H
#define GPUSCOPE_EXPORT_WEBCONFIG_H

#include <stddef.h>

#include "util/error.h"

enum client_auth {
	CLIENT_AUTH_NONE = 0,           /* NoClientCert */
	CLIENT_AUTH_REQUEST,            /* RequestClientCert: asked for, not checked */
	CLIENT_AUTH_REQUIRE_ANY,        /* RequireAnyClientCert: must be sent, not checked */
	CLIENT_AUTH_VERIFY_IF_GIVEN,    /* VerifyClientCertIfGiven */
	CLIENT_AUTH_REQUIRE_AND_VERIFY, /* RequireAndVerifyClientCert */
};

struct web_header {
	char *name;
	char *value;
};

struct web_user {
	char *name;
	char *hash; /* bcrypt */
};

struct web_config {
	char *path;          /* the file it came from */
	int tls;             /* serve HTTPS */
	char *cert_pem;      /* certificate chain, PEM */
	char *key_pem;       /* private key, PEM */
	char *client_ca_pem; /* NULL: none */
	enum client_auth client_auth;
	char **allowed_sans; /* client_allowed_sans */
	size_t nsans;
	int min_version, max_version; /* 10..13: TLS 1.0 .. TLS 1.3 */
	char *priorities;             /* the GnuTLS priority string derived from versions, suites, curves */
	int http2;
	struct web_header *headers;
	size_t nheaders;
	struct web_user *users;
	size_t nusers;
	double rate_interval_s; /* 0: no rate limit */
	int rate_burst;
	struct web_auth_cache *cache; /* private */
};

/* web_config_parse() flags */
#define WEBCFG_NO_FILES 0x1 /* do not read cert_file, key_file or client_ca_file (fuzzing) */

/*
 * Parses the YAML text of a web configuration; `path` names it in messages
 * and anchors relative paths.  On success *out is a new configuration (free
 * with web_config_free()) and 0 is returned; on failure -1 with err filled
 * (file, line, column, field).  An empty file is a valid configuration that
 * changes nothing.
 */
int web_config_parse(const char *text, size_t len, const char *path, unsigned flags, struct web_config **out,
		     struct diag *err);
/* Reads and parses the file at path. */
int web_config_load(const char *path, struct web_config **out, struct diag *err);
void web_config_free(struct web_config *c);

/*
 * Checks a user name and password against basic_auth_users.  Returns 1 when
 * they match, 0 otherwise.  Unknown users cost as much as known ones (a
 * fixed hash is checked); verified and refused credentials are cached
 * apart, so wrong passwords cannot evict a verified one; bcrypt runs one
 * at a time.  Thread-safe; it may take a bcrypt's time (the exporter calls
 * it from a thread of its own, see server.c).
 */
int web_config_check_user(struct web_config *c, const char *user, const char *password);
/* 1 when (user, password) was verified before and is still cached; never hashes. */
int web_config_cached_user(struct web_config *c, const char *user, const char *password);
/*
 * Copies into `to` the credentials `from` has verified whose user has the
 * same hash in both files, so a reload that leaves a user alone does not
 * put its scrapers back behind bcrypt.  Thread-safe; both stay the caller's.
 */
void web_config_keep_verified(struct web_config *to, struct web_config *from);

/*
 * Token bucket of rate_limit: returns 1 when a request may proceed.  Refills
 * one token per interval up to burst.  Requests presenting a verified
 * password (verified != 0: web_config_cached_user()) draw from a bucket of
 * their own, so clients without one cannot spend the scrapers' budget;
 * without basic_auth_users every request is in the other bucket, which is
 * the toolkit's single limit.  Thread-safe.
 */
int web_config_rate_allow(struct web_config *c, int verified);

/* 1 when libcrypt's crypt_r understands $2y$ bcrypt hashes on this system. */
int web_config_bcrypt_supported(void);

#endif
