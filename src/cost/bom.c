/*
 * The bill of materials (cost/bom.h has the formulas).  Everything is
 * arithmetic on catalog rows: no allocation, so plan sizes one for every
 * choice it ranks.
 */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cost/bom.h"
#include "util/units.h"
#include "report/fmt.h"

static double facility_or(const struct catalog *cat, const char *key, double dflt)
{
	double v = catalog_facility(cat, key);
	return cat_has(v) ? v : dflt;
}

double bom_default_rack_kw(const struct catalog *cat, const char *cooling)
{
	if (cooling && !strcmp(cooling, "liquid"))
		return facility_or(cat, "rack_kw_liquid", 132);
	return facility_or(cat, "rack_kw_air", 40);
}

/* The words of enum bom_missing, bit by bit. */
static const char *const missing_words[] = {"switch",
					    "nic",
					    "optic",
					    "cable",
					    "storage",
					    "liquid cooling",
					    "front-end network",
					    "management switch",
					    "power distribution",
					    "installation",
					    "staff"};
_Static_assert(1u << (sizeof(missing_words) / sizeof(missing_words[0])) == BOM_MISSING_LAST << 1,
	       "a word for every bit of enum bom_missing");

void bom_missing_text(const struct bom *b, struct strbuf *sb)
{
	size_t i, n = 0;
	for (i = 0; i < sizeof(missing_words) / sizeof(missing_words[0]); i++)
		if (b->missing & (1u << i))
			strbuf_addf(sb, "%s%s", n++ ? ", " : "", missing_words[i]);
}

static double price_of(struct bom *b, const struct cat_part *p, enum bom_missing what)
{
	if (!p || !cat_has(p->price_usd)) {
		b->missing |= what;
		return 0;
	}
	return p->price_usd;
}

static double watts_of(const struct cat_part *p)
{
	return p && cat_has(p->power_w) ? p->power_w : 0;
}

/*
 * Leaf/spine/core counts of a rail-optimised fat tree (cost/bom.h) into
 * sw[3]; returns the tiers (0: none) and sets *switches and *links.
 */
static int size_fabric(struct bom_switches sw[3], double *switches, double *links, double nodes, double rails,
		       double radix, double gbps)
{
	double E = nodes * rails, half = floor(radix / 2);
	int tiers;
	/*
	 * Rail-optimised: rail r of every node in a group of up to K/2 nodes
	 * lands on the same leaf; a leaf takes several rails when the group
	 * is smaller than K/2 (72 rails of two NVL72 racks share 5 leaves).
	 */
	double group = fmin(nodes, half), per_leaf = fmax(1, floor(half / group));
	double leaves = ceil(rails / per_leaf) * ceil(nodes / half);
	memset(sw, 0, 3 * sizeof(*sw));
	*switches = *links = 0;
	if (nodes < 1 || rails <= 0 || !(radix >= 2))
		return 0;
	if (E <= radix) {
		tiers = 1;
		sw[0] = (struct bom_switches){"switch", 1, radix, gbps};
	} else if (E <= radix * half) {
		tiers = 2;
		sw[0] = (struct bom_switches){"leaf", leaves, radix, gbps};
		sw[1] = (struct bom_switches){"spine", ceil(E / radix), radix, gbps};
	} else {
		tiers = 3;
		sw[0] = (struct bom_switches){"leaf", leaves, radix, gbps};
		sw[1] = (struct bom_switches){"spine", leaves, radix, gbps};
		sw[2] = (struct bom_switches){"core", ceil(E / radix), radix, gbps};
	}
	*switches = sw[0].count + sw[1].count + sw[2].count;
	*links = E * tiers;
	return tiers;
}

/*
 * The front-end and storage Ethernet of a cluster: the `frontend` row's
 * ports per 8 GPUs at its link, sized as the fabric from that link's
 * switch, optic and cable rows.  The NICs come with the servers.
 */
