/*
 * Text a result composes comes back whole, however long: the list of
 * hardware plan left out, and the paths and messages of a check report.
 * Each case is longer than the fixed buffer the text once lived in.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
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
	static const char row[] = ",unpriced DGX H100,nvidia,,2023,h100-sxm5-80gb,8,nvswitch3,xeon-platinum-8480plus,"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_skipped_whole),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
