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
#include <fcntl.h>
#include <math.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "export/log.h"
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
				snprintf(why, why_len,
					 "'%s' has no host part; use :%s for every address "
					 "or 127.0.0.1:%s",
					 text, text, text);
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
		} else if (type == GNUTLS_SAN_DNSNAME || type == GNUTLS_SAN_RFC822NAME || type == GNUTLS_SAN_URI) {
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
	if (!wc || !wc->tls || wc->client_auth == CLIENT_AUTH_NONE || wc->client_auth == CLIENT_AUTH_REQUEST)
		return 1;
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!ci || !ci->tls_session || !gt.ok)
		return 0;
	certs = gt.get_peers((gnutls_session_t)ci->tls_session, &n);
	if (!certs || !n)
		return wc->client_auth == CLIENT_AUTH_VERIFY_IF_GIVEN;
	if (wc->client_auth == CLIENT_AUTH_VERIFY_IF_GIVEN || wc->client_auth == CLIENT_AUTH_REQUIRE_AND_VERIFY) {
		if (gt.verify_peers2((gnutls_session_t)ci->tls_session, &status) < 0 || status)
			return 0;
	}
	if (wc->allowed_sans && !san_allowed(wc, &certs[0]))
		return 0;
	return 1;
}

/* ---- the server ---- */

/*
 * Connections are accepted here, not by libmicrohttpd, so that every one
 * is accounted for before it is handed over (MHD_add_connection):
 *  - a client over --max-per-ip gets "429 Too Many Requests" and one past
 *    --max-connections "503 Service Unavailable", at once, instead of a
 *    silent close or a wait in the backlog (plain HTTP; a TLS client is
 *    closed: it has not finished its handshake);
 *  - at --max-connections, room is made by closing the oldest connection
 *    whose request (the first or any later one on a keep-alive
 *    connection) has not been read whole EVICT_AFTER_S after it began (a
 *    slowloris sending a header line every few seconds), else the one
 *    whose answer has been on its way longest past EVICT_SEND_S (a slow
 *    reader), else the oldest idle keep-alive one, else one of the
 *    address holding the most connections when it holds more than twice
 *    the newcomer's share: half-open connections and slow readers cannot
 *    lock the scrapers out, even reconnecting as fast as they are closed;
 *  - without pressure too, every request has deadlines of --http-timeout:
 *    from the end of the previous answer (or the accept) to the request
 *    read whole, and from the answer queued to its last byte sent.
 *    libmicrohttpd's own timeout is an idle one, which a client sending a
 *    byte now and then resets, so the acceptor enforces these (deadlines());
 *  - a TLS reload hands new connections to the new daemon and lets the old
 *    one finish what it is answering before it stops.
 */
#define EVICT_AFTER_S 0.5       /* a request not read whole this long after it began may be evicted */
#define EVICT_SEND_S 2.0        /* an answer still being sent this long may be evicted */
#define DEADLINE_TICK_MAX_S 1.0 /* the acceptor looks at the deadlines at least this often */
#define LINGER_MAX 256
#define LINGER_S 1.0

struct conn {
	int fd;
	struct sockaddr_storage addr;
	socklen_t alen;
	double accepted_s;
	double idle_s;             /* monotonic s: accepted, or the previous answer finished */
	double line_s;             /* when the request line came (in_request) */
	double answer_s;           /* when the answer was queued (answering) */
	struct MHD_Daemon *d;      /* the daemon it was handed to */
	struct MHD_Connection *mc; /* set when libmicrohttpd reports it started */
	int in_request;            /* a request line read, its answer not finished */
	int answering;             /* the handler took the request */
	unsigned served;           /* answers completed */
	int evicted;               /* shut down by the acceptor: eviction or a deadline */
	struct auth_job *job;      /* a password being checked for its request */
	struct conn *next;
};

/*
 * A password to check with bcrypt (50-100 ms at cost 10).  The request's
 * connection is suspended meanwhile and the bcrypt thread checks it, so
 * the server threads go on answering everybody else.
 */
struct auth_job {
	struct MHD_Connection *mc;
	struct wc_ref *ref;   /* the configuration it is checked against, held */
	unsigned char ip[16]; /* the client's address (ip_key) */
	char creds[1024];     /* user, NUL, password */
	int tier;             /* AUTH_TIER_*: the lower, the sooner it is checked */
	double queued_s;
	int ready;     /* suspended: the bcrypt thread may resume it */
	int cancelled; /* resumed unchecked, answered 429: pushed out or waited too long */
	int result;    /* 1 allowed, 0 refused, -1 not checked (429); once done */
	int done;
	struct auth_job *next; /* the queue, in arrival order */
};

/*
 * Who is checked first: an address with no wrong passwords in a group
 * (IPv4 /24, IPv6 /48) with none either; then a clean address in a group
 * that sent some (an attacker cycling through its addresses); then an
 * address that sent wrong passwords itself.
 */
enum {
	AUTH_TIER_CLEAN,
	AUTH_TIER_GROUP,
	AUTH_TIER_FAILED
};

/*
 * The book of wrong passwords: an open-addressing hash table of addresses
 * and of their groups, AUTH_BOOK entries (40 bytes each, 160 KiB), looked
 * up in a window of AUTH_PROBE slots; when the window is full the entry
 * used longest ago goes.  IPv4 addresses count one by one, IPv6 ones by
 * /64 (what one host or one customer is given: an attacker has 2^64 of
 * them, so one by one would count nothing).
 */
#define AUTH_BOOK 4096
#define AUTH_PROBE 8
#define AUTH_FREE_FAILS 3 /* wrong passwords an address may send before it waits */
#define AUTH_BACKOFF_MIN_S 0.25
#define AUTH_BACKOFF_MAX_S 30.0
#define AUTH_FORGET_S 60.0
#define AUTH_QUEUE_MAX 16   /* requests waiting for the bcrypt thread, one per address */
#define AUTH_WAIT_MAX_S 5.0 /* a request waits no longer for its check (then 429) */

struct auth_fail {
	unsigned char key[16]; /* ip_key(), or group_key() */
	unsigned char group;   /* key is a group's */
	unsigned fails;
	double until_s, last_s;
};

struct wc_ref {
	struct web_config *wc; /* NULL: no web config */
	int refs;
};

