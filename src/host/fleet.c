/*
 * What fleet engines read from a check: findings grouped across GPUs (so
 * 72 GPUs with one cause are one finding) and the one-line summary that
 * node-problem-detector, NHC and Slurm show as their message or reason.
 */
#include <stdlib.h>
#include <string.h>

#include "host/check.h"
#include "util/xalloc.h"

static int same_text(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* Same cause: same id, status and remedy (the finding may name the GPU's bus id). */
static int same_cause(const struct check_item *a, const struct check_item *b)
{
	return !strcmp(a->id, b->id) && a->status == b->status && same_text(a->remedy, b->remedy);
}

size_t check_groups(const struct check_report *r, enum check_status min, struct check_group **out)
{
	struct check_group *g = NULL;
	char *taken = xcalloc(r->nitems ? r->nitems : 1, 1);
	size_t n = 0, i, k;
	for (i = 0; i < r->nitems; i++) {
		const struct check_item *it = &r->items[i];
		struct check_group *cg;
		if (taken[i] || it->status < min)
			continue;
		g = xrealloc(g, (n + 1) * sizeof(*g));
		cg = &g[n++];
		memset(cg, 0, sizeof(*cg));
		cg->item = i;
		cg->same_finding = 1;
		if (it->gpu < 0)
			continue;
		for (k = i; k < r->nitems; k++) {
			const struct check_item *o = &r->items[k];
			if (taken[k] || o->gpu < 0 || !same_cause(it, o))
				continue;
			taken[k] = 1;
			/* a GPU repeats a check (one Xid item per code): list it once */
			if (cg->ngpus && cg->gpus[cg->ngpus - 1] == o->gpu)
				continue;
			cg->gpus = xrealloc(cg->gpus, (cg->ngpus + 1) * sizeof(*cg->gpus));
			cg->gpus[cg->ngpus++] = o->gpu;
			cg->same_finding &= same_text(it->finding, o->finding);
		}
	}
	free(taken);
	*out = g;
	return n;
}

void check_groups_free(struct check_group *g, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		free(g[i].gpus);
	free(g);
}

void check_gpu_list(const int *gpus, size_t n, struct strbuf *out)
{
	size_t i = 0, j;
	while (i < n) {
		for (j = i; j + 1 < n && gpus[j + 1] == gpus[j] + 1; j++)
			;
		strbuf_addf(out, "%s%d", i ? "," : "", gpus[i]);
		if (j > i)
			strbuf_addf(out, "%s%d", j == i + 1 ? "," : "-", gpus[j]);
		i = j + 1;
	}
}

int check_has_failure(const struct check_report *r)
{
	size_t i;
	for (i = 0; i < r->nitems; i++)
		if (r->items[i].status == CHECK_FAIL)
			return 1;
	return 0;
}

/* Text with control characters as '?', so the message stays one line. */
static void add_clean(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++)
		strbuf_addch(sb, (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
}

/* "title, gpu 0-3,5: finding" */
static void group_text(const struct check_report *r, const struct check_group *g, struct strbuf *sb)
{
	const struct check_item *it = &r->items[g->item];
	add_clean(sb, it->title);
	if (g->ngpus) {
		strbuf_addstr(sb, g->ngpus > 1 ? ", gpus " : ", gpu ");
		check_gpu_list(g->gpus, g->ngpus, sb);
		if (!g->same_finding)
			strbuf_addf(sb, " (gpu %d)", it->gpu);
	}
	strbuf_addstr(sb, ": ");
	add_clean(sb, it->finding);
}

/* Cuts sb to max bytes at a UTF-8 character boundary, ending in '~'. */
static void cut(struct strbuf *sb, size_t max)
{
	const char *s = strbuf_str(sb);
	size_t n;
	if (sb->len <= max)
		return;
	n = max - 1;
	while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	strbuf_setlen(sb, n);
	strbuf_addch(sb, '~');
}

void check_summary(const struct check_report *r, size_t max, struct strbuf *out)
{
	struct strbuf sb = STRBUF_INIT;
	struct check_group *g;
	size_t n = check_groups(r, CHECK_WARN, &g), i, count[4], shown = 0;
	enum check_status want = check_has_failure(r) ? CHECK_FAIL : CHECK_WARN;

	check_count(r, count);
	strbuf_addstr(&sb, "gpuscope: ");
	if (!count[CHECK_FAIL] && !count[CHECK_WARN]) {
		if (check_exit_code(r) == EXIT_ENV)
			strbuf_addstr(&sb, "no GPU to check");
		else
			strbuf_addf(&sb, "%zu checks ok on %u GPU%s", count[CHECK_OK], r->ngpus,
				    r->ngpus == 1 ? "" : "s");
	} else {
		size_t c = count[want];
		strbuf_addf(&sb, "%zu %s%s: ", c, want == CHECK_FAIL ? "failure" : "warning", c == 1 ? "" : "s");
		for (i = 0; i < n; i++) {
			if (r->items[g[i].item].status != want)
				continue;
			if (shown++)
				strbuf_addstr(&sb, "; ");
			group_text(r, &g[i], &sb);
		}
	}
	cut(&sb, max < 16 ? 16 : max);
	strbuf_addstr(out, strbuf_str(&sb));
	strbuf_release(&sb);
	check_groups_free(g, n);
}
