/*
 * The bill of materials beside the servers and the fabric (cost/bom.h):
 * the front-end and storage Ethernet, the out-of-band management network,
 * power distribution, installation, staff by cluster size and licences,
 * each sized by the rule the header states and priced from the embedded
 * catalog rows; and the path of those lines into the TCO (capex, staff,
 * licences), --staff keeping the rack rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "cost/bom.h"
#include "cost/cost.h"

#define assert_near(a, b, tol) \
	do { \
		double a_ = (a), b_ = (b); \
		if (!(fabs(a_ - b_) <= (tol))) \
			fail_msg("%s = %.10g, want %.10g (+- %g)", #a, a_, b_, (double)(tol)); \
	} while (0)

static struct catalog *cat; /* the embedded catalog, loaded once by main() */

static const struct cat_part *part(const char *kind, const char *link)
{
	const struct cat_part *p = cat_part_for(cat, kind, link);
	assert_non_null(p);
	return p;
}

static double facility(const char *key)
{
	double v = catalog_facility(cat, key);
	assert_true(cat_has(v));
	return v;
}

/* nodes HGX H100-like servers: 8 GPUs, 10.5 kW, 8U, 8 NDR NICs bought apart (a generic build's fabric). */
static void hgx(struct bom_in *in, double nodes)
{
	memset(in, 0, sizeof(*in));
	in->nodes = nodes;
	in->gpus_per_node = 8;
	in->node_kw = 10.5;
	in->node_u = 8;
	in->node_usd = 300000;
	in->net = catalog_get(cat, CAT_LINKS, "ib-ndr");
	assert_non_null(in->net);
	in->ports_per_node = 8;
	in->ports_in_node_price = 1;
	in->storage_tb = -1;
	in->pue = NAN;
}

static void test_one_server_joins_the_site(void **state)
{
	struct bom b;
	struct bom_in in;
	struct diag err;
	(void)state;
	hgx(&in, 1);
	assert_int_equal(bom_build(&b, cat, &in, &err), 0);
	/* no front end or management network of its own; power distribution and installation it needs */
	assert_int_equal(b.frontend.tiers, 0);
	assert_true(b.frontend.usd == 0 && b.oob_switches == 0 && b.oob_usd == 0);
	assert_near(b.pdu_kw, b.it_kw, 1e-9);
	assert_near(b.pdu_usd, b.it_kw * part("pdu", NULL)->price_usd, 1e-6);
	assert_near(b.install_usd, 8 * part("install", NULL)->price_usd, 1e-6);
	assert_near(b.capex_usd, b.server_usd + b.storage_usd + b.pdu_usd + b.install_usd, 1e-6);
	assert_int_equal(b.missing, 0);
}

static void test_cluster_of_128(void **state)
{
	const struct cat_part *fe = part("frontend", NULL), *sw, *opt, *cab, *oob = part("oob", NULL);
	struct bom b;
	struct bom_in in;
	struct diag err;
	double ports;
	(void)state;
	sw = part("switch", fe->link);
	opt = part("optic", fe->link);
	cab = part("cable", fe->link);
	hgx(&in, 128);
	assert_int_equal(bom_build(&b, cat, &in, &err), 0);
	assert_int_equal(b.missing, 0);

	/* front end: the row's ports per 8 GPUs, a leaf/spine of its link's switches */
	ports = 128 * fe->ports;
	assert_near(b.frontend.ports, ports, 0);
	assert_true(b.frontend.tiers >= 1);
	assert_true(b.frontend.switches * sw->ports >= ports);
	assert_near(b.frontend.links, ports * b.frontend.tiers, 0);
	assert_near(b.frontend.optics, 2 * b.frontend.links, 0);
	assert_near(b.frontend.usd,
		    b.frontend.switches * sw->price_usd + b.frontend.optics * opt->price_usd +
			    b.frontend.cables * cab->price_usd,
		    1e-6);
	if (sw->ports == 32 && fe->ports == 2) {
		/* 256 ports on 32-port switches: 16 leaves of 16 down-links, 8 spines */
		assert_int_equal(b.frontend.tiers, 2);
		assert_near(b.frontend.sw[0].count, 16, 0);
		assert_near(b.frontend.sw[1].count, 8, 0);
	}

	/* management: one switch a rack, enough for a BMC a server, a port a switch and two PDUs a rack */
	assert_near(b.oob_ports, 128 + b.switches + b.frontend.switches + 2 * b.racks, 0);
	assert_near(b.oob_switches, fmax(b.racks, ceil(b.oob_ports / oob->ports)), 0);
	assert_near(b.oob_usd, b.oob_switches * oob->price_usd, 1e-6);

	/* the IT load counts the new switches and optics; the PDUs carry it */
	assert_true(b.it_kw > 128 * 10.5 + b.switch_kw + b.frontend.kw);
	assert_near(b.pdu_kw, b.it_kw, 1e-9);

	/* capex is every line */
	assert_near(b.capex_usd,
		    b.server_usd + b.fabric_usd + b.frontend.usd + b.oob_usd + b.storage_usd + b.cooling_usd +
			    b.pdu_usd + b.install_usd,
		    1e-6);

	/* staff by cluster size, licences none unless asked for */
	assert_near(b.staff_engineers, 1024 / facility("gpus_per_ops_engineer"), 1e-12);
	assert_near(b.staff_usd_per_year, b.staff_engineers * facility("ops_engineer_usd_per_year"), 1e-6);
	assert_null(b.licence_part);
	assert_true(b.licence_usd_per_year == 0);
	assert_near(b.opex_usd_per_year, b.staff_usd_per_year, 1e-9);
}

