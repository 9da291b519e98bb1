/*
 * Questions a listing asks of any table, answered from the column tables
 * (catalog/schema.c) instead of per table: which rows pass the filters,
 * which row of any table a name means, which precisions have a peak.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "catalog/catalog.h"
#include "util/names.h"
#include "util/strbuf.h"

static const char *const precisions[] = {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "fp4"};
#define NPRECISIONS (sizeof(precisions) / sizeof(precisions[0]))

int cat_precision_from_name(const char *name)
{
	return names_index(precisions, NPRECISIONS, name);
}

const char *cat_precision_name(int i)
{
	return i >= 0 && (size_t)i < NPRECISIONS ? precisions[i] : NULL;
}

double cat_gpu_peak_tflops(const struct cat_gpu *g, const char *precision)
{
	/* in precisions[]' order */
	const double peaks[] = {g->fp64_tflops, g->fp32_tflops, g->tf32_tflops, g->fp16_tflops,
				g->bf16_tflops, g->fp8_tflops,  g->int8_tops,   g->fp4_tflops};
	int i = cat_precision_from_name(precision);
	_Static_assert(sizeof(peaks) / sizeof(peaks[0]) == NPRECISIONS, "a peak per precision");
	return i < 0 ? NAN : peaks[i];
}

static const char *const tiers[CAT_NTIERS] = {"on-demand", "1y", "3y", "spot"};

int cat_tier_from_name(const char *name)
{
	return names_index(tiers, CAT_NTIERS, name);
}

const char *cat_tier_name(enum cat_tier t)
{
	return (unsigned)t < CAT_NTIERS ? tiers[t] : NULL;
}

int cat_tier_committed(enum cat_tier t)
{
	return t == CAT_TIER_1Y || t == CAT_TIER_3Y;
}

double cat_cloud_usd_per_hour(const struct cat_cloud *c, enum cat_tier t)
{
	switch (t) {
	case CAT_TIER_ON_DEMAND:
		return c->usd_per_hour;
	case CAT_TIER_1Y:
		return c->usd_per_hour_1y;
	case CAT_TIER_3Y:
		return c->usd_per_hour_3y;
	case CAT_TIER_SPOT:
		return c->usd_per_hour_spot;
	default:
		return NAN;
	}
}

void cat_cloud_tiers(const struct cat_cloud *c, struct strbuf *sb)
{
	size_t start = sb->len;
	int t;
	for (t = 0; t < CAT_NTIERS; t++)
		if (cat_has(cat_cloud_usd_per_hour(c, (enum cat_tier)t)))
			strbuf_addf(sb, "%s%s", sb->len > start ? ", " : "", tiers[t]);
	if (sb->len == start)
		strbuf_addstr(sb, "none");
}

/* Whether the text column `name` of a row (if the table has one) equals want, ignoring case. */
static int text_is(enum cat_table t, const void *row, const char *name, const char *want)
{
	const struct cat_column *c = catalog_column(t, name);
	const char *v;
	if (!want || !c)
		return 1;
	v = cat_cell_text(c, row);
	return v && !strcasecmp(v, want);
}

int catalog_row_matches(enum cat_table t, const void *row, const struct cat_filter *f)
{
	const struct cat_column *mem = catalog_column(t, "memory_gib");
	const struct cat_column *gpu = catalog_column(t, "gpu");
	const char *key;
	if (!text_is(t, row, "vendor", f->vendor) || !text_is(t, row, "provider", f->provider))
		return 0;
	if (mem && !isnan(f->min_memory_gib) && !(cat_cell_num(mem, row) >= f->min_memory_gib))
		return 0;
	if (!gpu || !f->gpu_key)
		return 1;
	key = cat_cell_text(gpu, row);
	return key && !strcmp(key, f->gpu_key);
}

const void *catalog_resolve_any(const struct catalog *c, const char *name, enum cat_table *table, char *why,
				size_t why_len)
{
	char msg[1024];
	int t, ambiguous = 0;
	const void *r;
	for (t = 0; t < CAT_NTABLES; t++)
		if ((r = catalog_get(c, (enum cat_table)t, name))) {
			*table = (enum cat_table)t;
			return r;
		}
	if (why_len)
		why[0] = 0;
	for (t = 0; t < CAT_NTABLES; t++) {
		r = catalog_resolve(c, (enum cat_table)t, name, msg, sizeof(msg));
		if (r) {
			*table = (enum cat_table)t;
			return r;
		}
		if (!ambiguous && (t == CAT_GPUS || strstr(msg, "ambiguous"))) {
			snprintf(why, why_len, "%s", msg);
			ambiguous = strstr(msg, "ambiguous") != NULL;
		}
	}
	return NULL;
}