static void size_frontend(struct bom *b, const struct catalog *cat, const struct bom_in *in)
{
	struct bom_network *f = &b->frontend;
	double rails;
	f->part = cat_part_for(cat, "frontend", NULL);
	if (!f->part || !f->part->link || !cat_has(f->part->ports)) {
		b->missing |= BOM_MISSING_FRONTEND;
		return;
	}
	f->switch_part = cat_part_for(cat, "switch", f->part->link);
	f->optic_part = cat_part_for(cat, "optic", f->part->link);
	f->cable_part = cat_part_for(cat, "cable", f->part->link);
	rails = ceil(f->part->ports * in->gpus_per_node / 8 - 1e-9);
	f->ports = in->nodes * rails;
	f->gbps = cat_has(f->part->port_gbps) ? f->part->port_gbps : 0;
	if (!f->switch_part || !cat_has(f->switch_part->ports) || !cat_has(f->switch_part->price_usd) ||
	    !f->optic_part || !cat_has(f->optic_part->price_usd) || !f->cable_part ||
	    !cat_has(f->cable_part->price_usd)) {
		b->missing |= BOM_MISSING_FRONTEND;
		return;
	}
	f->tiers = size_fabric(f->sw, &f->switches, &f->links, in->nodes, rails, f->switch_part->ports, f->gbps);
	f->optics = 2 * f->links;
	f->cables = f->links;
	f->switch_usd = f->switches * f->switch_part->price_usd;
	f->optics_usd = f->optics * f->optic_part->price_usd;
	f->cables_usd = f->cables * f->cable_part->price_usd;
	f->usd = f->switch_usd + f->optics_usd + f->cables_usd;
	f->kw = (f->switches * watts_of(f->switch_part) + f->optics * watts_of(f->optic_part)) / 1000;
}

/*
 * Out-of-band management: a 1 GbE port for each BMC (a server's one; 3
 * for every 8 GPUs of a rack-scale node, its compute and switch trays:
 * 27 in an NVL72), each switch and two PDUs a rack; one switch a rack at
 * least.
 */
static void size_oob(struct bom *b, const struct catalog *cat, const struct bom_in *in)
{
	double bmcs = in->gpus_per_node > 8 ? ceil(in->gpus_per_node * 3 / 8 - 1e-9) : 1;
	b->oob_part = cat_part_for(cat, "oob", NULL);
	b->oob_ports = in->nodes * bmcs + b->switches + b->frontend.switches + 2 * b->racks;
	if (!b->oob_part || !cat_has(b->oob_part->ports)) {
		b->missing |= BOM_MISSING_OOB;
		return;
	}
	b->oob_switches = fmax(b->racks, ceil(b->oob_ports / b->oob_part->ports - 1e-9));
	b->oob_usd = b->oob_switches * price_of(b, b->oob_part, BOM_MISSING_OOB);
	b->oob_kw = b->oob_switches * watts_of(b->oob_part) / 1000;
}

/* A year of staff by cluster size (facility gpus_per_ops_engineer, ops_engineer_usd_per_year). */
static void size_staff(struct bom *b, const struct catalog *cat)
{
	b->staff_ratio_row = catalog_get(cat, CAT_FACILITY, "gpus_per_ops_engineer");
	b->staff_cost_row = catalog_get(cat, CAT_FACILITY, "ops_engineer_usd_per_year");
	if (!b->staff_ratio_row || !(b->staff_ratio_row->value > 0) || !b->staff_cost_row ||
	    !(b->staff_cost_row->value >= 0)) {
		b->missing |= BOM_MISSING_STAFF;
		return;
	}
	b->staff_engineers = b->gpus / b->staff_ratio_row->value;
	b->staff_usd_per_year = b->staff_engineers * b->staff_cost_row->value;
}

