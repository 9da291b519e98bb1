/*
 * exporter-toolkit web configuration: parsing with libyaml, validation with
 * the toolkit's rules, bcrypt basic auth with libcrypt, and the rate limit.
 */
#include "export/webconfig.h"

#include <crypt.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <yaml.h>

#include "util/xalloc.h"

/* ---- libyaml, loaded at run time ---- */

static struct {
	int ok;
	char why[200];
	int (*parser_initialize)(yaml_parser_t *);
	void (*parser_delete)(yaml_parser_t *);
	void (*parser_set_input_string)(yaml_parser_t *, const unsigned char *, size_t);
	int (*parser_load)(yaml_parser_t *, yaml_document_t *);
	void (*document_delete)(yaml_document_t *);
} yl;
static pthread_once_t yl_once = PTHREAD_ONCE_INIT;

static void yl_load(void)
{
	static const char *const names[] = {"libyaml-0.so.2", "libyaml.so"};
	void *h = NULL;
	size_t i;
	/* already in the process (a static or direct link)? */
	*(void **)&yl.parser_initialize = dlsym(RTLD_DEFAULT, "yaml_parser_initialize");
	if (yl.parser_initialize)
		h = RTLD_DEFAULT;
	for (i = 0; !h && i < sizeof(names) / sizeof(names[0]); i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(yl.why, sizeof(yl.why), "cannot load libyaml (libyaml-0.so.2): %s", dlerror());
		return;
	}
	*(void **)&yl.parser_initialize = dlsym(h, "yaml_parser_initialize");
	*(void **)&yl.parser_delete = dlsym(h, "yaml_parser_delete");
	*(void **)&yl.parser_set_input_string = dlsym(h, "yaml_parser_set_input_string");
	*(void **)&yl.parser_load = dlsym(h, "yaml_parser_load");
	*(void **)&yl.document_delete = dlsym(h, "yaml_document_delete");
	if (!yl.parser_initialize || !yl.parser_delete || !yl.parser_set_input_string || !yl.parser_load ||
	    !yl.document_delete) {
		snprintf(yl.why, sizeof(yl.why), "libyaml lacks the document API");
		return;
	}
	yl.ok = 1;
}

/* ---- parsing context ---- */

struct ctx {
	yaml_document_t *doc;
	const char *path;
	char *dir; /* directory of path, for relative file names */
	unsigned flags;
	struct diag *err;
	struct web_config *c;
};

static yaml_node_t *node_at(struct ctx *x, int index)
{
	yaml_node_t *start = x->doc->nodes.start, *top = x->doc->nodes.top;
	if (index < 1 || start + index - 1 >= top)
		return NULL;
	return start + index - 1;
}

static int fail(struct ctx *x, const yaml_node_t *n, const char *field, const char *fmt, ...) GS_PRINTF(4, 5);

static int fail(struct ctx *x, const yaml_node_t *n, const char *field, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return diag_set(x->err, x->path, n ? (int)n->start_mark.line + 1 : 0,
			n ? (int)n->start_mark.column + 1 : 0, field, "%s", msg);
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A plain "~", "null" or empty scalar: the key is present but unset. */
static int is_null(const yaml_node_t *n)
{
	const char *s = scalar(n);
	if (!n)
		return 1;
	if (!s || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

static int get_string(struct ctx *x, const yaml_node_t *n, const char *field, char **out)
{
	const char *s;
	if (is_null(n))
		return 0;
	s = scalar(n);
	if (!s)
		return fail(x, n, field, "expected a string");
	if (strlen(s) != n->data.scalar.length)
		return fail(x, n, field, "contains a NUL byte");
	free(*out);
	*out = xstrdup(s);
	return 0;
}

static int get_bool(struct ctx *x, const yaml_node_t *n, const char *field, int *out)
{
	static const char *const yes[] = {"true", "yes", "on", "y"};
	static const char *const no[] = {"false", "no", "off", "n"};
	const char *s = scalar(n);
	size_t i;
	if (is_null(n))
		return 0;
	for (i = 0; s && i < 4; i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return fail(x, n, field, "expected true or false, got '%s'", s ? s : "a collection");
}

static int get_int(struct ctx *x, const yaml_node_t *n, const char *field, long lo, long hi, long *out)
{
	const char *s = scalar(n);
	char *end;
	long v;
	if (is_null(n))
		return 0;
	if (!s)
		return fail(x, n, field, "expected an integer");
	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < lo || v > hi)
		return fail(x, n, field, "expected an integer between %ld and %ld, got '%s'", lo, hi, s);
	*out = v;
	return 0;
}

/*
 * A Go duration ("1s", "250ms", "1m30s", "1.5h"), as time.ParseDuration
 * reads it; a bare integer is nanoseconds, as yaml.v2 decodes it.
 */
static int parse_go_duration(const char *s, double *seconds)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"\xc2\xb5s", 1e-6}, {"\xce\xbcs", 1e-6},
		     {"ms", 1e-3}, {"s", 1},     {"m", 60},           {"h", 3600}};
	double total = 0;
	int neg = 0;
	char *end;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	if (!*s)
		return -1;
	if (!strcmp(s, "0")) {
		*seconds = 0;
		return 0;
	}
	{
		/* all digits: nanoseconds */
		const char *p = s;
		while (*p >= '0' && *p <= '9')
			p++;
		if (!*p) {
			*seconds = strtod(s, NULL) * 1e-9 * (neg ? -1 : 1);
			return 0;
		}
	}
	while (*s) {
		double v;
		size_t i, best = 0, best_len = 0;
		if (!((*s >= '0' && *s <= '9') || *s == '.'))
			return -1;
		v = strtod(s, &end);
		if (end == s)
			return -1;
		s = end;
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			size_t l = strlen(units[i].unit);
			if (!strncmp(s, units[i].unit, l) && l > best_len) {
				best = i;
				best_len = l;
			}
		}
		if (!best_len)
			return -1;
		total += v * units[best].scale;
		s += best_len;
	}
	*seconds = neg ? -total : total;
	return 0;
}

