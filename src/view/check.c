#include "view/check.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "host/fields.h"
#include "report/table.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define WIDTH 80

static int needs_action(enum check_status s)
{
	return s == CHECK_WARN || s == CHECK_FAIL;
}

/*
 * Text after a lead ("  fail nvlink, gpu 3:", "->"), one space apart, the
 * following lines indented; when even the first word would pass the width
 * after a long lead, the text starts on the next line.
 */
static void wrap(FILE *out, const char *lead, const char *text, int indent)
{
	size_t skip = strspn(text, " "), first = strcspn(text + skip, " "), lead_len = strlen(lead);
	struct strbuf sb = STRBUF_INIT;
	if (!text[skip]) {
		fprintf(out, "%s\n", lead);
		return;
	}
	if (lead_len + 1 + first > WIDTH && lead_len > (size_t)indent) {
		fprintf(out, "%s\n", lead);
		strbuf_addf(&sb, "%*s", indent, "");
	} else {
		strbuf_addf(&sb, "%s ", lead);
	}
	table_wrap(out, strbuf_str(&sb), text, indent, WIDTH);
	strbuf_release(&sb);
}

/* "warn nvlink, gpu 3:" (title: it->title, or a title of the caller's) after `pre`, then the finding and the remedy. */
static void wrap_item_titled(FILE *out, const char *pre, const struct check_item *it, const char *title,
			     int indent)
{
	struct strbuf lead = STRBUF_INIT, arrow = STRBUF_INIT;
	strbuf_addf(&lead, "%s%-4s %s", pre, check_status_name(it->status), title);
	if (it->gpu >= 0)
		strbuf_addf(&lead, ", gpu %d", it->gpu);
	strbuf_addch(&lead, ':');
	wrap(out, strbuf_str(&lead), it->finding, indent);
	strbuf_addf(&arrow, "%*s->", indent, "");
	if (it->remedy)
		wrap(out, strbuf_str(&arrow), it->remedy, indent + 3);
	strbuf_release(&lead);
	strbuf_release(&arrow);
}

static void wrap_item(FILE *out, const char *pre, const struct check_item *it, int indent)
{
	wrap_item_titled(out, pre, it, it->title, indent);
}

/* ---- the table ---- */

/* Items shown once for several GPUs (grouped[i] set): a GPU is healthy apart from them. */
static int gpu_all_ok(const struct check_report *r, const char *grouped, unsigned gpu, size_t *nchecks)
{
	size_t i;
	*nchecks = 0;
	for (i = 0; i < r->nitems; i++)
		if (r->items[i].gpu == (int)gpu && !grouped[i]) {
			if (needs_action(r->items[i].status))
				return 0;
			(*nchecks)++;
		}
	return 1;
}

/*
 * Marks in grouped[] the items of the groups that span several GPUs (72
 * GPUs with one cause are one row); returns the groups, *n of them.
 */
static struct check_group *multi_groups(const struct check_report *r, char *grouped, size_t *n)
{
	struct check_group *g;
	size_t i, k;
	*n = check_groups(r, CHECK_WARN, &g);
	for (i = 0; i < *n; i++) {
		const struct check_item *first = &r->items[g[i].item];
		if (g[i].ngpus < 2)
			continue;
		for (k = g[i].item; k < r->nitems; k++)
			if (r->items[k].gpu >= 0 && !strcmp(r->items[k].id, first->id) &&
			    r->items[k].status == first->status &&
			    !strcmp(r->items[k].remedy ? r->items[k].remedy : "",
				    first->remedy ? first->remedy : ""))
				grouped[k] = 1;
	}
	return g;
}

/* "0-71" or "0,3" for a group's GPU column and lead. */
static void group_gpus(const struct check_group *g, struct strbuf *sb)
{
	check_gpu_list(g->gpus, g->ngpus, sb);
}

/* "gpuscope check: 8 GPUs (NVIDIA H100 80GB HBM3), driver 550.54.15, CUDA 12.4" */
static void header_line(FILE *out, const struct check_report *r)
{
	const char *name = NULL, *drv = NULL;
	int cuda = -1, mixed = 0;
	unsigned i;
	if (check_exit_code(r) == EXIT_ENV && r->ngpus == 0) {
		fprintf(out, "gpuscope check: no NVIDIA GPU to check\n\n");
		return;
	}
	for (i = 0; i < r->ngpus; i++) {
		const struct gpu_static *st = &r->gpus[i].st;
		if (GPU_STATIC_HAS(st, name)) {
			mixed |= name && strcmp(name, st->name);
			name = name ? name : st->name;
		}
		if (GPU_STATIC_HAS(st, driver_version))
			drv = st->driver_version;
		if (GPU_STATIC_HAS(st, cuda_driver_version))
			cuda = st->cuda_driver_version;
	}
	fprintf(out, "gpuscope check: %u GPU%s", r->ngpus, r->ngpus == 1 ? "" : "s");
	if (name)
		fprintf(out, " (%s%s)", name, mixed ? ", mixed" : "");
	if (drv)
		fprintf(out, ", driver %s", drv);
	if (cuda > 0)
		fprintf(out, ", CUDA %d.%d", cuda / 1000, cuda % 1000 / 10);
	fprintf(out, "\n\n");
}

