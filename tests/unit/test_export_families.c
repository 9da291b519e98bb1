/*
 * The metric family table and the renderer: naming rules, unit scaling,
 * dcgm-exporter's labels, lost GPUs, MIG, XIDs and processes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/view.h"

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

static void test_table_rules(void **state)
{
	size_t i, j, n = families_count();
	(void)state;
	assert_true(n > 50);
	for (i = 0; i < n; i++) {
		const char *native, *dcgm, *help;
		int ncounter, dcounter;
		families_names(i, &native, &dcgm, &ncounter, &dcounter, &help);
		assert_true(native || dcgm);
		if (native) {
			const char *p;
			assert_true(expo_valid_metric_name(native));
			/* promtool: snake_case, _total exactly on counters */
			for (p = native; *p; p++)
				assert_false(*p >= 'A' && *p <= 'Z');
			assert_int_equal(ncounter, ends_with(native, "_total"));
			assert_false(strstr(native, "_ms") || strstr(native, "_mhz") || strstr(native, "_mib"));
			/* entries sharing a native name are adjacent: each family is one group */
			for (j = i + 2; j < n; j++) {
				const char *nj, *dj, *hj;
				int a, b;
				families_names(j, &nj, &dj, &a, &b, &hj);
				if (nj && !strcmp(nj, native)) {
					const char *prev, *dp, *hp;
					families_names(j - 1, &prev, &dp, &a, &b, &hp);
					assert_non_null(prev);
					assert_string_equal(prev, native);
				}
			}
		}
		if (dcgm) {
			assert_true(expo_valid_metric_name(dcgm));
			assert_true(!strncmp(dcgm, "DCGM_FI_", 8) || !strncmp(dcgm, "DCGM_EXP_", 9));
			for (j = i + 1; j < n; j++) {
				const char *nj, *dj, *hj;
				int a, b;
				families_names(j, &nj, &dj, &a, &b, &hj);
				assert_true(!dj || strcmp(dj, dcgm));
			}
		}
	}
}

/* Two H100s: GPU 0 answers, GPU 1 is lost. */
static void make_view(struct xview *v, struct xgpu *g)
{
	memset(v, 0, sizeof(*v));
	memset(g, 0, 2 * sizeof(*g));
	v->ngpus = 2;
	v->gpus = g;
	v->hostname = "node\"7";
	v->xid_window_s = 300;
	v->stats.interval_s = 1;
	v->stats.backend_up = 1;
	v->stats.backend = "nvml";
	for (int i = 0; i < 2; i++) {
		struct gpu_static *st = &g[i].st;
		g[i].index = (unsigned)i;
		g[i].have_static = 1;
		GPU_STATIC_SET(st, index, (unsigned)i);
		GPU_STATIC_SET(st, minor_number, (unsigned)i + 4);
		snprintf(st->name, sizeof(st->name), "NVIDIA H100 80GB HBM3");
		GPU_STATIC_MARK(st, name);
		snprintf(st->uuid, sizeof(st->uuid), "GPU-%d", i);
		GPU_STATIC_MARK(st, uuid);
		snprintf(st->pci_bus_id, sizeof(st->pci_bus_id), "00000000:%02X:00.0", 0x18 + i);
		GPU_STATIC_MARK(st, pci_bus_id);
		snprintf(st->driver_version, sizeof(st->driver_version), "550.54.15");
		GPU_STATIC_MARK(st, driver_version);
		GPU_STATIC_SET(st, cuda_driver_version, 12040);
		GPU_STATIC_SET(st, clock_event_reasons_supported, 0x1ffull);
	}
	g[0].answered = 1;
	GPU_SAMPLE_SET(&g[0].s, util_gpu_pct, 97);
	GPU_SAMPLE_SET(&g[0].s, fb_used_bytes, 63488ull * 1048576 + 1000);
	GPU_SAMPLE_SET(&g[0].s, power_mw, 412500);
	GPU_SAMPLE_SET(&g[0].s, energy_mj, 8123456789ull);
	GPU_SAMPLE_SET(&g[0].s, clock_sm_mhz, 1980);
	GPU_SAMPLE_SET(&g[0].s, ecc_dbe_volatile, 2);
	GPU_SAMPLE_SET(&g[0].s, clock_event_reasons, 0x4 | 0x40);
	GPU_SAMPLE_SET(&g[0].s, violation_thermal_ns, 2500000000ull);
	g[0].s.nlinks = 2;
	GPU_LINK_SET(&g[0].s.links[0], err_replay, 3);
	GPU_LINK_SET(&g[0].s.links[1], err_replay, 4);
	GPU_LINK_SET(&g[0].s.links[1], tx_kib, 10);
	g[1].lost = 1;
	g[1].rc = GPU_ERR_LOST;
}

