/*
 * Text a result composes comes back whole, however long: the list of
 * hardware plan left out, the paths and messages of a check report, and
 * an Xid's message from the kernel log.
 * Each case is longer than the fixed buffer the text once lived in.
 *
 * The check runs against tests/fixtures/hosts/dgx-h100 and the fake NVML
 * (SRCDIR and BUILDDIR, as ctest sets them), both reached through a
 * directory whose path is longer than the 512 bytes a report's paths had.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "host/check.h"
#include "model/model.h"
#include "plan/plan.h"
#include "util/strbuf.h"

#define SERVERS 40

/* The key of the i-th unpriced server: long, so that 40 of them fill some 1800 bytes. */
static void server_key(struct strbuf *sb, int i)
{
	strbuf_addf(sb, "unpriced-server-with-a-long-catalog-key-%02d", i);
}

/*
 * The embedded catalog plus SERVERS DGX H100s under new keys, each without
 * a price: plan leaves every one out for want of it.
 */
static struct catalog *unpriced_catalog(void)
{
	static const char header[] =
		"key,name,vendor,aliases,year,gpu,gpu_count,gpu_link,cpu,cpu_count,nic,nic_count,nic_gbps,"
		"ram_gib,power_kw,idle_kw,rack_units,price_usd,cooling,source,as_of,confidence\n";
	static const char row[] =
		",unpriced DGX H100,nvidia,,2023,h100-sxm5-80gb,8,nvswitch3,xeon-platinum-8480plus,"
		"2,ib-ndr,8,400,2048,10.2,2.0,8,,air,test row without a price,2026-11,E\n";
	struct strbuf text = STRBUF_INIT;
	struct catalog *c;
	struct diag err;
	int i;

	assert_int_equal(catalog_load(&c, NULL, &err), 0);
	strbuf_addstr(&text, header);
	for (i = 0; i < SERVERS; i++) {
		server_key(&text, i);
		strbuf_addstr(&text, row);
	}
	if (catalog_load_buffer(c, CAT_SERVERS, "unpriced/servers.csv", text.buf, text.len, &err) != SERVERS)
		fail_msg("unpriced/servers.csv: %d: %s", err.line, err.msg);
	strbuf_release(&text);
	return c;
}

/* Every server left out is named in plan_skipped(), the last as surely as the first. */
static void test_plan_skipped_whole(void **state)
{
	struct catalog *c = unpriced_catalog();
	const struct cat_gpu *only[1];
	struct plan_request req;
	struct workload w;
	struct plan *p;
	struct diag err;
	struct strbuf key = STRBUF_INIT;
	const char *skipped;
	int i;
	(void)state;

	diag_clear(&err);
	assert_int_equal(workload_preset(&w, "llama2-7b", &err), 0);
	memset(&req, 0, sizeof(req));
	req.w = &w;
	model_config_defaults(&req.base);
	req.base.task = MODEL_TASK_FINETUNE;
	req.objective = PLAN_OBJ_COST;
	req.max_gpus = 8;
	req.threads = 2;
	req.servers_only = 1;
	only[0] = catalog_get(c, CAT_GPUS, "h100-sxm5-80gb");
	assert_non_null(only[0]);
	req.gpus = only;
	req.ngpus = 1;
	if (plan_run(&p, c, &req, &err))
		fail_msg("plan_run: %s", err.msg);
	skipped = plan_skipped(p);
	/* longer than the 1600 bytes the list had, and its one reason's 512 */
	assert_true(strlen(skipped) > 1600);
	assert_non_null(strstr(skipped, "servers or instances without a price: "));
	for (i = 0; i < SERVERS; i++) {
		strbuf_reset(&key);
		server_key(&key, i);
		if (!strstr(skipped, key.buf))
			fail_msg("'%s' is not in the list of what was left out", key.buf);
	}
	strbuf_release(&key);
	plan_free(p);
	catalog_free(c);
}

