#include "catalog/catalog.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "catalog/embedded.h"
#include "util/csv.h"
#include "util/num.h"
#include "util/suggest.h"
#include "util/units.h"
#include "util/xalloc.h"

struct table_rows {
	char *rows; /* row_size bytes each */
	size_t n, cap;
	size_t *slot; /* open-addressing index by key: row index + 1, 0 empty */
	size_t nslot; /* a power of two, at least twice n; 0 before the first row */
};

struct catalog {
	struct table_rows t[CAT_NTABLES];
	char **origins; /* file names rows point to; owned here */
	size_t norigins, origins_cap;
};

#define FIELD(row, col) ((void *)((char *)(row) + (col)->offset))

/* FNV-1a: keys are short slugs, and a fleet catalog may hold tens of thousands. */
static size_t key_hash(const char *k)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *k; k++)
		h = (h ^ (unsigned char)*k) * 1099511628211ULL;
	return (size_t)h;
}

static const char *row_key(const struct table_rows *tr, size_t row_size, size_t i)
{
	return ((const struct cat_row *)(tr->rows + i * row_size))->key;
}

/* The slot holding key, or the empty slot where it would go. */
static size_t slot_find(const struct table_rows *tr, size_t row_size, const char *key)
{
	size_t m = tr->nslot - 1, i = key_hash(key) & m;
	while (tr->slot[i] && strcmp(row_key(tr, row_size, tr->slot[i] - 1), key))
		i = (i + 1) & m;
	return i;
}

/* Indexes row i (already stored), growing the index to keep it at most half full. */
static void slot_add(struct table_rows *tr, size_t row_size, size_t i)
{
	if (2 * (tr->n + 1) > tr->nslot) {
		size_t k;
		free(tr->slot);
		tr->nslot = tr->nslot ? tr->nslot * 2 : 64;
		while (2 * (tr->n + 1) > tr->nslot)
			tr->nslot *= 2;
		tr->slot = xcalloc(tr->nslot, sizeof(*tr->slot));
		for (k = 0; k < tr->n; k++)
			if (k != i)
				tr->slot[slot_find(tr, row_size, row_key(tr, row_size, k))] = k + 1;
	}
	tr->slot[slot_find(tr, row_size, row_key(tr, row_size, i))] = i + 1;
}

static size_t row_lookup(const struct table_rows *tr, size_t row_size, const char *key)
{
	size_t i;
	if (!tr->nslot)
		return (size_t)-1;
	i = tr->slot[slot_find(tr, row_size, key)];
	return i ? i - 1 : (size_t)-1;
}

struct catalog *catalog_new(void)
{
	return xcalloc(1, sizeof(struct catalog));
}

static void row_release(const struct cat_schema *s, void *row)
{
	size_t i;
	for (i = 0; i < s->ncols; i++)
		if (s->cols[i].type == CAT_COL_TEXT)
			free(*(char **)FIELD(row, &s->cols[i]));
}

void catalog_free(struct catalog *c)
{
	size_t i, t;
	if (!c)
		return;
	for (t = 0; t < CAT_NTABLES; t++) {
		const struct cat_schema *s = catalog_schema(t);
		for (i = 0; i < c->t[t].n; i++)
			row_release(s, c->t[t].rows + i * s->row_size);
		free(c->t[t].rows);
		free(c->t[t].slot);
	}
	for (i = 0; i < c->norigins; i++)
		free(c->origins[i]);
	free(c->origins);
	free(c);
}

size_t catalog_count(const struct catalog *c, enum cat_table t)
{
	return c->t[t].n;
}

const void *catalog_row(const struct catalog *c, enum cat_table t, size_t i)
{
	if (i >= c->t[t].n)
		BUG("row %zu of %zu", i, c->t[t].n);
	return c->t[t].rows + i * catalog_schema(t)->row_size;
}

const void *catalog_get(const struct catalog *c, enum cat_table t, const char *key)
{
	size_t i = row_lookup(&c->t[t], catalog_schema(t)->row_size, key);
	return i == (size_t)-1 ? NULL : catalog_row(c, t, i);
}

