/*
 * Compatibility rules as data: data/compat/cuda_driver.csv, gpu_arch.csv,
 * pytorch.csv and cudnn.csv, embedded at build time, read once.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/embedded.h"
#include "host/host.h"
#include "util/csv.h"
#include "util/xalloc.h"

int compat_cuda_parse(const char *text)
{
	char *e;
	long major, minor = 0;
	if (!text || !isdigit((unsigned char)*text))
		return -1;
	major = strtol(text, &e, 10);
	if (*e == '.') {
		const char *m = e + 1;
		if (!isdigit((unsigned char)*m))
			return -1;
		minor = strtol(m, &e, 10);
	}
	if (major < 1 || major > 99 || minor < 0 || minor > 99)
		return -1;
	return (int)(major * 1000 + minor * 10);
}

int compat_version_cmp(const char *a, const char *b)
{
	/* numeric fields left to right; a missing field counts as 0 */
	for (;;) {
		int ha = isdigit((unsigned char)*a), hb = isdigit((unsigned char)*b);
		long x = 0, y = 0;
		char *e;
		if (!ha && !hb)
			return 0;
		if (ha) {
			x = strtol(a, &e, 10);
			a = *e == '.' ? e + 1 : "";
		}
		if (hb) {
			y = strtol(b, &e, 10);
			b = *e == '.' ? e + 1 : "";
		}
		if (x != y)
			return x < y ? -1 : 1;
	}
}

static struct {
	struct compat_cuda *cuda;
	size_t ncuda;
	struct compat_arch *arch;
	size_t narch;
	struct compat_torch *torch;
	size_t ntorch;
	struct compat_cudnn *cudnn;
	size_t ncudnn;
	int rc;
	struct diag err;
} C;

static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Field of a row by header name; "" when absent. */
static const char *col(const struct csv_record *hdr, const struct csv_record *rec, const char *name)
{
	size_t i;
	for (i = 0; i < hdr->nfields && i < rec->nfields; i++)
		if (!strcmp(hdr->fields[i], name))
			return rec->fields[i];
	return "";
}

static char *dup_or_null(const char *s)
{
	return *s ? xstrdup(s) : NULL;
}

/* cc "9.0" -> 9, 0 */
static int parse_cc(const char *s, int *major, int *minor)
{
	return sscanf(s, "%d.%d", major, minor) == 2 ? 0 : -1;
}

typedef int (*row_fn)(const struct csv_record *hdr, const struct csv_record *rec, const char *file);

static int add_cuda(const struct csv_record *hdr, const struct csv_record *rec, const char *file)
{
	struct compat_cuda r;
	static size_t cap;
	r.cuda = compat_cuda_parse(col(hdr, rec, "cuda"));
	if (r.cuda < 0 || !*col(hdr, rec, "min_driver"))
		return diag_set(&C.err, file, rec->line, 1, "cuda", "bad CUDA release or driver");
	r.min_driver = xstrdup(col(hdr, rec, "min_driver"));
	r.min_driver_compat = dup_or_null(col(hdr, rec, "min_driver_compat"));
	r.source = xstrdup(col(hdr, rec, "source"));
	XGROW(C.cuda, cap, C.ncuda + 1);
	C.cuda[C.ncuda++] = r;
	return 0;
}

static int add_arch(const struct csv_record *hdr, const struct csv_record *rec, const char *file)
{
	struct compat_arch r;
	static size_t cap;
	const char *mx = col(hdr, rec, "max_cuda");
	if (parse_cc(col(hdr, rec, "cc"), &r.cc_major, &r.cc_minor) < 0)
		return diag_set(&C.err, file, rec->line, 1, "cc", "bad compute capability");
	r.arch = xstrdup(col(hdr, rec, "arch"));
	r.gpus = xstrdup(col(hdr, rec, "gpus"));
	r.min_cuda = compat_cuda_parse(col(hdr, rec, "min_cuda"));
	r.max_cuda = *mx ? compat_cuda_parse(mx) : -1;
	r.source = xstrdup(col(hdr, rec, "source"));
	XGROW(C.arch, cap, C.narch + 1);
	C.arch[C.narch++] = r;
	return 0;
}

static int add_torch(const struct csv_record *hdr, const struct csv_record *rec, const char *file)
{
	struct compat_torch r;
	static size_t cap;
	r.torch = xstrdup(col(hdr, rec, "torch"));
	r.cuda = compat_cuda_parse(col(hdr, rec, "cuda"));
	if (r.cuda < 0) {
		free((char *)r.torch);
		return diag_set(&C.err, file, rec->line, 1, "cuda", "bad CUDA build");
	}
	r.cudnn = xstrdup(col(hdr, rec, "cudnn"));
	r.arch_list = xstrdup(col(hdr, rec, "arch_list"));
	r.source = xstrdup(col(hdr, rec, "source"));
	XGROW(C.torch, cap, C.ntorch + 1);
	C.torch[C.ntorch++] = r;
	return 0;
}

static int add_cudnn(const struct csv_record *hdr, const struct csv_record *rec, const char *file)
{
	struct compat_cudnn r;
	static size_t cap;
	if (sscanf(col(hdr, rec, "cudnn"), "%d.%d", &r.major, &r.minor) != 2)
		return diag_set(&C.err, file, rec->line, 1, "cudnn", "bad cuDNN release");
	r.cuda_min = compat_cuda_parse(col(hdr, rec, "cuda_min"));
	r.cuda_max = compat_cuda_parse(col(hdr, rec, "cuda_max"));
	if (parse_cc(col(hdr, rec, "cc_min"), &r.cc_min_major, &r.cc_min_minor) < 0)
		r.cc_min_major = r.cc_min_minor = 0;
	r.source = xstrdup(col(hdr, rec, "source"));
	XGROW(C.cudnn, cap, C.ncudnn + 1);
	C.cudnn[C.ncudnn++] = r;
	return 0;
}

