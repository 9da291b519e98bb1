/*
 * The exporter's HTTP server on libmicrohttpd (see server.h).
 *
 * libmicrohttpd does the HTTP and the TLS (through GnuTLS); it asks TLS
 * clients for a certificate when it has a trust list, and leaves checking
 * it to the application.  The GnuTLS calls that check it are looked up
 * with dlsym(): GnuTLS is already in the process, loaded by libmicrohttpd.
 */
#include "export/server.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "util/error.h"
#include "util/xalloc.h"

/* ---- --listen ---- */

static int parse_port(const char *s, unsigned *port)
{
	char *end;
	unsigned long v;
	if (!*s || strspn(s, "0123456789") != strlen(s))
		return -1;
	v = strtoul(s, &end, 10);
	if (*end || v > 65535)
		return -1;
	*port = (unsigned)v;
	return 0;
}

int listen_addr_parse(const char *text, struct listen_addr *out, char *why, size_t why_len)
{
	char host[256];
	const char *colon, *port_s;
	size_t hl;

	memset(out, 0, sizeof(*out));
	if (!text || !*text) {
		snprintf(why, why_len, "an address is empty; use HOST:PORT, :PORT or [IPV6]:PORT");
		return -1;
	}
	if (text[0] == '[') {
		const char *close = strchr(text, ']');
		if (!close || close[1] != ':') {
			snprintf(why, why_len, "'%s' is not [IPV6]:PORT", text);
			return -1;
		}
		hl = (size_t)(close - text - 1);
		port_s = close + 2;
		if (hl == 0 || hl >= sizeof(host)) {
			snprintf(why, why_len, "'%s' has no IPv6 address between the brackets", text);
			return -1;
		}
		memcpy(host, text + 1, hl);
		host[hl] = '\0';
	} else {
		colon = strrchr(text, ':');
		if (!colon) {
			if (strspn(text, "0123456789") == strlen(text))
				snprintf(why, why_len, "'%s' has no host part; use :%s for every address "
					 "or 127.0.0.1:%s", text, text, text);
			else
				snprintf(why, why_len, "'%s' has no port; use HOST:PORT or :PORT", text);
			return -1;
		}
		if (strchr(text, ':') != colon) {
			snprintf(why, why_len, "'%s': write IPv6 addresses in brackets, [::1]:9400", text);
			return -1;
		}
		hl = (size_t)(colon - text);
		if (hl >= sizeof(host)) {
			snprintf(why, why_len, "the host in '%s' is too long", text);
			return -1;
		}
		memcpy(host, text, hl);
		host[hl] = '\0';
		port_s = colon + 1;
	}
	if (parse_port(port_s, &out->port)) {
		snprintf(why, why_len, "'%s' is not a port number (0-65535) in '%s'", port_s, text);
		return -1;
	}
	if (!host[0]) {
		/* ":9400": every address, like Go's net.Listen */
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&out->ss;
		a6->sin6_family = AF_INET6;
		a6->sin6_addr = in6addr_any;
		a6->sin6_port = htons((uint16_t)out->port);
		out->len = sizeof(*a6);
		out->any = 1;
		return 0;
	}
	{
		struct sockaddr_in *a4 = (struct sockaddr_in *)&out->ss;
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&out->ss;
		struct addrinfo hints, *res = NULL;
		int rc;
		if (text[0] != '[' && inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
			a4->sin_family = AF_INET;
			a4->sin_port = htons((uint16_t)out->port);
			out->len = sizeof(*a4);
			return 0;
		}
		if (text[0] == '[') {
			if (inet_pton(AF_INET6, host, &a6->sin6_addr) != 1) {
				snprintf(why, why_len, "'%s' is not an IPv6 address", host);
				return -1;
			}
			a6->sin6_family = AF_INET6;
			a6->sin6_port = htons((uint16_t)out->port);
			out->len = sizeof(*a6);
			return 0;
		}
		/* a host name: resolve it now, as Go does at listen time */
		if (strspn(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") !=
		    strlen(host)) {
			snprintf(why, why_len, "'%s' is not an address or a host name", host);
			return -1;
		}
		memset(&hints, 0, sizeof(hints));
		hints.ai_family = AF_UNSPEC;
		hints.ai_socktype = SOCK_STREAM;
		hints.ai_flags = AI_PASSIVE;
		rc = getaddrinfo(host, NULL, &hints, &res);
		if (rc || !res) {
			snprintf(why, why_len, "cannot resolve '%s': %s", host, gai_strerror(rc));
			if (res)
				freeaddrinfo(res);
			return -1;
		}
		memcpy(&out->ss, res->ai_addr, res->ai_addrlen);
		out->len = (socklen_t)res->ai_addrlen;
		if (out->ss.ss_family == AF_INET)
			a4->sin_port = htons((uint16_t)out->port);
		else
			a6->sin6_port = htons((uint16_t)out->port);
		freeaddrinfo(res);
		return 0;
	}
}

static void addr_text(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "?";
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
		inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip));
		snprintf(buf, len, "%s:%u", ip, ntohs(a->sin_port));
	} else {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
		inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof(ip));
		snprintf(buf, len, "[%s]:%u", ip, ntohs(a->sin6_port));
	}
}