static const char *origin_intern(struct catalog *c, const char *name)
{
	size_t i;
	for (i = 0; i < c->norigins; i++)
		if (!strcmp(c->origins[i], name))
			return c->origins[i];
	XGROW(c->origins, c->origins_cap, c->norigins);
	return c->origins[c->norigins++] = xstrdup(name);
}

static int valid_key(const char *s)
{
	if (!*s || !(islower((unsigned char)*s) || isdigit((unsigned char)*s)))
		return 0;
	for (; *s; s++)
		if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '-' || *s == '.' ||
		      *s == '_'))
			return 0;
	return 1;
}

/* YYYY-MM or YYYY-MM-DD with a plausible month and day. */
static int valid_date(const char *s)
{
	int y, m, d = 1, n = 0;
	size_t len = strlen(s);
	if (len == 7 && sscanf(s, "%4d-%2d%n", &y, &m, &n) == 2 && n == 7)
		;
	else if (len == 10 && sscanf(s, "%4d-%2d-%2d%n", &y, &m, &d, &n) == 3 && n == 10)
		;
	else
		return 0;
	return y >= 1990 && y <= 2100 && m >= 1 && m <= 12 && d >= 1 && d <= 31 && isdigit((unsigned char)s[5]) &&
	       isdigit((unsigned char)s[6]);
}

/* A release number: digits in groups joined by single dots ("2", "2.14", "12.6.3"). */
static int valid_version(const char *s)
{
	int digit = 0;
	for (; *s; s++) {
		if (isdigit((unsigned char)*s))
			digit = 1;
		else if (*s == '.' && digit)
			digit = 0;
		else
			return 0;
	}
	return digit;
}

static char *trim_dup(const char *s)
{
	const char *e;
	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	return xstrndup(s, (size_t)(e - s));
}

/*
 * The first control character of a text value: C0 (tab and line breaks
 * included: a name is one line), DEL, and C1 as UTF-8 (U+0080..U+009F,
 * bytes C2 80..C2 9F).  `catalog show` writes these values to a terminal,
 * where ESC and the C1 CSI start escape sequences.  Returns the byte
 * offset, or -1; *cp is the code point.
 */
static long control_char(const char *s, unsigned *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i;
	for (i = 0; p[i]; i++) {
		if (p[i] < 0x20 || p[i] == 0x7f) {
			*cp = p[i];
			return (long)i;
		}
		if (p[i] == 0xc2 && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f) {
			*cp = p[i + 1];
			return (long)i;
		}
	}
	return -1;
}

/* Whether a column's name is `suffix` or ends in "_suffix" (as_of, tier_as_of). */
static int name_ends(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);
	return n >= k && !strcmp(name + n - k, suffix) && (n == k || name[n - k - 1] == '_');
}

/* Parses one cell into the row; returns -1 with err filled. */
static int parse_cell(const struct cat_schema *s, const struct cat_column *col, void *row, const char *name,
		      int line, int colno, const char *text, struct diag *err)
{
	char *v = trim_dup(text);
	if (col->type == CAT_COL_NUM) {
		double x;
		char why[200];
		if (!*v) {
			free(v);
			if (col->flags & CAT_REQUIRED)
				return diag_set(err, name, line, colno, col->name, "a value is required");
			*(double *)FIELD(row, col) = NAN;
			return 0;
		}
		if (num_parse(v, col->unit, &col->range, &x, why, sizeof(why))) {
			free(v);
			return diag_set(err, name, line, colno, col->name, "%s", why);
		}
		free(v);
		*(double *)FIELD(row, col) = x;
		return 0;
	}
	if (!*v) {
		free(v);
		if (col->flags & CAT_REQUIRED)
			return diag_set(err, name, line, colno, col->name, "a value is required");
		return 0;
	}
	{
		unsigned cp;
		/* the blanks trim_dup() dropped around the value are not part of it */
		long at = control_char(v, &cp);
		if (at >= 0) {
			diag_set(err, name, line, colno, col->name,
				 "control character U+%04X in a text value (byte %ld of the value)", cp, at + 1);
			free(v);
			return -1;
		}
	}
	if (!strcmp(col->name, "key") && !valid_key(v)) {
		diag_set(err, name, line, colno, col->name,
			 "key '%s' must be a lowercase slug of a-z, 0-9, '-', '.', '_'", v);
		free(v);
		return -1;
	}
	if ((name_ends(col->name, "as_of") || (col->flags & CAT_DATE)) && !valid_date(v)) {
		diag_set(err, name, line, colno, col->name, "date '%s' is not YYYY-MM or YYYY-MM-DD", v);
		free(v);
		return -1;
	}
	if ((col->flags & CAT_VERSION) && !valid_version(v)) {
		diag_set(err, name, line, colno, col->name, "release '%s' is not a number like 2.14", v);
		free(v);
		return -1;
	}
	if (name_ends(col->name, "confidence") && !(strlen(v) == 1 && strchr("QDRE", v[0]))) {
		diag_set(err, name, line, colno, col->name, "confidence '%s' must be one of Q, D, R, E", v);
		free(v);
		return -1;
	}
	(void)s;
	*(char **)FIELD(row, col) = v;
	return 0;
}

