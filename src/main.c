/*
 * gpuscope: plan, check, monitor and measure GPU servers for PyTorch.
 *
 * The command table, global options and exit handling (git's git.c shape).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "util/error.h"
#include "util/suggest.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	const char *question; /* which of the four questions it answers */
};

static const struct command commands[] = {
	{"plan", cmd_plan, "search GPU types, counts, fabrics and layouts for a workload", "buy"},
	{"estimate", cmd_estimate, "memory, step time and throughput of one configuration", "buy"},
	{"tco", cmd_tco, "total cost of owning GPU servers against renting them", "buy"},
	{"catalog", cmd_catalog, "list and show the hardware catalog (GPUs, links, servers, clouds)", "buy"},
	{"validate", cmd_validate, "run published measurements through the model and report errors", "buy"},
	{"fields", cmd_fields, "the fields of every --json and --csv result, with units and meaning", "buy"},
	{"check", cmd_check, "inspect this host's GPU stack and hardware health", "setup"},
	{"export", cmd_export, "Prometheus exporter for GPU metrics (dcgm-exporter compatible)", "run"},
	{"top", cmd_top, "live view of the GPUs, their processes and their errors", "run"},
	{"bench", cmd_bench, "measure GEMM, memory, copies, collectives and launches of this host's GPUs",
	 "measure"},
	{"profile", cmd_profile, "where a PyTorch job's time goes, from its profiler trace", "run"},
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	static const struct {
		const char *tag, *title;
	} groups[] = {
		{"buy", "What should I buy or rent?"},
		{"setup", "Is this host set up right?"},
		{"run", "How is it doing?"},
		{"measure", "What can this machine really do?"},
	};
	size_t g, i;
	fprintf(out,
		"usage: gpuscope [--catalog DIR] [--version] [--help] COMMAND [ARGS]\n\n"
		"gpuscope answers four questions about GPU servers that run PyTorch.\n");
	for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		int any = 0;
		for (i = 0; i < NCOMMANDS; i++) {
			if (!commands[i].fn || strcmp(commands[i].question, groups[g].tag))
				continue;
			if (!any)
				fprintf(out, "\n%s\n", groups[g].title);
			any = 1;
			fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
		}
	}
	fprintf(out,
		"\nglobal options:\n"
		"  --catalog DIR  add or override catalog rows from DIR (also $GPUSCOPE_CATALOG)\n"
		"  --version      print the version\n"
		"  --help         this help; 'gpuscope help COMMAND' for one command\n");
}

static const struct command *find_command(const char *name)
{
	size_t i;
	for (i = 0; i < NCOMMANDS; i++)
		if (commands[i].fn && !strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int unknown_command(const char *name)
{
	const char *names[NCOMMANDS];
	char hint[256];
	size_t i, n = 0;
	for (i = 0; i < NCOMMANDS; i++)
		if (commands[i].fn)
			names[n++] = commands[i].name;
	suggest_hint(name, names, n, hint, sizeof(hint));
	fprintf(stderr,
		"gpuscope: usage error: '%s' is not a gpuscope command%s\n"
		"see 'gpuscope --help'\n",
		name, hint);
	return EXIT_USAGE;
}

/* Flushes stdout and reports a failed write (full disk, closed pipe). */
static int finish(int rc)
{
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE)
			fprintf(stderr, "gpuscope: fatal: write error on standard output: %s\n", strerror(errno));
		return EXIT_ENV;
	}
	if (fclose(stdout)) {
		fprintf(stderr, "gpuscope: fatal: close failed on standard output: %s\n", strerror(errno));
		return EXIT_ENV;
	}
	return rc;
}

int main(int argc, char **argv)
{
	const struct command *cmd;
	int i = 1;

	global_opts.catalog_dir = getenv("GPUSCOPE_CATALOG");
	if (global_opts.catalog_dir && !*global_opts.catalog_dir)
		global_opts.catalog_dir = NULL;
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return finish(EXIT_OK);
		} else if (!strcmp(a, "--version")) {
			printf("gpuscope %s\n", GPUSCOPE_VERSION);
			return finish(EXIT_OK);
		} else if (!strcmp(a, "--catalog")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "gpuscope: usage error: option '--catalog' needs a directory\n");
				return EXIT_USAGE;
			}
			global_opts.catalog_dir = argv[++i];
		} else if (!strncmp(a, "--catalog=", 10)) {
			global_opts.catalog_dir = a + 10;
		} else {
			const char *names[] = {"--catalog", "--version", "--help"};
			char hint[128];
			suggest_hint(a, names, 3, hint, sizeof(hint));
			fprintf(stderr,
				"gpuscope: usage error: unknown option '%s'%s\n"
				"see 'gpuscope --help'\n",
				a, hint);
			return EXIT_USAGE;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[i], "help")) {
		char *help_argv[] = {NULL, "--help", NULL};
		if (i + 1 >= argc) {
			usage(stdout);
			return finish(EXIT_OK);
		}
		cmd = find_command(argv[i + 1]);
		if (!cmd)
			return unknown_command(argv[i + 1]);
		help_argv[0] = argv[i + 1];
		return finish(cmd->fn(2, help_argv));
	}
	cmd = find_command(argv[i]);
	if (!cmd)
		return unknown_command(argv[i]);
	return finish(cmd->fn(argc - i, argv + i));
}
