/*
 * bench --quick: is each GPU as fast as its peers, and if not, why.
 *
 * The reference for the 16-bit GEMM and the HBM copy is the fleet's
 * calibration file when given, else what the catalog and the model expect
 * (bench_row.expected); host copies are held against the catalog's PCIe
 * figure.  A GPU is flagged when the lower of its GEMM and HBM ratios is
 * BENCH_QUICK_SLOW_PCT or more below 1, or its host copies are.  The
 * cause is read from what NVML saw during the run, most specific first:
 * a power cap (enforced limit under the default, or the power-cap reason),
 * thermal slowdown, a PCIe link below its width or generation, low clocks
 * without a reason, then ECC (which costs some bandwidth on every part).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "gpu/gpu.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const struct bench_row *gemm16(const struct bench_result *r, int gpu)
{
	const struct bench_row *b = NULL;
	size_t i;
	for (i = 0; i < r->nrows; i++) {
		const struct bench_row *x = &r->rows[i];
		if (!strcmp(x->test, "gemm") && x->gpu == gpu && !x->label && x->dtype &&
		    (!strcmp(x->dtype, "bf16") || !strcmp(x->dtype, "fp16")) && (!b || x->tflops > b->tflops))
			b = x;
	}
	return b;
}

static const struct bench_row *find(const struct bench_result *r, const char *test, int gpu)
{
	size_t i;
	for (i = 0; i < r->nrows; i++)
		if (!strcmp(r->rows[i].test, test) && r->rows[i].gpu == gpu)
			return &r->rows[i];
	return NULL;
}

static double ratio(double v, double ref)
{
	return v > 0 && ref > 0 ? v / ref : NAN;
}

static double lower(double a, double b)
{
	return isnan(a) || b < a ? b : a;
}

/* What NVML and the link say, in order; NULL when nothing explains it. */
static char *cause_of(const struct bench_gpu *g, const struct bench_clocks *c, int host_slow)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t power = GPU_CLOCK_EVENT_SW_POWER_CAP | GPU_CLOCK_EVENT_HW_POWER_BRAKE;
	uint64_t thermal = GPU_CLOCK_EVENT_SW_THERMAL | GPU_CLOCK_EVENT_HW_THERMAL | GPU_CLOCK_EVENT_HW_SLOWDOWN;
	if ((c->reasons & power) || g->power_limit_w < 0.95 * g->power_default_limit_w) {
		strbuf_addstr(&sb, "power cap");
		if (g->power_limit_w > 0 && g->power_default_limit_w > 0)
			strbuf_addf(&sb, " (limit %.0f of %.0f W)", g->power_limit_w, g->power_default_limit_w);
	} else if (c->reasons & thermal) {
		strbuf_addf(&sb, "thermal slowdown");
		if (c->temp_c > 0)
			strbuf_addf(&sb, " (%.0f C)", c->temp_c);
	} else if (c->sm_mhz < 0.9 * g->clock_max_sm_mhz) {
		strbuf_addf(&sb, "clocks (SM %.0f of %.0f MHz, no reason given)", c->sm_mhz, g->clock_max_sm_mhz);
	}
	if (host_slow && g->pcie_width > 0 && g->pcie_max_width > 0 &&
	    (g->pcie_width < g->pcie_max_width || g->pcie_gen < g->pcie_max_gen))
		strbuf_addf(&sb, "%sPCIe link x%d of x%d, gen %d of %d", sb.len ? "; " : "", g->pcie_width,
			    g->pcie_max_width, g->pcie_gen, g->pcie_max_gen);
	if (!sb.len && g->ecc == 1)
		strbuf_addstr(&sb, "ECC on (costs some memory bandwidth)");
	return sb.len ? strbuf_detach(&sb, NULL) : (strbuf_release(&sb), NULL);
}

size_t bench_quick_verdicts(const struct bench_result *r, const struct model_calibration *base,
			    struct bench_verdict **out)
{
	struct bench_verdict *v = xcalloc(r->ngpus ? r->ngpus : 1, sizeof(*v));
	size_t i;
	for (i = 0; i < r->ngpus; i++) {
		const struct bench_row *g = gemm16(r, (int)i), *hbm = find(r, "hbm-copy", (int)i);
		const struct bench_row *h2d = find(r, "h2d", (int)i), *d2h = find(r, "d2h", (int)i);
		int p = g && !strcmp(g->dtype, "bf16") ? MODEL_BF16 : MODEL_FP16;
		double gref = g ? g->expected : NAN, href = hbm ? hbm->expected : NAN, worst;
		struct bench_clocks clk = {0, NAN, NAN, NAN, NAN, NAN, 0};
		if (base && base->gemm_tflops[p] > 0)
			gref = base->gemm_tflops[p];
		if (base && base->hbm_gbps > 0)
			href = base->hbm_gbps;
		v[i].gpu = (int)i;
		v[i].gemm_ratio = ratio(g ? g->tflops : NAN, gref);
		v[i].hbm_ratio = ratio(hbm ? hbm->gbps : NAN, href);
		v[i].host_ratio = lower(ratio(h2d ? h2d->gbps : NAN, h2d ? h2d->expected : NAN),
					ratio(d2h ? d2h->gbps : NAN, d2h ? d2h->expected : NAN));
		worst = lower(v[i].gemm_ratio, v[i].hbm_ratio);
		v[i].slower_pct = worst < 1 ? 100 * (1 - worst) : 0;
		v[i].flagged = v[i].slower_pct >= BENCH_QUICK_SLOW_PCT ||
			       v[i].host_ratio < 1 - BENCH_QUICK_SLOW_PCT / 100;
		clk = g ? g->clk : hbm ? hbm->clk : clk;
		if (v[i].flagged)
			v[i].cause = cause_of(&r->gpus[i], &clk, v[i].host_ratio < 1 - BENCH_QUICK_SLOW_PCT / 100);
	}
	*out = v;
	return r->ngpus;
}

void bench_verdicts_free(struct bench_verdict *v, size_t n)
{
	size_t i;
	for (i = 0; v && i < n; i++)
		free(v[i].cause);
	free(v);
}
