/*
 * The exporter's log: line formats, whole lines from concurrent threads,
 * the limiter, and warning() routed through it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/log.h"

/* Runs fn with stderr sent to a temporary file; returns what was written (caller frees). */
static char *capture(void (*fn)(void))
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	long n;
	char *out;
	assert_non_null(tmp);
	dup2(fileno(tmp), 2);
	fn();
	dup2(saved, 2);
	close(saved);
	fseek(tmp, 0, SEEK_END);
	n = ftell(tmp);
	out = calloc(1, (size_t)n + 1);
	rewind(tmp);
	assert_int_equal(fread(out, 1, (size_t)n, tmp), (size_t)n);
	fclose(tmp);
	return out;
}

static void test_formats(void **state)
{
	char line[256], why[128];
	(void)state;
	assert_int_equal(xlog_setup("info", "logfmt", why, sizeof(why)), 0);
	xlog_format(line, sizeof(line), 1700000000.25, LOG_WARN, "a \"quoted\"\nline\\");
	assert_string_equal(line,
			    "time=2023-11-14T22:13:20.250Z level=warn msg=\"a \\\"quoted\\\"\\nline\\\\\"\n");
	assert_int_equal(xlog_setup("debug", "json", why, sizeof(why)), 0);
	xlog_format(line, sizeof(line), 1700000000.0, LOG_ERROR, "tab\there");
	assert_string_equal(
		line, "{\"time\":\"2023-11-14T22:13:20.000Z\",\"level\":\"error\",\"msg\":\"tab\\u0009here\"}\n");
	assert_int_equal(xlog_setup("loud", "json", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "--log-level"));
	assert_int_equal(xlog_setup("info", "xml", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "--log-format"));
	/* a message too long for a line is cut, still one quoted line */
	{
		char big[4000];
		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		assert_int_equal(xlog_setup("info", "logfmt", why, sizeof(why)), 0);
		xlog_format(line, sizeof(line), 0, LOG_INFO, big);
		assert_int_equal(line[strlen(line) - 1], '\n');
		assert_int_equal(line[strlen(line) - 2], '"');
	}
}

static void *spam(void *arg)
{
	int i;
	for (i = 0; i < 500; i++)
		warning("thread %ld line %d %s", (long)(intptr_t)arg, i,
			"padding padding padding padding padding padding padding padding padding padding");
	return NULL;
}

static void many_threads(void)
{
	pthread_t t[8];
	long i;
	for (i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, spam, (void *)(intptr_t)i);
	for (i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
}

/* 8 threads x 500 warnings: 4000 whole lines, none cut into another */
static void test_whole_lines(void **state)
{
	char why[128], *out, *line, *save = NULL;
	int n = 0;
	(void)state;
	assert_int_equal(xlog_setup("info", "logfmt", why, sizeof(why)), 0);
	out = capture(many_threads);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		assert_true(!strncmp(line, "time=", 5));
		assert_non_null(strstr(line, " level=warn msg=\"thread "));
		assert_non_null(strstr(line, "padding padding\""));
		n++;
	}
	assert_int_equal(n, 4000);
	free(out);
}

/* the same without the log: warning()'s own lines are whole too */
static void test_whole_lines_plain(void **state)
{
	char *out, *line, *save = NULL;
	int n = 0;
	(void)state;
	error_set_handler(NULL);
	out = capture(many_threads);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		assert_true(!strncmp(line, "gpuscope: warning: thread ", 26));
		assert_non_null(strstr(line, "padding padding"));
		n++;
	}
	assert_int_equal(n, 4000);
	free(out);
}

static struct xlog_limit lim = XLOG_LIMIT_INIT(3, 3600.0);

static void limited(void)
{
	int i;
	for (i = 0; i < 100; i++)
		xlog_limited(&lim, LOG_WARN, "bad request %d", i);
	/* a new window: the next line says how many were dropped */
	lim.start_s -= 7200;
	xlog_limited(&lim, LOG_WARN, "after");
	xlog_limited(&lim, LOG_DEBUG, "below the level");
}

static void test_limiter(void **state)
{
	char why[128], *out;
	(void)state;
	assert_int_equal(xlog_setup("info", "logfmt", why, sizeof(why)), 0);
	out = capture(limited);
	assert_non_null(strstr(out, "bad request 2\""));
	assert_null(strstr(out, "bad request 3\""));
	assert_non_null(strstr(out, "(97 similar messages suppressed)"));
	assert_non_null(strstr(out, "msg=\"after\""));
	assert_null(strstr(out, "below the level"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_whole_lines),
		cmocka_unit_test(test_whole_lines_plain),
		cmocka_unit_test(test_limiter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