/* Shared storage: tb (< 0: the per-GPU default for b->gpus), its draw and write rate. */
static void size_storage(struct bom *b, const struct catalog *cat, double tb)
{
	b->storage_part = cat_part_for(cat, "storage", NULL);
	b->storage_tb = tb >= 0 ? tb : b->gpus * facility_or(cat, "storage_tb_per_gpu", 0);
	if (b->storage_tb > 0) {
		b->storage_kw = b->storage_tb * watts_of(b->storage_part) / 1000;
		b->storage_write_gbs = b->storage_part && cat_has(b->storage_part->write_gbps) ?
					       b->storage_tb * b->storage_part->write_gbps :
					       0;
	}
}

void bom_build_rented(struct bom *b, const struct catalog *cat, const struct cat_cloud *instance, double instances,
		      double node_kw, double storage_tb)
{
	memset(b, 0, sizeof(*b));
	b->rented = 1;
	b->instance = instance;
	b->servers = instances;
	b->gpus = instances * (cat_has(instance->gpu_count) ? instance->gpu_count : 0);
	b->usd_per_hour = cat_has(instance->usd_per_hour) ? instances * instance->usd_per_hour : 0;
	b->network_gbps = cat_has(instance->network_gbps) ? instance->network_gbps : 0;
	snprintf(b->cooling, sizeof(b->cooling), "provided");
	/* the same storage an owned cluster would have, so checkpoints time alike; not billed apart */
	size_storage(b, cat, storage_tb);
	b->it_kw = instances * node_kw + b->storage_kw;
	b->pue = 1;
	b->power_kw = b->it_kw;
}