static int load_one(const char *name, row_fn fn)
{
	const struct embedded_file *f = embedded_find(name);
	char file[64];
	struct csv_reader *r;
	struct csv_record rec, hdr;
	int rc = 0, got;

	snprintf(file, sizeof(file), "data/%s", name);
	if (!f)
		return diag_set(&C.err, file, 0, 0, "", "missing from the build");
	r = csv_open(file, f->data, f->len, CSV_COMMENTS);
	got = csv_next(r, &rec, &C.err);
	if (got <= 0) {
		csv_free(r);
		return got < 0 ? -1 : diag_set(&C.err, file, 1, 1, "", "no header");
	}
	/* the header's strings die at the next csv_next(): keep copies */
	csv_record_copy(&hdr, &rec);
	while ((got = csv_next(r, &rec, &C.err)) > 0)
		if (fn(&hdr, &rec, file) < 0) {
			rc = -1;
			break;
		}
	if (got < 0)
		rc = -1;
	csv_record_release(&hdr);
	csv_free(r);
	return rc;
}

static void load_all(void)
{
	diag_clear(&C.err);
	C.rc = load_one("compat/cuda_driver.csv", add_cuda);
	if (!C.rc)
		C.rc = load_one("compat/gpu_arch.csv", add_arch);
	if (!C.rc)
		C.rc = load_one("compat/pytorch.csv", add_torch);
	if (!C.rc)
		C.rc = load_one("compat/cudnn.csv", add_cudnn);
}

int compat_load(struct diag *err)
{
	pthread_once(&once, load_all);
	if (C.rc && err)
		*err = C.err;
	return C.rc;
}

const struct compat_cuda *compat_cuda_row(int cuda)
{
	size_t i;
	if (compat_load(NULL))
		return NULL;
	for (i = 0; i < C.ncuda; i++)
		if (C.cuda[i].cuda == cuda)
			return &C.cuda[i];
	return NULL;
}

int compat_max_cuda_for_driver(const char *driver)
{
	size_t i;
	int best = -1;
	if (compat_load(NULL) || !driver || !*driver)
		return -1;
	for (i = 0; i < C.ncuda; i++)
		if (compat_version_cmp(C.cuda[i].min_driver, driver) <= 0 && C.cuda[i].cuda > best)
			best = C.cuda[i].cuda;
	return best;
}

const struct compat_arch *compat_arch_row(int cc_major, int cc_minor)
{
	size_t i;
	if (compat_load(NULL))
		return NULL;
	for (i = 0; i < C.narch; i++)
		if (C.arch[i].cc_major == cc_major && C.arch[i].cc_minor == cc_minor)
			return &C.arch[i];
	return NULL;
}

size_t compat_torch_rows(const char *torch_version, const struct compat_torch **rows)
{
	char mm[16];
	size_t i, first = 0, n = 0;
	int a, b;
	*rows = NULL;
	if (compat_load(NULL) || !torch_version || sscanf(torch_version, "%d.%d", &a, &b) != 2)
		return 0;
	snprintf(mm, sizeof(mm), "%d.%d", a, b);
	for (i = 0; i < C.ntorch; i++)
		if (!strcmp(C.torch[i].torch, mm)) {
			if (!n)
				first = i;
			n++;
		}
	if (n)
		*rows = &C.torch[first];
	return n;
}

const struct compat_cudnn *compat_cudnn_row(int major, int minor)
{
	size_t i;
	const struct compat_cudnn *best = NULL;
	int newer = 0;
	if (compat_load(NULL))
		return NULL;
	/*
	 * The row of that release; else, for a release between two rows of
	 * the same major, the older one.  A release newer than the table
	 * knows gets no row: its CUDA range is not guessed.
	 */
	for (i = 0; i < C.ncudnn; i++) {
		const struct compat_cudnn *r = &C.cudnn[i];
		if (r->major == major && r->minor == minor)
			return r;
		if (r->major == major && r->minor < minor && (!best || r->minor > best->minor))
			best = r;
		if (r->major == major && r->minor > minor)
			newer = 1;
	}
	return newer ? best : NULL;
}

int compat_arch_runs(const char *arch_list, int cc_major, int cc_minor, char *via, size_t len)
{
	const char *p = arch_list;
	int best_sm = -1, best_ptx = -1, target = cc_major * 10 + cc_minor;
	if (len)
		via[0] = '\0';
	while (p && *p) {
		size_t n;
		int v;
		while (*p == ' ' || *p == ',')
			p++;
		n = strcspn(p, " ,");
		if (!n)
			break;
		/* sm_90, sm_90a (arch-specific: only that exact GPU), compute_90 (PTX) */
		if (n > 3 && !strncmp(p, "sm_", 3) && sscanf(p + 3, "%d", &v) == 1) {
			int exact_only = isalpha((unsigned char)p[n - 1]);
			if (v / 10 == cc_major && v % 10 <= cc_minor && (!exact_only || v == target))
				if (v > best_sm)
					best_sm = v;
		} else if (n > 8 && !strncmp(p, "compute_", 8) && sscanf(p + 8, "%d", &v) == 1) {
			if (v <= target && v > best_ptx && !isalpha((unsigned char)p[n - 1]))
				best_ptx = v;
		}
		p += n;
	}
	if (best_sm >= 0) {
		if (len)
			snprintf(via, len, "sm_%d", best_sm);
		return 1;
	}
	if (best_ptx >= 0) {
		if (len)
			snprintf(via, len, "compute_%d (PTX JIT)", best_ptx);
		return 1;
	}
	return 0;
}
