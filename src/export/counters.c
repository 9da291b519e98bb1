/*
 * The counters file (see counters.h).  Names are checked against the family
 * table (families_names()), so the file can never name something the
 * exporter would silently not serve.
 */
#include "export/counters.h"

#include <stdlib.h>
#include <string.h>

#include "export/view.h"
#include "util/csv.h"
#include "util/suggest.h"
#include "util/xalloc.h"

/* Label fields: attached to every dcgm series. */
static const char *const label_fields[] = {
	"DCGM_FI_DRIVER_VERSION",
	"DCGM_FI_DEV_SERIAL",
	"DCGM_FI_DEV_VBIOS_VERSION",
	"DCGM_FI_NVML_VERSION",
	"DCGM_FI_DEV_BRAND",
	"DCGM_FI_DEV_OEM_INFOROM_VER",
	"DCGM_FI_DEV_ECC_INFOROM_VER",
	"DCGM_FI_DEV_POWER_INFOROM_VER",
	"DCGM_FI_DEV_INFOROM_IMAGE_VER",
};

/*
 * DCGM fields in dcgm-exporter's shipped files that gpuscope does not serve:
 * skipped with a warning rather than refused, so those files load unchanged.
 */
static const char *const dcgm_unserved[] = {
	"DCGM_FI_DEV_VGPU_LICENSE_STATUS",
	"DCGM_EXP_GPU_HEALTH_STATUS",
	"DCGM_FI_DEV_COUNT",
	"DCGM_FI_DEV_NAME",
	"DCGM_FI_DEV_UUID",
	"DCGM_FI_PROF_PIPE_INT_ACTIVE",
	"DCGM_FI_PROF_NVOFA0_ACTIVE",
	"DCGM_FI_PROF_NVDEC0_ACTIVE",
	"DCGM_FI_PROF_NVJPG0_ACTIVE",
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

struct counter {
	char *name;
	char *help; /* NULL: none given */
	enum counter_type type;
	int line;
};

struct counters {
	struct counter *v;
	size_t n, cap;
	struct counter *skipped;
	size_t nskipped, skipcap;
};

void counters_free(struct counters *c)
{
	size_t i;
	if (!c)
		return;
	for (i = 0; i < c->n; i++) {
		free(c->v[i].name);
		free(c->v[i].help);
	}
	for (i = 0; i < c->nskipped; i++)
		free(c->skipped[i].name);
	free(c->v);
	free(c->skipped);
	free(c);
}

/* Trims blanks in place; *col moves with the leading ones. */
static char *trim(char *s, int *col)
{
	char *e;
	while (*s == ' ' || *s == '\t') {
		s++;
		(*col)++;
	}
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static int in_list(const char *name, const char *const *list, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (!strcmp(name, list[i]))
			return 1;
	return 0;
}

/*
 * Looks a metric name up in the family table: 1 for a native name, 2 for a
 * dcgm name (with *counter its type), 0 when unknown.
 */
static int family_kind(const char *name, int *counter)
{
	size_t i, n = families_count();
	for (i = 0; i < n; i++) {
		const char *nat, *dcgm, *help;
		int nc, dc;
		families_names(i, &nat, &dcgm, &nc, &dc, &help);
		if (dcgm && !strcmp(dcgm, name)) {
			*counter = dc;
			return 2;
		}
		if (nat && !strcmp(nat, name)) {
			*counter = nc;
			return 1;
		}
	}
	return 0;
}

/* "; did you mean 'X'?" over every name the file may use. */
static const char *hint(const char *word, char *buf, size_t len)
{
	size_t i, n = families_count(), k = 0;
	const char **cands = xcalloc(2 * n + NELEM(label_fields), sizeof(*cands));
	for (i = 0; i < n; i++) {
		const char *nat, *dcgm, *help;
		int nc, dc;
		families_names(i, &nat, &dcgm, &nc, &dc, &help);
		if (nat)
			cands[k++] = nat;
		if (dcgm)
			cands[k++] = dcgm;
	}
	for (i = 0; i < NELEM(label_fields); i++)
		cands[k++] = label_fields[i];
	suggest_hint(word, cands, k, buf, len);
	free(cands);
	return buf;
}

static int parse_type(const char *s, enum counter_type *t)
{
	if (!strcmp(s, "gauge"))
		*t = COUNTER_GAUGE;
	else if (!strcmp(s, "counter"))
		*t = COUNTER_COUNTER;
	else if (!strcmp(s, "label"))
		*t = COUNTER_LABEL;
	else
		return -1;
	return 0;
}

/*
 * Checks one record's trimmed fields (help may be NULL): 0 to add it, 1 to
 * skip it, -1 with *err on a bad line.
 */
static int check_record(struct counters *c, const char *file, int line, char *const *f, const int *cols,
			enum counter_type *type, struct diag *err)
{
	char buf[256];
	size_t i;
	int kind, counter = 0;

	if (!f[0][0])
		return diag_set(err, file, line, cols[0], NULL, "empty field name");
	if (parse_type(f[1], type))
		return diag_set(err, file, line, cols[1], f[0], "unknown type '%s': gauge, counter or label",
				f[1]);
	for (i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].name, f[0]))
			return diag_set(err, file, line, cols[0], f[0], "listed twice (first on line %d)",
					c->v[i].line);
	if (in_list(f[0], label_fields, NELEM(label_fields))) {
		if (*type != COUNTER_LABEL)
			return diag_set(err, file, line, cols[1], f[0],
					"is a label field: its type must be 'label'");
		return 0;
	}
	if (in_list(f[0], dcgm_unserved, NELEM(dcgm_unserved)))
		return 1;
	kind = family_kind(f[0], &counter);
	if (!kind)
		return diag_set(err, file, line, cols[0], f[0], "unknown field%s", hint(f[0], buf, sizeof(buf)));
	if (*type == COUNTER_LABEL)
		return diag_set(err, file, line, cols[1], f[0],
				"is a metric: its type must be gauge or counter, not label");
	if (kind == 1 && (*type == COUNTER_COUNTER) != counter)
		return diag_set(err, file, line, cols[1], f[0], "is a %s; a native name keeps its type",
				counter ? "counter" : "gauge");
	return 0;
}

