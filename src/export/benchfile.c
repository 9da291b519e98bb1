/*
 * bench's calibration file as metrics (export/benchfile.h).  The file is
 * read through the calibration reader (bench/calib.h), so the exporter
 * refuses exactly what estimate refuses; the catalog that reader resolves
 * the GPU type in is loaded at the first read, not at start.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bench/calib.h"
#include "catalog/catalog.h"
#include "export/benchfile.h"
#include "export/log.h"
#include "util/xalloc.h"

struct export_bench {
	char *path;
	struct catalog *cat;
	int seen;              /* a stat was made */
	int present;           /* the last stat found the file */
	struct timespec mtime; /* what it found */
	off_t size;
	ino_t ino;
	int up; /* cal holds the file as it is now */
	struct bench_calibration cal;
	double measured_s;          /* cal.date as Unix time; NaN when absent or unreadable */
	double age_s;               /* now - measured_s at the last poll */
	unsigned long long reloads; /* successful reads */
	unsigned long long errors;  /* refused reads: one per changed version of a bad file */
};

struct export_bench *export_bench_new(const char *path)
{
	struct export_bench *b = xcalloc(1, sizeof(*b));
	b->path = xstrdup(path);
	b->measured_s = b->age_s = NAN;
	return b;
}

void export_bench_free(struct export_bench *b)
{
	if (!b)
		return;
	bench_calibration_release(&b->cal);
	catalog_free(b->cat);
	free(b->path);
	free(b);
}

/* "2025-06-01T10:00:00Z" as Unix time; NaN for anything else. */
static double utc_seconds(const char *s)
{
	struct tm tm;
	const char *end;
	memset(&tm, 0, sizeof(tm));
	if (!s || !(end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)) || strcmp(end, "Z"))
		return NAN;
	return (double)timegm(&tm);
}

/* Forgets what was served: a bad or missing file serves none of its figures. */
static void drop(struct export_bench *b)
{
	bench_calibration_release(&b->cal);
	b->up = 0;
	b->measured_s = b->age_s = NAN;
}

static int reread(struct export_bench *b)
{
	struct bench_calibration c;
	struct diag err;
	char msg[1024];
	drop(b);
	diag_clear(&err);
	if (!b->cat && catalog_load(&b->cat, NULL, &err)) {
		diag_format(&err, msg, sizeof(msg));
		b->errors++;
		xlog(LOG_ERROR, "gpuscope export: --bench-file: the catalog: %s; serving no bench figures", msg);
		return -1;
	}
	if (bench_calibration_read_file(b->path, b->cat, &c, &err)) {
		diag_format(&err, msg, sizeof(msg));
		b->errors++;
		xlog(LOG_WARN, "gpuscope export: --bench-file: %s; serving no bench figures until it changes",
		     msg);
		return -1;
	}
	b->cal = c;
	b->up = 1;
	b->reloads++;
	b->measured_s = utc_seconds(c.date);
	xlog(LOG_INFO, "gpuscope export: --bench-file: read %s (%s, measured %s)", b->path, c.model.gpu->row.key,
	     c.date ? c.date : "at an unknown date");
	return 1;
}

int export_bench_poll(struct export_bench *b, double now_s)
{
	struct stat st;
	int rc = 0;
	if (stat(b->path, &st)) {
		if (!b->seen || b->present)
			xlog(LOG_WARN, "gpuscope export: --bench-file: %s: %s; serving no bench figures", b->path,
			     strerror(errno));
		b->seen = 1;
		b->present = 0;
		drop(b);
		return -1;
	}
	if (!b->seen || !b->present || st.st_mtim.tv_sec != b->mtime.tv_sec ||
	    st.st_mtim.tv_nsec != b->mtime.tv_nsec || st.st_size != b->size || st.st_ino != b->ino) {
		b->mtime = st.st_mtim;
		b->size = st.st_size;
		b->ino = st.st_ino;
		rc = reread(b);
	} else if (!b->up) {
		rc = -1;
	}
	b->seen = b->present = 1;
	b->age_s = now_s - b->measured_s;
	return rc;
}

/* One gauge family with a sample per (label value, figure) given; nothing when none is a number. */
static void gauges(struct expo_writer *w, const char *labels, const char *name, const char *help, const char *unit,
		   const char *label, const char *const *values, const double *v, size_t n)
{
	size_t i, any = 0;
	for (i = 0; i < n; i++)
		any |= isfinite(v[i]);
	if (!any)
		return;
	expo_family(w, name, EXPO_GAUGE, help, unit);
	for (i = 0; i < n; i++)
		if (isfinite(v[i]))
			expo_sample(w, labels, label, label ? values[i] : NULL, v[i]);
}

/*
 * The figures of the file, one family each: a label (NULL none) whose
 * values name the members of struct bench_calibration at off[] (doubles).
 */
