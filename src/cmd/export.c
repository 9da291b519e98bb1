/*
 * gpuscope export: a Prometheus exporter for the GPUs of this host, a
 * drop-in for dcgm-exporter (port 9400, its metric names and labels) that
 * also speaks Prometheus' own conventions.  The parts are in src/export/:
 * the collector (collector.h), the metric families (families.c), the
 * exposition formats (expo.h), the HTTP server (server.h) and the
 * exporter-toolkit web configuration (webconfig.h).  docs/export.md has the
 * metric list and the deployment notes.
 */
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "export/collector.h"
#include "export/counters.h"
#include "export/kube.h"
#include "export/log.h"
#include "export/server.h"
#include "export/view.h"
#include "export/webconfig.h"
#include "gpu/gpu.h"
#include "util/error.h"

static const char names_default[] = "both";
static const char *listen_flag = ":9400", *web_config_path, *names_flag = names_default;
static const char *collectors_path, *kubelet_socket = KUBE_DEFAULT_SOCKET;
static double kube_interval_s = 5.0;
static int kube_flag;
static const char *nvml_path, *kmsg_flag = "/dev/kmsg";
static const char *log_level_flag = "info", *log_format_flag = "logfmt";
static double interval_s = 1.0, collect_timeout_s = 5.0, http_timeout_s = 10.0, xid_window_s = 300;
static long max_connections = 64, max_per_ip = 16, http_threads = 2;
static int processes_flag, allow_no_gpu, once_flag, no_hostname, no_pcie;

static const struct opt export_opts[] = {
	OPT_GROUP_("serving"),
	OPT_STRING_("listen", &listen_flag, "ADDR", "address: :9400 (default), 127.0.0.1:9400, [::1]:9400"),
	OPT_STRING_("web-config", &web_config_path, "FILE", "TLS and basic auth, exporter-toolkit format"),
	OPT_INT_("max-connections", &max_connections, "N", "open connections at most (default 64)", 1, 100000),
	OPT_INT_("max-per-ip", &max_per_ip, "N", "open connections per client address (default 16)", 1, 100000),
	OPT_DURATION_("http-timeout", &http_timeout_s, "DURATION", "close connections idle this long (default 10s)"),
	OPT_INT_("http-threads", &http_threads, "N", "threads answering requests (default 2)", 1, 64),
	OPT_GROUP_("collecting"),
	OPT_DURATION_("interval", &interval_s, "DURATION", "collect every DURATION (default 1s)"),
	OPT_DURATION_("collect-timeout", &collect_timeout_s, "DURATION", "report a GPU stalled past this (default 5s)"),
	OPT_STRING_("names", &names_flag, "SET", "metric names: dcgm, native or both (default)"),
	OPT_STRING_("collectors", &collectors_path, "FILE",
		    "-f: only the fields of a dcgm-exporter counters CSV"),
	OPT_FLAG_("processes", &processes_flag, "per-process memory, pid and name (off: private)"),
	OPT_FLAG_("no-pcie-throughput", &no_pcie, "skip PCIe throughput (2 x 20 ms per GPU)"),
	OPT_STRING_("kmsg", &kmsg_flag, "PATH", "kernel log for XIDs (default /dev/kmsg; none)"),
	OPT_DURATION_("xid-window", &xid_window_s, "DURATION", "DCGM_EXP_XID_ERRORS_COUNT window (default 5m)"),
	OPT_FLAG_("no-hostname", &no_hostname, "no hostname labels (dcgm-exporter's -n)"),
	OPT_GROUP_("kubernetes"),
	OPT_FLAG_("kubernetes", &kube_flag, "pod labels (default: on when the socket exists)"),
	OPT_STRING_("pod-resources-kubelet-socket", &kubelet_socket, "PATH",
		    "the kubelet's pod-resources socket"),
	OPT_DURATION_("kubernetes-interval", &kube_interval_s, "DURATION", "ask the kubelet this often (default 5s)"),
	OPT_GROUP_("library"),
	OPT_STRING_("nvml", &nvml_path, "PATH", "load NVML from PATH, not libnvidia-ml.so.1"),
	OPT_FLAG_("allow-no-gpu", &allow_no_gpu, "no NVML or GPU: serve the exporter's own metrics"),
	OPT_GROUP_("logging"),
	OPT_STRING_("log-level", &log_level_flag, "LEVEL", "debug, info (default), warn or error"),
	OPT_STRING_("log-format", &log_format_flag, "FORMAT", "logfmt (default) or json"),
	OPT_GROUP_("other"),
	OPT_FLAG_("once", &once_flag, "print one collection (text format) and exit"),
	OPT_END_(),
};