static char *render(const struct xview *v, enum names_mode m, enum expo_format f)
{
	struct strbuf b = STRBUF_INIT;
	families_render(v, m, f, &b);
	families_render_tail(f, 0.25, 3, &b);
	return strbuf_detach(&b, NULL);
}

#define HAS(text, line) \
	do { \
		if (!strstr(text, line)) \
			fail_msg("missing: %s", line); \
	} while (0)
#define LACKS(text, part) \
	do { \
		if (strstr(text, part)) \
			fail_msg("unexpected: %s", part); \
	} while (0)

static void test_native(void **state)
{
	struct xview v;
	struct xgpu g[2];
	char *t;
	(void)state;
	make_view(&v, g);
	t = render(&v, NAMES_NATIVE, EXPO_TEXT);
	HAS(t, "gpu_up{gpu=\"0\",uuid=\"GPU-0\"} 1\n");
	HAS(t, "gpu_up{gpu=\"1\",uuid=\"GPU-1\"} 0\n");
	HAS(t, "gpu_lost{gpu=\"1\",uuid=\"GPU-1\"} 1\n");
	HAS(t, "gpu_utilization_ratio{gpu=\"0\",uuid=\"GPU-0\"} 0.97\n");
	HAS(t, "gpu_memory_used_bytes{gpu=\"0\",uuid=\"GPU-0\"} 66571994088\n");
	HAS(t, "gpu_power_watts{gpu=\"0\",uuid=\"GPU-0\"} 412.5\n");
	HAS(t, "gpu_energy_joules_total{gpu=\"0\",uuid=\"GPU-0\"} 8123456.789\n");
	HAS(t, "gpu_sm_clock_hertz{gpu=\"0\",uuid=\"GPU-0\"} 1980000000\n");
	HAS(t, "gpu_ecc_volatile_errors_total{gpu=\"0\",uuid=\"GPU-0\",type=\"uncorrected\"} 2\n");
	HAS(t, "gpu_clock_event_active{gpu=\"0\",uuid=\"GPU-0\",reason=\"sw_power_cap\"} 1\n");
	HAS(t, "gpu_clock_event_active{gpu=\"0\",uuid=\"GPU-0\",reason=\"gpu_idle\"} 0\n");
	HAS(t, "gpu_throttled_seconds_total{gpu=\"0\",uuid=\"GPU-0\",reason=\"thermal\"} 2.5\n");
	HAS(t, "gpu_nvlink_errors_total{gpu=\"0\",uuid=\"GPU-0\",link=\"1\",type=\"replay\"} 4\n");
	HAS(t, "gpu_nvlink_transmit_bytes_total{gpu=\"0\",uuid=\"GPU-0\",link=\"1\"} 10240\n");
	HAS(t, "cuda_version=\"12.4\"");
	HAS(t, "hostname=\"node\\\"7\"");
	HAS(t, "gpuscope_exporter_sample_age_seconds 0.25\n");
	HAS(t, "gpuscope_exporter_scrapes_total 3\n");
	/* a lost GPU keeps only its identity and health series */
	LACKS(t, "gpu_utilization_ratio{gpu=\"1\"");
	LACKS(t, "gpu_power_watts{gpu=\"1\"");
	/* absent readings are absent, not 0 */
	LACKS(t, "gpu_memory_temperature_celsius");
	LACKS(t, "gpu_fan_speed_ratio");
	/* no dcgm names */
	LACKS(t, "DCGM_");
	/* each HELP once */
	{
		const char *help = strstr(t, "# HELP gpu_ecc_volatile_errors_total");
		assert_non_null(help);
		assert_null(strstr(help + 1, "# HELP gpu_ecc_volatile_errors_total"));
	}
	{
		const char *first = strstr(t, "# TYPE gpu_nvlink_errors_total");
		assert_non_null(first);
		assert_null(strstr(first + 1, "# TYPE gpu_nvlink_errors_total"));
	}
	free(t);
}