struct lingering {
	int fd;
	double until_s;
};

struct server {
	struct server_opts o;
	int fd;      /* the listening socket */
	int wake[2]; /* wakes the acceptor (stop) */
	pthread_t acceptor;
	int acceptor_started;
	char hostport[128];
	char url[160];
	pthread_mutex_t lock;
	/* guarded by lock */
	struct MHD_Daemon *d; /* the daemon new connections go to */
	int tls;              /* d speaks TLS */
	int stopping;
	struct wc_ref *cfg;
	struct conn *conns;
	unsigned nconns;
	struct auth_fail *auth;     /* AUTH_BOOK entries */
	pthread_cond_t auth_cv;     /* jobs for the bcrypt thread */
	struct auth_job *auth_jobs; /* queued, ready or not, cancelled or not */
	unsigned auth_queued;       /* those not cancelled */
	int auth_stop;
	pthread_t auth_thread;
	int auth_started;
	/* acceptor-private */
	struct lingering linger[LINGER_MAX];
	unsigned nlinger;
	struct pollfd pfd[2 + LINGER_MAX];
	atomic_ullong scrapes;
	char *landing;
	size_t landing_len;
};

static struct xlog_limit http_log = XLOG_LIMIT_INIT(10, 10.0);
static struct xlog_limit refuse_log = XLOG_LIMIT_INIT(5, 10.0);
static struct xlog_limit auth_log = XLOG_LIMIT_INIT(5, 10.0);

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

