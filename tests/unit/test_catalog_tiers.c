/*
 * The price tiers of clouds.csv: every tier price has its provenance, a
 * commitment never costs more than on-demand, the names round-trip, and a
 * user's file that prices a tier without a source or date is refused with
 * its file, line and field.  And which instances may form a cluster.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "catalog/catalog.h"
#include "util/strbuf.h"

static struct catalog *cat;

static int setup(void **state)
{
	struct diag err;
	(void)state;
	return catalog_load(&cat, NULL, &err);
}

static int teardown(void **state)
{
	(void)state;
	catalog_free(cat);
	return 0;
}

static void test_names(void **state)
{
	int t;
	(void)state;
	for (t = 0; t < CAT_NTIERS; t++)
		assert_int_equal(cat_tier_from_name(cat_tier_name((enum cat_tier)t)), t);
	assert_int_equal(cat_tier_from_name("1y"), CAT_TIER_1Y);
	assert_int_equal(cat_tier_from_name("reserved"), -1);
	assert_null(cat_tier_name(CAT_NTIERS));
	assert_true(cat_tier_committed(CAT_TIER_3Y));
	assert_false(cat_tier_committed(CAT_TIER_SPOT));
	assert_false(cat_tier_committed(CAT_TIER_ON_DEMAND));
}

static void test_every_tier_price_is_sourced(void **state)
{
	size_t i, priced = 0;
	(void)state;
	for (i = 0; i < catalog_count(cat, CAT_CLOUDS); i++) {
		const struct cat_cloud *c = catalog_cloud_at(cat, i);
		double od = c->usd_per_hour;
		int t, any = 0;
		for (t = CAT_TIER_1Y; t < CAT_NTIERS; t++)
			any |= cat_has(cat_cloud_usd_per_hour(c, (enum cat_tier)t));
		if (!any)
			continue;
		priced++;
		assert_non_null(c->tier_source);
		assert_non_null(c->tier_as_of);
		assert_non_null(c->tier_confidence);
		/* a longer commitment never costs more, and none costs more than on-demand */
		if (cat_has(c->usd_per_hour_1y))
			assert_true(c->usd_per_hour_1y < od);
		if (cat_has(c->usd_per_hour_3y))
			assert_true(c->usd_per_hour_3y < (cat_has(c->usd_per_hour_1y) ? c->usd_per_hour_1y : od));
		if (cat_has(c->usd_per_hour_spot))
			assert_true(c->usd_per_hour_spot <= od);
	}
	assert_true(priced >= 20);
}

static void test_p5_tiers(void **state)
{
	const struct cat_cloud *c = catalog_get(cat, CAT_CLOUDS, "p5.48xlarge");
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	assert_non_null(c);
	assert_true(cat_cloud_usd_per_hour(c, CAT_TIER_ON_DEMAND) == c->usd_per_hour);
	assert_true(cat_has(cat_cloud_usd_per_hour(c, CAT_TIER_3Y)));
	assert_true(cat_has(cat_cloud_usd_per_hour(c, CAT_TIER_SPOT)));
	cat_cloud_tiers(c, &sb);
	assert_string_equal(strbuf_str(&sb), "on-demand, 1y, 3y, spot");
	strbuf_reset(&sb);
	/* the one-GPU p5 has no spot price in the snapshot */
	c = catalog_get(cat, CAT_CLOUDS, "p5.4xlarge");
	assert_non_null(c);
	assert_true(isnan(cat_cloud_usd_per_hour(c, CAT_TIER_SPOT)));
	cat_cloud_tiers(c, &sb);
	assert_string_equal(strbuf_str(&sb), "on-demand, 1y, 3y");
	strbuf_release(&sb);
}

/* A user's clouds.csv, loaded over the embedded catalog and checked. */
static int load_user(const char *csv, struct diag *err)
{
	struct catalog *c = NULL;
	struct diag e2;
	int rc = catalog_load(&c, NULL, &e2);
	assert_int_equal(rc, 0);
	rc = catalog_load_buffer(c, CAT_CLOUDS, "mine/clouds.csv", csv, strlen(csv), err);
	if (rc >= 0)
		rc = catalog_validate(c, err);
	catalog_free(c);
	return rc;
}