static const struct opts_cmd export_cmd = {
	"export",
	"[--listen ADDR] [--interval DURATION] [options]",
	"Serve the GPUs' metrics to Prometheus; drops into dcgm-exporter dashboards.",
	"Endpoints: /metrics (text format 0.0.4, OpenMetrics when the scraper asks for\n"
	"it), /health (fails when the samples are stale or a GPU library call hangs)\n"
	"and / (a landing page).  A collector thread samples every GPU each interval;\n"
	"scrapes are served from the latest collection and never wait on the driver.\n"
	"\n"
	"--names dcgm gives dcgm-exporter's names and labels (DCGM_FI_DEV_GPU_UTIL{gpu,\n"
	"UUID,pci_bus_id,device,modelName,Hostname,DCGM_FI_DRIVER_VERSION}), so existing\n"
	"dashboards work; native gives Prometheus-convention names in base units\n"
	"(gpu_utilization_ratio, gpu_energy_joules_total, gpu_info); both gives both.\n"
	"\n"
	"Signals: SIGTERM and SIGINT stop it; SIGHUP reloads --web-config.\n"
	"Exit codes: 0 stopped cleanly, 2 bad flags or web config, 3 no NVML, no GPU\n"
	"or the address cannot be served.  See docs/export.md.\n"
	"\nExamples:\n"
	"  gpuscope export\n"
	"  gpuscope export --listen 127.0.0.1:9400 --names native --interval 5s\n"
	"  gpuscope export --web-config /etc/gpuscope/web-config.yml\n"
	"  gpuscope export -f /etc/dcgm-exporter/default-counters.csv\n",
	export_opts,
};

static void usage_error(const char *fmt, ...) GS_PRINTF(1, 2);
static void usage_error(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	opts_error(&export_cmd, "%s", msg);
	exit(EXIT_USAGE);
}

static struct web_config *load_web_config_or_die(const char *path)
{
	struct web_config *wc;
	struct diag err;
	char msg[1024];
	diag_clear(&err);
	if (web_config_load(path, &wc, &err)) {
		diag_format(&err, msg, sizeof(msg));
		die_code(EXIT_USAGE, "gpuscope export: --web-config: %s", msg);
	}
	if (wc->nusers && !web_config_bcrypt_supported())
		die_code(EXIT_ENV, "gpuscope export: libcrypt on this host cannot check bcrypt ($2y$) "
			 "password hashes");
	if (wc->tls && !server_tls_available())
		die_code(EXIT_ENV, "gpuscope export: '%s' asks for TLS, but libmicrohttpd was built "
			 "without it", path);
	return wc;
}

static const char *hostname_label(void)
{
	static char host[256];
	const char *node = getenv("NODE_NAME");
	if (no_hostname)
		return NULL;
	/* in Kubernetes the pod's host name is not the node's; dcgm-exporter reads NODE_NAME */
	if (node && *node)
		return node;
	if (gethostname(host, sizeof(host) - 1))
		return NULL;
	host[sizeof(host) - 1] = '\0';
	return host;
}

