/*
 * The bill of materials of a cluster: servers, racks, cooling, the
 * scale-out fabric (NICs, leaf/spine/core switches, optics and cables),
 * shared storage and power at the wall, each priced from a catalog row
 * (parts.csv, servers.csv, facility.csv).  docs/plan.md derives the sizing.
 *
 *   racks       nodes per rack = min(rack kW / node kW, usable U / node U)
 *               (a rack-scale node such as NVL72 fills one rack)
 *   cooling     liquid when the server row says so or the rack is denser
 *               than an air-cooled rack (facility rack_kw_air); the liquid
 *               plant is priced per kW of IT load
 *   fabric      rail-optimised fat tree: each node has R rails (one NIC port
 *               per GPU, or its own NICs or on-die ports); E = nodes x R
 *               endpoints on switches of radix K: one switch when E <= K;
 *               two tiers up to K^2/2 (leaves = R x ceil(nodes / (K/2)),
 *               spines = ceil(E / K)); three tiers beyond (as many
 *               aggregation switches as leaves, core = ceil(E / K));
 *               links = E per tier, two optics and one cable per link
 *   storage     storage_tb_per_gpu x GPUs unless given; write bandwidth
 *               from the part's GB/s per TB
 *   front end   a cluster (more than one node, or a rack-scale node) has
 *               its own front-end and storage Ethernet (parts.csv
 *               `frontend`): ports = its ports per 8 GPUs x GPUs / 8 at
 *               the row's link, sized as the fabric (the same leaf/spine
 *               rule) from that link's switch, optic and cable rows; the
 *               NICs come with the servers
 *   management  out-of-band 1 GbE (`oob`): ports = a BMC a server (3 for
 *               every 8 GPUs of a rack-scale node: its compute and switch
 *               trays) + a port a switch + 2 PDUs a rack; switches =
 *               max(racks, ceil(ports / radix)), one a rack at least
 *   power dist. rack PDUs (`pdu`) on A and B feeds, priced per kW of IT load
 *   install     installation and integration (`install`), priced per GPU
 *   power       IT = servers + switches (fabric, front end, management) +
 *               optics + storage; wall = IT x PUE
 *   running     a year: staff = GPUs / gpus_per_ops_engineer engineers x
 *               ops_engineer_usd_per_year (facility.csv: a published ratio
 *               by cluster size, not by rack); licences = GPUs x the price
 *               per GPU-year of bom_in.licence (none unless asked for: the
 *               CUDA, NCCL, PyTorch and scheduler stack costs nothing, and
 *               NVIDIA AI Enterprise buys its support and NIM services).
 *               The hardware support contract stays the TCO's (a % of the
 *               purchase a year, cost/cost.h)
 *   rented      cloud instances (bom_build_rented): nothing is bought
 *               (capex 0, rented set); the bill says what is rented (the
 *               instances and their hourly rate) and what the cloud
 *               provides with them (network, storage, racks, cooling,
 *               power, none of them billed apart)
 *
 * Ownership: pointers in struct bom point into the catalog; it holds no
 * text of its own (what is unpriced is a set of bits), so building one
 * allocates nothing and a struct bom copies as plain data.
 */
#ifndef GPUSCOPE_COST_BOM_H
#define GPUSCOPE_COST_BOM_H

#include <stddef.h>

#include "catalog/catalog.h"
#include "util/error.h"
#include "util/strbuf.h"

struct bom_in {
	double nodes; /* servers (or rack-scale systems) */
	double gpus_per_node;
	double node_kw;                 /* full-load draw per node */
	double node_u;                  /* rack units per node; NaN: unknown */
	double node_usd;                /* price per node; NaN: not bought (rented) */
	const char *cooling;            /* "air" | "liquid"; NULL: from the density */
	const struct cat_link *net;     /* scale-out link; NULL: none */
	double ports_per_node;          /* rails: network ports per node */
	int ports_in_node_price;        /* 1: the node's price includes them (server NICs, on-die) */
	double rack_kw;                 /* 0: the cooling's default */
	double storage_tb;              /* < 0: the per-GPU default */
	double pue;                     /* for power at the wall; NaN: facility default */
	const struct cat_part *licence; /* software bought per GPU-year (parts.csv `licence`); NULL: none */
};

struct bom_switches {
	const char *tier; /* "leaf", "spine", "core" (one tier: "switch") */
	double count;
	double ports; /* radix */
	double gbps;  /* Gb/s per port */
};

/* The parts a bill may find unpriced: bits of bom.missing, in the order bom_missing_text() names them. */
enum bom_missing {
	BOM_MISSING_SWITCH = 1u << 0,   /* "switch" */
	BOM_MISSING_NIC = 1u << 1,      /* "nic" */
	BOM_MISSING_OPTIC = 1u << 2,    /* "optic" */
	BOM_MISSING_CABLE = 1u << 3,    /* "cable" */
	BOM_MISSING_STORAGE = 1u << 4,  /* "storage" */
	BOM_MISSING_COOLING = 1u << 5,  /* "liquid cooling" */
	BOM_MISSING_FRONTEND = 1u << 6, /* "front-end network" (its row, or its switch, optic or cable) */
	BOM_MISSING_OOB = 1u << 7,      /* "management switch" */
	BOM_MISSING_PDU = 1u << 8,      /* "power distribution" */
	BOM_MISSING_INSTALL = 1u << 9,  /* "installation" */
	BOM_MISSING_STAFF = 1u << 10,   /* "staff" (facility gpus_per_ops_engineer, ops_engineer_usd_per_year) */
	BOM_MISSING_LAST = BOM_MISSING_STAFF,
};