/* ---- GnuTLS, for client certificates ---- */

static struct {
	int ok;
	const gnutls_datum_t *(*get_peers)(gnutls_session_t, unsigned int *);
	int (*verify_peers2)(gnutls_session_t, unsigned int *);
	int (*crt_init)(gnutls_x509_crt_t *);
	int (*crt_import)(gnutls_x509_crt_t, const gnutls_datum_t *, gnutls_x509_crt_fmt_t);
	int (*crt_get_san)(gnutls_x509_crt_t, unsigned int, void *, size_t *, unsigned int *);
	void (*crt_deinit)(gnutls_x509_crt_t);
	int (*priority_init)(gnutls_priority_t *, const char *, const char **);
	void (*priority_deinit)(gnutls_priority_t);
} gt;
static pthread_once_t gt_once = PTHREAD_ONCE_INIT;

static void gt_load(void)
{
	void *h = RTLD_DEFAULT;
	*(void **)&gt.get_peers = dlsym(h, "gnutls_certificate_get_peers");
	if (!gt.get_peers) {
		h = dlopen("libgnutls.so.30", RTLD_NOW | RTLD_NOLOAD);
		if (!h)
			return;
		*(void **)&gt.get_peers = dlsym(h, "gnutls_certificate_get_peers");
	}
	*(void **)&gt.verify_peers2 = dlsym(h, "gnutls_certificate_verify_peers2");
	*(void **)&gt.crt_init = dlsym(h, "gnutls_x509_crt_init");
	*(void **)&gt.crt_import = dlsym(h, "gnutls_x509_crt_import");
	*(void **)&gt.crt_get_san = dlsym(h, "gnutls_x509_crt_get_subject_alt_name");
	*(void **)&gt.crt_deinit = dlsym(h, "gnutls_x509_crt_deinit");
	*(void **)&gt.priority_init = dlsym(h, "gnutls_priority_init");
	*(void **)&gt.priority_deinit = dlsym(h, "gnutls_priority_deinit");
	gt.ok = gt.get_peers && gt.verify_peers2 && gt.crt_init && gt.crt_import && gt.crt_get_san &&
		gt.crt_deinit && gt.priority_init && gt.priority_deinit;
}

int server_tls_available(void)
{
	pthread_once(&gt_once, gt_load);
	return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES && gt.ok;
}