/* The address as 16 bytes (IPv4 as ::ffff:a.b.c.d), for per-address limits. */
static void ip_key(const struct sockaddr *sa, unsigned char out[16])
{
	memset(out, 0, 16);
	if (sa && sa->sa_family == AF_INET) {
		out[10] = out[11] = 0xff;
		memcpy(out + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else if (sa && sa->sa_family == AF_INET6) {
		memcpy(out, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	}
}

static int key_is_v4(const unsigned char k[16])
{
	static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	return !memcmp(k, mapped, 12);
}

/* The key of an address in the book of wrong passwords: IPv4 whole, IPv6 its /64. */
static void auth_key(const unsigned char ip[16], unsigned char out[16])
{
	memcpy(out, ip, 16);
	if (!key_is_v4(ip))
		memset(out + 8, 0, 8);
}

/* The key of its group: IPv4 /24, IPv6 /48. */
static void group_key(const unsigned char ip[16], unsigned char out[16])
{
	memcpy(out, ip, 16);
	if (key_is_v4(ip))
		out[15] = 0;
	else
		memset(out + 6, 0, 10);
}

static void ip_text(const struct sockaddr *sa, char *buf, size_t len)
{
	snprintf(buf, len, "?");
	if (sa && sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, buf, (socklen_t)len);
	else if (sa && sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, buf, (socklen_t)len);
}

/* ---- answers ---- */

/* Queues resp with the configured headers; Connection: close on a daemon being drained. */
static enum MHD_Result queue(struct server *s, struct MHD_Connection *conn, const struct web_config *wc,
			     unsigned status, struct MHD_Response *resp)
{
	const union MHD_ConnectionInfo *ci;
	enum MHD_Result rc;
	size_t i;
	int draining = 0;
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	for (i = 0; wc && i < wc->nheaders; i++)
		MHD_add_response_header(resp, wc->headers[i].name, wc->headers[i].value);
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	pthread_mutex_lock(&s->lock);
	if (ci && ci->socket_context) {
		struct conn *c = ci->socket_context;
		c->answering = 1;
		c->answer_s = mono_now();
		draining = c->d != s->d;
	}
	pthread_mutex_unlock(&s->lock);
	if (draining)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	rc = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return rc;
}

static enum MHD_Result reply(struct server *s, struct MHD_Connection *conn, const struct web_config *wc,
			     unsigned status, const char *type, const char *body)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(strlen(body), (void *)body,
								    MHD_RESPMEM_MUST_COPY);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Basic");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	return queue(s, conn, wc, status, resp);
}

static enum MHD_Result reply_retry(struct server *s, struct MHD_Connection *conn, const struct web_config *wc,
				   unsigned retry_s)
{
	static const char body[] = "Too Many Requests\n";
	char secs[16];
	struct MHD_Response *resp = MHD_create_response_from_buffer(sizeof(body) - 1, (void *)body,
								    MHD_RESPMEM_PERSISTENT);
	if (!resp)
		return MHD_NO;
	snprintf(secs, sizeof(secs), "%u", retry_s ? retry_s : 1);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, secs);
	return queue(s, conn, wc, MHD_HTTP_TOO_MANY_REQUESTS, resp);
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

int server_basic_credentials(const char *header, char *buf, size_t len, const char **user, const char **password)
{
	char *colon;
	int n;
	if (!header || strncasecmp(header, "Basic ", 6))
		return -1;
	header += 6;
	while (*header == ' ')
		header++;
	n = b64_decode(header, buf, len);
	if (n < 0 || memchr(buf, '\0', (size_t)n))
		return -1;
	colon = strchr(buf, ':');
	if (!colon)
		return -1;
	*colon = '\0';
	*user = buf;
	*password = colon + 1;
	return 0;
}

enum auth_verdict {
	AUTH_OK,
	AUTH_DENIED,
	AUTH_WAIT
};

/*
 * The book's entry for key (lock held); NULL when absent and !create.  An
 * entry unused for AUTH_FORGET_S counts as empty.
 */
static struct auth_fail *auth_entry(struct server *s, const unsigned char key[16], int group, int create,
				    double now)
{
	struct auth_fail *free_e = NULL, *oldest = NULL;
	uint32_t h = 2166136261u; /* FNV-1a */
	unsigned i;
	for (i = 0; i < 16; i++)
		h = (h ^ key[i]) * 16777619u;
	h = (h ^ (unsigned)group) * 16777619u;
	for (i = 0; i < AUTH_PROBE; i++) {
		struct auth_fail *e = &s->auth[(h + i) & (AUTH_BOOK - 1)];
		int live = e->fails && now - e->last_s <= AUTH_FORGET_S;
		if (live && e->group == group && !memcmp(e->key, key, 16))
			return e;
		if (!live && !free_e)
			free_e = e;
		if (live && (!oldest || e->last_s < oldest->last_s))
			oldest = e;
	}
	if (!create)
		return NULL;
	if (!free_e)
		free_e = oldest;
	memset(free_e, 0, sizeof(*free_e));
	memcpy(free_e->key, key, 16);
	free_e->group = (unsigned char)group;
	return free_e;
}

/* Counts a refusal of the address (and its group) or clears the address's record (lock held). */
static void auth_note(struct server *s, const unsigned char ip[16], int ok, double now)
{
	unsigned char key[16], gkey[16];
	struct auth_fail *e;
	auth_key(ip, key);
	e = auth_entry(s, key, 0, !ok, now);
	if (ok) {
		if (e)
			e->fails = 0;
		return;
	}
	e->fails++;
	e->last_s = now;
	if (e->fails >= AUTH_FREE_FAILS)
		e->until_s = now + fmin(AUTH_BACKOFF_MAX_S,
					AUTH_BACKOFF_MIN_S * pow(2, fmin(e->fails - AUTH_FREE_FAILS, 20)));
	group_key(ip, gkey);
	e = auth_entry(s, gkey, 1, 1, now);
	e->fails++;
	e->last_s = now;
}

/* The job the bcrypt thread takes next (lock held), unlinked; NULL when none is ready. */
static struct auth_job *auth_pick(struct server *s, double now)
{
	struct auth_job **pp, **best = NULL;
	for (pp = &s->auth_jobs; *pp; pp = &(*pp)->next) {
		struct auth_job *j = *pp;
		if (!j->ready)
			continue;
		if (!j->cancelled && now - j->queued_s > AUTH_WAIT_MAX_S) {
			j->cancelled = 1;
			s->auth_queued--;
		}
		if (j->cancelled || s->auth_stop) {
			best = pp; /* no hash to compute: let it go first */
			break;
		}
		if (!best || j->tier < (*best)->tier)
			best = pp;
	}
	if (best) {
		struct auth_job *j = *best;
		*best = j->next;
		if (!j->cancelled)
			s->auth_queued--;
		return j;
	}
	return NULL;
}

static void auth_job_free(struct server *s, struct auth_job *j)
{
	if (!j)
		return;
	explicit_bzero(j->creds, sizeof(j->creds));
	cfg_release(s, j->ref);
	free(j);
}

/* The bcrypt thread: checks queued passwords one at a time and resumes their requests. */
static void *auth_main(void *arg)
{
	struct server *s = arg;
	pthread_mutex_lock(&s->lock);
	for (;;) {
		struct auth_job *j;
		struct MHD_Connection *mc;
		int ok = 0, check;
		while (!(j = auth_pick(s, mono_now())) && !(s->auth_stop && !s->auth_jobs))
			pthread_cond_wait(&s->auth_cv, &s->lock);
		if (!j)
			break;
		/* when stopping, the suspended requests only need to be let go */
		check = !s->auth_stop && !j->cancelled;
		pthread_mutex_unlock(&s->lock);
		if (check)
			ok = web_config_check_user(j->ref->wc, j->creds, j->creds + strlen(j->creds) + 1);
		explicit_bzero(j->creds, sizeof(j->creds));
		pthread_mutex_lock(&s->lock);
		if (check)
			auth_note(s, j->ip, ok, mono_now());
		mc = j->mc;
		j->result = check ? ok : -1;
		j->done = 1;
		pthread_mutex_unlock(&s->lock);
		if (!ok && check) {
			char text[INET6_ADDRSTRLEN];
			struct sockaddr_in6 a6;
			memset(&a6, 0, sizeof(a6));
			a6.sin6_family = AF_INET6;
			memcpy(&a6.sin6_addr, j->ip, 16);
			ip_text((const struct sockaddr *)&a6, text, sizeof(text));
			xlog_limited(&auth_log, LOG_INFO, "export: http: wrong user or password from %s", text);
		}
		/* the job stays the request's (struct conn): its handler reads the result */
		MHD_resume_connection(mc);
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* The connection's record (libmicrohttpd's socket context), or NULL. */
static struct conn *conn_of(struct MHD_Connection *mc)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

/*
 * Does the request present a verified (cached) user and password?  Never
 * hashes: this is how a scraper's request is told from a guess before the
 * rate limit and the queue are looked at.
 */
static int verified_user(struct MHD_Connection *conn, struct web_config *wc)
{
	const char *user, *password;
	char dec[1024];
	int hit;
	if (!wc || !wc->nusers ||
	    server_basic_credentials(MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
								 MHD_HTTP_HEADER_AUTHORIZATION),
				     dec, sizeof(dec), &user, &password))
		return 0;
	hit = web_config_cached_user(wc, user, password);
	explicit_bzero(dec, sizeof(dec));
	return hit;
}

/*
 * Queues j for the bcrypt thread (lock held), or returns -1 with the
 * seconds to wait: an address has one check queued at most; when
 * AUTH_QUEUE_MAX wait, a newcomer of a better tier pushes out the newest
 * of the worst (answered 429), else it is refused.  The queue holds one
 * suspended connection each, so it stays within --max-connections too.
 */
static int auth_enqueue(struct server *s, struct auth_job *j, unsigned *retry_s, double now)
{
	unsigned char key[16];
	struct auth_job **pp, *worst = NULL;
	struct auth_fail *e;
	auth_key(j->ip, key);
	e = auth_entry(s, key, 0, 0, now);
	if (e && now < e->until_s) {
		*retry_s = (unsigned)ceil(e->until_s - now);
		return -1;
	}
	*retry_s = 1;
	if (s->auth_stop || !s->auth_started)
		return -1;
	for (pp = &s->auth_jobs; *pp; pp = &(*pp)->next) {
		unsigned char other[16];
		if ((*pp)->cancelled)
			continue;
		auth_key((*pp)->ip, other);
		if (!memcmp(key, other, 16))
			return -1;
		if (!worst || (*pp)->tier >= worst->tier)
			worst = *pp;
	}
	if (e) {
		j->tier = AUTH_TIER_FAILED;
	} else {
		group_key(j->ip, key);
		j->tier = auth_entry(s, key, 1, 0, now) ? AUTH_TIER_GROUP : AUTH_TIER_CLEAN;
	}
	if (s->auth_queued >= AUTH_QUEUE_MAX) {
		if (!worst || worst->tier <= j->tier)
			return -1;
		worst->cancelled = 1;
		s->auth_queued--;
		pthread_cond_signal(&s->auth_cv);
	}
	j->queued_s = now;
	*pp = j; /* the end of the list */
	s->auth_queued++;
	return 0;
}

/*
 * Basic auth against basic_auth_users.  A password verified before is
 * answered from the cache, before anything else (the handler asks
 * verified_user()).  Otherwise the request is suspended and its password
 * handed to the bcrypt thread (AUTH_SUSPENDED); when it is resumed, the
 * handler is called again and the result is here.  An address that sent
 * AUTH_FREE_FAILS wrong passwords waits before its next check, doubling
 * from AUTH_BACKOFF_MIN_S to AUTH_BACKOFF_MAX_S, and the queue is shared
 * out by address (auth_enqueue()): so clients guessing passwords get a few
 * hashes a second at most, a client with the right password from an
 * address that guessed nothing is checked next, and neither the guesses
 * nor the hashing hold up the scrapers whose passwords are cached.
 */
enum {
	AUTH_SUSPENDED = AUTH_WAIT + 1
};

static int authorized(struct server *s, struct MHD_Connection *conn, struct wc_ref *r, int verified,
		      unsigned *retry_s)
{
	struct web_config *wc = r->wc;
	const union MHD_ConnectionInfo *ci;
	const char *user, *password;
	char dec[1024];
	struct auth_job *j = NULL;
	struct conn *c;
	int v = AUTH_DENIED;

	if (!wc || !wc->nusers)
		return AUTH_OK;
	c = conn_of(conn);
	pthread_mutex_lock(&s->lock);
	if (c && c->job && c->job->done) {
		j = c->job;
		c->job = NULL;
	}
	pthread_mutex_unlock(&s->lock);
	if (j) {
		/* resumed: the bcrypt thread's answer, if the configuration is still the one it used */
		int same = j->ref == r;
		v = j->result > 0 ? AUTH_OK : j->result < 0 ? AUTH_WAIT : AUTH_DENIED;
		auth_job_free(s, j);
		*retry_s = 1;
		if (!verified && (same || v == AUTH_WAIT))
			return v;
	}
	if (verified)
		return AUTH_OK;
	if (server_basic_credentials(MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
								 MHD_HTTP_HEADER_AUTHORIZATION),
				     dec, sizeof(dec), &user, &password))
		return AUTH_DENIED;
	if (!c) {
		explicit_bzero(dec, sizeof(dec));
		*retry_s = 1;
		return AUTH_WAIT;
	}
	j = xcalloc(1, sizeof(*j));
	j->mc = conn;
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	ip_key(ci ? ci->client_addr : NULL, j->ip);
	/* dec holds "user\0password": keep both, NUL-separated */
	memcpy(j->creds, dec, sizeof(j->creds));
	explicit_bzero(dec, sizeof(dec));
	pthread_mutex_lock(&s->lock);
	if (auth_enqueue(s, j, retry_s, mono_now())) {
		pthread_mutex_unlock(&s->lock);
		explicit_bzero(j->creds, sizeof(j->creds));
		free(j);
		return AUTH_WAIT;
	}
	/* queued but not ready: the bcrypt thread leaves it until it is suspended */
	r->refs++;
	j->ref = r;
	c->job = j;
	pthread_mutex_unlock(&s->lock);
	MHD_suspend_connection(conn);
	pthread_mutex_lock(&s->lock);
	j->ready = 1;
	pthread_cond_signal(&s->auth_cv);
	pthread_mutex_unlock(&s->lock);
	return AUTH_SUSPENDED;
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

static enum MHD_Result serve_metrics(struct server *s, struct MHD_Connection *conn, const struct web_config *wc)
{
	const char *ct;
	enum expo_format f = expo_negotiate(MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
									MHD_HTTP_HEADER_ACCEPT),
					    &ct);
	struct snapshot *snap = collector_acquire(s->o.collector);
	struct metrics_body *m;
	struct strbuf tail = STRBUF_INIT;
	struct MHD_IoVec iov[2];
	struct MHD_Response *resp;
	uint64_t n;

	if (!snap)
		return reply(s, conn, wc, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8",
			     "no collection yet\n");
	n = atomic_fetch_add(&s->scrapes, 1) + 1;
	families_render_tail(f, mono_now() - snap->mono_s, n, &tail);
	m = xmalloc(sizeof(*m));
	m->snap = snap;
	m->tail = strbuf_detach(&tail, &iov[1].iov_len);
	iov[0].iov_base = snap->body[f];
	iov[0].iov_len = snap->len[f];
	iov[1].iov_base = m->tail;
	resp = MHD_create_response_from_iovec(iov, 2, metrics_free, m);
	if (!resp) {
		metrics_free(m);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ct);
	return queue(s, conn, wc, MHD_HTTP_OK, resp);
}

static enum MHD_Result serve_health(struct server *s, struct MHD_Connection *conn, const struct web_config *wc)
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
			snprintf(body, sizeof(body),
				 "unhealthy: the last collection is %.1f s old (limit %.1f s)\n", age,
				 s->o.stale_s);
			status = MHD_HTTP_SERVICE_UNAVAILABLE;
		} else if (!snap->healthy) {
			snprintf(body, sizeof(body), "unhealthy: %s\n", snap->health);
			status = MHD_HTTP_SERVICE_UNAVAILABLE;
		} else {
			snprintf(body, sizeof(body), "ok: last collection %.2f s ago\n%s", age, snap->notes);
		}
		snapshot_release(snap);
	}
	return reply(s, conn, wc, status, "text/plain; charset=utf-8", body);
}

