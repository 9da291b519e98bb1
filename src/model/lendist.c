/*
 * Input-length distributions and the offline throughput over them
 * (model/lendist.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/lendist.h"
#include "util/csv.h"
#include "util/num.h"
#include "util/xalloc.h"

#define LENDIST_MAX_ROWS 256
/* points the quantile function is read at: midpoints of equal shares */
#define LENDIST_POINTS 64

struct model_lendist {
	int n;
	double q[LENDIST_MAX_ROWS], tokens[LENDIST_MAX_ROWS];
};

static int row_parse(struct model_lendist *d, const char *path, const struct csv_record *rec, struct diag *err)
{
	static const struct num_range qr = {0, 1, NUM_ABOVE_MIN}, tr = {1, 10000000, NUM_WHOLE};
	static const char *const names[2] = {"q", "tokens"};
	const struct num_range *rg[2] = {&qr, &tr};
	double v[2];
	char why[160];
	int i;
	if (rec->nfields != 2)
		return diag_set(err, path, rec->line, 1, "", "a row is q,tokens: 2 fields, not %zu", rec->nfields);
	if (d->n >= LENDIST_MAX_ROWS)
		return diag_set(err, path, rec->line, 1, "", "more than %d rows", LENDIST_MAX_ROWS);
	for (i = 0; i < 2; i++)
		if (num_parse(rec->fields[i], NULL, rg[i], &v[i], why, sizeof(why)))
			return diag_set(err, path, rec->line, rec->cols[i], names[i], "%s", why);
	if (d->n > 0 && !(v[0] > d->q[d->n - 1]))
		return diag_set(err, path, rec->line, rec->cols[0], "q", "must rise: %g after %g", v[0],
				d->q[d->n - 1]);
	if (d->n > 0 && v[1] < d->tokens[d->n - 1])
		return diag_set(err, path, rec->line, rec->cols[1], "tokens", "must not fall: %g after %g", v[1],
				d->tokens[d->n - 1]);
	d->q[d->n] = v[0];
	d->tokens[d->n] = v[1];
	d->n++;
	return 0;
}

int model_lendist_read(const char *path, struct model_lendist **out, struct diag *err)
{
	struct model_lendist *d;
	struct csv_reader *r;
	struct csv_record rec;
	char *buf;
	size_t len;
	int rc, header = 1, last_line = 0;
	*out = NULL;
	if (csv_read_file(path, &buf, &len, err))
		return -1;
	d = xcalloc(1, sizeof(*d));
	r = csv_open(path, buf, len, CSV_COMMENTS);
	while ((rc = csv_next(r, &rec, err)) == 1) {
		last_line = rec.line;
		if (header) {
			header = 0;
			if (rec.nfields != 2 || strcmp(rec.fields[0], "q") || strcmp(rec.fields[1], "tokens")) {
				rc = diag_set(err, path, rec.line, 1, "", "the header is q,tokens");
				break;
			}
			continue;
		}
		if ((rc = row_parse(d, path, &rec, err)) < 0)
			break;
	}
	csv_free(r);
	free(buf);
	if (rc >= 0 && (d->n < 1 || d->q[d->n - 1] != 1))
		rc = diag_set(err, path, last_line, 1, "q",
			      "the last row's q must be 1 (every input at most its tokens)");
	if (rc < 0) {
		free(d);
		return -1;
	}
	*out = d;
	return 0;
}

void model_lendist_free(struct model_lendist *d)
{
	free(d);
}

int model_lendist_max(const struct model_lendist *d)
{
	return (int)d->tokens[d->n - 1];
}

/*
 * The length at cumulative share u: linear between the rows, the first row's
 * tokens from 0 up to its q (the table says no input is shorter than that
 * row allows, so the shortest share takes it).
 */
static double length_at(const struct model_lendist *d, double u)
{
	int i;
	if (u <= d->q[0])
		return d->tokens[0];
	for (i = 1; i < d->n; i++)
		if (u <= d->q[i]) {
			double f = (u - d->q[i - 1]) / (d->q[i] - d->q[i - 1]);
			return d->tokens[i - 1] + f * (d->tokens[i] - d->tokens[i - 1]);
		}
	return d->tokens[d->n - 1];
}

/* The length of point k of LENDIST_POINTS, whole tokens. */
static int point_len(const struct model_lendist *d, int k)
{
	return (int)lround(length_at(d, (k + 0.5) / LENDIST_POINTS));
}

double model_lendist_mean(const struct model_lendist *d)
{
	double s = 0;
	int k;
	for (k = 0; k < LENDIST_POINTS; k++)
		s += point_len(d, k);
	return s / LENDIST_POINTS;
}

int model_estimate_lengths(const struct workload *w, struct model_config *c, const struct model_lendist *d,
			   int padded, struct model_result *r, struct diag *err)
{
	struct model_config at = *c;
	double t = 0, mean = model_lendist_mean(d);
	int k;
	if (c->task != MODEL_TASK_INFER)
		return diag_set(err, "", 0, 0, "task", "--prompt-len-dist is for inference (--task infer)");
	if (c->output_len > 1)
		return diag_set(err, "", 0, 0, "output-len",
				"--prompt-len-dist times one forward pass of each input: use --output-len 0");
	c->prompt_len = at.prompt_len = model_lendist_max(d);
	if (model_estimate(w, &at, r))
		return diag_set(err, "", 0, 0, "prompt-len-dist", "this configuration cannot be evaluated");
	if (padded) {
		t = r->infer.request_s;
	} else {
		for (k = 0; k < LENDIST_POINTS; k++) {
			struct model_result one;
			at.prompt_len = point_len(d, k);
			if (model_estimate(w, &at, &one))
				return diag_set(err, "", 0, 0, "prompt-len-dist",
						"this configuration cannot be evaluated at %d tokens",
						at.prompt_len);
			t += one.infer.request_s / LENDIST_POINTS;
		}
	}
	r->infer.prefill_s = r->infer.request_s = t;
	r->infer.samples_per_s = c->dp * c->batch / t;
	r->infer.tokens_per_s = r->infer.samples_per_s * mean;
	r->samples_per_s = r->infer.samples_per_s;
	r->tokens_per_s = r->infer.tokens_per_s;
	return 0;
}
