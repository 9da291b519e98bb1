#include "export/config.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/calib.h"
#include "export/counters.h"
#include "export/log.h"
#include "export/webconfig.h"
#include "util/error.h"

const char *export_config_names_text(const struct export_config *c)
{
	return c->names ? c->names : "both";
}

/* A duration flag within [lo, hi] seconds; the message names the range as people write it. */
static int in_range(double v, double lo, double hi, const char *flag, const char *range, char *err, size_t len)
{
	if (v >= lo && v <= hi)
		return 1;
	snprintf(err, len, "option '--%s' must be between %s", flag, range);
	return 0;
}

int export_config_check(const struct export_config *c, enum names_mode *names, struct listen_addr *addr, char *err,
			size_t err_len)
{
	char why[512];
	if (names_mode_parse(export_config_names_text(c), names)) {
		snprintf(err, err_len, "option '--names' must be dcgm, native or both, got '%s'", c->names);
		return -1;
	}
	/* dcgm-exporter's -f implies its names, unless --names says otherwise */
	if (c->collectors && !c->names)
		*names = NAMES_DCGM;
	if (!c->hostname_label ||
	    (strcmp(c->hostname_label, "Hostname") && strcmp(c->hostname_label, "hostname"))) {
		snprintf(err, err_len, "option '--hostname-label' must be Hostname or hostname, got '%s'",
			 c->hostname_label ? c->hostname_label : "");
		return -1;
	}
	if (listen_addr_parse(c->listen, addr, why, sizeof(why))) {
		snprintf(err, err_len, "option '--listen': %s", why);
		return -1;
	}
	if (!in_range(c->interval_s, 0.05, 3600, "interval", "50ms and 1h", err, err_len) ||
	    !in_range(c->collect_timeout_s, 0.01, 3600, "collect-timeout", "10ms and 1h", err, err_len) ||
	    !in_range(c->http_timeout_s, 1, 3600, "http-timeout", "1s and 1h", err, err_len) ||
	    !in_range(c->xid_window_s, 1, 3600, "xid-window", "1s and 1h", err, err_len) ||
	    !in_range(c->clock_events_window_s, 1, 3600, "clock-events-window", "1s and 1h", err, err_len) ||
	    !in_range(c->kube_interval_s, 0.1, 3600, "kubernetes-interval", "100ms and 1h", err, err_len))
		return -1;
	if (xlog_setup(c->log_level, c->log_format, err, err_len))
		return -1;
	return 0;
}

const struct gpu_backend *export_open_gpus(const struct export_config *c, struct gpu_device *const **devs,
					   unsigned *ndevs, char *err, size_t err_len)
{
	const struct gpu_backend *b = gpu_backend_find("nvml");
	struct gpu_init_opts io = {c->nvml};
	int rc;
	*devs = NULL;
	*ndevs = 0;
	err[0] = '\0';
	if (!b)
		return NULL;
	rc = b->init(&io);
	if (rc == GPU_OK)
		rc = b->enumerate(devs, ndevs);
	if (rc == GPU_OK && *ndevs == 0)
		rc = GPU_ERR_NO_GPU;
	if (rc == GPU_OK)
		return b;
	snprintf(err, err_len, "%s", rc == GPU_ERR_NO_GPU ? "the driver sees no GPU" : b->last_error());
	b->shutdown();
	*devs = NULL;
	*ndevs = 0;
	return NULL;
}

/* The hostname label, NULL for none. */
static const char *hostname_label(const struct export_config *c)
{
	static char host[256];
	const char *node = getenv("NODE_NAME");
	if (c->no_hostname)
		return NULL;
	/* in Kubernetes the pod's host name is not the node's; dcgm-exporter reads NODE_NAME */
	if (node && *node)
		return node;
	if (gethostname(host, sizeof(host) - 1))
		return NULL;
	host[sizeof(host) - 1] = '\0';
	return host;
}

/* --bench-file, else bench --save's default file when it exists at start, else none. */
static const char *export_bench_file(const struct export_config *c)
{
	static char *default_path; /* lives as long as the process, as the option's text does */
	if (c->bench_file)
		return strcmp(c->bench_file, "none") ? c->bench_file : NULL;
	if (!default_path)
		default_path = bench_calibration_default_path();
	return default_path && !access(default_path, F_OK) ? default_path : NULL;
}

