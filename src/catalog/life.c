/*
 * Lifecycle of the catalog's parts: whether a GPU or server can still be
 * bought (gpus.csv and servers.csv end_of_sale) and whether current CUDA
 * and PyTorch releases still run its architecture (gpus.csv cuda_last,
 * pytorch_last), and whether a price is too old to stand for today's.  The
 * facts are catalog cells with their sources (docs/catalog.md,
 * "Lifecycle"); this file only reads them against a month.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "catalog/catalog.h"
#include "util/strbuf.h"

int cat_month_parse(const char *s)
{
	int y, m, n = 0;
	size_t len;
	if (!s)
		return -1;
	len = strlen(s);
	if ((len != 7 && len != 10) || sscanf(s, "%4d-%2d%n", &y, &m, &n) != 2 || n != 7 ||
	    !isdigit((unsigned char)s[5]) || !isdigit((unsigned char)s[6]) || m < 1 || m > 12 || y < 1900)
		return -1;
	return y * 12 + m - 1;
}

int cat_month_now(void)
{
	time_t t = time(NULL);
	struct tm tm;
	if (t == (time_t)-1 || !gmtime_r(&t, &tm))
		return -1;
	return (tm.tm_year + 1900) * 12 + tm.tm_mon;
}

/* An end of sale that has come: a month at or before now (an unreadable now counts every date as come). */
static int ended(const char *end_of_sale, int now_month)
{
	int m = cat_month_parse(end_of_sale);
	return m >= 0 && (now_month < 0 || m <= now_month);
}

unsigned cat_gpu_life(const struct cat_gpu *g, int now_month)
{
	unsigned life = 0;
	if (!g)
		return 0;
	if (ended(g->end_of_sale, now_month))
		life |= CAT_LIFE_END_OF_SALE;
	if (cat_has(g->cuda_last) || g->pytorch_last)
		life |= CAT_LIFE_UNSUPPORTED;
	return life;
}

static const struct cat_gpu *server_gpu(const struct catalog *c, const struct cat_server *s)
{
	return s->gpu ? catalog_get(c, CAT_GPUS, s->gpu) : NULL;
}

unsigned cat_server_life(const struct catalog *c, const struct cat_server *s, int now_month)
{
	return (ended(s->end_of_sale, now_month) ? CAT_LIFE_END_OF_SALE : 0) |
	       cat_gpu_life(server_gpu(c, s), now_month);
}

const char *cat_life_marks(unsigned life)
{
	static const char *const marks[] = {"", "eos", "sw", "eos+sw"};
	return marks[life & 3u];
}

void cat_life_legend(unsigned life, const char *open, const char *close, struct strbuf *sb)
{
	if (life & CAT_LIFE_END_OF_SALE)
		strbuf_addf(sb, " %seos%s past its end of sale;", open, close);
	if (life & CAT_LIFE_UNSUPPORTED)
		strbuf_addf(sb, " %ssw%s its GPU's architecture dropped by current CUDA or PyTorch releases;",
			    open, close);
	if (life & CAT_LIFE_PRICE_STALE)
		strbuf_addf(sb, " %s$%s a price dated (as_of) over %d years ago;", open, close,
			    CAT_PRICE_STALE_MONTHS / 12);
	strbuf_addstr(sb, " the dates and sources: gpuscope catalog show NAME");
}

static void sep(struct strbuf *sb, size_t start)
{
	if (sb->len > start)
		strbuf_addstr(sb, "; ");
}

static void end_of_sale_text(const char *end_of_sale, int now_month, struct strbuf *sb, size_t start)
{
	if (cat_month_parse(end_of_sale) < 0)
		return;
	sep(sb, start);
	strbuf_addf(sb, "end of sale %s%s", end_of_sale, ended(end_of_sale, now_month) ? "" : " (announced)");
}

static void gpu_text(const struct cat_gpu *g, int now_month, struct strbuf *sb, size_t start)
{
	const char *arch = g->arch ? g->arch : g->row.key;
	end_of_sale_text(g->end_of_sale, now_month, sb, start);
	if (!cat_has(g->cuda_last) && !g->pytorch_last)
		return;
	sep(sb, start);
	if (cat_has(g->cuda_last) && g->pytorch_last)
		strbuf_addf(sb, "%s: CUDA %.0f and PyTorch %s were the last releases to support it", arch,
			    g->cuda_last, g->pytorch_last);
	else if (cat_has(g->cuda_last))
		strbuf_addf(sb, "%s: CUDA %.0f was the last toolkit to support it", arch, g->cuda_last);
	else
		strbuf_addf(sb, "%s: PyTorch %s was the last release to support it", arch, g->pytorch_last);
}

void cat_gpu_life_text(const struct cat_gpu *g, int now_month, struct strbuf *sb)
{
	if (g)
		gpu_text(g, now_month, sb, sb->len);
}

void cat_server_life_text(const struct catalog *c, const struct cat_server *s, int now_month, struct strbuf *sb)
{
	size_t start = sb->len, before;
	const struct cat_gpu *g = server_gpu(c, s);
	end_of_sale_text(s->end_of_sale, now_month, sb, start);
	if (!g)
		return;
	before = sb->len;
	sep(sb, start);
	strbuf_addf(sb, "its GPU %s: ", g->row.key);
	{
		size_t mark = sb->len;
		gpu_text(g, now_month, sb, mark);
		if (sb->len == mark)
			strbuf_setlen(sb, before); /* the GPU is current: say nothing of it */
	}
}

const char *cat_life_source(const struct cat_row *r)
{
	const char *p = r && r->source ? strstr(r->source, "lifecycle:") : NULL;
	if (!p)
		return NULL;
	p += strlen("lifecycle:");
	while (*p == ' ')
		p++;
	return *p ? p : NULL;
}

int cat_price_stale(const struct cat_row *r, double price_usd, int now_month)
{
	int m = cat_month_parse(r->as_of);
	return cat_has(price_usd) && m >= 0 && now_month >= 0 && now_month - m > CAT_PRICE_STALE_MONTHS;
}