static void test_dcgm(void **state)
{
	struct xview v;
	struct xgpu g[2];
	char *t;
	const char *labels =
		"{gpu=\"0\",UUID=\"GPU-0\",pci_bus_id=\"00000000:18:00.0\",device=\"nvidia4\","
		"modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"node\\\"7\","
		"DCGM_FI_DRIVER_VERSION=\"550.54.15\"}";
	char line[512];
	(void)state;
	make_view(&v, g);
	t = render(&v, NAMES_DCGM, EXPO_TEXT);
	snprintf(line, sizeof(line), "DCGM_FI_DEV_GPU_UTIL%s 97\n", labels);
	HAS(t, line);
	snprintf(line, sizeof(line), "DCGM_FI_DEV_FB_USED%s 63488\n", labels);
	HAS(t, line);
	snprintf(line, sizeof(line), "DCGM_FI_DEV_POWER_USAGE%s 412.5\n", labels);
	HAS(t, line);
	snprintf(line, sizeof(line), "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION%s 8123456789\n", labels);
	HAS(t, line);
	snprintf(line, sizeof(line), "DCGM_FI_DEV_SM_CLOCK%s 1980\n", labels);
	HAS(t, line);
	snprintf(line, sizeof(line), "DCGM_FI_DEV_THERMAL_VIOLATION%s 2500000000\n", labels);
	HAS(t, line);
	snprintf(line, sizeof(line), "DCGM_FI_DEV_CLOCKS_EVENT_REASONS%s 68\n", labels);
	HAS(t, line);
	snprintf(line, sizeof(line), "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL%s 7\n", labels);
	HAS(t, line);
	HAS(t, "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n");
	HAS(t, "err_code=\"0\",err_msg=\"No Error\"} 0\n");
	/* dcgm has no gpu_up: the native name fills the gap */
	HAS(t, "gpu_up{gpu=\"1\",uuid=\"GPU-1\"} 0\n");
	/* the native twins of dcgm fields are left out */
	LACKS(t, "gpu_utilization_ratio");
	LACKS(t, "gpu_power_watts");
	/* but native-only families stay */
	HAS(t, "gpu_nvlink_errors_total{");
	free(t);

	t = render(&v, NAMES_BOTH, EXPO_TEXT);
	HAS(t, "DCGM_FI_DEV_GPU_UTIL{");
	HAS(t, "gpu_utilization_ratio{gpu=\"0\",uuid=\"GPU-0\"} 0.97\n");
	/* every dcgm family comes before every native one */
	assert_true(strstr(t, "gpu_utilization_ratio{") > strstr(t, "DCGM_FI_DEV_XID_ERRORS{"));
	free(t);
}

