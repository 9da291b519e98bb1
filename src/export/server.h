/*
 * The exporter's HTTP server, on libmicrohttpd: /metrics, /health and a
 * landing page at /, with TLS, client certificates, basic auth and the rate
 * limit of a web configuration (webconfig.h), and limits that keep slow or
 * malformed clients from starving the scrapers: a connection limit, a
 * per-IP connection limit, an idle timeout and a per-connection memory cap.
 */
#ifndef GPUSCOPE_EXPORT_SERVER_H
#define GPUSCOPE_EXPORT_SERVER_H

#include <stddef.h>
#include <sys/socket.h>

#include "export/collector.h"
#include "export/view.h"
#include "export/webconfig.h"

struct listen_addr {
	struct sockaddr_storage ss;
	socklen_t len;
	int any; /* ":PORT": every address, IPv6 and IPv4 */
	unsigned port;
};

/*
 * Parses --listen: ":9400", "0.0.0.0:9400", "127.0.0.1:9400", "[::1]:9400",
 * "localhost:9400" (resolved now).  Port 0 lets the kernel pick one.
 * Returns 0, or -1 with a reason in why.
 */
int listen_addr_parse(const char *text, struct listen_addr *out, char *why, size_t why_len);

struct server_opts {
	struct listen_addr addr;
	unsigned max_connections;
	unsigned max_per_ip;
	double timeout_s;         /* idle connection timeout */
	unsigned threads;         /* HTTP worker threads */
	size_t connection_memory; /* bytes per connection (request headers and buffers) */
	double stale_s;           /* /health fails when the snapshot is older */
	struct collector *collector;
	/* shown on the landing page */
	enum names_mode names;
	double interval_s;
	unsigned ngpus;
};

struct server;

/*
 * Binds, listens and starts serving.  wc (may be NULL) becomes the
 * server's.  Returns NULL with a message in err.
 */
struct server *server_start(const struct server_opts *o, struct web_config *wc, char *err, size_t err_len);
/*
 * Replaces the web configuration (SIGHUP).  Restarts the listener's TLS
 * layer when TLS settings changed, on the same socket.  On success takes
 * wc and returns 0; on failure keeps the old configuration, leaves wc to
 * the caller and returns -1 with err.
 */
int server_reload(struct server *s, struct web_config *wc, char *err, size_t err_len);
/* Stops serving and frees everything. */
void server_stop(struct server *s);
/* "http://127.0.0.1:9400" with the real port (static storage of the server). */
const char *server_url(const struct server *s);

/*
 * What a raw request target (before percent-decoding) names: 2 /metrics,
 * 3 /health, 4 the landing page /, 1 nothing.  The path must match byte
 * for byte; a query string is ignored.
 */
int server_route(const char *target);
/*
 * Decodes an Authorization header "Basic BASE64(user:password)" into buf
 * and points user and password into it.  Returns 0, or -1 when the header
 * is absent or malformed (not base64, no colon, a NUL inside).
 */
int server_basic_credentials(const char *header, char *buf, size_t len, const char **user, const char **password);

/* A TLS reload waits at most this long (and --http-timeout) for the old daemon's requests. */
#define SERVER_DRAIN_MAX_S 10.0

/* 1 when libmicrohttpd was built with TLS and GnuTLS's certificate calls can be found. */
int server_tls_available(void);

#endif
