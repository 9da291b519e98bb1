/*
 * The exporter's settings as `gpuscope export`'s flags give them, checked
 * against their ranges and turned into the collector's and the server's
 * options, and the start-up steps that follow from them (the GPUs to
 * serve, the hostname label).  Nothing here prints or exits: a problem
 * comes back as a message for the command to report.
 */
#ifndef GPUSCOPE_EXPORT_CONFIG_H
#define GPUSCOPE_EXPORT_CONFIG_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "export/collector.h"
#include "export/kube.h"
#include "export/server.h"

struct export_config {
	/* serving */
	const char *listen;     /* ":9400", "127.0.0.1:9400", "[::1]:9400" */
	const char *web_config; /* exporter-toolkit file (TLS, basic auth); NULL: none */
	long max_connections, max_per_ip, http_threads;
	double http_timeout_s; /* close connections idle this long */
	/* collecting */
	double interval_s, collect_timeout_s, xid_window_s;
	double clock_events_window_s; /* DCGM_EXP_CLOCK_EVENTS_COUNT's window */
	const char *names;            /* "dcgm", "native", "both"; NULL: not given */
	const char *collectors;       /* a dcgm-exporter counters CSV; NULL: every field */
	int processes, no_pcie, no_hostname;
	const char *hostname_label; /* dcgm's name of the host label: "Hostname" or "hostname" */
	const char *kmsg;           /* the kernel log for XIDs; "none": no kernel log */
	/* kubernetes */
	int kubernetes; /* --kubernetes: pod labels even without the default socket */
	const char *kubelet_socket;
	double kube_interval_s;
	/* the library, logging, once */
	const char *nvml; /* NULL: libnvidia-ml.so.1 */
	int allow_no_gpu;
	const char *log_level, *log_format;
	int once; /* print one collection and exit */
	/* bench */
	const char *bench_file; /* --bench-file: NULL: bench --save's file when present; "none": no file */
};

/* The defaults, which docs/export.md and --help state. */
#define EXPORT_CONFIG_INIT \
	{ \
		.listen = ":9400", .max_connections = 64, .max_per_ip = 16, .http_threads = 2, \
		.http_timeout_s = 10.0, .interval_s = 1.0, .collect_timeout_s = 5.0, .xid_window_s = 300, \
		.clock_events_window_s = 300, .kmsg = "/dev/kmsg", .kubelet_socket = KUBE_DEFAULT_SOCKET, \
		.kube_interval_s = 5.0, .hostname_label = "Hostname", .log_level = "info", \
		.log_format = "logfmt", \
	}

/* The --names text in force: "both" when not given. */
const char *export_config_names_text(const struct export_config *c);

/*
 * Checks the names, the address and every interval against its range and
 * sets up logging; fills *names and *addr.  Returns 0, or -1 with a usage
 * message in err ("option '--interval' must be between 50ms and 1h").
 */
int export_config_check(const struct export_config *c, enum names_mode *names, struct listen_addr *addr, char *err,
			size_t err_len);

/*
 * Loads the NVML backend and lists its GPUs.  Returns the backend, or NULL
 * with why in err (the backend shut down again): no library, no driver,
 * or no GPU ("the driver sees no GPU"); err is "" when gpuscope was built
 * without an NVML backend.
 */
const struct gpu_backend *export_open_gpus(const struct export_config *c, struct gpu_device *const **devs,
					   unsigned *ndevs, char *err, size_t err_len);

/*
 * The collector's options for the GPUs given (b NULL: none); counters and
 * kube may be NULL.  The hostname label lives in a static buffer.
 */
void export_collector_opts(const struct export_config *c, enum names_mode names, const struct gpu_backend *b,
			   struct gpu_device *const *devs, unsigned ndevs, const struct counters *counters,
			   struct kube *kube, struct collector_opts *co);
/*
 * Starts the HTTP server on addr (from export_config_check()) for the
 * collector's snapshots; ngpus and names are shown on the landing page.  As
 * server_start(): wc becomes the server's; NULL with err on failure (wc is
 * then still the caller's).
 */
struct server *export_start_server(const struct export_config *c, enum names_mode names,
				   const struct listen_addr *addr, struct collector *coll, unsigned ngpus,
				   struct web_config *wc, char *err, size_t err_len);

/*
 * --once: the collection made at start in the text format, with the
 * per-scrape families a scrape would add, written to out.
 */
void export_print_once(struct collector *coll, FILE *out);

/*
 * Reads --web-config's file and checks that this host can do what it asks
 * (bcrypt hashes, TLS).  Returns it (the caller owns it: web_config_free(),
 * or hand it to server_start()), or NULL with err and *exit_code: 2 for a
 * file that does not parse, 3 for what the host cannot do.
 */
struct web_config *export_load_web_config(const char *path, int *exit_code, char *err, size_t err_len);
/*
 * SIGHUP: reads the file again and swaps it into the server.  Returns 0, or
 * -1 with err, the previous configuration kept.
 */
int export_reload_web_config(struct server *srv, const char *path, char *err, size_t err_len);

/* Ask the kubelet for pod labels: --kubernetes, a socket named, or the default socket there. */
int export_config_wants_kube(const struct export_config *c);
/*
 * Starts the kubelet thread when export_config_wants_kube().  Returns it
 * (kube_stop() ends it), or NULL: err says why it could not start, or is ""
 * when it was not asked for.
 */
struct kube *export_start_kube(const struct export_config *c, char *err, size_t err_len);

/* -f FILE: the counters, or NULL with the located error in err (counters_free() them). */
struct counters *export_load_counters(const char *path, char *err, size_t err_len);

/*
 * Blocks SIGTERM, SIGINT and SIGHUP in the calling thread, for it to wait
 * for them (sigwaitinfo), and ignores SIGPIPE.  Every thread started after
 * this inherits the mask, so signals never land in the collector's or the
 * server's threads.
 */
void export_block_signals(sigset_t *sigs);

#endif