static void test_rack_scale_node(void **state)
{
	const struct cat_server *s = catalog_get(cat, CAT_SERVERS, "gb200-nvl72");
	struct bom b;
	struct bom_in in;
	struct diag err;
	(void)state;
	assert_non_null(s);
	memset(&in, 0, sizeof(in));
	in.nodes = 1;
	in.gpus_per_node = 72;
	in.node_kw = s->power_kw;
	in.node_u = s->rack_units;
	in.node_usd = s->price_usd;
	in.cooling = s->cooling;
	in.storage_tb = -1;
	in.pue = NAN;
	assert_int_equal(bom_build(&b, cat, &in, &err), 0);
	/* one rack of 72 GPUs is a cluster: 18 front-end ports on one switch, 27 trays' BMCs on one OOB switch */
	assert_near(b.frontend.ports, 72 / 8 * part("frontend", NULL)->ports, 0);
	assert_int_equal(b.frontend.tiers, 1);
	assert_near(b.oob_ports, 27 + 1 + 2, 0);
	assert_near(b.oob_switches, 1, 0);
	assert_near(b.install_usd, 72 * part("install", NULL)->price_usd, 1e-6);
}

static void test_licence(void **state)
{
	const struct cat_part *nvaie = catalog_get(cat, CAT_PARTS, "nvaie");
	struct bom b;
	struct bom_in in;
	struct diag err;
	(void)state;
	assert_non_null(nvaie);
	assert_string_equal(nvaie->kind, "licence");
	hgx(&in, 16);
	in.licence = nvaie;
	assert_int_equal(bom_build(&b, cat, &in, &err), 0);
	assert_ptr_equal(b.licence_part, nvaie);
	assert_near(b.licence_usd_per_year, 128 * nvaie->price_usd, 1e-6);
	assert_near(b.opex_usd_per_year, b.staff_usd_per_year + b.licence_usd_per_year, 1e-6);
}

/* The bill's capex, staff and licences reach the TCO; --staff keeps the rack rule. */
static void test_into_the_tco(void **state)
{
	const struct cat_server *s = catalog_get(cat, CAT_SERVERS, "hgx-h100-8");
	struct tco_inputs in;
	struct tco_result r, flagged;
	struct bom b;
	struct bom_in bi;
	struct diag err;
	(void)state;
	assert_non_null(s);
	diag_clear(&err);
	assert_int_equal(tco_inputs_init(&in, cat, &err), 0);
	assert_int_equal(tco_inputs_server(&in, cat, s, &err), 0);
	in.value[TCO_IN_COUNT] = 64;
	hgx(&bi, 64);
	bi.licence = catalog_get(cat, CAT_PARTS, "nvaie");
	assert_int_equal(bom_build(&b, cat, &bi, &err), 0);
	tco_inputs_bom(&in, &b, 1);
	assert_near(in.extra_capex_usd, b.capex_usd - b.server_usd, 1e-6);
	assert_int_equal(tco_compute(&in, &r, &err), 0);
	assert_near(r.capex_usd, b.capex_usd, 1e-6);
	assert_near(r.staff_usd_per_year, b.staff_usd_per_year, 1e-6);
	assert_near(r.support_usd_per_year, b.capex_usd * in.value[TCO_IN_SUPPORT] / 100 + b.licence_usd_per_year,
		    1e-6);
	tco_inputs_set_flag(&in, TCO_IN_STAFF, 12000);
	assert_int_equal(tco_compute(&in, &flagged, &err), 0);
	assert_near(flagged.staff_usd_per_year, 64 / b.nodes_per_rack * 12000, 1e-6);
	/* without the bill's parts (a flat add-on) nothing is taken */
	tco_inputs_bom(&in, &b, 0);
	assert_true(in.extra_capex_usd == 0 && in.licence_usd_per_year == 0 && !tco_staff_from_bill(&in));
}

/* A part the catalog leaves unpriced is named, and the bill goes on without it. */
static void test_unpriced(void **state)
{
	char dir[] = "/tmp/gpuscope-bom-XXXXXX", path[64];
	struct catalog *c;
	struct strbuf sb = STRBUF_INIT;
	struct bom b;
	struct bom_in in;
	struct diag err;
	FILE *f;
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/parts.csv", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("key,name,kind,price_usd,source,as_of\n"
	      "pdu-3ph-415v,PDU without a price,pdu,,test,2026-12\n"
	      "oob-1g-48,OOB switch without a radix,oob,5000,test,2026-12\n",
	      f);
	fclose(f);
	diag_clear(&err);
	assert_int_equal(catalog_load(&c, dir, &err), 0);
	hgx(&in, 16);
	assert_int_equal(bom_build(&b, c, &in, &err), 0);
	assert_true(b.missing & BOM_MISSING_PDU);
	assert_true(b.missing & BOM_MISSING_OOB);
	assert_true(b.pdu_usd == 0 && b.oob_usd == 0 && b.frontend.usd > 0);
	bom_missing_text(&b, &sb);
	assert_string_equal(strbuf_str(&sb), "management switch, power distribution");
	strbuf_release(&sb);
	catalog_free(c);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_server_joins_the_site),
		cmocka_unit_test(test_cluster_of_128),
		cmocka_unit_test(test_rack_scale_node),
		cmocka_unit_test(test_licence),
		cmocka_unit_test(test_into_the_tco),
		cmocka_unit_test(test_unpriced),
	};
	struct diag err;
	int rc;
	diag_clear(&err);
	if (catalog_load(&cat, NULL, &err)) {
		fprintf(stderr, "catalog: %s\n", err.msg);
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	catalog_free(cat);
	return rc;
}