void export_collector_opts(const struct export_config *c, enum names_mode names, const struct gpu_backend *b,
			   struct gpu_device *const *devs, unsigned ndevs, const struct counters *counters,
			   struct kube *kube, struct collector_opts *co)
{
	memset(co, 0, sizeof(*co));
	co->backend = b;
	co->devs = devs;
	co->ndevs = ndevs;
	co->interval_s = c->interval_s;
	co->timeout_s = c->collect_timeout_s;
	co->xid_window_s = c->xid_window_s;
	co->clock_events_window_s = c->clock_events_window_s;
	co->names = names;
	co->counters = counters;
	co->processes = c->processes;
	co->pcie_throughput = !c->no_pcie;
	/* one collection for --once: no event or kernel-log threads */
	co->events = !c->once;
	co->kmsg_path = (!c->kmsg || !strcmp(c->kmsg, "none") || c->once) ? NULL : c->kmsg;
	co->hostname = hostname_label(c);
	co->hostname_label = c->hostname_label;
	co->kube = kube;
	co->bench_file = export_bench_file(c);
}

static void server_opts(const struct export_config *c, enum names_mode names, const struct listen_addr *addr,
			struct collector *coll, unsigned ngpus, struct server_opts *so)
{
	memset(so, 0, sizeof(*so));
	so->addr = *addr;
	so->max_connections = (unsigned)c->max_connections;
	so->max_per_ip = (unsigned)c->max_per_ip;
	so->timeout_s = c->http_timeout_s;
	so->threads = (unsigned)c->http_threads;
	so->connection_memory = 32 * 1024;
	/* three missed collections and a hung one: /health fails */
	so->stale_s = 3 * c->interval_s + c->collect_timeout_s;
	so->collector = coll;
	so->names = names;
	so->interval_s = c->interval_s;
	so->ngpus = ngpus;
}

struct server *export_start_server(const struct export_config *c, enum names_mode names,
				   const struct listen_addr *addr, struct collector *coll, unsigned ngpus,
				   struct web_config *wc, char *err, size_t err_len)
{
	struct server_opts so;
	server_opts(c, names, addr, coll, ngpus, &so);
	return server_start(&so, wc, err, err_len);
}

int export_config_wants_kube(const struct export_config *c)
{
	/* a socket named on the command line is asked for, as --kubernetes is */
	return !c->once && (c->kubernetes || strcmp(c->kubelet_socket, KUBE_DEFAULT_SOCKET) ||
			    !access(c->kubelet_socket, F_OK));
}

void export_print_once(struct collector *coll, FILE *out)
{
	struct snapshot *s = collector_acquire(coll);
	struct strbuf tail = STRBUF_INIT;
	families_render_tail(EXPO_TEXT, mono_now() - s->mono_s, 0, &tail);
	fwrite(s->body[EXPO_TEXT], 1, s->len[EXPO_TEXT], out);
	fwrite(strbuf_str(&tail), 1, tail.len, out);
	strbuf_release(&tail);
	snapshot_release(s);
}

struct web_config *export_load_web_config(const char *path, int *exit_code, char *err, size_t err_len)
{
	struct web_config *wc;
	struct diag derr;
	char msg[1024];
	diag_clear(&derr);
	*exit_code = EXIT_USAGE;
	if (web_config_load(path, &wc, &derr)) {
		diag_format(&derr, msg, sizeof(msg));
		snprintf(err, err_len, "--web-config: %s", msg);
		return NULL;
	}
	/* a file that asks for what this host cannot do is no usage error */
	*exit_code = EXIT_ENV;
	if (wc->nusers && !web_config_bcrypt_supported())
		snprintf(err, err_len, "libcrypt on this host cannot check bcrypt ($2y$) password hashes");
	else if (wc->tls && !server_tls_available())
		snprintf(err, err_len, "'%s' asks for TLS, but libmicrohttpd was built without it", path);
	else
		return wc;
	web_config_free(wc);
	return NULL;
}

int export_reload_web_config(struct server *srv, const char *path, char *err, size_t err_len)
{
	struct web_config *wc;
	struct diag derr;
	diag_clear(&derr);
	if (web_config_load(path, &wc, &derr)) {
		diag_format(&derr, err, err_len);
		return -1;
	}
	if (server_reload(srv, wc, err, err_len)) {
		web_config_free(wc);
		return -1;
	}
	return 0;
}

struct counters *export_load_counters(const char *path, char *err, size_t err_len)
{
	struct counters *counters;
	struct diag derr;
	diag_clear(&derr);
	if (counters_load(path, &counters, &derr)) {
		diag_format(&derr, err, err_len);
		return NULL;
	}
	return counters;
}

struct kube *export_start_kube(const struct export_config *c, char *err, size_t err_len)
{
	err[0] = '\0';
	if (!export_config_wants_kube(c))
		return NULL;
	return kube_start(c->kubelet_socket, c->kube_interval_s, 2.0, err, err_len);
}

void export_block_signals(sigset_t *sigs)
{
	sigemptyset(sigs);
	sigaddset(sigs, SIGTERM);
	sigaddset(sigs, SIGINT);
	sigaddset(sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
}