/*
 * What a request target names.  The path is matched byte for byte, before
 * any percent-decoding: "/metrics" and "/metrics?anything" are the metrics
 * (a query string is ignored, as Prometheus' `params` may add one), while
 * "/metrics%00", "/metrics/", "/%6detrics" and "http://host/metrics" are
 * not found.  One spelling per endpoint leaves nothing for a filter in
 * front of the exporter to miss.
 */
enum route {
	ROUTE_NONE = 1,
	ROUTE_METRICS,
	ROUTE_HEALTH,
	ROUTE_ROOT
};
#define ROUTE_MASK 7u
#define REQ_SEEN 8u /* the handler has had its first call */

int server_route(const char *target)
{
	size_t n = strcspn(target, "?");
	if (n == 8 && !memcmp(target, "/metrics", 8))
		return ROUTE_METRICS;
	if (n == 7 && !memcmp(target, "/health", 7))
		return ROUTE_HEALTH;
	if (n == 1 && target[0] == '/')
		return ROUTE_ROOT;
	return ROUTE_NONE;
}

/* libmicrohttpd's URI log callback: called with the raw request target, once per request. */
static void *request_start(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct server *s = cls;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	pthread_mutex_lock(&s->lock);
	if (ci && ci->socket_context) {
		struct conn *c = ci->socket_context;
		c->in_request = 1;
		c->line_s = mono_now();
	}
	pthread_mutex_unlock(&s->lock);
	/* the route travels as the request's context: nothing to allocate or free */
	return (void *)(uintptr_t)server_route(uri ? uri : "");
}

