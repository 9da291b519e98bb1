/*
 * gpuscope export: a Prometheus exporter for the GPUs of this host, a
 * drop-in for dcgm-exporter (port 9400, its metric names and labels) that
 * also speaks Prometheus' own conventions.  The parts are in src/export/:
 * the settings (config.h), the collector (collector.h), the metric families
 * (families.c), the exposition formats (expo.h), the HTTP server (server.h)
 * and the exporter-toolkit web configuration (webconfig.h).  docs/export.md
 * has the metric list and the deployment notes.
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "export/config.h"
#include "export/counters.h"
#include "export/log.h"
#include "export/webconfig.h"
#include "util/error.h"

static struct export_config cfg = EXPORT_CONFIG_INIT;

static const struct opt export_opts[] = {
	OPT_GROUP_("serving"),
	OPT_STRING_("listen", &cfg.listen, "ADDR", "address: :9400 (default), 127.0.0.1:9400, [::1]:9400"),
	OPT_STRING_("web-config", &cfg.web_config, "FILE", "TLS and basic auth, exporter-toolkit format"),
	OPT_INT_("max-connections", &cfg.max_connections, "N", "open connections at most (default 64)", 1, 100000),
	OPT_INT_("max-per-ip", &cfg.max_per_ip, "N", "open connections per client address (default 16)", 1,
		 100000),
	OPT_DURATION_("http-timeout", &cfg.http_timeout_s, "DURATION",
		      "close connections idle this long (default 10s)"),
	OPT_INT_("http-threads", &cfg.http_threads, "N", "threads answering requests (default 2)", 1, 64),
	OPT_GROUP_("collecting"),
	OPT_DURATION_("interval", &cfg.interval_s, "DURATION", "collect every DURATION (default 1s)"),
	OPT_DURATION_("collect-timeout", &cfg.collect_timeout_s, "DURATION",
		      "report a GPU stalled past this (default 5s)"),
	OPT_STRING_("names", &cfg.names, "SET", "metric names: dcgm, native or both (default)"),
	OPT_STRING_("collectors", &cfg.collectors, "FILE", "-f: only the fields of a dcgm-exporter counters CSV"),
	OPT_FLAG_("processes", &cfg.processes, "per-process memory, pid and name (off: private)"),
	OPT_FLAG_("no-pcie-throughput", &cfg.no_pcie, "skip PCIe throughput (2 x 20 ms per GPU)"),
	OPT_STRING_("kmsg", &cfg.kmsg, "PATH", "kernel log for XIDs (default /dev/kmsg; none)"),
	OPT_DURATION_("xid-window", &cfg.xid_window_s, "DURATION",
		      "DCGM_EXP_XID_ERRORS_COUNT window (default 5m)"),
	OPT_DURATION_("clock-events-window", &cfg.clock_events_window_s, "DURATION",
		      "DCGM_EXP_CLOCK_EVENTS_COUNT window (default 5m)"),
	OPT_FLAG_("no-hostname", &cfg.no_hostname, "no hostname labels (dcgm-exporter's -n)"),
	OPT_STRING_("hostname-label", &cfg.hostname_label, "NAME",
		    "dcgm names' host label: Hostname (default) or hostname (dcgm-exporter 4.x)"),
	OPT_GROUP_("kubernetes"),
	OPT_FLAG_("kubernetes", &cfg.kubernetes, "pod labels (default: on when the socket exists)"),
	OPT_STRING_("pod-resources-kubelet-socket", &cfg.kubelet_socket, "PATH",
		    "the kubelet's pod-resources socket"),
	OPT_DURATION_("kubernetes-interval", &cfg.kube_interval_s, "DURATION",
		      "ask the kubelet this often (default 5s)"),
	OPT_GROUP_("library"),
	OPT_STRING_("nvml", &cfg.nvml, "PATH", "load NVML from PATH, not libnvidia-ml.so.1"),
	OPT_FLAG_("allow-no-gpu", &cfg.allow_no_gpu, "no NVML or GPU: serve the exporter's own metrics"),
	OPT_GROUP_("logging"),
	OPT_STRING_("log-level", &cfg.log_level, "LEVEL", "debug, info (default), warn or error"),
	OPT_STRING_("log-format", &cfg.log_format, "FORMAT", "logfmt (default) or json"),
	OPT_STRING_("bench-file", &cfg.bench_file, "FILE",
		    "serve bench's calibration file as gpuscope_bench_* (default: bench --save's; none)"),
	OPT_GROUP_("other"),
	OPT_FLAG_("once", &cfg.once, "print one collection (text format) and exit"),
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

/* -f FILE: dcgm-exporter's counters; the fields gpuscope does not serve are named and skipped. */
static struct counters *load_counters_or_die(const char *path)
{
	struct counters *counters;
	char err[1024];
	const char *skipped;
	size_t i, n;
	int line;
	if (!(counters = export_load_counters(path, err, sizeof(err))))
		die_code(EXIT_USAGE, "gpuscope export: --collectors: %s", err);
	n = counters_skipped(counters, 0, &skipped, &line);
	for (i = 0; i < n; i++) {
		counters_skipped(counters, i, &skipped, &line);
		warning("gpuscope export: %s:%d: '%s' is a DCGM field gpuscope does not serve; skipped", path,
			line, skipped);
	}
	return counters;
}