static const char *const *column_names(const struct cat_schema *s, const char **buf)
{
	size_t i;
	for (i = 0; i < s->ncols; i++)
		buf[i] = s->cols[i].name;
	return buf;
}

int catalog_load_buffer(struct catalog *c, enum cat_table t, const char *name, const char *buf, size_t len,
			struct diag *err)
{
	const struct cat_schema *s = catalog_schema(t);
	struct csv_reader *r = csv_open(name, buf, len, CSV_COMMENTS);
	struct csv_record rec;
	const struct cat_column **map = NULL; /* header position -> column */
	size_t nhead = 0, i, added = 0;
	int rc, ret = -1;
	const char *origin = origin_intern(c, name);
	char *row = xcalloc(1, s->row_size);
	struct table_rows *tr = &c->t[t];
	unsigned char *seen = NULL; /* by row index: defined by this file */
	size_t seen_cap = 0;

	rc = csv_next(r, &rec, err);
	if (rc < 0)
		goto out;
	if (rc == 0) {
		diag_set(err, name, 1, 1, NULL, "empty file: expected a header line naming the columns");
		goto out;
	}
	nhead = rec.nfields;
	map = xcalloc(nhead, sizeof(*map));
	for (i = 0; i < nhead; i++) {
		size_t k;
		char *h = trim_dup(rec.fields[i]);
		for (k = 0; k < s->ncols; k++)
			if (!strcmp(s->cols[k].name, h))
				map[i] = &s->cols[k];
		if (!map[i]) {
			const char *names[64];
			char hint[256];
			suggest_hint(h, column_names(s, names), s->ncols, hint, sizeof(hint));
			diag_set(err, name, rec.line, rec.cols[i], h, "unknown column in %s%s", s->file, hint);
			free(h);
			goto out;
		}
		for (k = 0; k < i; k++)
			if (map[k] == map[i]) {
				diag_set(err, name, rec.line, rec.cols[i], h, "column given twice");
				free(h);
				goto out;
			}
		free(h);
	}
	for (i = 0; i < s->ncols; i++) {
		size_t k;
		int present = 0;
		for (k = 0; k < nhead; k++)
			present |= map[k] == &s->cols[i];
		if (!present && (s->cols[i].flags & CAT_REQUIRED)) {
			diag_set(err, name, rec.line, 1, s->cols[i].name,
				 "required column is missing from the header");
			goto out;
		}
	}
	while ((rc = csv_next(r, &rec, err)) > 0) {
		const struct cat_row *hdr;
		size_t k, existing = (size_t)-1;
		memset(row, 0, s->row_size);
		for (k = 0; k < s->ncols; k++)
			if (s->cols[k].type == CAT_COL_NUM)
				*(double *)FIELD(row, &s->cols[k]) = NAN;
		if (rec.nfields != nhead) {
			int col = rec.nfields > nhead ? rec.cols[nhead] : rec.cols[rec.nfields - 1];
			diag_set(err, name, rec.line, col, rec.nfields > nhead ? "" : map[rec.nfields - 1]->name,
				 "expected %zu fields as in the header, found %zu", nhead, rec.nfields);
			goto out;
		}
		for (i = 0; i < nhead; i++)
			if (parse_cell(s, map[i], row, name, rec.line, rec.cols[i], rec.fields[i], err)) {
				row_release(s, row);
				goto out;
			}
		for (k = 0; k < s->ncols; k++)
			if ((s->cols[k].flags & CAT_REQUIRED) && s->cols[k].type == CAT_COL_TEXT &&
			    !*(char **)FIELD(row, &s->cols[k])) {
				diag_set(err, name, rec.line, 1, s->cols[k].name, "a value is required");
				row_release(s, row);
				goto out;
			}
		hdr = (const struct cat_row *)row;
		((struct cat_row *)row)->origin = origin;
		((struct cat_row *)row)->line = rec.line;
		existing = row_lookup(tr, s->row_size, hdr->key);
		if (existing != (size_t)-1) {
			if (existing < seen_cap && seen[existing]) {
				const struct cat_row *o = (const struct cat_row *)(tr->rows +
										   existing * s->row_size);
				diag_set(err, name, rec.line, rec.cols[0], "key",
					 "duplicate key '%s' (first defined on line %d)", hdr->key, o->line);
				row_release(s, row);
				goto out;
			}
			/* a later file replaces the row with the same key */
			row_release(s, tr->rows + existing * s->row_size);
			memcpy(tr->rows + existing * s->row_size, row, s->row_size);
		} else {
			if (tr->n >= tr->cap) {
				size_t nc = tr->cap ? tr->cap * 2 : 32;
				tr->rows = xrealloc(tr->rows, nc * s->row_size);
				tr->cap = nc;
			}
			memcpy(tr->rows + tr->n * s->row_size, row, s->row_size);
			existing = tr->n++;
			slot_add(tr, s->row_size, existing);
		}
		/* rows this file defined: a second definition in one file is an error */
		XGROW(seen, seen_cap, existing);
		seen[existing] = 1;
		added++;
	}
	if (rc < 0)
		goto out;
	ret = (int)added;
out:
	free(seen);
	free(row);
	free(map);
	csv_free(r);
	return ret;
}