static void request_done(void *cls, struct MHD_Connection *conn, void **req_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct server *s = cls;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	(void)req_cls;
	pthread_mutex_lock(&s->lock);
	if (ci && ci->socket_context) {
		struct conn *c = ci->socket_context;
		c->in_request = 0;
		c->answering = 0;
		c->idle_s = mono_now();
		if (toe == MHD_REQUEST_TERMINATED_COMPLETED_OK)
			c->served++;
	}
	pthread_mutex_unlock(&s->lock);
}

/* Is this request back from the bcrypt thread?  (It was counted by the rate limit already.) */
static int resumed(struct server *s, struct MHD_Connection *conn)
{
	struct conn *c = conn_of(conn);
	int r;
	pthread_mutex_lock(&s->lock);
	r = c && c->job && c->job->done;
	pthread_mutex_unlock(&s->lock);
	return r;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
			       const char *version, const char *upload_data, size_t *upload_data_size,
			       void **req_cls)
{
	struct server *s = cls;
	uintptr_t st = (uintptr_t)*req_cls;
	struct wc_ref *r;
	struct web_config *wc;
	enum MHD_Result rc;
	unsigned retry = 0;
	int av, verified;

	(void)url;
	(void)version;
	(void)upload_data;
	if (!(st & REQ_SEEN)) {
		/*
		 * The first call comes with the headers alone; answering now would
		 * make libmicrohttpd close the connection (the request is not read
		 * to its end), so wait for the second call to keep it alive.
		 */
		*req_cls = (void *)(st | REQ_SEEN);
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
		return MHD_NO; /* closes the connection, as a failed handshake would */
	}
	/*
	 * A cached password first: its request has a rate-limit bucket of its
	 * own and skips the back-off and the bcrypt queue, so nothing clients
	 * without it do can keep it out.
	 */
	verified = verified_user(conn, wc);
	if (wc && !resumed(s, conn) && !web_config_rate_allow(wc, verified)) {
		rc = reply_retry(s, conn, wc, (unsigned)ceil(wc->rate_interval_s));
	} else if ((av = authorized(s, conn, r, verified, &retry)) == AUTH_SUSPENDED) {
		rc = MHD_YES; /* answered when the bcrypt thread resumes it */
	} else if (av == AUTH_WAIT) {
		rc = reply_retry(s, conn, wc, retry);
	} else if (av != AUTH_OK) {
		rc = reply(s, conn, wc, MHD_HTTP_UNAUTHORIZED, "text/plain; charset=utf-8", "Unauthorized\n");
	} else if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		rc = reply(s, conn, wc, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8",
			   "Method Not Allowed\n");
	} else if ((st & ROUTE_MASK) == ROUTE_METRICS) {
		rc = serve_metrics(s, conn, wc);
	} else if ((st & ROUTE_MASK) == ROUTE_HEALTH) {
		rc = serve_health(s, conn, wc);
	} else if ((st & ROUTE_MASK) == ROUTE_ROOT) {
		rc = reply(s, conn, wc, MHD_HTTP_OK, "text/html; charset=utf-8", s->landing);
	} else {
		rc = reply(s, conn, wc, MHD_HTTP_NOT_FOUND, "text/plain; charset=utf-8", "Not Found\n");
	}
	cfg_release(s, r);
	return rc;
}

/* libmicrohttpd's STARTED and CLOSED: ties its connection to the record made at accept. */
static void conn_notify(void *cls, struct MHD_Connection *mc, void **socket_context,
			enum MHD_ConnectionNotificationCode toe)
{
	struct server *s = cls;
	struct conn **pp, *c;
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(mc,
									     MHD_CONNECTION_INFO_CONNECTION_FD);
		pthread_mutex_lock(&s->lock);
		/* newest first: a record whose socket number was reused is older */
		for (c = s->conns; c && ci; c = c->next)
			if (c->fd == ci->connect_fd && !c->mc) {
				c->mc = mc;
				*socket_context = c;
				break;
			}
		pthread_mutex_unlock(&s->lock);
		return;
	}
	if (toe != MHD_CONNECTION_NOTIFY_CLOSED || !*socket_context)
		return;
	c = NULL;
	pthread_mutex_lock(&s->lock);
	for (pp = &s->conns; *pp; pp = &(*pp)->next)
		if (*pp == *socket_context) {
			c = *pp;
			*pp = c->next;
			s->nconns--;
			break;
		}
	*socket_context = NULL;
	pthread_mutex_unlock(&s->lock);
	if (c) {
		/* a checked password whose request never came back for it */
		auth_job_free(s, c->job);
		free(c);
	}
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
	/* clients provoke these (malformed requests): a flood of them must not flood the log */
	xlog_limited(&http_log, LOG_WARN, "export: http: %s", msg);
}

/* Starts a daemon that serves the connections the acceptor hands it, with wc's TLS settings. */
static struct MHD_Daemon *daemon_start(struct server *s, const struct web_config *wc, char *err, size_t err_len)
{
	struct MHD_OptionItem opts[20];
	/* ITC: connections handed over with MHD_add_connection are picked up at once */
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG | MHD_USE_ITC |
			 MHD_USE_TURBO | MHD_USE_NO_LISTEN_SOCKET | MHD_ALLOW_SUSPEND_RESUME;
	int n = 0;
	struct MHD_Daemon *d;