/* The GPUs to serve; without any, dies unless --allow-no-gpu (then b is NULL). */
static const struct gpu_backend *open_gpus_or_die(struct gpu_device *const **devs, unsigned *ndevs)
{
	char why[600];
	const struct gpu_backend *b = export_open_gpus(&cfg, devs, ndevs, why, sizeof(why));
	if (b || !why[0])
		return b;
	if (!cfg.allow_no_gpu)
		die_code(EXIT_ENV,
			 "gpuscope export: %s\n"
			 "hint: run on a host with an NVIDIA driver, point --nvml at libnvidia-ml.so.1, "
			 "or pass --allow-no-gpu to serve only the exporter's own metrics",
			 why);
	warning("gpuscope export: %s; serving only the exporter's own metrics", why);
	return NULL;
}

/* Serves until SIGTERM or SIGINT; SIGHUP reads the web config again (a bad one keeps the previous). */
static void serve(struct server *srv, const sigset_t *sigs, unsigned ndevs)
{
	char err[1024];
	int sig;
	xlog(LOG_INFO, "gpuscope export: serving %u GPU%s on %s/metrics (names %s, interval %g s)", ndevs,
	     ndevs == 1 ? "" : "s", server_url(srv), export_config_names_text(&cfg), cfg.interval_s);
	while ((sig = sigwaitinfo(sigs, NULL)) == SIGHUP || (sig < 0 && errno == EINTR)) {
		if (sig < 0)
			continue;
		if (!cfg.web_config)
			xlog(LOG_WARN, "gpuscope export: SIGHUP: no --web-config to reload");
		else if (export_reload_web_config(srv, cfg.web_config, err, sizeof(err)))
			warning("gpuscope export: reload: %s (keeping the previous web config)", err);
		else
			xlog(LOG_INFO, "gpuscope export: reloaded '%s' (%s)", cfg.web_config, server_url(srv));
	}
	if (sig >= 0)
		xlog(LOG_INFO, "gpuscope export: %s, stopping", sig == SIGINT ? "interrupted" : "terminated");
}

/*
 * Stops the collector; NVML is unloaded and what the threads read freed
 * only when none is stuck in a library call (exiting is the way out).
 */
static void stop(struct collector *coll, const struct gpu_backend *b, struct counters *counters, struct kube *kube)
{
	if (!collector_stop(coll, 2.0)) {
		if (!cfg.once)
			warning("gpuscope export: a GPU library call is still hung; exiting without unloading NVML");
		return;
	}
	if (b)
		b->shutdown();
	counters_free(counters);
	kube_stop(kube);
}

int cmd_export(int argc, char **argv)
{
	struct collector_opts co;
	struct listen_addr addr;
	struct collector *coll;
	struct server *srv = NULL;
	struct web_config *wc = NULL;
	struct counters *counters = NULL;
	struct kube *kube;
	const struct gpu_backend *b;
	struct gpu_device *const *devs;
	unsigned ndevs;
	enum names_mode names;
	char err[1024];
	sigset_t sigs;
	int i, code;

	/* dcgm-exporter's short spelling of --collectors */
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-f"))
			argv[i] = (char *)"--collectors";
	if (parse_options_or_exit(&export_cmd, argc, argv) > 0)
		snprintf(err, sizeof(err), "unexpected argument '%s'", argv[0]);
	else if (!export_config_check(&cfg, &names, &addr, err, sizeof(err)))
		err[0] = '\0';
	if (err[0]) {
		opts_error(&export_cmd, "%s", err);
		return EXIT_USAGE;
	}
	if (cfg.web_config && !(wc = export_load_web_config(cfg.web_config, &code, err, sizeof(err))))
		die_code(code, "gpuscope export: %s", err);
	if (cfg.collectors)
		counters = load_counters_or_die(cfg.collectors);
	/* fewer malloc arenas: this process is small and mostly idle */
	mallopt(M_ARENA_MAX, 2);
	b = open_gpus_or_die(&devs, &ndevs);
	export_block_signals(&sigs);
	/* after the signal mask, so the kubelet thread inherits it */
	if (!(kube = export_start_kube(&cfg, err, sizeof(err))) && err[0])
		warning("gpuscope export: --kubernetes: %s; serving without pod labels", err);
	export_collector_opts(&cfg, names, b, devs, ndevs, counters, kube, &co);
	if (!(coll = collector_start(&co, err, sizeof(err))))
		die("gpuscope export: %s", err);
	if (cfg.once) {
		export_print_once(coll, stdout);
	} else {
		if (!(srv = export_start_server(&cfg, names, &addr, coll, ndevs, wc, err, sizeof(err)))) {
			collector_stop(coll, 2.0);
			web_config_free(wc);
			die("gpuscope export: %s", err);
		}
		serve(srv, &sigs, ndevs);
		server_stop(srv);
	}
	stop(coll, b, counters, kube);
	/* the server frees the web config it was given */
	if (!srv)
		web_config_free(wc);
	return EXIT_OK;
}