/* Adds one record; -1 with *err on a bad line. */
static int add_record(struct counters *c, const char *file, const struct csv_record *rec, struct diag *err)
{
	char *owned[3] = {NULL, NULL, NULL}, *f[3] = {NULL, NULL, NULL};
	int cols[3] = {1, 1, 1};
	size_t i, nf = rec->nfields;
	enum counter_type type = COUNTER_GAUGE;
	int rc;

	if (nf == 1 && !rec->fields[0][0])
		return 0;
	if (nf < 2)
		return diag_set(err, file, rec->line, rec->cols[0], NULL,
				"expected 'field name, type, help', got one field");
	if (nf > 3)
		return diag_set(err, file, rec->line, rec->cols[3], NULL,
				"expected 3 fields (name, type, help), got %zu; quote a help text that has commas",
				nf);
	for (i = 0; i < nf; i++) {
		owned[i] = xstrdup(rec->fields[i]);
		cols[i] = rec->cols[i];
		f[i] = trim(owned[i], &cols[i]);
	}
	rc = check_record(c, file, rec->line, f, cols, &type, err);
	if (rc == 1) {
		XGROW(c->skipped, c->skipcap, c->nskipped + 1);
		c->skipped[c->nskipped].name = xstrdup(f[0]);
		c->skipped[c->nskipped].help = NULL;
		c->skipped[c->nskipped].line = rec->line;
		c->nskipped++;
	} else if (rc == 0) {
		struct counter *e;
		XGROW(c->v, c->cap, c->n + 1);
		e = &c->v[c->n++];
		e->name = xstrdup(f[0]);
		e->help = f[2] && f[2][0] ? xstrdup(f[2]) : NULL;
		e->type = type;
		e->line = rec->line;
	}
	for (i = 0; i < nf; i++)
		free(owned[i]);
	return rc < 0 ? -1 : 0;
}

int counters_parse(const char *buf, size_t len, const char *name, struct counters **out, struct diag *err)
{
	struct csv_reader *r = csv_open(name, buf, len, CSV_COMMENTS);
	struct counters *c = xcalloc(1, sizeof(*c));
	struct csv_record rec;
	int rc;

	*out = NULL;
	while ((rc = csv_next(r, &rec, err)) > 0)
		if (add_record(c, name, &rec, err) < 0) {
			rc = -1;
			break;
		}
	csv_free(r);
	if (rc < 0) {
		counters_free(c);
		return -1;
	}
	if (!c->n) {
		counters_free(c);
		return diag_set(err, name, 1, 1, NULL,
				"no field selected: the file lists none that gpuscope serves");
	}
	*out = c;
	return 0;
}

int counters_load(const char *path, struct counters **out, struct diag *err)
{
	char *buf;
	size_t len;
	int rc;
	*out = NULL;
	if (csv_read_file(path, &buf, &len, err) < 0)
		return -1;
	rc = counters_parse(buf, len, path, out, err);
	free(buf);
	return rc;
}

int counters_find(const struct counters *c, const char *name, enum counter_type *type, const char **help)
{
	size_t i;
	for (i = 0; c && i < c->n; i++)
		if (!strcmp(c->v[i].name, name)) {
			if (type)
				*type = c->v[i].type;
			if (help)
				*help = c->v[i].help;
			return 1;
		}
	return 0;
}

size_t counters_count(const struct counters *c)
{
	return c ? c->n : 0;
}

size_t counters_skipped(const struct counters *c, size_t i, const char **name, int *line)
{
	if (!c)
		return 0;
	if (i < c->nskipped) {
		*name = c->skipped[i].name;
		*line = c->skipped[i].line;
	}
	return c->nskipped;
}