static void item_row(struct table *t, const struct check_item *it)
{
	table_row(t);
	table_cell(t, check_status_name(it->status));
	table_cell(t, it->title);
	if (it->gpu >= 0)
		table_cellf(t, "%d", it->gpu);
	else
		table_cell(t, "-");
	table_cell(t, it->finding);
}

/*
 * One row for GPU g when all its checks are ok, shared by the GPUs after
 * it that have the same name and as many checks; returns the last GPU the
 * row covers, or -1 when g needs its rows.
 */
static long healthy_run(struct table *t, const struct check_report *r, const char *grouped, unsigned g)
{
	const struct check_gpu *gs = r->gpus;
	const char *name = GPU_STATIC_HAS(&gs[g].st, name) ? gs[g].st.name : "GPU";
	size_t nc, nc2;
	unsigned last = g;
	if (!gpu_all_ok(r, grouped, g, &nc))
		return -1;
	while (last + 1 < r->ngpus && gpu_all_ok(r, grouped, last + 1, &nc2) && nc2 == nc &&
	       GPU_STATIC_HAS(&gs[last + 1].st, name) && !strcmp(gs[last + 1].st.name, name))
		last++;
	table_row(t);
	table_cell(t, "ok");
	table_cell(t, "gpu");
	if (last > g)
		table_cellf(t, "%u-%u", g, last);
	else
		table_cellf(t, "%u", g);
	table_cellf(t, "all %zu checks ok: %s", nc, name);
	return last;
}

static void checks_table(FILE *out, const struct check_report *r, int all, const char *grouped,
			 const struct check_group *groups, size_t ngroups)
{
	struct table *t = table_new();
	size_t i;
	unsigned g;
	table_column(t, "status", ALIGN_LEFT);
	table_column(t, "check", ALIGN_LEFT);
	table_column(t, "gpu", ALIGN_RIGHT);
	table_column(t, "finding", ALIGN_LEFT);
	for (i = 0; i < r->nitems; i++)
		if (r->items[i].gpu < 0)
			item_row(t, &r->items[i]);
	/* one row for a finding that several GPUs share */
	for (i = 0; i < ngroups && !all; i++) {
		const struct check_item *it = &r->items[groups[i].item];
		struct strbuf sb = STRBUF_INIT;
		if (groups[i].ngpus < 2)
			continue;
		group_gpus(&groups[i], &sb);
		table_row(t);
		table_cell(t, check_status_name(it->status));
		table_cell(t, it->title);
		table_cell(t, strbuf_str(&sb));
		table_cell(t, it->finding);
		strbuf_release(&sb);
	}
	for (g = 0; g < r->ngpus; g++) {
		long last = all ? -1 : healthy_run(t, r, grouped, g);
		if (last >= 0) {
			g = (unsigned)last;
			continue;
		}
		for (i = 0; i < r->nitems; i++)
			if (r->items[i].gpu == (int)g && (all || !grouped[i]))
				item_row(t, &r->items[i]);
	}
	table_print(t, out, 0);
	table_free(t);
}

void view_check_table(FILE *out, const struct check_report *r, int all)
{
	char *grouped = xcalloc(r->nitems ? r->nitems : 1, 1);
	size_t i, n[4], ngroups;
	struct check_group *groups = multi_groups(r, grouped, &ngroups);
	int any_fix = 0;
	header_line(out, r);
	checks_table(out, r, all, grouped, groups, ngroups);
	/* the table cuts findings; here they are whole, with their remedy, once per cause */
	for (i = 0; i < r->nitems; i++) {
		struct check_item it = r->items[i];
		struct strbuf title = STRBUF_INIT;
		size_t k;
		if (!needs_action(it.status))
			continue;
		for (k = 0; grouped[i] && k < ngroups && groups[k].item != i; k++)
			;
		if (grouped[i] && k == ngroups)
			continue; /* said with its group's first item */
		if (!any_fix)
			fprintf(out, "\nwhat to do:\n");
		any_fix = 1;
		if (grouped[i]) {
			strbuf_addf(&title, "%s, gpus ", it.title);
			group_gpus(&groups[k], &title);
			it.gpu = -1;
			wrap_item_titled(out, "  ", &it, strbuf_str(&title), 7);
		} else {
			wrap_item(out, "  ", &it, 7);
		}
		strbuf_release(&title);
	}
	check_groups_free(groups, ngroups);
	free(grouped);
	check_count(r, n);
	fprintf(out, "\n%zu ok, %zu warning%s, %zu failure%s, %zu skipped\n", n[CHECK_OK], n[CHECK_WARN],
		n[CHECK_WARN] == 1 ? "" : "s", n[CHECK_FAIL], n[CHECK_FAIL] == 1 ? "" : "s", n[CHECK_SKIP]);
}