static void test_xid_mig_processes(void **state)
{
	struct xview v;
	struct xgpu g[2];
	struct xid_count xc[2] = {{48, 3, 1}, {79, 1, 0}};
	struct gpu_mig_instance mig[3];
	struct gpu_gpm mgpm[3];
	struct xproc pr = {31337, "python3", 1, 1ull << 30, GPU_NO_INSTANCE, GPU_NO_INSTANCE, "4f9c2e7d1a3b"};
	char *t;
	(void)state;
	make_view(&v, g);
	g[1].xids = xc;
	g[1].nxids = 2;
	g[1].has_last_xid = 1;
	g[1].last_xid = 79;
	g[1].last_xid_time_s = 1700000000;
	memset(mig, 0, sizeof(mig));
	mig[0] = (struct gpu_mig_instance){1, 0, "MIG-a", 1, 40ull << 30, 1ull << 30, "3g.40gb"};
	mig[1] = (struct gpu_mig_instance){1, 1, "MIG-b", 1, 40ull << 30, 1ull << 30, "3g.40gb"};
	mig[2] = (struct gpu_mig_instance){2, 0, "MIG-c", 1, 40ull << 30, 2ull << 30, "3g.40gb"};
	g[0].mig = mig;
	g[0].nmig = 3;
	memset(mgpm, 0, sizeof(mgpm));
	GPU_GPM_SET(&mgpm[0], sm_active_pct, 62.5);
	GPU_GPM_SET(&mgpm[1], sm_active_pct, 62.5);
	GPU_GPM_SET(&mgpm[2], sm_active_pct, 12.5);
	GPU_GPM_SET(&g[0].gpm, sm_active_pct, 99); /* ignored: MIG is on */
	g[0].mig_gpm = mgpm;
	g[0].procs = &pr;
	g[0].nprocs = 1;

	t = render(&v, NAMES_BOTH, EXPO_TEXT);
	/* XIDs count every occurrence, also on a lost GPU */
	HAS(t, "gpu_xid_errors_total{gpu=\"1\",uuid=\"GPU-1\",xid=\"48\"} 3\n");
	HAS(t, "gpu_xid_errors_total{gpu=\"1\",uuid=\"GPU-1\",xid=\"79\"} 1\n");
	HAS(t, "gpu_xid_last_code{gpu=\"1\",uuid=\"GPU-1\"} 79\n");
	HAS(t, "gpu_xid_last_timestamp_seconds{gpu=\"1\",uuid=\"GPU-1\"} 1700000000\n");
	HAS(t, "err_code=\"79\",err_msg=\"");
	HAS(t, ",xid=\"48\",window_size_in_ms=\"300000\"} 1\n");
	LACKS(t, ",xid=\"79\",window_size_in_ms");
	/* dcgm: one memory series per GPU instance, not per compute instance */
	HAS(t, "DCGM_FI_DEV_FB_USED{gpu=\"0\"");
	HAS(t, ",GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"1\"} 1024\n");
	HAS(t, ",GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"2\"} 2048\n");
	/* profiling metrics of a MIG GPU: per GPU instance, never for the whole GPU */
	HAS(t, ",GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"1\"} 0.625\n");
	HAS(t, "gpu_sm_active_ratio{gpu=\"0\",uuid=\"GPU-0\",gpu_instance=\"2\",mig_profile=\"3g.40gb\"} 0.125\n");
	LACKS(t, "gpu_sm_active_ratio{gpu=\"0\",uuid=\"GPU-0\"} ");
	/* a GPU without GPM: no profiling family at all, not zeros */
	LACKS(t, "gpu_sm_active_ratio{gpu=\"1\"");
	LACKS(t, "gpu_pipe_active_ratio");
	{
		const char *p = strstr(t, ",GPU_I_ID=\"1\"} 1024\n");
		assert_null(strstr(p + 1, ",GPU_I_ID=\"1\"} 1024\nDCGM_FI_DEV_FB_USED"));
	}
	/* native: one series per MIG device */
	HAS(t,
	    "gpu_mig_memory_used_bytes{gpu=\"0\",uuid=\"GPU-0\",gpu_instance=\"1\",compute_instance=\"1\",mig_profile=\"3g.40gb\",mig_uuid=\"MIG-b\"} 1073741824\n");
	/* processes only when asked for */
	LACKS(t, "gpu_process_memory_used_bytes");
	free(t);
	v.processes = 1;
	t = render(&v, NAMES_NATIVE, EXPO_TEXT);
	HAS(t,
	    "gpu_process_memory_used_bytes{gpu=\"0\",uuid=\"GPU-0\",pid=\"31337\",container_id=\"4f9c2e7d1a3b\",process=\"python3\"} 1073741824\n");
	free(t);
}