static int check_ref(const struct catalog *c, enum cat_table t, const struct cat_row *r,
		     const struct cat_column *col, enum cat_table target, struct diag *err)
{
	const char *v = *(char *const *)((const char *)r + col->offset);
	size_t i, n = catalog_count(c, target), got;
	const char **keys;
	size_t idx[3];
	char hint[256] = "";
	if (!v || catalog_get(c, target, v))
		return 0;
	keys = xcalloc(n + 1, sizeof(*keys));
	for (i = 0; i < n; i++)
		keys[i] = ((const struct cat_row *)catalog_row(c, target, i))->key;
	got = suggest_closest(v, keys, n, idx, 3, 1);
	if (got)
		snprintf(hint, sizeof(hint), "; closest: %s%s%s%s%s", keys[idx[0]], got > 1 ? ", " : "",
			 got > 1 ? keys[idx[1]] : "", got > 2 ? ", " : "", got > 2 ? keys[idx[2]] : "");
	free(keys);
	(void)t;
	return diag_set(err, r->origin, r->line, 0, col->name, "'%s' is not a key in %s%s", v,
			catalog_schema(target)->file, hint);
}

/* A cloud row's 1y, 3y or spot price needs a source and a date of its own. */
static int check_cloud_tiers(const struct catalog *c, struct diag *err)
{
	size_t i;
	for (i = 0; i < catalog_count(c, CAT_CLOUDS); i++) {
		const struct cat_cloud *r = catalog_cloud_at(c, i);
		const char *field = !r->tier_source ? "tier_source" : "tier_as_of";
		int t, priced = 0;
		for (t = CAT_TIER_ON_DEMAND + 1; t < CAT_NTIERS; t++)
			priced |= cat_has(cat_cloud_usd_per_hour(r, (enum cat_tier)t));
		if (priced && (!r->tier_source || !r->tier_as_of))
			return diag_set(err, r->row.origin, r->row.line, 0, field,
					"cloud instance '%s' has a 1y, 3y or spot price but no %s", r->row.key,
					field);
	}
	return 0;
}