int bom_build(struct bom *b, const struct catalog *cat, const struct bom_in *in, struct diag *err)
{
	double usable_u = facility_or(cat, "rack_units_usable", 42);
	double air_kw = bom_default_rack_kw(cat, "air");
	double per_rack_kw, per_rack_u;
	const char *link = in->net ? in->net->row.key : NULL;

	memset(b, 0, sizeof(*b));
	b->servers = in->nodes;
	b->gpus = in->nodes * in->gpus_per_node;
	b->server_usd = cat_has(in->node_usd) ? in->nodes * in->node_usd : 0;

	/* cooling and racks */
	b->rack_kw = in->rack_kw > 0 ? in->rack_kw : 0;
	if ((in->cooling && !strcmp(in->cooling, "liquid")) || b->rack_kw > air_kw ||
	    (!in->cooling && in->node_kw > air_kw))
		snprintf(b->cooling, sizeof(b->cooling), "liquid");
	else
		snprintf(b->cooling, sizeof(b->cooling), "air");
	if (!(b->rack_kw > 0))
		b->rack_kw = bom_default_rack_kw(cat, b->cooling);
	if (in->node_kw > b->rack_kw * 1.0001)
		return diag_set(err, "", 0, 0, "rack-kw",
				"one node draws %.1f kW, more than a %.1f kW rack can supply; give --rack-kw "
				"%.0f or more (a %s-cooled rack takes up to %.0f kW by default)",
				in->node_kw, b->rack_kw, ceil(in->node_kw), b->cooling,
				bom_default_rack_kw(cat, b->cooling));
	per_rack_kw = floor(b->rack_kw / in->node_kw + 1e-9);
	per_rack_u = cat_has(in->node_u) && in->node_u > 0 && in->node_u <= usable_u ?
			     floor(usable_u / in->node_u + 1e-9) :
			     1;
	b->nodes_per_rack = fmax(1, fmin(per_rack_kw, per_rack_u));
	b->racks = ceil(in->nodes / b->nodes_per_rack - 1e-9);

	/* scale-out fabric */
	b->nics = in->net && in->nodes > 1 ? in->nodes * in->ports_per_node : 0;
	b->nic_gbps = in->net && cat_has(in->net->bw_gbps_per_dir) ? in->net->bw_gbps_per_dir * 8 : 0;
	if (b->nics > 0) {
		b->switch_part = cat_part_for(cat, "switch", link);
		b->nic_part = cat_part_for(cat, "nic", link);
		b->optic_part = cat_part_for(cat, "optic", link);
		b->cable_part = cat_part_for(cat, "cable", link);
		if (b->switch_part && cat_has(b->switch_part->ports))
			b->tiers = size_fabric(b->sw, &b->switches, &b->links, in->nodes, in->ports_per_node,
					       b->switch_part->ports, b->nic_gbps);
		else
			b->missing |= BOM_MISSING_SWITCH;
		b->switch_usd = b->switches * price_of(b, b->switch_part, BOM_MISSING_SWITCH);
		b->switch_kw = b->switches * watts_of(b->switch_part) / 1000;
		b->nics_bought = in->ports_in_node_price ? 0 : b->nics;
		if (b->nics_bought > 0)
			b->nic_usd = b->nics_bought * price_of(b, b->nic_part, BOM_MISSING_NIC);
		b->optics = 2 * b->links;
		b->optics_usd = b->optics * price_of(b, b->optic_part, BOM_MISSING_OPTIC);
		b->cables = b->links;
		b->cables_usd = b->cables * price_of(b, b->cable_part, BOM_MISSING_CABLE);
	}
	b->fabric_usd = b->switch_usd + b->nic_usd + b->optics_usd + b->cables_usd;

	/* a cluster's own front end and management network; one small server joins the site's */
	if (in->nodes > 1 || in->gpus_per_node > 8) {
		size_frontend(b, cat, in);
		size_oob(b, cat, in);
	}

	size_storage(b, cat, in->storage_tb);
	if (b->storage_tb > 0)
		b->storage_usd = b->storage_tb * price_of(b, b->storage_part, BOM_MISSING_STORAGE);

	/* power and cooling */
	b->it_kw = in->nodes * in->node_kw + b->switch_kw + b->optics * watts_of(b->optic_part) / 1000 +
		   b->storage_kw + b->frontend.kw + b->oob_kw;
	if (!strcmp(b->cooling, "liquid")) {
		b->cooling_part = cat_part_for(cat, "cooling", NULL);
		b->cooling_usd = b->it_kw * price_of(b, b->cooling_part, BOM_MISSING_COOLING);
	}
	b->pue = cat_has(in->pue) && in->pue >= 1 ?
			 in->pue :
			 facility_or(cat, !strcmp(b->cooling, "liquid") ? "pue_liquid_cooled_ai" : "pue", 1.4);
	b->power_kw = b->it_kw * b->pue;

	/* what it takes to stand it up: power distribution for the IT load, installation a GPU */
	b->pdu_part = cat_part_for(cat, "pdu", NULL);
	b->pdu_kw = b->it_kw;
	b->pdu_usd = b->pdu_kw * price_of(b, b->pdu_part, BOM_MISSING_PDU);
	b->install_part = cat_part_for(cat, "install", NULL);
	b->install_usd = b->gpus * price_of(b, b->install_part, BOM_MISSING_INSTALL);
	b->capex_usd = b->server_usd + b->fabric_usd + b->frontend.usd + b->oob_usd + b->storage_usd +
		       b->cooling_usd + b->pdu_usd + b->install_usd;

	/* a year of running it */
	size_staff(b, cat);
	b->licence_part = in->licence;
	if (in->licence && cat_has(in->licence->price_usd))
		b->licence_usd_per_year = b->gpus * in->licence->price_usd;
	b->opex_usd_per_year = b->staff_usd_per_year + b->licence_usd_per_year;
	return 0;
}

/* One part's line in the JSON: count, unit price, total, and where the price comes from. */
static json_t *part_json(const struct cat_part *p, double count, double usd)
{
	json_t *o = json_object();
	json_object_set_new(o, "count", json_real(count));
	json_object_set_new(o, "usd", json_real(usd));
	json_object_set_new(o, "part", p ? json_string(p->row.key) : json_null());
	json_object_set_new(o, "source", p && p->row.source ? json_string(p->row.source) : json_null());
	json_object_set_new(o, "as_of", p && p->row.as_of ? json_string(p->row.as_of) : json_null());
	return o;
}