/* Does the first certificate carry one of the allowed SANs (DNS, email, IP, URI)? */
static int san_allowed(const struct web_config *wc, const gnutls_datum_t *der)
{
	gnutls_x509_crt_t crt;
	unsigned seq, crit;
	int ok = 0;
	if (gt.crt_init(&crt) < 0)
		return 0;
	if (gt.crt_import(crt, der, GNUTLS_X509_FMT_DER) < 0) {
		gt.crt_deinit(crt);
		return 0;
	}
	for (seq = 0; !ok && seq < 64; seq++) {
		char san[512], text[INET6_ADDRSTRLEN + 1];
		size_t len = sizeof(san) - 1, i;
		int type = gt.crt_get_san(crt, seq, san, &len, &crit);
		const char *value = san;
		if (type == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE)
			break;
		if (type < 0)
			continue;
		if (type == GNUTLS_SAN_IPADDRESS) {
			if (len == 4)
				inet_ntop(AF_INET, san, text, sizeof(text));
			else if (len == 16)
				inet_ntop(AF_INET6, san, text, sizeof(text));
			else
				continue;
			value = text;
		} else if (type == GNUTLS_SAN_DNSNAME || type == GNUTLS_SAN_RFC822NAME ||
			   type == GNUTLS_SAN_URI) {
			san[len] = '\0';
		} else {
			continue;
		}
		for (i = 0; i < wc->nsans; i++)
			if (!strcmp(wc->allowed_sans[i], value))
				ok = 1;
	}
	gt.crt_deinit(crt);
	return ok;
}

/* Applies client_auth_type to a TLS connection; returns 1 when it may proceed. */
static int client_cert_ok(const struct web_config *wc, struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci;
	const gnutls_datum_t *certs;
	unsigned n = 0, status = 0;
	if (!wc || !wc->tls || wc->client_auth == CLIENT_AUTH_NONE ||
	    wc->client_auth == CLIENT_AUTH_REQUEST)
		return 1;
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!ci || !ci->tls_session || !gt.ok)
		return 0;
	certs = gt.get_peers((gnutls_session_t)ci->tls_session, &n);
	if (!certs || !n)
		return wc->client_auth == CLIENT_AUTH_VERIFY_IF_GIVEN;
	if (wc->client_auth == CLIENT_AUTH_VERIFY_IF_GIVEN ||
	    wc->client_auth == CLIENT_AUTH_REQUIRE_AND_VERIFY) {
		if (gt.verify_peers2((gnutls_session_t)ci->tls_session, &status) < 0 || status)
			return 0;
	}
	if (wc->allowed_sans && !san_allowed(wc, &certs[0]))
		return 0;
	return 1;
}

/* ---- the server ---- */

struct wc_ref {
	struct web_config *wc;      /* NULL: no web config */
	int refs;
};

struct server {
	struct server_opts o;
	int fd;                     /* the listening socket, shared by successive daemons */
	char hostport[128];
	char url[160];
	pthread_mutex_t lock;
	struct MHD_Daemon *d;
	struct wc_ref *cfg;         /* guarded by lock */
	atomic_ullong scrapes;
	char *landing;
	size_t landing_len;
};

static struct wc_ref *cfg_acquire(struct server *s)
{
	struct wc_ref *r;
	pthread_mutex_lock(&s->lock);
	r = s->cfg;
	r->refs++;
	pthread_mutex_unlock(&s->lock);
	return r;
}

static void cfg_release(struct server *s, struct wc_ref *r)
{
	int last;
	pthread_mutex_lock(&s->lock);
	last = --r->refs == 0;
	pthread_mutex_unlock(&s->lock);
	if (last) {
		web_config_free(r->wc);
		free(r);
	}
}

static void add_config_headers(struct MHD_Response *resp, const struct web_config *wc)
{
	size_t i;
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	if (!wc)
		return;
	for (i = 0; wc && i < wc->nheaders; i++)
		MHD_add_response_header(resp, wc->headers[i].name, wc->headers[i].value);
}

static enum MHD_Result reply(struct MHD_Connection *conn, const struct web_config *wc,
			     unsigned status, const char *type, const char *body)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(strlen(body), (void *)body,
								    MHD_RESPMEM_MUST_COPY);
	enum MHD_Result rc;
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	add_config_headers(resp, wc);
	if (status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Basic");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	rc = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return rc;
}