int cmd_export(int argc, char **argv)
{
	struct collector_opts co;
	struct server_opts so;
	struct collector *coll;
	struct server *srv = NULL;
	struct web_config *wc = NULL;
	struct counters *counters = NULL;
	struct kube *kube = NULL;
	const struct gpu_backend *b = NULL;
	struct gpu_device *const *devs = NULL;
	unsigned ndevs = 0;
	enum names_mode names;
	char err[512];
	sigset_t sigs;
	int npos, rc, clean;

	/* dcgm-exporter's short spelling of --collectors */
	for (rc = 1; rc < argc && strcmp(argv[rc], "--"); rc++)
		if (!strcmp(argv[rc], "-f"))
			argv[rc] = (char *)"--collectors";
	npos = parse_options_or_exit(&export_cmd, argc, argv);
	if (npos > 0)
		usage_error("unexpected argument '%s'", argv[0]);
	if (names_mode_parse(names_flag, &names))
		usage_error("option '--names' must be dcgm, native or both, got '%s'", names_flag);
	memset(&so, 0, sizeof(so));
	if (listen_addr_parse(listen_flag, &so.addr, err, sizeof(err)))
		usage_error("option '--listen': %s", err);
	if (!(interval_s >= 0.05 && interval_s <= 3600))
		usage_error("option '--interval' must be between 50ms and 1h");
	if (!(collect_timeout_s >= 0.01 && collect_timeout_s <= 3600))
		usage_error("option '--collect-timeout' must be between 10ms and 1h");
	if (!(http_timeout_s >= 1 && http_timeout_s <= 3600))
		usage_error("option '--http-timeout' must be between 1s and 1h");
	if (!(xid_window_s >= 1 && xid_window_s <= 3600))
		usage_error("option '--xid-window' must be between 1s and 1h");
	if (xlog_setup(log_level_flag, log_format_flag, err, sizeof(err)))
		usage_error("%s", err);
	if (web_config_path)
		wc = load_web_config_or_die(web_config_path);
	if (collectors_path) {
		struct diag derr;
		char msg[1024];
		const char *skipped;
		size_t i, n;
		int line;
		diag_clear(&derr);
		if (counters_load(collectors_path, &counters, &derr)) {
			diag_format(&derr, msg, sizeof(msg));
			die_code(EXIT_USAGE, "gpuscope export: --collectors: %s", msg);
		}
		n = counters_skipped(counters, 0, &skipped, &line);
		for (i = 0; i < n; i++) {
			counters_skipped(counters, i, &skipped, &line);
			warning("gpuscope export: %s:%d: '%s' is a DCGM field gpuscope does not serve; skipped",
				collectors_path, line, skipped);
		}
		if (names_flag == names_default)
			names = NAMES_DCGM;
	}

	/* fewer malloc arenas: this process is small and mostly idle */
	mallopt(M_ARENA_MAX, 2);

	b = gpu_backend_find("nvml");
	if (b) {
		struct gpu_init_opts io = {nvml_path};
		rc = b->init(&io);
		if (rc == GPU_OK)
			rc = b->enumerate(&devs, &ndevs);
		if (rc == GPU_OK && ndevs == 0)
			rc = GPU_ERR_NO_GPU;
		if (rc != GPU_OK) {
			char why[600];
			snprintf(why, sizeof(why), "%s", rc == GPU_ERR_NO_GPU ? "the driver sees no GPU"
										: b->last_error());
			b->shutdown();
			b = NULL;
			devs = NULL;
			ndevs = 0;
			if (!allow_no_gpu)
				die_code(EXIT_ENV, "gpuscope export: %s\n"
					 "hint: run on a host with an NVIDIA driver, point --nvml at libnvidia-ml.so.1, "
					 "or pass --allow-no-gpu to serve only the exporter's own metrics", why);
			warning("gpuscope export: %s; serving only the exporter's own metrics", why);
		}
	}

	if (!(kube_interval_s >= 0.1 && kube_interval_s <= 3600))
		usage_error("option '--kubernetes-interval' must be between 100ms and 1h");

	memset(&co, 0, sizeof(co));
	co.backend = b;
	co.devs = devs;
	co.ndevs = ndevs;
	co.interval_s = interval_s;
	co.timeout_s = collect_timeout_s;
	co.xid_window_s = xid_window_s;
	co.names = names;
	co.counters = counters;
	co.processes = processes_flag;
	co.pcie_throughput = !no_pcie;
	co.events = !once_flag;
	co.kmsg_path = (!kmsg_flag || !strcmp(kmsg_flag, "none") || once_flag) ? NULL : kmsg_flag;
	co.hostname = hostname_label();

	/*
	 * Signals go to this thread only (sigtimedwait below); every thread
	 * started from here on inherits the mask.
	 */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	/* after the signal mask, so the kubelet thread inherits it */
	/* a socket named on the command line is asked for, as --kubernetes is */
	if (!once_flag &&
	    (kube_flag || strcmp(kubelet_socket, KUBE_DEFAULT_SOCKET) || !access(kubelet_socket, F_OK))) {
		/* off the scrape path: a thread asks the kubelet, the collector reads its last answer */
		kube = kube_start(kubelet_socket, kube_interval_s, 2.0, err, sizeof(err));
		if (!kube)
			warning("gpuscope export: --kubernetes: %s; serving without pod labels", err);
	}
	co.kube = kube;
	coll = collector_start(&co, err, sizeof(err));
	if (!coll)
		die("gpuscope export: %s", err);

	if (once_flag) {
		struct snapshot *s = collector_acquire(coll);
		struct expo_buf tail;
		expo_buf_init(&tail);
		families_render_tail(EXPO_TEXT, mono_now() - s->mono_s, 0, &tail);
		fwrite(s->body[EXPO_TEXT], 1, s->len[EXPO_TEXT], stdout);
		fwrite(tail.data, 1, tail.len, stdout);
		expo_buf_free(&tail);
		snapshot_release(s);
		clean = collector_stop(coll, 2.0);
		if (b && clean)
			b->shutdown();
		web_config_free(wc);
		if (clean)
			counters_free(counters);
		return EXIT_OK;
	}

	so.max_connections = (unsigned)max_connections;
	so.max_per_ip = (unsigned)max_per_ip;
	so.timeout_s = http_timeout_s;
	so.threads = (unsigned)http_threads;
	so.connection_memory = 32 * 1024;
	so.stale_s = 3 * interval_s + collect_timeout_s;
	so.collector = coll;
	so.names = names;
	so.interval_s = interval_s;
	so.ngpus = ndevs;
	srv = server_start(&so, wc, err, sizeof(err));
	if (!srv) {
		collector_stop(coll, 2.0);
		web_config_free(wc);
		die("gpuscope export: %s", err);
	}
	xlog(LOG_INFO, "gpuscope export: serving %u GPU%s on %s/metrics (names %s, interval %g s)",
	     ndevs, ndevs == 1 ? "" : "s", server_url(srv), names_flag, interval_s);

	for (;;) {
		int sig = sigwaitinfo(&sigs, NULL);
		if (sig < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (sig == SIGHUP) {
			struct web_config *nwc;
			struct diag derr;
			char msg[1024];
			if (!web_config_path) {
				xlog(LOG_WARN, "gpuscope export: SIGHUP: no --web-config to reload");
				continue;
			}
			diag_clear(&derr);
			if (web_config_load(web_config_path, &nwc, &derr)) {
				diag_format(&derr, msg, sizeof(msg));
				warning("gpuscope export: reload: %s (keeping the previous web config)", msg);
				continue;
			}
			if (server_reload(srv, nwc, err, sizeof(err))) {
				warning("gpuscope export: reload: %s (keeping the previous web config)", err);
				web_config_free(nwc);
				continue;
			}
			xlog(LOG_INFO, "gpuscope export: reloaded '%s' (%s)", web_config_path, server_url(srv));
			continue;
		}
		xlog(LOG_INFO, "gpuscope export: %s, stopping", sig == SIGINT ? "interrupted" : "terminated");
		break;
	}
	server_stop(srv);
	clean = collector_stop(coll, 2.0);
	if (!clean)
		warning("gpuscope export: a GPU library call is still hung; exiting without unloading NVML");
	else if (b)
		b->shutdown();
	if (clean) {
		counters_free(counters);
		kube_stop(kube);
	}
	return EXIT_OK;
}