/* A number of the bill written under its field's name (docs/plan.md names the keys after the fields). */
struct bom_num {
	const char *key;
	size_t off; /* of the double in struct bom */
};
#define BOM_NUM(field) \
	{ \
#field, offsetof(struct bom, field) \
	}

/* The servers and racks, and after the fabric the storage and power: plain numbers in that order. */
static const struct bom_num racks_nums[] = {
	BOM_NUM(servers), BOM_NUM(gpus),           BOM_NUM(server_usd),
	BOM_NUM(racks),   BOM_NUM(nodes_per_rack), BOM_NUM(rack_kw),
};
static const struct bom_num power_nums[] = {
	BOM_NUM(fabric_usd), BOM_NUM(storage_tb), BOM_NUM(storage_usd), BOM_NUM(storage_write_gbs),
	BOM_NUM(it_kw),      BOM_NUM(pue),        BOM_NUM(power_kw),
};

static void set_nums(json_t *o, const struct bom *b, const struct bom_num *nums, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		json_object_set_new(o, nums[i].key, json_real(*(const double *)((const char *)b + nums[i].off)));
}

/* The switches of a network, tier by tier: [{tier, count, ports, gbps}]. */
static json_t *switches_json(const struct bom_switches *sw, int tiers)
{
	json_t *a = json_array(), *x;
	int i;
	for (i = 0; i < tiers; i++) {
		x = json_object();
		json_object_set_new(x, "tier", json_string(sw[i].tier));
		json_object_set_new(x, "count", json_real(sw[i].count));
		json_object_set_new(x, "ports", json_real(sw[i].ports));
		json_object_set_new(x, "gbps", json_real(sw[i].gbps));
		json_array_append_new(a, x);
	}
	return a;
}

/* The front end: its row, server ports, switches, optics and cables, and its price. */
static json_t *frontend_json(const struct bom_network *f)
{
	json_t *o = part_json(f->part, f->ports, f->usd);
	json_object_set_new(o, "gbps", json_real(f->gbps));
	json_object_set_new(o, "tiers", json_integer(f->tiers));
	json_object_set_new(o, "switches", switches_json(f->sw, f->tiers));
	json_object_set_new(o, "switch_part", f->switch_part ? json_string(f->switch_part->row.key) : json_null());
	json_object_set_new(o, "switch_usd", json_real(f->switch_usd));
	json_object_set_new(o, "optics", part_json(f->optic_part, f->optics, f->optics_usd));
	json_object_set_new(o, "cables", part_json(f->cable_part, f->cables, f->cables_usd));
	return o;
}

/* A facility constant with its provenance: {value, source, as_of}; null when the catalog has none. */
static json_t *facility_json(const struct cat_facility *f)
{
	json_t *o;
	if (!f)
		return json_null();
	o = json_object();
	json_object_set_new(o, "value", json_real(f->value));
	json_object_set_new(o, "source", f->row.source ? json_string(f->row.source) : json_null());
	json_object_set_new(o, "as_of", f->row.as_of ? json_string(f->row.as_of) : json_null());
	return o;
}

