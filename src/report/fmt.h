/*
 * The one set of value formatters: every duration, amount of money, byte
 * count, count, rate and percentage that gpuscope prints to a person goes
 * through here, so one value reads the same in every command and report.
 * Machine formats (JSON, CSV) print raw numbers in base units instead
 * (report/field.h).
 *
 * Each function writes into the caller's buf (FMT_LEN bytes always suffice)
 * and returns buf.  A value that is not finite prints as "-": unknown is
 * never "$inf" or "nan s".
 */
#ifndef GPUSCOPE_REPORT_FMT_H
#define GPUSCOPE_REPORT_FMT_H

#include <stddef.h>

/* Bytes that hold any one formatted value of this header. */
#define FMT_LEN 64

enum fmt_duration_style {
	/* prose and key/value lists: "250.0 us", "12.5 ms", "2.00 s", "12.0 min",
	 * "3.2 h", "41.0 d", "2.5 years" */
	FMT_DURATION_TEXT,
	/* five columns at most, for grids: "<1ms", "250ms", "4.2s", "38m",
	 * "1.1h", "12d", "2.5y"; "-" when not positive */
	FMT_DURATION_SHORT,
	/* step times in the plan table, no space: "850us", "2.5ms", "25ms",
	 * "2.5s", "25s" */
	FMT_DURATION_STEP,
	/* seconds kept to ten minutes, then as TEXT: "0" when not positive,
	 * "12.5 ms", "352.10 s", "25.0 min" (estimate's step terms) */
	FMT_DURATION_PRECISE,
};
const char *fmt_duration(double seconds, enum fmt_duration_style style, char *buf, size_t len);

enum fmt_money_style {
	/* three figures and an SI letter: "$0.98", "$46", "$433k", "$14.4M",
	 * "-$250k"; "<$0.01" for a positive amount under a cent */
	FMT_MONEY_SHORT,
	/* the same with a sign always: "+$1.25M", "-$250k" */
	FMT_MONEY_SIGNED,
	/* whole dollars with thousands separators: "$1,234,568", "-$5,000" */
	FMT_MONEY_WHOLE,
	/* cents: "$2.82", "$1,234.50" (prices per hour, per kW-month) */
	FMT_MONEY_CENTS,
	/* tenths of a cent: "$0.125" (electricity per kWh, cloud $/GPU-h) */
	FMT_MONEY_MILLS,
};
const char *fmt_money(double usd, enum fmt_money_style style, char *buf, size_t len);

enum fmt_bytes_style {
	FMT_BYTES_BINARY, /* binary prefix and unit: "512 B", "79.6 GiB" */
	FMT_BYTES_GIB,    /* GiB, two decimals, no unit, for a column headed GiB: "79.63" */
};
const char *fmt_bytes(double bytes, enum fmt_bytes_style style, char *buf, size_t len);

enum fmt_count_style {
	FMT_COUNT_SI_SHORT, /* three figures, SI letter, no space: "0.98", "46", "433k", "14.4M" */
	FMT_COUNT_SI,       /* SI letter after a space: "1.20 M", "3.40 G", "250" */
	FMT_COUNT_G3,       /* "%.3g" without the exponent's sign and zeros: "1e9", "1.5e13", "250" */
	FMT_COUNT_GROUPED,  /* whole, thousands separators: "1,234,568" */
};
const char *fmt_count(double v, enum fmt_count_style style, char *buf, size_t len);

/* A number with fixed decimals: "12.50"; "-" when NaN. */
const char *fmt_num(double v, int decimals, char *buf, size_t len);
/* Thousands separators and fixed decimals: "1,234.50"; "-" when NaN. */
const char *fmt_grouped(double v, int decimals, char *buf, size_t len);
/* A percentage from a fraction: fmt_pct(0.125, 1) is "12.5%". */
const char *fmt_pct(double fraction, int decimals, char *buf, size_t len);
/* The same with a sign always, for an error against a measurement: "+12.5%", "-3.0%". */
const char *fmt_pct_signed(double fraction, int decimals, char *buf, size_t len);
/*
 * Power from watts, three figures and the SI prefix that keeps them whole:
 * "129 W", "1.03 kW", "17.2 kW", "153 kW", "2.45 MW"; "0 W" for zero.
 */
const char *fmt_power(double watts, char *buf, size_t len);
/* Energy from kWh, the same way: "26.9 Wh", "1.03 kWh", "1.66 GWh". */
const char *fmt_energy(double kwh, char *buf, size_t len);
/* A rate with an SI prefix before its unit: "1.20 k tokens/s", "30 requests/s". */
const char *fmt_rate(double per_s, const char *unit, char *buf, size_t len);

#endif