double cat_cloud_cluster_gbps(const struct catalog *cat, const struct cat_cloud *c)
{
	const struct cat_gpu *g = c->gpu ? catalog_get(cat, CAT_GPUS, c->gpu) : NULL;
	char why[256];
	if (!cat_has(c->network_gbps) || !(c->network_gbps > 0) || !cat_has(c->gpu_count))
		return NAN;
	/* a slice of a larger NVLink domain (4 GPUs of a GB200 NVL72 rack) is no node of its own */
	if (g && c->gpu_count > 1 && !cat_node_shape_ok(cat, g, (int)c->gpu_count, why, sizeof(why)))
		return NAN;
	if (c->gpu_count > 1)
		return c->network_gbps;
	/* NaN compares false: a GPU of unknown host link is used alone */
	return g && c->network_gbps >= cat_host_max_nic_gbps(cat, g) ? c->network_gbps : NAN;
}

/*
 * A row that gives a lifecycle fact cites it: its source cell names where
 * the end of sale and the last releases come from after "lifecycle:", the
 * text estimate's warning quotes.
 */
static int check_life_sources(const struct catalog *c, struct diag *err)
{
	size_t i;
	for (i = 0; i < catalog_count(c, CAT_GPUS); i++) {
		const struct cat_gpu *g = catalog_gpu_at(c, i);
		if ((g->end_of_sale || cat_has(g->cuda_last) || g->pytorch_last) && !cat_life_source(&g->row))
			return diag_set(
				err, g->row.origin, g->row.line, 0, "source",
				"gpu '%s' has a lifecycle cell (end_of_sale, cuda_last, pytorch_last) but its "
				"source cites none: end the source with 'lifecycle: WHERE, DATE'",
				g->row.key);
	}
	for (i = 0; i < catalog_count(c, CAT_SERVERS); i++) {
		const struct cat_server *s = catalog_server_at(c, i);
		if (s->end_of_sale && !cat_life_source(&s->row))
			return diag_set(err, s->row.origin, s->row.line, 0, "source",
					"server '%s' has an end_of_sale but its source cites none: end the source "
					"with 'lifecycle: WHERE, DATE'",
					s->row.key);
	}
	return 0;
}

int catalog_validate(const struct catalog *c, struct diag *err)
{
	size_t t, i, k;
	for (t = 0; t < CAT_NTABLES; t++) {
		const struct cat_schema *s = catalog_schema(t);
		for (i = 0; i < catalog_count(c, t); i++) {
			const struct cat_row *r = catalog_row(c, t, i);
			for (k = 0; k < s->ncols; k++) {
				const struct cat_column *col = &s->cols[k];
				int rc = 0;
				if (col->flags & CAT_REF_GPU)
					rc = check_ref(c, t, r, col, CAT_GPUS, err);
				else if (col->flags & CAT_REF_LINK)
					rc = check_ref(c, t, r, col, CAT_LINKS, err);
				else if (col->flags & CAT_REF_CPU)
					rc = check_ref(c, t, r, col, CAT_CPUS, err);
				if (rc)
					return -1;
			}
		}
	}
	return check_cloud_tiers(c, err) || check_life_sources(c, err) ? -1 : 0;
}

static int load_embedded(struct catalog *c, struct diag *err)
{
	int t;
	for (t = 0; t < CAT_NTABLES; t++) {
		const struct cat_schema *s = catalog_schema(t);
		const struct embedded_file *f = embedded_find(s->file);
		char name[64];
		if (!f)
			continue;
		snprintf(name, sizeof(name), "data/%s", s->file);
		if (catalog_load_buffer(c, t, name, f->data, f->len, err) < 0)
			return -1;
	}
	return 0;
}