	if (wc && wc->tls) {
		if (!server_tls_available()) {
			snprintf(err, err_len, "TLS is configured but libmicrohttpd or GnuTLS lacks it");
			return NULL;
		}
		flags |= MHD_USE_TLS;
	}
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_THREAD_POOL_SIZE, s->o.threads, NULL};
	/* the limits are the acceptor's; this only keeps evicted connections from counting twice */
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_LIMIT, (intptr_t)(s->o.max_connections * 2 + 64),
					    NULL};
	/*
	 * The acceptor enforces --http-timeout itself (deadlines()), resetting
	 * a connection whose answer still sits unsent in the kernel; this is
	 * only the backstop, a second later, so that libmicrohttpd's plain
	 * close never wins the race and lets a slow reader drain the socket
	 * buffer for many seconds more.
	 */
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT,
					    (intptr_t)((unsigned)ceil(s->o.timeout_s) + 1), NULL};
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)s->o.connection_memory,
					    NULL};
	/* refuse what RFC 9112 says to refuse (an HTTP/1.1 request without Host ...) */
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_STRICT_FOR_CLIENT, 1, NULL};
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)request_start, s};
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)request_done, s};
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)conn_notify, s};
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
							    wc->client_ca_pem ? wc->client_ca_pem : wc->cert_pem};
		}
	}
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
	d = MHD_start_daemon(flags, 0, NULL, NULL, handler, s, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
			     MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
	if (!d)
		snprintf(err, err_len, "libmicrohttpd could not start%s",
			 wc && wc->tls ? " (check the certificate, the key and the TLS settings)" : "");
	return d;
}

/* ---- the acceptor ---- */

static const char resp_429[] =
	"HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain; charset=utf-8\r\n"
	"Content-Length: 46\r\nRetry-After: 1\r\nConnection: close\r\n\r\n"
	"too many open connections from this address\r\n";
static const char resp_503[] =
	"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
	"Content-Length: 22\r\nRetry-After: 1\r\nConnection: close\r\n\r\n"
	"too many connections\r\n";

/*
 * Answers a refused connection and closes it.  The answer is written
 * before the request is read; closing a socket with unread input would
 * reset it and could destroy the answer in flight, so the socket lingers
 * (its input drained) until the client closes or LINGER_S passes.
 */