/* Joins a relative path to the configuration file's directory. */
static char *join_dir(struct ctx *x, const char *p)
{
	if (!p || !*p || p[0] == '/' || !x->dir)
		return xstrdup(p ? p : "");
	return xasprintf("%s/%s", x->dir, p);
}

static char *read_small_file(const char *path, char *why, size_t why_len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;
	if (!f) {
		snprintf(why, why_len, "%s", strerror(errno));
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		snprintf(why, why_len, "cannot size the file");
		fclose(f);
		return NULL;
	}
	if (n > 4 * 1024 * 1024) {
		snprintf(why, why_len, "larger than 4 MiB");
		fclose(f);
		return NULL;
	}
	buf = xmalloc((size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
		snprintf(why, why_len, "read error");
		free(buf);
		fclose(f);
		return NULL;
	}
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Iterates over a mapping's pairs; returns -1 (with err) when n is not a mapping. */
#define FOR_PAIRS(n, p) \
	for (yaml_node_pair_t *p = (n)->data.mapping.pairs.start; p < (n)->data.mapping.pairs.top; p++)

/* A mapping, without a key given twice (yaml.v2's strict mode refuses those too). */
static int need_mapping(struct ctx *x, const yaml_node_t *n, const char *field)
{
	if (n->type != YAML_MAPPING_NODE)
		return fail(x, n, field, "expected a mapping");
	if (n->data.mapping.pairs.top - n->data.mapping.pairs.start > 1000)
		return fail(x, n, field, "more than 1000 keys");
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const char *a = scalar(node_at(x, p->key));
		for (yaml_node_pair_t *q = n->data.mapping.pairs.start; a && q < p; q++) {
			const char *b = scalar(node_at(x, q->key));
			if (b && !strcmp(a, b))
				return fail(x, node_at(x, p->key), a, "key '%s' appears twice", a);
		}
	}
	return 0;
}

static int string_list(struct ctx *x, const yaml_node_t *n, const char *field, char ***out, size_t *count)
{
	size_t cap = 0;
	if (is_null(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return fail(x, n, field, "expected a list");
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *item = node_at(x, *it);
		const char *s = scalar(item);
		if (!s)
			return fail(x, item ? item : n, field, "expected a list of strings");
		if (*count >= 256)
			return fail(x, item, field, "more than 256 entries");
		XGROW(*out, cap, *count);
		(*out)[(*count)++] = xstrdup(s);
	}
	return 0;
}

/* ---- tls_server_config ---- */

struct suite {
	const char *go;                /* Go's crypto/tls name */
	const char *kx, *cipher, *mac; /* GnuTLS priority items; kx NULL for TLS 1.3 */
};

static const struct suite suites[] = {
	{"TLS_AES_128_GCM_SHA256", NULL, "AES-128-GCM", "AEAD"},
	{"TLS_AES_256_GCM_SHA384", NULL, "AES-256-GCM", "AEAD"},
	{"TLS_CHACHA20_POLY1305_SHA256", NULL, "CHACHA20-POLY1305", "AEAD"},
	{"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA", "AES-128-CBC", "SHA1"},
	{"TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "ECDHE-ECDSA", "AES-256-CBC", "SHA1"},
	{"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA", "AES-128-CBC", "SHA1"},
	{"TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "ECDHE-RSA", "AES-256-CBC", "SHA1"},
	{"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA", "AES-128-GCM", "AEAD"},
	{"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA", "AES-256-GCM", "AEAD"},
	{"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA", "AES-128-GCM", "AEAD"},
	{"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA", "AES-256-GCM", "AEAD"},
	{"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA", "CHACHA20-POLY1305", "AEAD"},
	{"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA", "CHACHA20-POLY1305", "AEAD"},
	{"TLS_RSA_WITH_AES_128_CBC_SHA", "RSA", "AES-128-CBC", "SHA1"},
	{"TLS_RSA_WITH_AES_256_CBC_SHA", "RSA", "AES-256-CBC", "SHA1"},
	{"TLS_RSA_WITH_AES_128_GCM_SHA256", "RSA", "AES-128-GCM", "AEAD"},
	{"TLS_RSA_WITH_AES_256_GCM_SHA384", "RSA", "AES-256-GCM", "AEAD"},
};

static const struct {
	const char *go, *gnutls;
} curves[] = {
	{"CurveP256", "GROUP-SECP256R1"},
	{"CurveP384", "GROUP-SECP384R1"},
	{"CurveP521", "GROUP-SECP521R1"},
	{"X25519", "GROUP-X25519"},
};

static int tls_version(struct ctx *x, const yaml_node_t *n, const char *field, int *out)
{
	const char *s = scalar(n);
	if (is_null(n))
		return 0;
	if (s && !strncmp(s, "TLS1", 4) && s[4] >= '0' && s[4] <= '3' && !s[5]) {
		*out = 10 + (s[4] - '0');
		return 0;
	}
	return fail(x, n, field, "unknown TLS version '%s' (TLS10, TLS11, TLS12 or TLS13)", s ? s : "");
}

/* Appends "+ITEM" once to a priority string being built. */
static void prio_add(char *buf, size_t len, const char *item)
{
	char tok[64];
	snprintf(tok, sizeof(tok), ":+%s", item);
	if (!strstr(buf, tok))
		snprintf(buf + strlen(buf), len - strlen(buf), "%s", tok);
}

static void build_priorities(struct web_config *c, char **csuites, size_t ncs, char **ccurves, size_t ncc)
{
	char buf[1024];
	int v;
	size_t i, k;
	/* NORMAL, then only the allowed protocol versions */
	snprintf(buf, sizeof(buf), "NORMAL:-VERS-ALL");
	for (v = c->max_version; v >= c->min_version; v--) {
		char item[32];
		snprintf(item, sizeof(item), "VERS-TLS1.%d", v - 10);
		prio_add(buf, sizeof(buf), item);
	}
	if (ncs) {
		/*
		 * GnuTLS combines key exchange, cipher and MAC lists, so the
		 * TLS 1.2 suites offered are the combinations of the parts named.
		 * As in Go, TLS 1.3 suites stay enabled whatever the list says.
		 */
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ":-CIPHER-ALL:-KX-ALL:-MAC-ALL");
		for (i = 0; i < ncs; i++)
			for (k = 0; k < sizeof(suites) / sizeof(suites[0]); k++)
				if (!strcmp(csuites[i], suites[k].go)) {
					prio_add(buf, sizeof(buf), suites[k].cipher);
					prio_add(buf, sizeof(buf), suites[k].mac);
					if (suites[k].kx)
						prio_add(buf, sizeof(buf), suites[k].kx);
				}
		if (c->max_version >= 13) {
			prio_add(buf, sizeof(buf), "AES-128-GCM");
			prio_add(buf, sizeof(buf), "AES-256-GCM");
			prio_add(buf, sizeof(buf), "CHACHA20-POLY1305");
			prio_add(buf, sizeof(buf), "AEAD");
		}
	}
	if (ncc) {
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ":-GROUP-ALL");
		for (i = 0; i < ncc; i++)
			for (k = 0; k < sizeof(curves) / sizeof(curves[0]); k++)
				if (!strcmp(ccurves[i], curves[k].go))
					prio_add(buf, sizeof(buf), curves[k].gnutls);
	}
	c->priorities = xstrdup(buf);
}

static void free_list(char **l, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

static int load_pem(struct ctx *x, const yaml_node_t *n, const char *field, const char *file, char **out)
{
	char why[200];
	char *path = join_dir(x, file);
	if (x->flags & WEBCFG_NO_FILES) {
		*out = xasprintf("(contents of %s)", path);
		free(path);
		return 0;
	}
	*out = read_small_file(path, why, sizeof(why));
	if (!*out) {
		fail(x, n, field, "cannot read '%s': %s", path, why);
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

static int parse_tls(struct ctx *x, yaml_node_t *n)
{
	struct web_config *c = x->c;
	char *cert = NULL, *key = NULL, *cert_file = NULL, *key_file = NULL;
	char *client_ca = NULL, *client_ca_file = NULL, *auth = NULL;
	char **csuites = NULL, **ccurves = NULL;
	size_t ncs = 0, ncc = 0;
	yaml_node_t *cert_node = n, *key_node = n, *ca_node = n, *auth_node = n, *sans_node = n;
	/* the first TLS setting given, named when there is no certificate to serve it with */
	yaml_node_t *set_node = NULL;
	const char *set_name = NULL;
	int prefer = 1, rc = -1, any = 0;

	if (is_null(n))
		return 0;
	if (need_mapping(x, n, "tls_server_config"))
		return -1;
	FOR_PAIRS(n, p)
	{
		yaml_node_t *k = node_at(x, p->key), *v = node_at(x, p->value);
		const char *name = scalar(k);
		int r = 0;
		if (!name || !v) {
			fail(x, k ? k : n, "tls_server_config", "expected a key: value mapping");
			goto out;
		}
		if (!set_node && !is_null(v)) {
			set_node = k;
			set_name = name;
		}
		if (!strcmp(name, "cert")) {
			r = get_string(x, v, name, &cert);
			cert_node = v;
		} else if (!strcmp(name, "key")) {
			r = get_string(x, v, name, &key);
			key_node = v;
		} else if (!strcmp(name, "cert_file")) {
			r = get_string(x, v, name, &cert_file);
			cert_node = v;
		} else if (!strcmp(name, "key_file")) {
			r = get_string(x, v, name, &key_file);
			key_node = v;
		} else if (!strcmp(name, "client_ca")) {
			r = get_string(x, v, name, &client_ca);
			ca_node = v;
		} else if (!strcmp(name, "client_ca_file")) {
			r = get_string(x, v, name, &client_ca_file);
			ca_node = v;
		} else if (!strcmp(name, "client_auth_type")) {
			r = get_string(x, v, name, &auth);
			auth_node = v;
		} else if (!strcmp(name, "client_allowed_sans")) {
			r = string_list(x, v, name, &c->allowed_sans, &c->nsans);
			sans_node = v;
			if (!r && is_null(v))
				continue;
			if (!r && !c->allowed_sans)
				c->allowed_sans = xcalloc(1, sizeof(char *)); /* set, but empty */
		} else if (!strcmp(name, "min_version")) {
			r = tls_version(x, v, name, &c->min_version);
		} else if (!strcmp(name, "max_version")) {
			r = tls_version(x, v, name, &c->max_version);
		} else if (!strcmp(name, "cipher_suites")) {
			size_t i, j;
			r = string_list(x, v, name, &csuites, &ncs);
			for (i = 0; !r && i < ncs; i++) {
				for (j = 0; j < sizeof(suites) / sizeof(suites[0]); j++)
					if (!strcmp(csuites[i], suites[j].go))
						break;
				if (j == sizeof(suites) / sizeof(suites[0]))
					r = fail(x, v, name, "unknown cipher '%s'", csuites[i]);
			}
		} else if (!strcmp(name, "curve_preferences")) {
			size_t i, j;
			r = string_list(x, v, name, &ccurves, &ncc);
			for (i = 0; !r && i < ncc; i++) {
				for (j = 0; j < sizeof(curves) / sizeof(curves[0]); j++)
					if (!strcmp(ccurves[i], curves[j].go))
						break;
				if (j == sizeof(curves) / sizeof(curves[0]))
					r = fail(x, v, name, "unknown curve '%s'", ccurves[i]);
			}
		} else if (!strcmp(name, "prefer_server_cipher_suites")) {
			r = get_bool(x, v, name, &prefer);
		} else {
			r = fail(x, k, name, "unknown field '%s' in tls_server_config", name);
		}
		if (r)
			goto out;
	}
	/*
	 * The toolkit serves plain HTTP when neither a certificate nor a key
	 * is given, whatever else the section says.  Here any setting of the
	 * section (client_allowed_sans, a version, a cipher ...) without a
	 * certificate and key is an error: a file that asks for mutual TLS
	 * must never be served without it.
	 */
	any = cert || key || cert_file || key_file || client_ca || client_ca_file || auth || set_node;
	if (!any) {
		rc = 0;
		goto out;
	}
	if (!cert && !cert_file && !key && !key_file) {
		fail(x, set_node ? set_node : n, set_name ? set_name : "tls_server_config",
		     "'%s' needs a certificate and key (cert_file and key_file, or cert and key); "
		     "without them TLS is off and the setting would not be applied",
		     set_name ? set_name : "tls_server_config");
		goto out;
	}
	if (!cert && !cert_file) {
		fail(x, n, "cert_file", "missing one of cert or cert_file");
		goto out;
	}
	if (!key && !key_file) {
		fail(x, n, "key_file", "missing one of key or key_file");
		goto out;
	}
	if (c->min_version > c->max_version) {
		fail(x, n, "min_version", "min_version is above max_version");
		goto out;
	}
	if (!auth || !strcmp(auth, "") || !strcmp(auth, "NoClientCert"))
		c->client_auth = CLIENT_AUTH_NONE;
	else if (!strcmp(auth, "RequestClientCert"))
		c->client_auth = CLIENT_AUTH_REQUEST;
	else if (!strcmp(auth, "RequireAnyClientCert") || !strcmp(auth, "RequireClientCert"))
		c->client_auth = CLIENT_AUTH_REQUIRE_ANY;
	else if (!strcmp(auth, "VerifyClientCertIfGiven"))
		c->client_auth = CLIENT_AUTH_VERIFY_IF_GIVEN;
	else if (!strcmp(auth, "RequireAndVerifyClientCert"))
		c->client_auth = CLIENT_AUTH_REQUIRE_AND_VERIFY;
	else {
		fail(x, auth_node, "client_auth_type",
		     "invalid client_auth_type '%s' (NoClientCert, "
		     "RequestClientCert, RequireAnyClientCert, VerifyClientCertIfGiven, "
		     "RequireAndVerifyClientCert)",
		     auth);
		goto out;
	}
	if ((client_ca || client_ca_file) && c->client_auth == CLIENT_AUTH_NONE) {
		fail(x, ca_node, "client_auth_type", "a client CA is configured without a client_auth_type");
		goto out;
	}
	if ((c->client_auth == CLIENT_AUTH_VERIFY_IF_GIVEN || c->client_auth == CLIENT_AUTH_REQUIRE_AND_VERIFY) &&
	    !client_ca && !client_ca_file) {
		fail(x, auth_node, "client_ca_file", "client_auth_type '%s' needs client_ca_file or client_ca",
		     auth);
		goto out;
	}
	if (c->allowed_sans && c->client_auth != CLIENT_AUTH_REQUIRE_ANY &&
	    c->client_auth != CLIENT_AUTH_REQUIRE_AND_VERIFY) {
		fail(x, sans_node, "client_allowed_sans",
		     "client_allowed_sans requires client_auth_type "
		     "to be one of RequireAnyClientCert or RequireAndVerifyClientCert");
		goto out;
	}
	if (cert_file) {
		if (load_pem(x, cert_node, "cert_file", cert_file, &c->cert_pem))
			goto out;
	} else {
		c->cert_pem = xstrdup(cert);
	}
	if (key_file) {
		if (load_pem(x, key_node, "key_file", key_file, &c->key_pem))
			goto out;
	} else {
		c->key_pem = xstrdup(key);
	}
	if (client_ca_file) {
		if (load_pem(x, ca_node, "client_ca_file", client_ca_file, &c->client_ca_pem))
			goto out;
	} else if (client_ca) {
		c->client_ca_pem = xstrdup(client_ca);
	}
	if (!(x->flags & WEBCFG_NO_FILES) && !strstr(c->cert_pem, "-----BEGIN")) {
		fail(x, cert_node, cert_file ? "cert_file" : "cert", "no PEM certificate found");
		goto out;
	}
	if (!(x->flags & WEBCFG_NO_FILES) && !strstr(c->key_pem, "-----BEGIN")) {
		fail(x, key_node, key_file ? "key_file" : "key", "no PEM private key found");
		goto out;
	}
	if (c->client_ca_pem && !(x->flags & WEBCFG_NO_FILES) &&
	    !strstr(c->client_ca_pem, "-----BEGIN CERTIFICATE")) {
		fail(x, ca_node, client_ca_file ? "client_ca_file" : "client_ca",
		     "no PEM certificate found in the client CA");
		goto out;
	}
	c->tls = 1;
	build_priorities(c, csuites, ncs, ccurves, ncc);
	rc = 0;
out:
	free(cert);
	free(key);
	free(cert_file);
	free(key_file);
	free(client_ca);
	free(client_ca_file);
	free(auth);
	free_list(csuites, ncs);
	free_list(ccurves, ncc);
	return rc;
}

/* ---- http_server_config ---- */

static int parse_http(struct ctx *x, yaml_node_t *n)
{
	/* the toolkit's extraHTTPHeaders: names that may be set, and their allowed values */
	static const struct {
		const char *name;
		const char *values[3];
	} allowed[] = {
		{"Strict-Transport-Security", {NULL}},
		{"X-Content-Type-Options", {"nosniff", NULL}},
		{"X-Frame-Options", {"deny", "sameorigin", NULL}},
		{"X-XSS-Protection", {NULL}},
		{"Content-Security-Policy", {NULL}},
	};
	struct web_config *c = x->c;
	size_t cap = 0;
	if (is_null(n))
		return 0;
	if (need_mapping(x, n, "http_server_config"))
		return -1;
	FOR_PAIRS(n, p)
	{
		yaml_node_t *k = node_at(x, p->key), *v = node_at(x, p->value);
		const char *name = scalar(k);
		if (!name || !v)
			return fail(x, k ? k : n, "http_server_config", "expected a key: value mapping");
		if (!strcmp(name, "http2")) {
			if (get_bool(x, v, name, &c->http2))
				return -1;
		} else if (!strcmp(name, "headers")) {
			if (is_null(v))
				continue;
			if (need_mapping(x, v, "headers"))
				return -1;
			FOR_PAIRS(v, hp)
			{
				yaml_node_t *hk = node_at(x, hp->key), *hv = node_at(x, hp->value);
				const char *hname = scalar(hk), *hval = scalar(hv);
				size_t a, i;
				if (!hname || !hval)
					return fail(x, hk ? hk : v, "headers", "expected header: value strings");
				for (a = 0; a < sizeof(allowed) / sizeof(allowed[0]); a++)
					if (!strcmp(allowed[a].name, hname))
						break;
				if (a == sizeof(allowed) / sizeof(allowed[0]))
					return fail(x, hk, "headers", "HTTP header '%s' can not be configured",
						    hname);
				if (allowed[a].values[0]) {
					for (i = 0; allowed[a].values[i]; i++)
						if (!strcmp(allowed[a].values[i], hval))
							break;
					if (!allowed[a].values[i])
						return fail(x, hv, "headers", "invalid value '%s' for %s", hval,
							    hname);
				}
				if (strpbrk(hval, "\r\n"))
					return fail(x, hv, "headers", "header values may not contain line breaks");
				XGROW(c->headers, cap, c->nheaders);
				c->headers[c->nheaders].name = xstrdup(hname);
				c->headers[c->nheaders].value = xstrdup(hval);
				c->nheaders++;
			}
		} else {
			return fail(x, k, name, "unknown field '%s' in http_server_config", name);
		}
	}
	return 0;
}

/* ---- basic_auth_users ---- */

/* bcrypt's alphabet: ./A-Za-z0-9 */
static int bcrypt_char(char ch)
{
	return ch == '.' || ch == '/' || (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
	       (ch >= '0' && ch <= '9');
}

/* "$2y$10$" + 22 salt + 31 hash characters, cost 4..31 (golang.org/x/crypto/bcrypt). */
static int bcrypt_valid(const char *h)
{
	int cost, i;
	if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' || h[3] != '$' || h[6] != '$')
		return 0;
	if (h[2] != 'a' && h[2] != 'b' && h[2] != 'y')
		return 0;
	if (h[4] < '0' || h[4] > '3' || h[5] < '0' || h[5] > '9')
		return 0;
	cost = (h[4] - '0') * 10 + (h[5] - '0');
	if (cost < 4 || cost > 31)
		return 0;
	for (i = 7; i < 60; i++)
		if (!bcrypt_char(h[i]))
			return 0;
	return 1;
}

static int parse_users(struct ctx *x, yaml_node_t *n)
{
	struct web_config *c = x->c;
	size_t cap = 0, i;
	if (is_null(n))
		return 0;
	if (need_mapping(x, n, "basic_auth_users"))
		return -1;
	FOR_PAIRS(n, p)
	{
		yaml_node_t *k = node_at(x, p->key), *v = node_at(x, p->value);
		const char *name = scalar(k), *hash = scalar(v);
		if (!name || !v)
			return fail(x, k ? k : n, "basic_auth_users", "expected user: bcrypt-hash pairs");
		if (!hash || !bcrypt_valid(hash))
			return fail(x, v, "basic_auth_users",
				    "the password of user '%s' is not a bcrypt hash ($2y$10$...)", name);
		for (i = 0; i < c->nusers; i++)
			if (!strcmp(c->users[i].name, name))
				return fail(x, k, "basic_auth_users", "user '%s' appears twice", name);
		XGROW(c->users, cap, c->nusers);
		c->users[c->nusers].name = xstrdup(name);
		c->users[c->nusers].hash = xstrdup(hash);
		c->nusers++;
	}
	return 0;
}

/* ---- rate_limit ---- */

static int parse_rate(struct ctx *x, yaml_node_t *n)
{
	struct web_config *c = x->c;
	if (is_null(n))
		return 0;
	if (need_mapping(x, n, "rate_limit"))
		return -1;
	FOR_PAIRS(n, p)
	{
		yaml_node_t *k = node_at(x, p->key), *v = node_at(x, p->value);
		const char *name = scalar(k);
		if (!name || !v)
			return fail(x, k ? k : n, "rate_limit", "expected a key: value mapping");
		if (!strcmp(name, "interval")) {
			const char *s = scalar(v);
			if (is_null(v))
				continue;
			if (!s || parse_go_duration(s, &c->rate_interval_s) || c->rate_interval_s < 0)
				return fail(x, v, name, "expected a duration like 1s or 250ms, got '%s'",
					    s ? s : "");
		} else if (!strcmp(name, "burst")) {
			long b = 0;
			if (get_int(x, v, name, 0, 1000000000L, &b))
				return -1;
			c->rate_burst = (int)b;
		} else {
			return fail(x, k, name, "unknown field '%s' in rate_limit", name);
		}
	}
	return 0;
}

/* ---- whole file ---- */

#define AUTH_GOOD 16
#define AUTH_BAD 64

struct web_auth_cache {
	pthread_mutex_t lock;   /* the cache entries */
	pthread_mutex_t bcrypt; /* one bcrypt at a time, and the crypt_data */
	struct crypt_data *cd;
	/*
	 * Verified credentials apart from refused ones: a flood of wrong
	 * passwords churns the refusals and cannot push a scraper's verified
	 * password out, which would put it back behind bcrypt.
	 */
	struct auth_entry {
		char *user, *password;
	} good[AUTH_GOOD], bad[AUTH_BAD];
	unsigned good_next, bad_next;
	/* rate limit: a bucket for requests with a verified password, one for the rest */
	pthread_mutex_t rate;
	struct rate_bucket {
		double tokens;
		struct timespec last;
	} bucket[2];
};

static void auth_entry_clear(struct auth_entry *e)
{
	if (e->password)
		explicit_bzero(e->password, strlen(e->password));
	free(e->user);
	free(e->password);
	e->user = e->password = NULL;
}

static void auth_entry_set(struct auth_entry *e, const char *user, const char *password)
{
	auth_entry_clear(e);
	e->user = xstrdup(user);
	e->password = xstrdup(password);
}

void web_config_free(struct web_config *c)
{
	size_t i;
	if (!c)
		return;
	free(c->path);
	free(c->cert_pem);
	if (c->key_pem) {
		/* a private key: do not leave it in freed memory */
		explicit_bzero(c->key_pem, strlen(c->key_pem));
		free(c->key_pem);
	}
	free(c->client_ca_pem);
	free_list(c->allowed_sans, c->nsans);
	free(c->priorities);
	for (i = 0; i < c->nheaders; i++) {
		free(c->headers[i].name);
		free(c->headers[i].value);
	}
	free(c->headers);
	for (i = 0; i < c->nusers; i++) {
		free(c->users[i].name);
		free(c->users[i].hash);
	}
	free(c->users);
	if (c->cache) {
		for (i = 0; i < AUTH_GOOD; i++)
			auth_entry_clear(&c->cache->good[i]);
		for (i = 0; i < AUTH_BAD; i++)
			auth_entry_clear(&c->cache->bad[i]);
		free(c->cache->cd);
		pthread_mutex_destroy(&c->cache->lock);
		pthread_mutex_destroy(&c->cache->bcrypt);
		pthread_mutex_destroy(&c->cache->rate);
		free(c->cache);
	}
	free(c);
}

int web_config_parse(const char *text, size_t len, const char *path, unsigned flags, struct web_config **out,
		     struct diag *err)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	struct ctx x;
	struct web_config *c;
	yaml_node_t *root;
	const char *slash;
	int rc = -1;

	*out = NULL;
	pthread_once(&yl_once, yl_load);
	if (!yl.ok)
		return diag_set(err, path, 0, 0, "", "%s", yl.why);
	if (len > 256 * 1024)
		return diag_set(err, path, 0, 0, "", "larger than 256 KiB");
	{
		/*
		 * libyaml's time grows with the square of the flow nesting depth;
		 * a web config has a handful of [..] and {..}.
		 */
		size_t i, flows = 0;
		for (i = 0; i < len; i++)
			flows += text[i] == '[' || text[i] == '{';
		if (flows > 512)
			return diag_set(err, path, 0, 0, "", "more than 512 flow collections ([...] or {...})");
	}
	memset(&x, 0, sizeof(x));
	x.path = path;
	x.flags = flags;
	x.err = err;
	slash = strrchr(path, '/');
	x.dir = slash ? xstrndup(path, (size_t)(slash - path ? slash - path : 1)) : NULL;
	c = x.c = xcalloc(1, sizeof(*c));
	c->path = xstrdup(path);
	c->min_version = 12;
	c->max_version = 13;
	c->http2 = 1;

	if (!yl.parser_initialize(&parser)) {
		diag_set(err, path, 0, 0, "", "cannot initialise the YAML parser");
		goto out_nodoc;
	}
	yl.parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yl.parser_load(&parser, &doc)) {
		diag_set(err, path, (int)parser.problem_mark.line + 1, (int)parser.problem_mark.column + 1, "",
			 "YAML: %s%s%s", parser.problem ? parser.problem : "syntax error",
			 parser.context ? " " : "", parser.context ? parser.context : "");
		yl.parser_delete(&parser);
		goto out_nodoc;
	}
	x.doc = &doc;
	root = node_at(&x, 1);
	if (!root || is_null(root)) {
		rc = 0; /* an empty file: plain HTTP, no auth */
		goto out;
	}
	if (need_mapping(&x, root, ""))
		goto out;
	FOR_PAIRS(root, p)
	{
		yaml_node_t *k = node_at(&x, p->key), *v = node_at(&x, p->value);
		const char *name = scalar(k);
		int r;
		if (!name || !v) {
			fail(&x, k ? k : root, "", "expected a key: value mapping");
			goto out;
		}
		if (!strcmp(name, "tls_server_config"))
			r = parse_tls(&x, v);
		else if (!strcmp(name, "http_server_config"))
			r = parse_http(&x, v);
		else if (!strcmp(name, "basic_auth_users"))
			r = parse_users(&x, v);
		else if (!strcmp(name, "rate_limit"))
			r = parse_rate(&x, v);
		else
			r = fail(&x, k, name,
				 "unknown field '%s' (tls_server_config, http_server_config, "
				 "basic_auth_users, rate_limit)",
				 name);
		if (r)
			goto out;
	}
	rc = 0;
out:
	yl.document_delete(&doc);
	yl.parser_delete(&parser);
out_nodoc:
	free(x.dir);
	if (rc) {
		web_config_free(c);
		return -1;
	}
	c->cache = xcalloc(1, sizeof(*c->cache));
	pthread_mutex_init(&c->cache->lock, NULL);
	pthread_mutex_init(&c->cache->bcrypt, NULL);
	pthread_mutex_init(&c->cache->rate, NULL);
	c->cache->bucket[0].tokens = c->cache->bucket[1].tokens = c->rate_burst;
	clock_gettime(CLOCK_MONOTONIC, &c->cache->bucket[0].last);
	c->cache->bucket[1].last = c->cache->bucket[0].last;
	*out = c;
	return 0;
}

int web_config_load(const char *path, struct web_config **out, struct diag *err)
{
	char why[200];
	char *text = read_small_file(path, why, sizeof(why));
	int rc;
	*out = NULL;
	if (!text)
		return diag_set(err, path, 0, 0, "", "cannot read the web config: %s", why);
	rc = web_config_parse(text, strlen(text), path, 0, out, err);
	free(text);
	return rc;
}

/* ---- basic auth ---- */

/* Compares without an early exit, so the time taken does not depend on where they differ. */
static int same_secret(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, n = la > lb ? la : lb;
	unsigned char d = (unsigned char)(la != lb);
	for (i = 0; i < n; i++)
		d |= (unsigned char)(a[i < la ? i : 0] ^ b[i < lb ? i : 0]);
	return d == 0;
}

/*
 * A cost-10 bcrypt hash of FAKE_PASSWORD, checked for unknown users so they
 * take as long as known ones, and to test that libcrypt knows $2y$.
 */
#define FAKE_PASSWORD "gpuscope-unknown-user"
static const char FAKE_HASH[] = "$2y$10$fkq3wbeUf68aiXQ7tvgQx.Fed1MmlMRGkaqX9lQUOf1qL6s/0exS6";

/* Is (user, password) in the table?  k->lock held. */
static int auth_find(const struct auth_entry *t, size_t n, const char *user, const char *password)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (t[i].user && !strcmp(t[i].user, user) && same_secret(t[i].password, password))
			return 1;
	return 0;
}

int web_config_cached_user(struct web_config *c, const char *user, const char *password)
{
	struct web_auth_cache *k = c->cache;
	int hit;
	pthread_mutex_lock(&k->lock);
	hit = auth_find(k->good, AUTH_GOOD, user, password);
	pthread_mutex_unlock(&k->lock);
	return hit;
}

int web_config_check_user(struct web_config *c, const char *user, const char *password)
{
	struct web_auth_cache *k = c->cache;
	const char *hash = FAKE_HASH;
	const char *got;
	int known = 0, ok, hit = -1;
	size_t i;

	for (i = 0; i < c->nusers; i++)
		if (!strcmp(c->users[i].name, user)) {
			hash = c->users[i].hash;
			known = 1;
			break;
		}
	pthread_mutex_lock(&k->lock);
	if (auth_find(k->good, AUTH_GOOD, user, password))
		hit = 1;
	else if (auth_find(k->bad, AUTH_BAD, user, password))
		hit = 0;
	pthread_mutex_unlock(&k->lock);
	if (hit >= 0)
		return hit && known;

	pthread_mutex_lock(&k->bcrypt);
	if (!k->cd)
		k->cd = xcalloc(1, sizeof(*k->cd));
	got = crypt_r(password, hash, k->cd);
	ok = got && got[0] != '*' && same_secret(got, hash);
	pthread_mutex_unlock(&k->bcrypt);
	ok = ok && known;

	pthread_mutex_lock(&k->lock);
	if (ok)
		auth_entry_set(&k->good[k->good_next++ % AUTH_GOOD], user, password);
	else
		auth_entry_set(&k->bad[k->bad_next++ % AUTH_BAD], user, password);
	pthread_mutex_unlock(&k->lock);
	return ok;
}

/* The hash of user in c, or NULL. */
static const char *user_hash(const struct web_config *c, const char *user)
{
	size_t i;
	for (i = 0; i < c->nusers; i++)
		if (!strcmp(c->users[i].name, user))
			return c->users[i].hash;
	return NULL;
}

void web_config_keep_verified(struct web_config *to, struct web_config *from)
{
	struct web_auth_cache *f = from->cache, *t = to->cache;
	size_t i;
	if (f == t)
		return;
	pthread_mutex_lock(&f->lock);
	pthread_mutex_lock(&t->lock);
	for (i = 0; i < AUTH_GOOD; i++) {
		const struct auth_entry *e = &f->good[i];
		const char *old_hash, *new_hash;
		if (!e->user)
			continue;
		old_hash = user_hash(from, e->user);
		new_hash = user_hash(to, e->user);
		/* verified against the very hash the new file has, and not cached there yet */
		if (old_hash && new_hash && !strcmp(old_hash, new_hash) &&
		    !auth_find(t->good, AUTH_GOOD, e->user, e->password))
			auth_entry_set(&t->good[t->good_next++ % AUTH_GOOD], e->user, e->password);
	}
	pthread_mutex_unlock(&t->lock);
	pthread_mutex_unlock(&f->lock);
}

int web_config_bcrypt_supported(void)
{
	struct crypt_data *cd = xcalloc(1, sizeof(*cd));
	const char *got = crypt_r(FAKE_PASSWORD, FAKE_HASH, cd);
	int ok = got && !strcmp(got, FAKE_HASH);
	free(cd);
	return ok;
}

/* ---- rate limit ---- */

int web_config_rate_allow(struct web_config *c, int verified)
{
	struct rate_bucket *b = &c->cache->bucket[verified ? 1 : 0];
	struct timespec now;
	double dt;
	int ok;
	if (!(c->rate_interval_s > 0))
		return 1;
	pthread_mutex_lock(&c->cache->rate);
	clock_gettime(CLOCK_MONOTONIC, &now);
	dt = (double)(now.tv_sec - b->last.tv_sec) + (double)(now.tv_nsec - b->last.tv_nsec) * 1e-9;
	b->last = now;
	b->tokens += dt / c->rate_interval_s;
	if (b->tokens > c->rate_burst)
		b->tokens = c->rate_burst;
	ok = b->tokens >= 1.0;
	if (ok)
		b->tokens -= 1.0;
	pthread_mutex_unlock(&c->cache->rate);
	return ok;
}