static void test_openmetrics(void **state)
{
	struct xview v;
	struct xgpu g[2];
	char *t;
	size_t n;
	(void)state;
	make_view(&v, g);
	t = render(&v, NAMES_BOTH, EXPO_OPENMETRICS);
	n = strlen(t);
	assert_true(n > 6 && !strcmp(t + n - 6, "# EOF\n"));
	assert_null(strchr(t, '\r'));
	HAS(t, "# TYPE gpu_energy_joules counter\n# UNIT gpu_energy_joules joules\n");
	HAS(t, "\ngpu_energy_joules_total{gpu=\"0\"");
	HAS(t, "# TYPE gpu info\n");
	HAS(t, "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION unknown\n");
	HAS(t, "# TYPE gpuscope_exporter_build info\n");
	free(t);
}

static void test_no_gpus(void **state)
{
	struct xview v;
	char *t;
	(void)state;
	memset(&v, 0, sizeof(v));
	v.stats.interval_s = 1;
	t = render(&v, NAMES_BOTH, EXPO_TEXT);
	HAS(t, "gpuscope_exporter_backend_up{backend=\"nvml\"} 0\n");
	HAS(t, "gpuscope_exporter_gpus 0\n");
	LACKS(t, "gpu_up");
	LACKS(t, "DCGM_");
	free(t);
}

/* Every gpu_* and gpuscope_* name in deploy/ (dashboard, alert rules) is a family the exporter has. */
static void check_names_in(const char *path, const char *exporter_text)
{
	FILE *f = fopen(path, "r");
	char *text;
	long n;
	size_t i, checked = 0;
	if (!f)
		fail_msg("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = malloc((size_t)n + 1);
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	text[n] = '\0';
	fclose(f);
	for (i = 0; i < (size_t)n; i++) {
		char tok[128];
		size_t k = 0, j, fi;
		int known = 0;
		/* skip label-matcher values: ="..", !="..", =~".." (quotes may be JSON-escaped) */
		if ((text[i] == '=' || text[i] == '~') && i + 1 < (size_t)n &&
		    (text[i + 1] == '"' || (text[i + 1] == '\\' && text[i + 2] == '"'))) {
			i += text[i + 1] == '"' ? 2 : 3;
			while (i < (size_t)n && text[i] != '"')
				i++;
			continue;
		}
		if (i > 0 && (text[i - 1] == '_' || (text[i - 1] >= 'a' && text[i - 1] <= 'z') ||
			      (text[i - 1] >= '0' && text[i - 1] <= '9')))
			continue;
		if (strncmp(text + i, "gpu_", 4) && strncmp(text + i, "gpuscope_", 9))
			continue;
		for (j = i; j < (size_t)n && k + 1 < sizeof(tok) &&
			    ((text[j] >= 'a' && text[j] <= 'z') || text[j] == '_');
		     j++)
			tok[k++] = text[j];
		tok[k] = '\0';
		i = j;
		/* labels the exporter puts on series, not families */
		known = !strcmp(tok, "gpu_instance");
		for (fi = 0; fi < families_count() && !known; fi++) {
			const char *nat, *dc, *h;
			int a, b;
			families_names(fi, &nat, &dc, &a, &b, &h);
			known = nat && !strcmp(nat, tok);
		}
		if (!known) {
			char help[160];
			snprintf(help, sizeof(help), "# HELP %s ", tok);
			known = strstr(exporter_text, help) != NULL;
		}
		if (!known)
			fail_msg("%s names '%s', which gpuscope export does not serve", path, tok);
		checked++;
	}
	assert_true(checked >= 10);
	free(text);
}

static void test_deploy_names(void **state)
{
	const char *src = getenv("SRCDIR");
	struct xview v;
	char path[1024], *t;
	(void)state;
	if (!src || !*src)
		skip();
	memset(&v, 0, sizeof(v));
	v.stats.interval_s = 1;
	t = render(&v, NAMES_NATIVE, EXPO_TEXT);
	snprintf(path, sizeof(path), "%s/deploy/grafana/gpuscope-dashboard.json", src);
	check_names_in(path, t);
	snprintf(path, sizeof(path), "%s/deploy/prometheus/alerts.yml", src);
	check_names_in(path, t);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_rules),  cmocka_unit_test(test_native),
		cmocka_unit_test(test_dcgm),         cmocka_unit_test(test_xid_mig_processes),
		cmocka_unit_test(test_openmetrics),  cmocka_unit_test(test_no_gpus),
		cmocka_unit_test(test_deploy_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