/* RFC 4648 base64, for the Authorization header; returns the decoded length or -1. */
static int b64_decode(const char *in, char *out, size_t out_len)
{
	unsigned acc = 0;
	int bits = 0;
	size_t n = 0;
	for (; *in && *in != '='; in++) {
		int v;
		char ch = *in;
		if (ch >= 'A' && ch <= 'Z')
			v = ch - 'A';
		else if (ch >= 'a' && ch <= 'z')
			v = ch - 'a' + 26;
		else if (ch >= '0' && ch <= '9')
			v = ch - '0' + 52;
		else if (ch == '+')
			v = 62;
		else if (ch == '/')
			v = 63;
		else
			return -1;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (n + 1 >= out_len)
				return -1;
			out[n++] = (char)((acc >> bits) & 0xff);
		}
	}
	out[n] = '\0';
	return (int)n;
}

/* Basic auth against basic_auth_users; 1 when allowed (or no users are configured). */
static int authorized(struct MHD_Connection *conn, struct web_config *wc)
{
	const char *h;
	char dec[1024], *colon;
	int n;
	if (!wc || !wc->nusers)
		return 1;
	h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	if (!h || strncasecmp(h, "Basic ", 6))
		return 0;
	h += 6;
	while (*h == ' ')
		h++;
	n = b64_decode(h, dec, sizeof(dec));
	if (n < 0 || memchr(dec, '\0', (size_t)n))
		return 0;
	colon = strchr(dec, ':');
	if (!colon)
		return 0;
	*colon = '\0';
	n = web_config_check_user(wc, dec, colon + 1);
	explicit_bzero(dec, sizeof(dec));
	return n;
}

struct metrics_body {
	struct snapshot *snap;
	char *tail;
};

static void metrics_free(void *cls)
{
	struct metrics_body *m = cls;
	snapshot_release(m->snap);
	free(m->tail);
	free(m);
}

static enum MHD_Result serve_metrics(struct server *s, struct MHD_Connection *conn,
				     const struct web_config *wc)
{
	const char *ct;
	enum expo_format f = expo_negotiate(
		MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT), &ct);
	struct snapshot *snap = collector_acquire(s->o.collector);
	struct metrics_body *m;
	struct expo_buf tail;
	struct MHD_IoVec iov[2];
	struct MHD_Response *resp;
	enum MHD_Result rc;
	uint64_t n;

	if (!snap)
		return reply(conn, wc, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8",
			     "no collection yet\n");
	n = atomic_fetch_add(&s->scrapes, 1) + 1;
	expo_buf_init(&tail);
	families_render_tail(f, mono_now() - snap->mono_s, n, &tail);
	m = xmalloc(sizeof(*m));
	m->snap = snap;
	m->tail = expo_buf_steal(&tail, &iov[1].iov_len);
	iov[0].iov_base = snap->body[f];
	iov[0].iov_len = snap->len[f];
	iov[1].iov_base = m->tail;
	resp = MHD_create_response_from_iovec(iov, 2, metrics_free, m);
	if (!resp) {
		metrics_free(m);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ct);
	add_config_headers(resp, wc);
	rc = MHD_queue_response(conn, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return rc;
}

