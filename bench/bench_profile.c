/*
 * Speed of `gpuscope profile`: MB/s of trace JSON read and analysed
 * (profile_run_mem(), one core), side by side with loading the same bytes
 * into a document with jansson (json_loadb()), and the whole command's path
 * from the gzipped file (profile_run(): decompression included).
 *
 *	bench_profile TRACE[.gz] [REPEATS]
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zlib.h>

#include "profile/profile.h"
#include "util/strbuf.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	struct strbuf sb = STRBUF_INIT;
	char chunk[1 << 16];
	int n, k, reps = argc > 2 ? atoi(argv[2]) : 5;
	double t0, ours = 1e30, theirs = 1e30, file = 1e30, mb;
	gzFile gz;
	struct diag err;

	if (argc < 2 || reps < 1) {
		fprintf(stderr, "usage: bench_profile TRACE[.gz] [REPEATS]\n");
		return 2;
	}
	gz = gzopen(argv[1], "rb");
	if (!gz) {
		perror(argv[1]);
		return 1;
	}
	while ((n = gzread(gz, chunk, sizeof(chunk))) > 0)
		strbuf_add(&sb, chunk, (size_t)n);
	gzclose(gz);
	mb = (double)sb.len / 1e6;
	for (k = 0; k < reps; k++) {
		struct profile_result *r;
		json_t *doc;
		json_error_t je;
		t0 = now();
		r = profile_run_mem(argv[1], sb.buf, sb.len, &err);
		if (!r) {
			fprintf(stderr, "%s: %s\n", argv[1], err.msg);
			return 1;
		}
		profile_result_free(r);
		if (now() - t0 < ours)
			ours = now() - t0;
		t0 = now();
		doc = json_loadb(sb.buf, sb.len, 0, &je);
		if (!doc) {
			fprintf(stderr, "jansson: %s\n", je.text);
			return 1;
		}
		json_decref(doc);
		if (now() - t0 < theirs)
			theirs = now() - t0;
		t0 = now();
		r = profile_run(argv[1], &err);
		profile_result_free(r);
		if (now() - t0 < file)
			file = now() - t0;
	}
	printf("trace %s: %.1f MB of JSON, best of %d\n", argv[1], mb, reps);
	printf("profile (parse + analyse, in memory)  %8.1f MB/s  %7.1f ms\n", mb / ours, 1e3 * ours);
	printf("jansson json_loadb (document only)    %8.1f MB/s  %7.1f ms\n", mb / theirs, 1e3 * theirs);
	printf("profile from the file (with gunzip)   %8.1f MB/s  %7.1f ms\n", mb / file, 1e3 * file);
	strbuf_release(&sb);
	return 0;
}