/* Loads every known file of dir; counts rows; unknown .csv files are an error. */
static int load_dir(struct catalog *c, const char *dir, struct diag *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int total = 0, t;
	if (!d)
		return diag_set(err, dir, 0, 0, NULL, "cannot open catalog directory: %s", strerror(errno));
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		int known = 0;
		if (len < 5 || strcmp(e->d_name + len - 4, ".csv"))
			continue;
		for (t = 0; t < CAT_NTABLES; t++)
			known |= !strcmp(e->d_name, catalog_schema(t)->file);
		if (!known) {
			const char *names[CAT_NTABLES];
			char hint[200];
			for (t = 0; t < CAT_NTABLES; t++)
				names[t] = catalog_schema(t)->file;
			suggest_hint(e->d_name, names, CAT_NTABLES, hint, sizeof(hint));
			diag_set(err, dir, 0, 0, NULL, "unknown catalog file '%s'%s", e->d_name, hint);
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	for (t = 0; t < CAT_NTABLES; t++) {
		char *path = xasprintf("%s/%s", dir, catalog_schema(t)->file);
		char *buf;
		size_t len;
		int n;
		struct stat st;
		/* only a name that is not there is absent: a file that cannot be read is an error */
		if (lstat(path, &st) && errno == ENOENT) {
			free(path);
			continue;
		}
		if (csv_read_file(path, &buf, &len, err)) {
			free(path);
			return -1;
		}
		n = catalog_load_buffer(c, t, path, buf, len, err);
		free(buf);
		free(path);
		if (n < 0)
			return -1;
		total += n;
	}
	return total;
}

int catalog_load(struct catalog **out, const char *user_dir, struct diag *err)
{
	struct catalog *c = catalog_new();
	if (load_embedded(c, err) || (user_dir && load_dir(c, user_dir, err) < 0) || catalog_validate(c, err)) {
		catalog_free(c);
		return -1;
	}
	*out = c;
	return 0;
}

int catalog_check_dir(const char *dir, struct diag *err)
{
	struct catalog *c = catalog_new();
	int n;
	if (load_embedded(c, err)) {
		catalog_free(c);
		return -1;
	}
	n = load_dir(c, dir, err);
	if (n >= 0 && catalog_validate(c, err))
		n = -1;
	catalog_free(c);
	return n;
}

/* Lowercase alphanumerics only; optionally without vendor words. */
static void normalize(const char *in, char *out, size_t len, int strip_vendor)
{
	static const char *words[] = {"nvidia",   "tesla", "geforce", "amd",
				      "instinct", "intel", "habana",  "radeon"};
	size_t n = 0, i;
	const char *p = in;
	while (*p && n + 1 < len) {
		if (strip_vendor && (p == in || !isalnum((unsigned char)p[-1]))) {
			int skipped = 0;
			for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
				size_t wl = strlen(words[i]);
				if (!strncasecmp(p, words[i], wl) && !isalnum((unsigned char)p[wl])) {
					p += wl;
					skipped = 1;
					break;
				}
			}
			if (skipped)
				continue;
		}
		if (isalnum((unsigned char)*p))
			out[n++] = (char)tolower((unsigned char)*p);
		p++;
	}
	out[n] = '\0';
}

/* Calls fn for the key, name and each alias of a row; stops when fn returns nonzero. */
static int each_spelling(const struct cat_row *r, int (*fn)(const char *, void *), void *arg)
{
	const char *a;
	if (fn(r->key, arg) || (r->name && fn(r->name, arg)))
		return 1;
	for (a = r->aliases; a && *a;) {
		const char *e = strchr(a, ';');
		size_t l = e ? (size_t)(e - a) : strlen(a);
		char one[256];
		snprintf(one, sizeof(one), "%.*s", (int)(l < 255 ? l : 255), a);
		if (fn(one, arg))
			return 1;
		a = e ? e + 1 : NULL;
	}
	return 0;
}

struct match_arg {
	const char *q;       /* normalized query */
	const char *q_strip; /* normalized query without vendor words */
	int partial;
};