static enum MHD_Result serve_health(struct server *s, struct MHD_Connection *conn,
				    const struct web_config *wc)
{
	struct snapshot *snap = collector_acquire(s->o.collector);
	char body[1400];
	unsigned status = MHD_HTTP_OK;
	if (!snap) {
		snprintf(body, sizeof(body), "unhealthy: no collection yet\n");
		status = MHD_HTTP_SERVICE_UNAVAILABLE;
	} else {
		double age = mono_now() - snap->mono_s;
		if (age > s->o.stale_s) {
			snprintf(body, sizeof(body), "unhealthy: the last collection is %.1f s old (limit %.1f s)\n",
				 age, s->o.stale_s);
			status = MHD_HTTP_SERVICE_UNAVAILABLE;
		} else if (!snap->healthy) {
			snprintf(body, sizeof(body), "unhealthy: %s\n", snap->health);
			status = MHD_HTTP_SERVICE_UNAVAILABLE;
		} else {
			snprintf(body, sizeof(body), "ok: last collection %.2f s ago\n%s", age, snap->notes);
		}
		snapshot_release(snap);
	}
	return reply(conn, wc, status, "text/plain; charset=utf-8", body);
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn, const char *url,
			       const char *method, const char *version, const char *upload_data,
			       size_t *upload_data_size, void **req_cls)
{
	struct server *s = cls;
	struct wc_ref *r;
	struct web_config *wc;
	enum MHD_Result rc;

	static int seen;

	(void)version;
	(void)upload_data;
	if (!*req_cls) {
		/*
		 * The first call comes with the headers alone; answering now would
		 * make libmicrohttpd close the connection (the request is not read
		 * to its end), so wait for the second call to keep it alive.
		 */
		*req_cls = &seen;
		return MHD_YES;
	}
	if (*upload_data_size) {
		/* a request body: nothing here takes one; drop it */
		*upload_data_size = 0;
		return MHD_YES;
	}
	r = cfg_acquire(s);
	wc = r->wc;
	if (wc && wc->tls && !client_cert_ok(wc, conn)) {
		cfg_release(s, r);
		return MHD_NO;      /* closes the connection, as a failed handshake would */
	}
	if (wc && !web_config_rate_allow(wc)) {
		rc = reply(conn, wc, MHD_HTTP_TOO_MANY_REQUESTS, "text/plain; charset=utf-8",
			   "Too Many Requests\n");
	} else if (!authorized(conn, wc)) {
		rc = reply(conn, wc, MHD_HTTP_UNAUTHORIZED, "text/plain; charset=utf-8", "Unauthorized\n");
	} else if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		rc = reply(conn, wc, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8",
			   "Method Not Allowed\n");
	} else if (!strcmp(url, "/metrics")) {
		rc = serve_metrics(s, conn, wc);
	} else if (!strcmp(url, "/health")) {
		rc = serve_health(s, conn, wc);
	} else if (!strcmp(url, "/")) {
		rc = reply(conn, wc, MHD_HTTP_OK, "text/html; charset=utf-8", s->landing);
	} else {
		rc = reply(conn, wc, MHD_HTTP_NOT_FOUND, "text/plain; charset=utf-8", "Not Found\n");
	}
	cfg_release(s, r);
	return rc;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	size_t n;
	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == '.'))
		msg[--n] = '\0';
	/* libmicrohttpd's messages start with a capital; keep them as they are */
	warning("export: http: %s", msg);
}