/* What it takes to stand the cluster up beside the fabric, and a year of running it. */
static void build_json(json_t *o, const struct bom *b)
{
	json_t *x;
	json_object_set_new(o, "frontend", frontend_json(&b->frontend));
	x = part_json(b->oob_part, b->oob_switches, b->oob_usd);
	json_object_set_new(x, "ports", json_real(b->oob_ports));
	json_object_set_new(o, "oob", x);
	x = part_json(b->pdu_part, b->pdu_kw, b->pdu_usd);
	json_object_set_new(o, "power_distribution", x);
	json_object_set_new(o, "installation", part_json(b->install_part, b->gpus, b->install_usd));
	x = json_object();
	json_object_set_new(x, "engineers", json_real(b->staff_engineers));
	json_object_set_new(x, "usd_per_year", json_real(b->staff_usd_per_year));
	json_object_set_new(x, "gpus_per_engineer", facility_json(b->staff_ratio_row));
	json_object_set_new(x, "usd_per_engineer_year", facility_json(b->staff_cost_row));
	json_object_set_new(o, "staff", x);
	x = part_json(b->licence_part, b->licence_part ? b->gpus : 0, b->licence_usd_per_year);
	json_object_set_new(o, "licence", x);
	json_object_set_new(o, "opex_usd_per_year", json_real(b->opex_usd_per_year));
}

json_t *bom_json(const struct bom *b)
{
	json_t *o = json_object(), *x;
	struct strbuf unpriced = STRBUF_INIT;
	json_object_set_new(o, "capex_usd", json_real(b->capex_usd));
	json_object_set_new(o, "rented", json_boolean(b->rented));
	if (b->rented) {
		/* what is rented, and what comes with it */
		json_object_set_new(o, "instance", json_string(b->instance->row.key));
		json_object_set_new(o, "provider",
				    b->instance->provider ? json_string(b->instance->provider) : json_null());
		json_object_set_new(o, "usd_per_hour", json_real(b->usd_per_hour));
		json_object_set_new(o, "network_gbps",
				    b->network_gbps > 0 ? json_real(b->network_gbps) : json_null());
		json_object_set_new(o, "provided", json_string("racks, cooling, network, storage, power"));
	}
	set_nums(o, b, racks_nums, sizeof(racks_nums) / sizeof(racks_nums[0]));
	json_object_set_new(o, "cooling", json_string(b->cooling));
	json_object_set_new(o, "cooling_usd", json_real(b->cooling_usd));
	json_object_set_new(o, "switch_tiers", json_integer(b->tiers));
	json_object_set_new(o, "switches", switches_json(b->sw, b->tiers));
	json_object_set_new(o, "switch_usd", json_real(b->switch_usd));
	json_object_set_new(o, "switch_part", b->switch_part ? json_string(b->switch_part->row.key) : json_null());
	x = part_json(b->nic_part, b->nics, b->nic_usd);
	json_object_set_new(x, "gbps", json_real(b->nic_gbps));
	json_object_set_new(x, "bought", json_real(b->nics_bought));
	json_object_set_new(o, "nics", x);
	json_object_set_new(o, "optics", part_json(b->optic_part, b->optics, b->optics_usd));
	json_object_set_new(o, "cables", part_json(b->cable_part, b->cables, b->cables_usd));
	set_nums(o, b, power_nums, sizeof(power_nums) / sizeof(power_nums[0]));
	build_json(o, b);
	bom_missing_text(b, &unpriced);
	json_object_set_new(o, "unpriced", json_string(strbuf_str(&unpriced)));
	strbuf_release(&unpriced);
	return o;
}

/* Appends "16 leaf + 8 spine": the switches of each tier. */
static void tiers_text(const struct bom_switches *sw, int tiers, struct strbuf *sb)
{
	int i;
	for (i = 0; i < tiers; i++)
		strbuf_addf(sb, "%s%.0f %s", i ? " + " : "", sw[i].count, sw[i].tier);
}

