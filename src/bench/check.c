/*
 * gpuscope check --bench: bench --quick through the same library code, its
 * verdicts added to the check report as findings (docs/check.md, "bench").
 */
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "host/check.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* What to do about a cause bench_quick_verdicts named (quick.c's words). */
static char *remedy_of(const char *cause)
{
	if (!cause)
		return xstrdup("compare with `gpuscope bench --quick --baseline FILE` of a good GPU of the fleet");
	if (!strncmp(cause, "power cap", 9))
		return xstrdup("restore the default power limit (nvidia-smi -q -d POWER; nvidia-smi -pl W)");
	if (!strncmp(cause, "thermal", 7))
		return xstrdup("check the cooling: airflow, fans, inlet temperature");
	if (strstr(cause, "PCIe"))
		return xstrdup("reseat the GPU or move it to a full-width slot; check the link (lspci -vv)");
	if (!strncmp(cause, "clocks", 6))
		return xstrdup("check application clocks and locks (nvidia-smi -q -d CLOCK)");
	return xstrdup("compare with a good GPU of the fleet (bench --quick --baseline FILE)");
}

static char *pct_text(double ratio)
{
	struct strbuf sb = STRBUF_INIT;
	if (ratio > 0)
		strbuf_addf(&sb, "%.0f %%", 100 * ratio);
	else
		strbuf_addstr(&sb, "-");
	return strbuf_detach(&sb, NULL);
}

/* "GEMM 48 %, HBM 89 %, host copies 103 % of expected" */
static void ratios(struct strbuf *sb, const struct bench_verdict *v)
{
	char *g = pct_text(v->gemm_ratio), *h = pct_text(v->hbm_ratio), *c = pct_text(v->host_ratio);
	strbuf_addf(sb, "GEMM %s, HBM %s, host copies %s of expected", g, h, c);
	free(g);
	free(h);
	free(c);
}

static void add_verdict(struct check_report *cr, const struct bench_verdict *v)
{
	struct strbuf sb = STRBUF_INIT;
	if (!v->flagged) {
		strbuf_addstr(&sb, "as fast as expected: ");
		ratios(&sb, v);
		check_report_add(cr, "gpu.bench", "bench", v->gpu, CHECK_OK, strbuf_detach(&sb, NULL), NULL);
		return;
	}
	if (v->slower_pct >= BENCH_QUICK_SLOW_PCT)
		strbuf_addf(&sb, "%.0f %% slower than expected (", v->slower_pct);
	else
		strbuf_addf(&sb, "host link %.0f %% slower than expected (", 100 * (1 - v->host_ratio));
	ratios(&sb, v);
	strbuf_addf(&sb, "); likely cause: %s", v->cause ? v->cause : "none that NVML shows");
	check_report_add(cr, "gpu.bench", "bench", v->gpu, CHECK_WARN, strbuf_detach(&sb, NULL),
			 remedy_of(v->cause));
}

static void add_skip(struct check_report *cr, const char *why)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "bench skipped: %s", why);
	check_report_add(cr, "bench", "bench", -1, CHECK_SKIP, strbuf_detach(&sb, NULL), NULL);
}

void bench_check(struct check_report *cr, const struct catalog *cat, const char *nvml_path, const char *lib_dirs)
{
	struct bench_opts o = {0};
	struct bench_result *r = NULL;
	struct bench_verdict *v = NULL;
	const struct cat_gpu *type;
	struct diag err;
	char why[512];
	size_t nv, i;
	o.lib_dirs = lib_dirs;
	o.nvml_path = nvml_path;
	o.parts = BENCH_ALL;
	o.quick = 1;
	diag_clear(&err);
	if (bench_run(&o, &r, &err)) {
		diag_format(&err, why, sizeof(why));
		add_skip(cr, why);
		bench_result_free(r);
		return;
	}
	type = r->ngpus ? catalog_gpu(cat, r->gpus[0].name, why, sizeof(why)) : NULL;
	if (!type) {
		add_skip(cr, r->ngpus ? why : "no GPU");
		bench_result_free(r);
		return;
	}
	bench_set_expected(r, type);
	nv = bench_quick_verdicts(r, NULL, &v);
	for (i = 0; i < nv; i++)
		add_verdict(cr, &v[i]);
	for (i = 0; i < r->nskipped; i++)
		add_skip(cr, r->skipped[i]);
	bench_verdicts_free(v, nv);
	bench_result_free(r);
}