static void test_user_rows(void **state)
{
	struct diag err;
	(void)state;
	/* the tier columns are optional: an old file still loads */
	assert_true(load_user("key,provider,name,gpu,gpu_count,usd_per_hour,source,as_of\n"
			      "my-h100,lab,My H100,h100-sxm5-80gb,8,20,quote,2026-10\n",
			      &err) >= 0);
	/* a 3y price with its provenance */
	assert_true(load_user("key,name,gpu,gpu_count,usd_per_hour,usd_per_hour_3y,tier_source,tier_as_of,"
			      "tier_confidence,source,as_of\n"
			      "my-h100,My H100,h100-sxm5-80gb,8,20,12,our contract,2026-10,Q,quote,2026-10\n",
			      &err) >= 0);
	/* a 3y price without a source is refused, naming the row and the field */
	diag_clear(&err);
	assert_true(load_user("key,name,gpu,gpu_count,usd_per_hour,usd_per_hour_3y,source,as_of\n"
			      "my-h100,My H100,h100-sxm5-80gb,8,20,12,quote,2026-10\n",
			      &err) < 0);
	assert_string_equal(err.field, "tier_source");
	assert_int_equal(err.line, 2);
	assert_non_null(strstr(err.msg, "my-h100"));
	/* tier dates and grades are checked like the row's own */
	diag_clear(&err);
	assert_true(load_user("key,name,gpu,gpu_count,usd_per_hour,usd_per_hour_spot,tier_source,tier_as_of,"
			      "source,as_of\n"
			      "my-h100,My H100,h100-sxm5-80gb,8,20,9,market,last year,quote,2026-10\n",
			      &err) < 0);
	assert_string_equal(err.field, "tier_as_of");
	diag_clear(&err);
	assert_true(load_user("key,name,gpu,gpu_count,usd_per_hour,usd_per_hour_spot,tier_source,tier_as_of,"
			      "tier_confidence,source,as_of\n"
			      "my-h100,My H100,h100-sxm5-80gb,8,20,9,market,2026-10,high,quote,2026-10\n",
			      &err) < 0);
	assert_string_equal(err.field, "tier_confidence");
	/* a tier price is a price: zero is refused */
	diag_clear(&err);
	assert_true(load_user("key,name,gpu,gpu_count,usd_per_hour,usd_per_hour_1y,tier_source,tier_as_of,"
			      "source,as_of\n"
			      "my-h100,My H100,h100-sxm5-80gb,8,20,0,market,2026-10,quote,2026-10\n",
			      &err) < 0);
	assert_string_equal(err.field, "usd_per_hour_1y");
}

static void test_cluster_network(void **state)
{
	struct cat_cloud one;
	(void)state;
	/* an 8-GPU instance keeps its fabric; a one-GPU one on 25 Gb/s is used alone */
	assert_true(cat_cloud_cluster_gbps(cat, catalog_get(cat, CAT_CLOUDS, "p5.48xlarge")) == 3200);
	assert_true(cat_cloud_cluster_gbps(cat, catalog_get(cat, CAT_CLOUDS, "lambda-1cc-h100-8x")) == 3200);
	assert_true(isnan(cat_cloud_cluster_gbps(cat, catalog_get(cat, CAT_CLOUDS, "g6.4xlarge"))));
	assert_true(isnan(cat_cloud_cluster_gbps(cat, catalog_get(cat, CAT_CLOUDS, "gpu-8x-h100-sxm5"))));
	/* four GPUs of an NVL72 rack are a slice of its NVLink domain, not a node */
	assert_true(isnan(cat_cloud_cluster_gbps(cat, catalog_get(cat, CAT_CLOUDS, "oci-bm-gpu-gb200-4"))));
	/* a one-GPU instance joins others with a full NIC of its host slot: 400 Gb/s for a Gen5 H100 */
	one = *(const struct cat_cloud *)catalog_get(cat, CAT_CLOUDS, "p5.4xlarge");
	one.network_gbps = 400;
	assert_true(cat_cloud_cluster_gbps(cat, &one) == 400);
	one.network_gbps = 200;
	assert_true(isnan(cat_cloud_cluster_gbps(cat, &one)));
	one.gpu = "no-such-gpu";
	one.network_gbps = 400;
	assert_true(isnan(cat_cloud_cluster_gbps(cat, &one)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),           cmocka_unit_test(test_every_tier_price_is_sourced),
		cmocka_unit_test(test_p5_tiers),        cmocka_unit_test(test_user_rows),
		cmocka_unit_test(test_cluster_network),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