struct series {
	const char *name, *help, *unit, *label;
	const char *values[MODEL_FP8 + 1];
	size_t off[MODEL_FP8 + 1];
	size_t n;
};
#define AT(member) offsetof(struct bench_calibration, member)
static const struct series series[] = {
	{"gpuscope_bench_gemm_tflops",
	 "Best GEMM rate bench measured, by input type, in TFLOP/s",
	 NULL,
	 "dtype",
	 {"fp32", "tf32", "fp16", "bf16", "fp8"},
	 {AT(model.gemm_tflops[MODEL_FP32]), AT(model.gemm_tflops[MODEL_TF32]), AT(model.gemm_tflops[MODEL_FP16]),
	  AT(model.gemm_tflops[MODEL_BF16]), AT(model.gemm_tflops[MODEL_FP8])},
	 MODEL_FP8 + 1},
	{"gpuscope_bench_hbm_gbps",
	 "HBM bandwidth of bench's read, write and copy kernels (copy: read + written), mean over the GPUs, in GB/s",
	 NULL,
	 "kernel",
	 {"read", "write", "copy"},
	 {AT(hbm_read_gbps), AT(hbm_write_gbps), AT(hbm_copy_gbps)},
	 3},
	{"gpuscope_bench_host_copy_gbps",
	 "Pinned host to device (h2d) and device to host (d2h) copy rate, mean over the GPUs, in GB/s",
	 NULL,
	 "direction",
	 {"h2d", "d2h"},
	 {AT(h2d_gbps), AT(d2h_gbps)},
	 2},
	{"gpuscope_bench_p2p_gbps",
	 "Peer copy rate, mean over the ordered pairs, in GB/s",
	 NULL,
	 NULL,
	 {NULL},
	 {AT(p2p_gbps)},
	 1},
	{"gpuscope_bench_allreduce_busbw_gbps",
	 "NCCL all-reduce bus bandwidth at its best size, in GB/s",
	 NULL,
	 NULL,
	 {NULL},
	 {AT(allreduce_busbw_gbps)},
	 1},
	{"gpuscope_bench_launch_seconds",
	 "One empty kernel launch, or one CUDA graph replay",
	 "seconds",
	 "kind",
	 {"kernel", "graph"},
	 {AT(launch_s), AT(graph_s)},
	 2},
	{"gpuscope_bench_clock_mhz",
	 "Lowest SM and memory clocks during bench's bf16 GEMM (else its first measured type), in MHz",
	 NULL,
	 "clock",
	 {"sm", "mem"},
	 {AT(sm_mhz), AT(mem_mhz)},
	 2},
	{"gpuscope_bench_power_watts",
	 "Highest board power during the GEMM the clocks come from",
	 "watts",
	 NULL,
	 {NULL},
	 {AT(power_w)},
	 1},
};

void export_bench_render(const struct export_bench *b, struct expo_writer *w)
{
	const struct bench_calibration *c;
	struct strbuf l = STRBUF_INIT;
	const char *lb;
	double v[MODEL_FP8 + 1];
	size_t k, n;
	if (!b)
		return;
	c = &b->cal;
	expo_family(w, "gpuscope_bench_file_up", EXPO_GAUGE,
		    "1 when --bench-file was read and its figures are served; 0 when it is absent or refused",
		    NULL);
	expo_sample(w, NULL, NULL, NULL, b->up);
	expo_family(w, "gpuscope_bench_file_reloads_total", EXPO_COUNTER,
		    "Times --bench-file was read after it changed", NULL);
	expo_sample(w, NULL, NULL, NULL, (double)b->reloads);
	expo_family(w, "gpuscope_bench_file_errors_total", EXPO_COUNTER,
		    "Versions of --bench-file refused as not a calibration file (logged with file:line:column)",
		    NULL);
	expo_sample(w, NULL, NULL, NULL, (double)b->errors);
	if (!b->up)
		return;
	expo_label(&l, 1, "gpu_type", c->model.gpu->row.key);
	lb = strbuf_str(&l);
	expo_family(w, "gpuscope_bench_info", EXPO_INFO, "What the served bench figures were measured on", NULL);
	{
		struct strbuf i = STRBUF_INIT;
		strbuf_addstr(&i, lb);
		expo_label(&i, 0, "model_name", c->gpu_name ? c->gpu_name : "");
		expo_label(&i, 0, "uuid", c->uuid ? c->uuid : "");
		expo_label(&i, 0, "driver", c->driver ? c->driver : "");
		expo_label(&i, 0, "date", c->date ? c->date : "");
		expo_sample(w, strbuf_str(&i), NULL, NULL, 1);
		strbuf_release(&i);
	}
	v[0] = c->count > 0 ? (double)c->count : NAN;
	gauges(w, lb, "gpuscope_bench_gpus", "GPUs bench measured", NULL, NULL, NULL, v, 1);
	v[0] = b->measured_s;
	gauges(w, lb, "gpuscope_bench_timestamp_seconds", "Unix time bench measured the served figures", "seconds",
	       NULL, NULL, v, 1);
	v[0] = b->age_s;
	gauges(w, lb, "gpuscope_bench_age_seconds", "Age of the served bench figures at the latest collection",
	       "seconds", NULL, NULL, v, 1);
	for (k = 0; k < sizeof(series) / sizeof(series[0]); k++) {
		const struct series *f = &series[k];
		for (n = 0; n < f->n; n++)
			v[n] = *(const double *)(const void *)((const char *)c + f->off[n]);
		gauges(w, lb, f->name, f->help, f->unit, f->label, f->values, v, f->n);
	}
	strbuf_release(&l);
}