/* A switched Ethernet network beside the fabric (the front end): its parts, sizes and prices. */
struct bom_network {
	const struct cat_part *part; /* the parts.csv row that says how many ports at which link */
	const struct cat_part *switch_part, *optic_part, *cable_part;
	double ports, gbps; /* server ports in all, Gb/s each */
	int tiers;          /* 0: none */
	struct bom_switches sw[3];
	double switches, links, optics, cables;
	double switch_usd, optics_usd, cables_usd, usd;
	double kw; /* switches and optics */
};

struct bom {
	double servers, gpus;
	double server_usd;
	char cooling[12]; /* an identifier: "air" | "liquid" | "provided" (rented) */
	double rack_kw, nodes_per_rack, racks;
	int tiers; /* switch tiers; 0: no scale-out fabric */
	struct bom_switches sw[3];
	double switches, switch_usd, switch_kw;
	const struct cat_part *switch_part, *nic_part, *optic_part, *cable_part, *storage_part, *cooling_part;
	double nics, nic_gbps, nics_bought, nic_usd; /* nics: ports; bought: outside the node price */
	double links, optics, optics_usd, cables, cables_usd;
	double storage_tb, storage_usd, storage_kw, storage_write_gbs;
	double cooling_usd;
	double fabric_usd;           /* switches + NICs bought + optics + cables */
	struct bom_network frontend; /* front-end and storage Ethernet; tiers 0 for one small server */
	const struct cat_part *oob_part, *pdu_part, *install_part, *licence_part;
	double oob_ports, oob_switches, oob_usd, oob_kw;
	double pdu_kw, pdu_usd; /* kW the PDUs carry (the IT load) and their price */
	double install_usd;     /* GPUs x the install row's price */
	double capex_usd; /* servers + fabric + front end + management + storage + cooling + PDUs + install */
	double it_kw, pue, power_kw; /* power_kw at the wall */
	/* a year of running it: staff by cluster size, licences; the TCO adds energy, space and support */
	const struct cat_facility *staff_ratio_row, *staff_cost_row;
	double staff_engineers, staff_usd_per_year;
	double licence_usd_per_year; /* GPUs x licence_part's price; 0: none */
	double opex_usd_per_year;    /* staff + licences */
	unsigned missing;            /* enum bom_missing: parts the catalog does not price (0: none) */
	/* rented (bom_build_rented); 0 and empty for a bill to buy */
	int rented;
	const struct cat_cloud *instance;
	double usd_per_hour; /* all instances, on demand */
	double network_gbps; /* scale-out Gb/s per instance as the cloud provides it; 0 unknown */
};

/*
 * Sizes and prices the cluster.  Returns 0, or -1 with *err (field
 * "rack-kw") when a node draws more than a rack may (the nearest limit is
 * in the message; b->cooling and b->rack_kw still say which rack it was).
 */
int bom_build(struct bom *b, const struct catalog *cat, const struct bom_in *in, struct diag *err);

/*
 * The bill of `instances` rented cloud instances drawing node_kw each (for
 * power_kw: drawn, not billed apart), with storage_tb of storage (< 0: the
 * per-GPU default) whose write rate times checkpoints as for owned storage.
 */
void bom_build_rented(struct bom *b, const struct catalog *cat, const struct cat_cloud *instance, double instances,
		      double node_kw, double storage_tb);

/* The cooling's default rack power, kW (facility rack_kw_air / rack_kw_liquid). */
double bom_default_rack_kw(const struct catalog *cat, const char *cooling);

/* The bill as JSON: the field names of docs/plan.md (bom.capex_usd, bom.racks ...). Caller owns it. */
struct json_t;
struct json_t *bom_json(const struct bom *b);
/*
 * A rented bill in a sentence: "nothing to buy: 4 x p4d.24xlarge (aws, 32
 * GPUs) rented at $131/h; network (400 Gb/s an instance), 64 TB storage,
 * racks, cooling and power (12 kW drawn) come with the instances".
 */
const char *bom_rented_text(const struct bom *b, char *buf, size_t len);
/* Appends the unpriced parts to sb: "switch, optic, cable"; nothing when every part is priced. */
void bom_missing_text(const struct bom *b, struct strbuf *sb);
/*
 * Appends what a bill to buy adds beside its servers, fabric, storage and
 * cooling: "front end $876k (256 x 200G ports; 16 leaf + 8 spine), management
 * $215k (43 switches), power distribution $317k (1441 kW), installation $512k
 * (1024 GPUs)"; an item the bill does not have is left out.
 */
void bom_extras_text(const struct bom *b, struct strbuf *sb);
/*
 * Appends a year of running it as the bill sees it: "staff $614k (4.1
 * engineers, one per 250 GPUs), licences none".
 */
void bom_running_text(const struct bom *b, struct strbuf *sb);
/* "16 leaf + 8 spine (64-port 400G)", "none", or "provided by the cloud" (rented). */
const char *bom_switch_text(const struct bom *b, char *buf, size_t len);

#endif