void bom_extras_text(const struct bom *b, struct strbuf *sb)
{
	const struct bom_network *f = &b->frontend;
	char m[FMT_LEN];
	size_t n = sb->len;
	if (f->tiers) {
		strbuf_addf(sb, "front end %s (%.0f x %.0fG ports; ",
			    fmt_money(f->usd, FMT_MONEY_SHORT, m, sizeof(m)), f->ports, f->gbps);
		tiers_text(f->sw, f->tiers, sb);
		strbuf_addch(sb, ')');
	}
	if (b->oob_switches > 0)
		strbuf_addf(sb, "%smanagement %s (%.0f switch%s)", sb->len > n ? ", " : "",
			    fmt_money(b->oob_usd, FMT_MONEY_SHORT, m, sizeof(m)), b->oob_switches,
			    b->oob_switches == 1 ? "" : "es");
	if (b->pdu_usd > 0) {
		char w[FMT_LEN];
		strbuf_addf(sb, "%spower distribution %s (%s)", sb->len > n ? ", " : "",
			    fmt_money(b->pdu_usd, FMT_MONEY_SHORT, m, sizeof(m)),
			    fmt_power(1000 * b->pdu_kw, w, sizeof(w)));
	}
	if (b->install_usd > 0)
		strbuf_addf(sb, "%sinstallation %s (%.0f GPU%s)", sb->len > n ? ", " : "",
			    fmt_money(b->install_usd, FMT_MONEY_SHORT, m, sizeof(m)), b->gpus,
			    b->gpus == 1 ? "" : "s");
}

void bom_running_text(const struct bom *b, struct strbuf *sb)
{
	char m[FMT_LEN];
	if (b->staff_ratio_row && b->staff_cost_row) {
		/* two figures below ten: a server of 8 GPUs takes 0.032 of an engineer, never "0.0" for $4.8k */
		char e[FMT_LEN];
		snprintf(e, sizeof(e), b->staff_engineers < 9.95 ? "%.2g" : "%.0f", b->staff_engineers);
		strbuf_addf(sb, "staff %s (%s engineers, one per %g GPUs: facility gpus_per_ops_engineer)",
			    fmt_money(b->staff_usd_per_year, FMT_MONEY_SHORT, m, sizeof(m)), e,
			    b->staff_ratio_row->value);
	} else
		strbuf_addstr(sb, "staff unpriced");
	if (b->licence_part)
		strbuf_addf(sb, ", licences %s (%.0f x %s)",
			    fmt_money(b->licence_usd_per_year, FMT_MONEY_SHORT, m, sizeof(m)), b->gpus,
			    b->licence_part->row.key);
	else
		strbuf_addstr(sb, ", licences none");
}

const char *bom_switch_text(const struct bom *b, char *buf, size_t len)
{
	size_t o = 0;
	int i;
	buf[0] = 0;
	if (b->rented) {
		snprintf(buf, len, "provided by the cloud");
		return buf;
	}
	if (!b->tiers) {
		snprintf(buf, len, "none");
		return buf;
	}
	for (i = 0; i < b->tiers && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%.0f %s", i ? " + " : "", b->sw[i].count,
				      b->sw[i].tier);
	if (o < len)
		snprintf(buf + o, len - o, " (%.0f-port %.0fG%s)", b->sw[0].ports, b->sw[0].gbps,
			 b->switch_part ? "" : ", unpriced");
	return buf;
}

const char *bom_rented_text(const struct bom *b, char *buf, size_t len)
{
	char rate[32], net[48] = "network", w[FMT_LEN];
	if (b->network_gbps > 0)
		snprintf(net, sizeof(net), "network (%g Gb/s an instance)", b->network_gbps);
	snprintf(buf, len,
		 "nothing to buy: %.0f x %s (%s, %.0f GPUs) rented at %s/h; %s, %.0f TB storage, "
		 "racks, cooling and power (%s drawn) come with the instance%s",
		 b->servers, b->instance->row.key, b->instance->provider ? b->instance->provider : "cloud",
		 b->gpus, fmt_money(b->usd_per_hour, FMT_MONEY_SHORT, rate, sizeof(rate)), net, b->storage_tb,
		 fmt_power(1000 * b->power_kw, w, sizeof(w)), b->servers == 1 ? "" : "s");
	return buf;
}