/* Starts a daemon on a duplicate of the listening socket, with wc's TLS settings. */
static struct MHD_Daemon *daemon_start(struct server *s, const struct web_config *wc, char *err,
				       size_t err_len)
{
	struct MHD_OptionItem opts[16];
	/* ITC: a daemon replaced on reload must let go of the shared socket (MHD_quiesce_daemon) */
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG | MHD_USE_ITC |
			MHD_USE_TURBO;
	int n = 0, fd;
	struct MHD_Daemon *d;

	if (wc && wc->tls) {
		if (!server_tls_available()) {
			snprintf(err, err_len, "TLS is configured but libmicrohttpd or GnuTLS lacks it");
			return NULL;
		}
		flags |= MHD_USE_TLS;
	}
	fd = dup(s->fd);
	if (fd < 0) {
		snprintf(err, err_len, "cannot duplicate the listening socket: %s", strerror(errno));
		return NULL;
	}
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_LISTEN_SOCKET, fd, NULL};
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_THREAD_POOL_SIZE, s->o.threads, NULL};
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_LIMIT, s->o.max_connections, NULL};
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_PER_IP_CONNECTION_LIMIT, s->o.max_per_ip, NULL};
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT,
					    (intptr_t)(unsigned)ceil(s->o.timeout_s), NULL};
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_MEMORY_LIMIT,
					    (intptr_t)s->o.connection_memory, NULL};
	/* refuse what RFC 9112 says to refuse (an HTTP/1.1 request without Host ...) */
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_STRICT_FOR_CLIENT, 1, NULL};
	if (wc && wc->tls) {
		opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, wc->key_pem};
		opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, wc->cert_pem};
		if (wc->priorities)
			opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_PRIORITIES, 0, wc->priorities};
		if (wc->client_auth != CLIENT_AUTH_NONE) {
			/*
			 * libmicrohttpd asks for a client certificate only when it has
			 * a trust list; without a client CA (RequestClientCert,
			 * RequireAnyClientCert) the certificates go unchecked, so the
			 * server's own certificate serves as the list.
			 */
			opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_TRUST, 0,
							    wc->client_ca_pem ? wc->client_ca_pem
									      : wc->cert_pem};
		}
	}
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
	d = MHD_start_daemon(flags, 0, NULL, NULL, handler, s,
			     MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
			     MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
	if (!d) {
		close(fd);
		snprintf(err, err_len, "libmicrohttpd could not start%s",
			 wc && wc->tls ? " (check the certificate, the key and the TLS settings)" : "");
	}
	return d;
}

static void build_landing(struct server *s)
{
	const char *names = s->o.names == NAMES_DCGM ? "dcgm" : s->o.names == NAMES_NATIVE ? "native"
											 : "both";
	s->landing = xasprintf(
		"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<title>gpuscope exporter</title></head>\n<body>\n"
		"<h1>gpuscope exporter</h1>\n"
		"<p>Prometheus metrics of %u GPU%s, collected every %g s off the scrape path "
		"(names: %s).</p>\n<ul>\n"
		"<li><a href=\"/metrics\">/metrics</a>: text format 0.0.4, or OpenMetrics when asked</li>\n"
		"<li><a href=\"/health\">/health</a>: fails when the samples are stale or a GPU call hangs</li>\n"
		"</ul>\n<p>gpuscope %s</p>\n</body></html>\n",
		s->o.ngpus, s->o.ngpus == 1 ? "" : "s", s->o.interval_s, names, GPUSCOPE_VERSION);
	s->landing_len = strlen(s->landing);
}