void view_check_csv(FILE *out, const struct check_report *r)
{
	struct report_row *row = report_row_new(check_finding_schema());
	size_t i;
	report_csv_header(check_finding_schema(), out);
	for (i = 0; i < r->nitems; i++) {
		report_row_clear(row);
		check_item_row(&r->items[i], row);
		report_csv_row(row, out);
	}
	report_row_free(row);
}

void view_check_json(FILE *out, json_t *doc)
{
	char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fprintf(out, "%s\n", s ? s : "null");
	free(s);
	json_decref(doc);
}

/* ---- node_exporter textfile ---- */

/* A label value with its backslashes, quotes and newlines escaped. */
static void prom_label(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

/* One series per check id and GPU: the worst result when a check repeats; skips left out. */
static void prom_status(FILE *out, const struct check_report *r)
{
	int *done = xcalloc(r->nitems ? r->nitems : 1, sizeof(*done));
	size_t i, k;
	fprintf(out,
		"# HELP gpuscope_check_status Result of a gpuscope check (worst when repeated): 0 ok, 1 warn, 2 fail.\n"
		"# TYPE gpuscope_check_status gauge\n");
	for (i = 0; i < r->nitems; i++) {
		const struct check_item *it = &r->items[i];
		enum check_status worst = it->status;
		if (done[i] || worst == CHECK_SKIP)
			continue;
		for (k = i; k < r->nitems; k++)
			if (!strcmp(r->items[k].id, it->id) && r->items[k].gpu == it->gpu) {
				done[k] = 1;
				if (r->items[k].status > worst && r->items[k].status != CHECK_SKIP)
					worst = r->items[k].status;
			}
		fputs("gpuscope_check_status{check=\"", out);
		prom_label(out, it->id);
		if (it->gpu >= 0)
			fprintf(out, "\",gpu=\"%d", it->gpu);
		fprintf(out, "\"} %d\n", worst == CHECK_FAIL ? 2 : worst == CHECK_WARN ? 1 : 0);
	}
	free(done);
}

/* Xid records counted per code and GPU. */
static void prom_xids(FILE *out, const struct check_report *r)
{
	int *seen = xcalloc(r->nxids ? r->nxids : 1, sizeof(*seen));
	size_t i, k;
	fprintf(out,
		"# HELP gpuscope_check_xid_records Xid records in the kernel log since boot.\n"
		"# TYPE gpuscope_check_xid_records gauge\n");
	for (i = 0; i < r->nxids; i++) {
		size_t c = 0;
		if (seen[i])
			continue;
		for (k = i; k < r->nxids; k++)
			if (r->xids[k].code == r->xids[i].code && !strcmp(r->xids[k].pci, r->xids[i].pci)) {
				seen[k] = 1;
				c++;
			}
		fprintf(out, "gpuscope_check_xid_records{xid=\"%d\",pci=\"", r->xids[i].code);
		prom_label(out, r->xids[i].pci);
		fprintf(out, "\"} %zu\n", c);
	}
	free(seen);
}

void view_check_prom(FILE *out, const struct check_report *r, time_t now)
{
	static const char *const results[4] = {"ok", "skip", "warn", "fail"};
	static const enum check_status order[4] = {CHECK_OK, CHECK_WARN, CHECK_FAIL, CHECK_SKIP};
	size_t i, n[4];
	prom_status(out, r);
	check_count(r, n);
	fprintf(out, "# HELP gpuscope_check_results Checks by result.\n# TYPE gpuscope_check_results gauge\n");
	for (i = 0; i < 4; i++)
		fprintf(out, "gpuscope_check_results{result=\"%s\"} %zu\n", results[order[i]], n[order[i]]);
	fprintf(out,
		"# HELP gpuscope_check_gpus GPUs the NVIDIA driver lists.\n# TYPE gpuscope_check_gpus gauge\n"
		"gpuscope_check_gpus %u\n",
		r->ngpus);
	fprintf(out,
		"# HELP gpuscope_check_gpu_lost Whether a GPU has fallen off the bus.\n"
		"# TYPE gpuscope_check_gpu_lost gauge\n");
	for (i = 0; i < r->ngpus; i++)
		fprintf(out, "gpuscope_check_gpu_lost{gpu=\"%zu\"} %d\n", i, r->gpus[i].status == GPU_STATUS_LOST);
	prom_xids(out, r);
	fprintf(out,
		"# HELP gpuscope_check_exit_code The exit code of the check (0 ok, 1 findings, 3 no GPU).\n"
		"# TYPE gpuscope_check_exit_code gauge\ngpuscope_check_exit_code %d\n",
		check_exit_code(r));
	fprintf(out,
		"# HELP gpuscope_check_timestamp_seconds When the check ran.\n"
		"# TYPE gpuscope_check_timestamp_seconds gauge\ngpuscope_check_timestamp_seconds %lld\n",
		(long long)now);
}

/* ---- topo ---- */

static const char *const topo_legend =
	"Legend:\n"
	"  X    = self\n"
	"  SYS  = PCIe and the interconnect between NUMA nodes (UPI, Infinity Fabric)\n"
	"  NODE = PCIe and the link between host bridges inside one NUMA node\n"
	"  PHB  = PCIe and a PCIe host bridge (the CPU)\n"
	"  PXB  = several PCIe bridges, no host bridge\n"
	"  PIX  = at most one PCIe switch\n"
	"  NV#  = # NVLinks (through NVSwitches: the links each GPU has)\n";

/* Columns in blocks of 14, so a block fits 80 columns (6 + 14 x 5). */
static void topo_matrix(FILE *out, const struct check_topo *t)
{
	size_t c0, c1, i, j;
	for (c0 = 0; c0 < t->n; c0 += 14) {
		c1 = c0 + 14 < t->n ? c0 + 14 : t->n;
		fprintf(out, "%-6s", "");
		for (j = c0; j < c1; j++)
			fprintf(out, j + 1 < c1 ? "%-5s" : "%s", t->names[j]);
		fprintf(out, "\n");
		for (i = 0; i < t->n; i++) {
			fprintf(out, "%-6s", t->names[i]);
			for (j = c0; j < c1; j++)
				fprintf(out, j + 1 < c1 ? "%-5s" : "%s", t->cells[i * t->n + j]);
			fprintf(out, "\n");
		}
		fprintf(out, "\n");
	}
}

static void topo_devices(FILE *out, const struct check_topo *t)
{
	struct table *tb = table_new();
	size_t i;
	table_column(tb, "device", ALIGN_LEFT);
	table_column(tb, "bus id / name", ALIGN_LEFT);
	table_column(tb, "numa", ALIGN_RIGHT);
	table_column(tb, "cpu affinity", ALIGN_LEFT);
	for (i = 0; i < t->n; i++) {
		table_row(tb);
		table_cell(tb, t->names[i]);
		table_cell(tb, t->labels[i]);
		if (t->numa[i] >= 0)
			table_cellf(tb, "%d", t->numa[i]);
		else
			table_cell(tb, NULL);
		table_cell(tb, t->cpus[i] && *t->cpus[i] ? t->cpus[i] : NULL);
	}
	table_print(tb, out, 0);
	table_free(tb);
}

void view_check_topo(FILE *out, const struct check_topo *t)
{
	size_t i;
	if (!t->n) {
		fprintf(out, "no GPU or NIC to show\n");
		return;
	}
	topo_matrix(out, t);
	topo_devices(out, t);
	fprintf(out, "\n%s", topo_legend);
	if (t->nitems)
		fprintf(out, "\n");
	for (i = 0; i < t->nitems; i++)
		wrap_item(out, "", &t->items[i], 5);
}

void view_check_runbook(FILE *out, const char *symptom, const char *workload, const struct check_step *steps,
			size_t n)
{
	size_t i;
	fprintf(out, "gpuscope check --symptom %s: %zu steps\n", symptom, n);
	if (workload)
		wrap(out, "workload:", workload, 2);
	fprintf(out, "\n");
	for (i = 0; i < n; i++) {
		struct strbuf lead = STRBUF_INIT;
		strbuf_addf(&lead, "%2zu. %-4s %s:", i + 1, check_status_name(steps[i].status), steps[i].title);
		wrap(out, strbuf_str(&lead), steps[i].finding, 9);
		if (steps[i].action)
			wrap(out, "         ->", steps[i].action, 12);
		strbuf_release(&lead);
	}
}