static int match_one(const char *spelling, void *varg)
{
	struct match_arg *m = varg;
	char a[256], b[256];
	normalize(spelling, a, sizeof(a), 0);
	normalize(spelling, b, sizeof(b), 1);
	if (!m->partial)
		return (*m->q && (!strcmp(a, m->q) || !strcmp(b, m->q_strip)));
	return strlen(m->q_strip) >= 2 && (strstr(a, m->q_strip) || strstr(b, m->q_strip));
}

/*
 * The rows of t whose spelling matches name exactly (ignoring case,
 * punctuation and vendor words), or with partial set, in part.  Their
 * indexes go to hits (room for every row); returns how many.
 */
static size_t match_rows(const struct catalog *c, enum cat_table t, const char *name, int partial, size_t *hits)
{
	size_t n = catalog_count(c, t), i, nm = 0;
	char q[256], qs[256];
	struct match_arg m = {q, qs, partial};
	normalize(name, q, sizeof(q), 0);
	normalize(name, qs, sizeof(qs), 1);
	for (i = 0; i < n; i++)
		if (each_spelling(catalog_row(c, t, i), match_one, &m))
			hits[nm++] = i;
	return nm;
}

const void *catalog_resolve(const struct catalog *c, enum cat_table t, const char *name, char *why, size_t why_len)
{
	const struct cat_schema *s = catalog_schema(t);
	size_t n = catalog_count(c, t), i, nm = 0, used;
	size_t *hits = xcalloc(n + 1, sizeof(size_t));
	const void *found = catalog_get(c, t, name);
	if (found) {
		free(hits);
		return found;
	}
	nm = match_rows(c, t, name, 0, hits);
	if (!nm)
		nm = match_rows(c, t, name, 1, hits);
	if (nm == 1) {
		found = catalog_row(c, t, hits[0]);
		free(hits);
		return found;
	}
	if (nm > 1) {
		used = (size_t)snprintf(why, why_len, "ambiguous %s '%s': it matches", s->what, name);
		for (i = 0; i < nm && i < 8 && used < why_len; i++)
			used += (size_t)snprintf(why + used, why_len - used, "%s %s", i ? "," : "",
						 ((const struct cat_row *)catalog_row(c, t, hits[i]))->key);
		if (nm > 8 && used < why_len)
			snprintf(why + used, why_len - used, " and %zu more", nm - 8);
	} else {
		const char **keys = xcalloc(n + 1, sizeof(*keys));
		size_t idx[4], got;
		for (i = 0; i < n; i++)
			keys[i] = ((const struct cat_row *)catalog_row(c, t, i))->key;
		got = suggest_closest(name, keys, n, idx, 4, 1);
		used = (size_t)snprintf(why, why_len, "unknown %s '%s'", s->what, name);
		for (i = 0; i < got && used < why_len; i++)
			used += (size_t)snprintf(why + used, why_len - used, "%s%s",
						 i ? ", " : "; closest: ", keys[idx[i]]);
		if (used < why_len) {
			snprintf(why + used, why_len - used, " (see 'gpuscope catalog %s')",
				 catalog_table_name(t));
		}
		free(keys);
	}
	free(hits);
	return NULL;
}

/* Whether g's memory (within 8 %) and SM count agree with a device's; NaN or 0 skips a test. */
static int device_agrees(const struct cat_gpu *g, double mem_bytes, double sms)
{
	double gib = mem_bytes / 1073741824.0;
	if (mem_bytes > 0 && cat_has(g->memory_gib) && fabs(gib - g->memory_gib) > 0.08 * g->memory_gib)
		return 0;
	return !(sms > 0 && cat_has(g->sm_count) && sms != g->sm_count);
}

/* Appends g to the n candidates unless it is there already. */
static void add_candidate(const struct cat_gpu **cand, size_t *n, const struct cat_gpu *g)
{
	size_t i;
	for (i = 0; i < *n; i++)
		if (cand[i] == g)
			return;
	cand[(*n)++] = g;
}