/* A directory below /tmp whose path is some 700 bytes: three levels of 200-character names. */
static void long_dir(struct strbuf *dir)
{
	char tmpl[] = "/tmp/gpuscope-long-XXXXXX";
	int level;
	assert_non_null(mkdtemp(tmpl));
	strbuf_addstr(dir, tmpl);
	for (level = 0; level < 3; level++) {
		strbuf_addf(dir, "/%c", 'a' + level);
		while (dir->len % 200)
			strbuf_addch(dir, (char)('a' + level));
		if (mkdir(dir->buf, 0700))
			fail_msg("mkdir %s", dir->buf);
	}
}

/* Removes what long_dir() and the test made, deepest first. */
static void remove_long_dir(struct strbuf *dir, size_t base_len)
{
	while (dir->len > base_len) {
		char *slash = strrchr(dir->buf, '/');
		rmdir(dir->buf);
		strbuf_setlen(dir, (size_t)(slash - dir->buf));
	}
	rmdir(dir->buf);
}

/* The report keeps the root, the kernel log's path and the NVML file whole. */
static void test_check_paths_whole(void **state)
{
	const char *srcdir = getenv("SRCDIR"), *builddir = getenv("BUILDDIR");
	struct strbuf dir = STRBUF_INIT, root = STRBUF_INIT, lib = STRBUF_INIT, target = STRBUF_INIT;
	struct strbuf kmsg = STRBUF_INIT;
	struct check_opts o;
	struct check_report *r;
	size_t base_len;
	(void)state;

	long_dir(&dir);
	base_len = strlen("/tmp/gpuscope-long-XXXXXX");
	strbuf_addf(&root, "%s/root", dir.buf);
	strbuf_addf(&target, "%s/tests/fixtures/hosts/dgx-h100", srcdir ? srcdir : "..");
	assert_int_equal(symlink(target.buf, root.buf), 0);
	strbuf_addf(&lib, "%s/libnvidia-ml.so.1", dir.buf);
	strbuf_reset(&target);
	strbuf_addf(&target, "%s/fake-nvml/libnvidia-ml.so.1", builddir ? builddir : ".");
	assert_int_equal(symlink(target.buf, lib.buf), 0);
	strbuf_reset(&target);
	strbuf_addf(&target, "%s/tests/fake-nvml/scenarios/dgx-h100.ini", srcdir ? srcdir : "..");
	setenv("FAKE_NVML_SCENARIO", target.buf, 1);
	unsetenv("CUDA_VISIBLE_DEVICES");
	assert_true(root.len > 600 && lib.len > 600);

	memset(&o, 0, sizeof(o));
	o.root = root.buf;
	o.nvml_path = lib.buf;
	o.skip_libs = 1;
	r = check_run(&o);
	assert_non_null(r);
	assert_string_equal(r->root, root.buf);
	strbuf_addf(&kmsg, "%s/dev/kmsg", root.buf);
	assert_string_equal(r->kmsg_path, kmsg.buf);
	assert_int_equal(r->backend_rc, GPU_OK);
	assert_string_equal(r->nvml_library, lib.buf);
	check_report_free(r);

	unlink(root.buf);
	unlink(lib.buf);
	remove_long_dir(&dir, base_len);
	strbuf_release(&dir);
	strbuf_release(&root);
	strbuf_release(&lib);
	strbuf_release(&target);
	strbuf_release(&kmsg);
}

/* An Xid's message is kept to its end (a kernel record holds up to 1 KiB of text). */
static void test_xid_detail_whole(void **state)
{
	struct strbuf line = STRBUF_INIT, detail = STRBUF_INIT;
	struct host_xid x;
	(void)state;
	while (detail.len < 600)
		strbuf_addf(&detail, "Graphics Exception on (GPC %zu, TPC 0, SM 0), ", detail.len);
	strbuf_addstr(&detail, "the end");
	strbuf_addf(&line, "[ 12.5] NVRM: Xid (PCI:0000:c1:00): 13, %s", detail.buf);
	assert_int_equal(host_parse_xid(line.buf, line.len, &x), 1);
	assert_string_equal(x.detail, detail.buf);
	host_xid_release(&x);
	strbuf_release(&line);
	strbuf_release(&detail);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_skipped_whole),
		cmocka_unit_test(test_check_paths_whole),
		cmocka_unit_test(test_xid_detail_whole),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