static void refuse(struct server *s, int fd, int too_many_from_ip, int tls, const struct sockaddr *sa)
{
	char text[INET6_ADDRSTRLEN];
	ip_text(sa, text, sizeof(text));
	xlog_limited(&refuse_log, LOG_WARN, "export: http: refused a connection from %s: %s", text,
		     too_many_from_ip ? "too many from that address (--max-per-ip)" :
					"too many connections (--max-connections)");
	if (tls) {
		close(fd);
		return;
	}
	if (too_many_from_ip)
		(void)!send(fd, resp_429, sizeof(resp_429) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	else
		(void)!send(fd, resp_503, sizeof(resp_503) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	shutdown(fd, SHUT_WR);
	if (s->nlinger == LINGER_MAX) {
		close(fd);
		return;
	}
	s->linger[s->nlinger].fd = fd;
	s->linger[s->nlinger].until_s = mono_now() + LINGER_S;
	s->nlinger++;
}

/* Is a request of c waiting for the bcrypt thread?  (Suspended: libmicrohttpd does not look at it.) */
static int conn_in_auth(const struct conn *c)
{
	return c->job && !c->job->done;
}

/*
 * When c's current request began (lock held): its request line's arrival,
 * or, before one came, the accept or the end of the previous answer (a
 * partial request line trickling in since then).
 */
static double request_began(const struct conn *c)
{
	return c->in_request ? c->line_s : c->idle_s;
}

/*
 * Ends c's socket (lock held); libmicrohttpd sees it end and closes it (the
 * record goes then).  An answer libmicrohttpd has finished may still sit
 * in the kernel's send buffer (megabytes on a fast link); a reader too
 * slow for its deadline is not left to read it: the close resets.
 */
static void conn_end(struct conn *c)
{
	int unsent = 0;
	/* TIOCOUTQ on a TCP socket: bytes not yet acknowledged by the peer */
	if (ioctl(c->fd, TIOCOUTQ, &unsent) == 0 && unsent > 0) {
		struct linger l = {1, 0};
		setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	}
	shutdown(c->fd, SHUT_RDWR);
	c->evicted = 1;
}

/* May c be closed for room at all (lock held)? */
static int evictable(const struct conn *c)
{
	return !c->evicted && c->mc && !conn_in_auth(c);
}

/*
 * The last resort when no connection is slow by the clocks (lock held):
 * the address holding the most connections, when it holds more than twice
 * as many as the newcomer's will with it (`same` + 1), gives up the one
 * whose answer has been on its way longest, else its oldest.  So one
 * address cannot keep the others out by opening connections faster than
 * they become evictable (slow readers reconnecting as soon as they are
 * closed), while addresses of about equal share never displace each other
 * (a full server of young connections from a few addresses still answers
 * a newcomer 503).  O(n^2) in live connections, run
 * only at --max-connections.
 */
static struct conn *busiest_victim(struct server *s, unsigned same)
{
	unsigned char key[16], other[16];
	struct conn *c, *o, *v = NULL;
	unsigned most = 0;
	for (c = s->conns; c; c = c->next) {
		unsigned n = 0;
		if (!evictable(c))
			continue;
		ip_key((const struct sockaddr *)&c->addr, key);
		for (o = s->conns; o; o = o->next) {
			if (o->evicted)
				continue;
			ip_key((const struct sockaddr *)&o->addr, other);
			n += !memcmp(key, other, 16);
		}
		if (n > most) {
			most = n;
			v = c;
		}
	}
	if (!v || most <= 2 * (same + 1))
		return NULL;
	/* v's address is the busiest; pick its longest-answering, else oldest, connection */
	ip_key((const struct sockaddr *)&v->addr, key);
	for (c = s->conns; c; c = c->next) {
		if (!evictable(c))
			continue;
		ip_key((const struct sockaddr *)&c->addr, other);
		if (memcmp(key, other, 16))
			continue;
		if (c->answering != v->answering ?
			    c->answering :
			    (c->answering ? c->answer_s < v->answer_s : c->accepted_s < v->accepted_s))
			v = c;
	}
	return v;
}

/* The connection to close for room (lock held): see the comment at the top of this part. */
static struct conn *pick_victim(struct server *s, double now, unsigned same)
{
	struct conn *c, *slow = NULL, *reader = NULL, *idle = NULL;
	for (c = s->conns; c; c = c->next) {
		if (!evictable(c))
			continue;
		if (c->answering) {
			if (now - c->answer_s >= EVICT_SEND_S && (!reader || c->answer_s < reader->answer_s))
				reader = c;
		} else if (c->in_request || !c->served) {
			double t = request_began(c);
			if (now - t >= EVICT_AFTER_S && (!slow || t < request_began(slow)))
				slow = c;
		} else if (!idle || c->idle_s < idle->idle_s) {
			/* idle keep-alive, or a partial request line trickling in */
			idle = c;
		}
	}
	if (slow)
		return slow;
	if (reader)
		return reader;
	return idle ? idle : busiest_victim(s, same);
}

/*
 * Closes the connections past a deadline of --http-timeout (lock held):
 * a request not read whole that long after it began (from the accept or
 * the end of the previous answer), an answer not sent whole that long
 * after it was queued.  Returns the seconds until the next deadline.
 */
static double deadlines(struct server *s, double now)
{
	struct conn *c;
	double next = DEADLINE_TICK_MAX_S, limit = s->o.timeout_s;
	for (c = s->conns; c; c = c->next) {
		double due;
		if (c->evicted || !c->mc || conn_in_auth(c))
			continue;
		due = (c->answering ? c->answer_s : c->idle_s) + limit;
		if (now >= due)
			conn_end(c);
		else if (due - now < next) {
			next = due - now;
		}
	}
	return next;
}

static void admit(struct server *s, int fd, const struct sockaddr_storage *ss, socklen_t len)
{
	unsigned char ip[16], other[16];
	struct conn *c, **pp, *rec = NULL;
	struct MHD_Daemon *d;
	unsigned same = 0, live = 0;
	int over_ip = 0, full = 0, tls;
	double now = mono_now();

	ip_key((const struct sockaddr *)ss, ip);
	pthread_mutex_lock(&s->lock);
	for (pp = &s->conns; *pp;) {
		c = *pp;
		/* handed over but never started: libmicrohttpd dropped it */
		if (!c->mc && now - c->accepted_s > 5.0) {
			*pp = c->next;
			s->nconns--;
			free(c);
			continue;
		}
		if (!c->evicted) {
			live++;
			ip_key((const struct sockaddr *)&c->addr, other);
			same += !memcmp(ip, other, 16);
		}
		pp = &c->next;
	}
	if (same >= s->o.max_per_ip) {
		over_ip = 1;
	} else if (live >= s->o.max_connections) {
		struct conn *v = pick_victim(s, now, same);
		if (v)
			conn_end(v);
		else
			full = 1;
	}
	tls = s->tls;
	d = s->d;
	if (!over_ip && !full) {
		rec = xcalloc(1, sizeof(*rec));
		rec->fd = fd;
		memcpy(&rec->addr, ss, len);
		rec->alen = len;
		rec->accepted_s = now;
		rec->idle_s = now;
		rec->d = d;
		rec->next = s->conns;
		s->conns = rec;
		s->nconns++;
	}
	pthread_mutex_unlock(&s->lock);
	if (!rec) {
		refuse(s, fd, over_ip, tls, (const struct sockaddr *)ss);
		return;
	}
	if (MHD_add_connection(d, fd, (const struct sockaddr *)ss, len) != MHD_YES) {
		/* libmicrohttpd closed the socket */
		pthread_mutex_lock(&s->lock);
		for (pp = &s->conns; *pp; pp = &(*pp)->next)
			if (*pp == rec && !rec->mc) {
				*pp = rec->next;
				s->nconns--;
				free(rec);
				break;
			}
		pthread_mutex_unlock(&s->lock);
	}
}

static void linger_service(struct server *s, const struct pollfd *p, double now)
{
	unsigned i = 0;
	while (i < s->nlinger) {
		char junk[4096];
		int done = now >= s->linger[i].until_s;
		if (!done && p[i].revents) {
			ssize_t n = recv(s->linger[i].fd, junk, sizeof(junk), MSG_DONTWAIT);
			done = n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
		}
		if (done) {
			close(s->linger[i].fd);
			s->linger[i] = s->linger[--s->nlinger];
			/* p[] is not compacted with it: look again at the next round */
			break;
		}
		i++;
	}
}

static void *acceptor_main(void *arg)
{
	struct server *s = arg;
	struct pollfd *p = s->pfd;
	for (;;) {
		unsigned i, n = 0;
		int stopping, wait_ms;
		p[n++] = (struct pollfd){s->fd, POLLIN, 0};
		p[n++] = (struct pollfd){s->wake[0], POLLIN, 0};
		for (i = 0; i < s->nlinger; i++)
			p[n++] = (struct pollfd){s->linger[i].fd, POLLIN, 0};
		pthread_mutex_lock(&s->lock);
		wait_ms = s->conns ? (int)ceil(deadlines(s, mono_now()) * 1000) + 1 : -1;
		pthread_mutex_unlock(&s->lock);
		if (s->nlinger && (wait_ms < 0 || wait_ms > 100))
			wait_ms = 100;
		if (poll(p, n, wait_ms) < 0 && errno != EINTR)
			break;
		pthread_mutex_lock(&s->lock);
		stopping = s->stopping;
		pthread_mutex_unlock(&s->lock);
		if (stopping)
			break;
		if (p[0].revents) {
			for (i = 0; i < 64; i++) {
				struct sockaddr_storage ss;
				socklen_t len = sizeof(ss);
				int fd;
				/* what accept4() does not write reads as zeros (AF_UNSPEC), never garbage */
				memset(&ss, 0, sizeof(ss));
				fd = accept4(s->fd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
				if (fd < 0) {
					if (errno == EMFILE || errno == ENFILE) {
						xlog_limited(&refuse_log, LOG_WARN, "export: http: accept: %s",
							     strerror(errno));
						poll(NULL, 0, 50);
					}
					break;
				}
				admit(s, fd, &ss, len);
			}
		}
		if (s->nlinger)
			linger_service(s, p + 2, mono_now());
	}
	while (s->nlinger)
		close(s->linger[--s->nlinger].fd);
	return NULL;
}

/* ---- lifecycle ---- */

static void build_landing(struct server *s)
{
	const char *names = s->o.names == NAMES_DCGM ? "dcgm" : s->o.names == NAMES_NATIVE ? "native" : "both";
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

	fd = socket(a.ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 && a.any && (errno == EAFNOSUPPORT || errno == EPROTONOSUPPORT)) {
		/* no IPv6 on this host: every IPv4 address */
		struct sockaddr_in *a4 = (struct sockaddr_in *)&a.ss;
		memset(&a.ss, 0, sizeof(a.ss));
		a4->sin_family = AF_INET;
		a4->sin_addr.s_addr = htonl(INADDR_ANY);
		a4->sin_port = htons((uint16_t)a.port);
		a.len = sizeof(*a4);
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
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
	memset(&bound, 0, sizeof(bound)); /* as for accept4() in the acceptor */
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

/* Stops the bcrypt thread; the requests it still had are resumed (and refused). */
static void auth_stop(struct server *s)
{
	if (!s->auth_started)
		return;
	pthread_mutex_lock(&s->lock);
	s->auth_stop = 1;
	pthread_cond_signal(&s->auth_cv);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->auth_thread, NULL);
	s->auth_started = 0;
}

struct server *server_start(const struct server_opts *o, struct web_config *wc, char *err, size_t err_len)
{
	struct server *s = xcalloc(1, sizeof(*s));
	int rc;
	s->o = *o;
	s->auth = xcalloc(AUTH_BOOK, sizeof(*s->auth));
	s->fd = -1;
	s->wake[0] = s->wake[1] = -1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->auth_cv, NULL);
	atomic_init(&s->scrapes, 0);
	s->cfg = xcalloc(1, sizeof(*s->cfg));
	s->cfg->refs = 1;
	build_landing(s);
	if (open_listener(s, err, err_len))
		goto fail;
	if (pipe2(s->wake, O_CLOEXEC | O_NONBLOCK)) {
		snprintf(err, err_len, "pipe: %s", strerror(errno));
		goto fail;
	}
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
	s->tls = wc && wc->tls;
	rc = pthread_create(&s->auth_thread, NULL, auth_main, s);
	if (rc) {
		snprintf(err, err_len, "cannot start the bcrypt thread: %s", strerror(rc));
		MHD_stop_daemon(s->d);
		s->cfg->wc = NULL;
		goto fail;
	}
	s->auth_started = 1;
	rc = pthread_create(&s->acceptor, NULL, acceptor_main, s);
	if (rc) {
		snprintf(err, err_len, "cannot start the acceptor thread: %s", strerror(rc));
		auth_stop(s);
		MHD_stop_daemon(s->d);
		s->cfg->wc = NULL;
		goto fail;
	}
	s->acceptor_started = 1;
	set_url_scheme(s, s->tls);
	return s;
fail:
	if (s->fd >= 0)
		close(s->fd);
	if (s->wake[0] >= 0) {
		close(s->wake[0]);
		close(s->wake[1]);
	}
	free(s->cfg);
	free(s->landing);
	free(s->auth);
	pthread_cond_destroy(&s->auth_cv);
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

/*
 * Lets a replaced daemon finish: waits until each of its connections is
 * idle between requests, at most until the deadline.  A connection that
 * has had no answer yet counts as busy (its handshake or its request may
 * still be on the way).  Its answers say "Connection: close" (queue()),
 * so keep-alive clients move to the new daemon.
 */
static void drain(struct server *s, struct MHD_Daemon *old, double deadline)
{
	for (;;) {
		struct conn *c;
		unsigned busy = 0, jobs = 0;
		double now = mono_now();
		pthread_mutex_lock(&s->lock);
		for (c = s->conns; c; c = c->next)
			if (c->d == old) {
				busy += !c->evicted && (c->in_request || !c->served);
				/* never past the deadline with a suspended request: it must be resumed first */
				jobs += c->job && !c->job->done;
			}
		pthread_mutex_unlock(&s->lock);
		if ((!busy || now >= deadline) && !jobs)
			return;
		poll(NULL, 0, 10);
	}
}

int server_reload(struct server *s, struct web_config *wc, char *err, size_t err_len)
{
	struct wc_ref *old, *nr;
	struct MHD_Daemon *d = NULL, *old_d = NULL;
	pthread_mutex_lock(&s->lock);
	old = s->cfg;
	pthread_mutex_unlock(&s->lock);
	if (tls_differs(old->wc, wc)) {
		d = daemon_start(s, wc, err, err_len);
		if (!d)
			return -1;
	}
	/* the same users with the same hashes: what was verified stays verified */
	if (wc && old->wc)
		web_config_keep_verified(wc, old->wc);
	nr = xcalloc(1, sizeof(*nr));
	nr->wc = wc;
	nr->refs = 1;
	pthread_mutex_lock(&s->lock);
	s->cfg = nr;
	if (d) {
		/* new connections go to the new daemon from now on */
		old_d = s->d;
		s->d = d;
		s->tls = wc && wc->tls;
	}
	pthread_mutex_unlock(&s->lock);
	if (old_d) {
		drain(s, old_d, mono_now() + fmin(s->o.timeout_s, SERVER_DRAIN_MAX_S));
		MHD_stop_daemon(old_d);
	}
	set_url_scheme(s, wc && wc->tls);
	cfg_release(s, old);
	return 0;
}

void server_stop(struct server *s)
{
	struct conn *c;
	if (!s)
		return;
	if (s->acceptor_started) {
		pthread_mutex_lock(&s->lock);
		s->stopping = 1;
		pthread_mutex_unlock(&s->lock);
		(void)!write(s->wake[1], "x", 1);
		pthread_join(s->acceptor, NULL);
	}
	/* no suspended request may remain when the daemon stops */
	auth_stop(s);
	if (s->d)
		MHD_stop_daemon(s->d);
	if (s->fd >= 0)
		close(s->fd);
	close(s->wake[0]);
	close(s->wake[1]);
	while ((c = s->conns)) {
		s->conns = c->next;
		auth_job_free(s, c->job);
		free(c);
	}
	cfg_release(s, s->cfg);
	free(s->landing);
	free(s->auth);
	pthread_cond_destroy(&s->auth_cv);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

const char *server_url(const struct server *s)
{
	return s->url;
}