/* The device as the messages name it: "'NAME' (39.4 GiB, 108 SMs)". */
static size_t device_text(char *out, size_t len, const char *name, double mem_bytes, double sms)
{
	int n = snprintf(out, len, "'%s'", name);
	if (mem_bytes > 0 && n >= 0 && (size_t)n < len)
		n += snprintf(out + n, len - (size_t)n, "%s%.1f GiB", " (", mem_bytes / 1073741824.0);
	if (sms > 0 && n >= 0 && (size_t)n < len)
		n += snprintf(out + n, len - (size_t)n, "%s%.0f SMs", mem_bytes > 0 ? ", " : " (", sms);
	if ((mem_bytes > 0 || sms > 0) && n >= 0 && (size_t)n < len)
		n += snprintf(out + n, len - (size_t)n, ")");
	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len;
}

/* Appends ", key" for each of the n GPUs (at most 8) to why after used bytes; the new length. */
static size_t list_keys(char *why, size_t why_len, size_t used, const char *head, const struct cat_gpu *const *g,
			size_t n)
{
	size_t i;
	for (i = 0; i < n && i < 8 && used < why_len; i++)
		used += (size_t)snprintf(why + used, why_len - used, "%s%s", i ? ", " : head, g[i]->row.key);
	return used;
}

const struct cat_gpu *catalog_gpu_for_device(const struct catalog *c, const char *name, double mem_bytes,
					     double sms, char *why, size_t why_len)
{
	size_t ng = catalog_count(c, CAT_GPUS), nb = catalog_count(c, CAT_BOARDS);
	size_t *hits = xcalloc(ng + nb + 1, sizeof(*hits));
	const struct cat_gpu **cand = xcalloc(ng + nb + 1, sizeof(*cand)),
			     **named = xcalloc(ng + nb + 1, sizeof(*cand));
	const struct cat_gpu *found = NULL;
	size_t nc = 0, nn = 0, i, nh, used;
	int partial;
	for (partial = 0; partial < 2 && !nn; partial++) {
		nh = match_rows(c, CAT_BOARDS, name, partial, hits);
		for (i = 0; i < nh; i++) {
			const struct cat_gpu *g = catalog_get(c, CAT_GPUS, catalog_board_at(c, hits[i])->gpu);
			if (g)
				add_candidate(named, &nn, g);
		}
		nh = match_rows(c, CAT_GPUS, name, partial, hits);
		for (i = 0; i < nh; i++)
			add_candidate(named, &nn, catalog_gpu_at(c, hits[i]));
	}
	for (i = 0; i < nn; i++)
		if (device_agrees(named[i], mem_bytes, sms))
			cand[nc++] = named[i];
	if (nc == 1) {
		found = cand[0];
	} else if (nc > 1) {
		used = (size_t)snprintf(why, why_len, "ambiguous gpu ");
		used += device_text(why + used, why_len - used, name, mem_bytes, sms);
		list_keys(why, why_len, used, ": it matches ", cand, nc);
	} else {
		used = (size_t)snprintf(why, why_len, "unknown gpu ");
		used += device_text(why + used, why_len - used, name, mem_bytes, sms);
		used = list_keys(why, why_len, used, "; its name matches, with other memory or SMs: ", named, nn);
		if (mem_bytes > 0 || sms > 0) {
			for (i = 0; i < ng; i++)
				if (device_agrees(catalog_gpu_at(c, i), mem_bytes, sms))
					cand[nc++] = catalog_gpu_at(c, i);
			used = list_keys(why, why_len, used, "; the same memory and SMs: ", cand, nc);
		}
		if (!nn && !nc && used < why_len) {
			char more[512];
			const char *p;
			if (!catalog_resolve(c, CAT_GPUS, name, more, sizeof(more)) &&
			    (p = strstr(more, "; closest")))
				snprintf(why + used, why_len - used, "%s", p);
		}
	}
	free(hits);
	free(cand);
	free(named);
	return found;
}

double catalog_facility(const struct catalog *c, const char *key)
{
	const struct cat_facility *f = catalog_get(c, CAT_FACILITY, key);
	return f ? f->value : NAN;
}
