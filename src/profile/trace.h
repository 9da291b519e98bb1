/*
 * A streaming reader of Chrome trace files as the PyTorch profiler (Kineto)
 * writes them: {"deviceProperties": [...], "traceEvents": [{...}, ...], ...},
 * plain or gzip-compressed (zlib reads both).  It never builds a document:
 * it hands each element of traceEvents to a callback as soon as the
 * element's closing brace is read, so memory stays at the input buffer plus
 * the longest string of one event, whatever the file's size.
 *
 * Hostile input is bounded: every string (key or value, read or skipped) is
 * at most TRACE_MAX_STRING bytes, a number at most TRACE_MAX_NUMBER
 * characters, nesting at most TRACE_MAX_DEPTH levels.  Errors come back as a
 * struct diag: file, line, column, the field when one is concerned, and a
 * message with the byte offset and what was expected.
 */
#ifndef GPUSCOPE_PROFILE_TRACE_H
#define GPUSCOPE_PROFILE_TRACE_H

#include <stddef.h>

#include "util/error.h"

#define TRACE_MAX_STRING (4u << 20) /* bytes; kernel names run to ~10 KB */
#define TRACE_MAX_NUMBER 64         /* characters of one number */
#define TRACE_MAX_DEPTH 64          /* nested arrays and objects */
#define TRACE_MAX_INPUTS 6          /* operator inputs whose shapes are kept */
#define TRACE_MAX_DIMS 6            /* dimensions kept of one input */

/*
 * One element of traceEvents, with the members the analysis reads.  Text is
 * borrowed from the reader and valid only during the callback.  Absent
 * numbers are NaN, absent integers -1, absent text "" (collective, dtype:
 * NULL).  Times are in microseconds, as the format writes them.
 */
struct trace_event {
	char ph;          /* phase: 'X' complete, 'i' instant, 'M' metadata ...; 0 when absent */
	const char *cat;  /* "kernel", "Kernel", "gpu_memcpy", "cuda_runtime", "user_annotation" ... */
	const char *name; /* the kernel's or the operator's name */
	double ts_us;     /* start, µs since the trace's epoch */
	double dur_us;    /* duration, µs */
	long long device, stream, correlation; /* args.device, args.stream, args.correlation */
	/* NCCL kernels (args of the current schema) */
	const char *collective; /* args."Collective name": "allreduce", "broadcast" ... */
	const char *dtype;      /* args.dtype of a collective: "Float", "BFloat16" ... */
	double in_nelems;       /* args."In msg nelems" */
	long long group_size;   /* args."Group size" */
	double bytes;           /* args.bytes of a copy or memset, bytes */
	long long tid;          /* the event's thread (a number), or -1 */
	/* cuda_sync "Stream Wait Event": args.wait_on_stream and wait_on_cuda_event_record_corr_id, or -1 */
	long long wait_stream, wait_corr;
	/* operators (cpu_op) recorded with shapes: args."Input Dims", "Input type", "Concrete Inputs" */
	int ninputs;                                   /* inputs seen (may exceed TRACE_MAX_INPUTS) */
	int ndims[TRACE_MAX_INPUTS];                   /* dims of input i; -1 when not a list of numbers */
	double dims[TRACE_MAX_INPUTS][TRACE_MAX_DIMS]; /* the first TRACE_MAX_DIMS of them */
	const char *
		input_type; /* the first "Input type" that names a tensor type ("float", "c10::BFloat16"), or "" */
	/* "Concrete Inputs": up to 3 integers of each of the first 12 ("[2, 2]", "1"), count -1 when none */
	int nconcrete[12];
	long long concrete[12][3];
	/* kernels: args.grid and args.block, x*y*z; NaN when absent */
	double grid, block;
};

/* What the file says besides its events; text owned by the reader. */
struct trace_info {
	const char *gpu_name; /* deviceProperties[0].name, or NULL (the 2021 schema has none) */
	double gpu_mem_bytes; /* deviceProperties[0].totalGlobalMem, bytes; NaN when absent */
	double gpu_sms;       /* deviceProperties[0].numSms (compute units on ROCm); NaN when absent */
	int ndevices;         /* elements of deviceProperties */
	long long events;     /* elements of traceEvents read */
	long long rank;       /* distributedInfo.rank, or -1 */
	long long world_size; /* distributedInfo.world_size, or -1 */
};

/* Returns 0 to go on, or non-zero to stop the read (trace_read() then returns -1). */
typedef int (*trace_event_fn)(const struct trace_event *ev, void *ctx);

struct trace_reader;

/*
 * Opens path (".json" or ".json.gz"; zlib detects the compression).  NULL
 * with err filled when it cannot be opened.  The reader owns its buffers;
 * trace_reader_free() releases them.
 */
struct trace_reader *trace_reader_open(const char *path, struct diag *err);
/* A reader over len bytes at data (borrowed; uncompressed), named name in errors. */
struct trace_reader *trace_reader_mem(const char *name, const char *data, size_t len);
void trace_reader_free(struct trace_reader *r);

/*
 * Reads the whole file, calling fn for every event.  0 on success; -1 with
 * err filled on malformed input, on an I/O error, or when fn stopped it.
 */
int trace_reader_run(struct trace_reader *r, trace_event_fn fn, void *ctx, struct diag *err);
/* Valid after trace_reader_run(), until trace_reader_free(). */
const struct trace_info *trace_reader_info(const struct trace_reader *r);
/* Bytes of (uncompressed) JSON consumed so far. */
unsigned long long trace_reader_offset(const struct trace_reader *r);

#endif