static int open_listener(struct server *s, char *err, size_t err_len)
{
	struct listen_addr a = s->o.addr;
	struct sockaddr_storage bound;
	socklen_t blen = sizeof(bound);
	int fd, one = 1, zero = 0;
	char text[96];

	fd = socket(a.ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 && a.any && (errno == EAFNOSUPPORT || errno == EPROTONOSUPPORT)) {
		/* no IPv6 on this host: every IPv4 address */
		struct sockaddr_in *a4 = (struct sockaddr_in *)&a.ss;
		memset(&a.ss, 0, sizeof(a.ss));
		a4->sin_family = AF_INET;
		a4->sin_addr.s_addr = htonl(INADDR_ANY);
		a4->sin_port = htons((uint16_t)a.port);
		a.len = sizeof(*a4);
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	}
	if (fd < 0) {
		snprintf(err, err_len, "cannot create a socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (a.ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, a.any ? &zero : &one, sizeof(int));
	if (bind(fd, (struct sockaddr *)&a.ss, a.len) < 0) {
		int e = errno;
		addr_text(&a.ss, text, sizeof(text));
		snprintf(err, err_len, "cannot listen on %s: %s", text, strerror(e));
		close(fd);
		return -1;
	}
	if (listen(fd, 128) < 0) {
		snprintf(err, err_len, "listen: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (getsockname(fd, (struct sockaddr *)&bound, &blen) == 0)
		addr_text(&bound, text, sizeof(text));
	else
		snprintf(text, sizeof(text), "?");
	if (a.any) {
		/* ":PORT": show the port on every address */
		const char *colon = strrchr(text, ':');
		snprintf(s->hostport, sizeof(s->hostport), ":%s", colon ? colon + 1 : "?");
	} else {
		snprintf(s->hostport, sizeof(s->hostport), "%s", text);
	}
	s->fd = fd;
	return 0;
}

static void set_url_scheme(struct server *s, int tls)
{
	snprintf(s->url, sizeof(s->url), "%s://%s", tls ? "https" : "http", s->hostport);
}

struct server *server_start(const struct server_opts *o, struct web_config *wc, char *err,
			    size_t err_len)
{
	struct server *s = xcalloc(1, sizeof(*s));
	s->o = *o;
	s->fd = -1;
	pthread_mutex_init(&s->lock, NULL);
	atomic_init(&s->scrapes, 0);
	s->cfg = xcalloc(1, sizeof(*s->cfg));
	s->cfg->refs = 1;
	build_landing(s);
	if (open_listener(s, err, err_len))
		goto fail;
	/*
	 * The configuration is in place before the first worker starts: a
	 * request in the backlog is served as soon as the daemon runs, and it
	 * must see the authentication and limits.
	 */
	s->cfg->wc = wc;
	s->d = daemon_start(s, wc, err, err_len);
	if (!s->d) {
		s->cfg->wc = NULL; /* the caller keeps wc on failure */
		goto fail;
	}
	set_url_scheme(s, wc && wc->tls);
	return s;
fail:
	if (s->fd >= 0)
		close(s->fd);
	free(s->cfg);
	free(s->landing);
	pthread_mutex_destroy(&s->lock);
	free(s);
	return NULL;
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Do two configurations need different TLS layers? */
static int tls_differs(const struct web_config *a, const struct web_config *b)
{
	int ta = a && a->tls, tb = b && b->tls;
	if (ta != tb)
		return 1;
	if (!ta)
		return 0;
	return !same_str(a->cert_pem, b->cert_pem) || !same_str(a->key_pem, b->key_pem) ||
	       !same_str(a->client_ca_pem, b->client_ca_pem) || !same_str(a->priorities, b->priorities) ||
	       (a->client_auth != CLIENT_AUTH_NONE) != (b->client_auth != CLIENT_AUTH_NONE);
}

int server_reload(struct server *s, struct web_config *wc, char *err, size_t err_len)
{
	struct wc_ref *old, *nr;
	struct MHD_Daemon *old_d = NULL;
	pthread_mutex_lock(&s->lock);
	old = s->cfg;
	pthread_mutex_unlock(&s->lock);
	if (tls_differs(old->wc, wc)) {
		/* the new daemon takes over the socket; then the old one stops */
		struct MHD_Daemon *d = daemon_start(s, wc, err, err_len);
		if (!d)
			return -1;
		old_d = s->d;
		s->d = d;
	}
	nr = xcalloc(1, sizeof(*nr));
	nr->wc = wc;
	nr->refs = 1;
	pthread_mutex_lock(&s->lock);
	s->cfg = nr;
	pthread_mutex_unlock(&s->lock);
	if (old_d) {
		/*
		 * Stopping a daemon shuts its listening socket down, which would
		 * stop the new one too (they share it): quiesce first, then close
		 * the old daemon's duplicate ourselves.
		 */
		MHD_socket q = MHD_quiesce_daemon(old_d);
		MHD_stop_daemon(old_d);
		if (q != MHD_INVALID_SOCKET)
			close(q);
	}
	set_url_scheme(s, wc && wc->tls);
	cfg_release(s, old);
	return 0;
}

void server_stop(struct server *s)
{
	if (!s)
		return;
	if (s->d)
		MHD_stop_daemon(s->d);
	if (s->fd >= 0)
		close(s->fd);
	cfg_release(s, s->cfg);
	free(s->landing);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

const char *server_url(const struct server *s)
{
	return s->url;
}
