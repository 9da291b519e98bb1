#include "report/fmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define YEAR_S (365.25 * 86400)

static const char *dash(char *buf, size_t len)
{
	snprintf(buf, len, "-");
	return buf;
}

/*
 * A duration style as a ladder: the first rung whose bound is above s
 * prints s * mul / div (one of the two is 1, so the value is s * 1e3 or
 * s / 60 exactly) with `decimals` decimals, %f or %g by `conv`, then the
 * suffix.  Each ladder's last bound is infinite.
 */
struct rung {
	double below_s, mul, div;
	int decimals;
	char conv;
	const char *suffix;
};

/* "250.0 us", "12.5 ms", "2.00 s", "12.0 min", "3.2 h", "41.0 d", "2.5 years" */
static const struct rung text_rungs[] = {
	{1e-3, 1e6, 1, 1, 'f', " us"},
	{1, 1e3, 1, 1, 'f', " ms"},
	{120, 1, 1, 2, 'f', " s"},
	{7200, 1, 60, 1, 'f', " min"},
	{3 * 86400, 1, 3600, 1, 'f', " h"},
	{2 * YEAR_S, 1, 86400, 1, 'f', " d"},
	{INFINITY, 1, YEAR_S, 1, 'f', " years"},
};
/* "250ms", "4.2s", "38m", "1.1h", "12d", "2.5y" (below half a millisecond: "<1ms") */
static const struct rung short_rungs[] = {
	{1, 1e3, 1, 0, 'f', "ms"},           {60, 1, 1, 2, 'g', "s"},
	{3600, 1, 60, 0, 'f', "m"},          {86400 * 2, 1, 3600, 2, 'g', "h"},
	{2 * YEAR_S, 1, 86400, 0, 'f', "d"}, {INFINITY, 1, YEAR_S, 2, 'g', "y"},
};
/* "850us", "2.5ms", "25ms", "2.5s", "25s" */
static const struct rung step_rungs[] = {
	{1e-3, 1e6, 1, 0, 'f', "us"}, {10e-3, 1e3, 1, 1, 'f', "ms"}, {1, 1e3, 1, 0, 'f', "ms"},
	{10, 1, 1, 1, 'f', "s"},      {INFINITY, 1, 1, 0, 'f', "s"},
};
/* "12.5 ms", "352.10 s": below ten minutes only, TEXT's rungs above */
static const struct rung precise_rungs[] = {
	{1e-3, 1e6, 1, 1, 'f', " us"},
	{1, 1e3, 1, 1, 'f', " ms"},
	{INFINITY, 1, 1, 2, 'f', " s"},
};

static const char *ladder(const struct rung *r, double s, char *buf, size_t len)
{
	while (!(s < r->below_s))
		r++;
	snprintf(buf, len, r->conv == 'g' ? "%.*g%s" : "%.*f%s", r->decimals, s * r->mul / r->div, r->suffix);
	return buf;
}

const char *fmt_duration(double s, enum fmt_duration_style style, char *buf, size_t len)
{
	if (!isfinite(s))
		return dash(buf, len);
	switch (style) {
	case FMT_DURATION_SHORT:
		if (!(s > 0))
			return dash(buf, len);
		if (s < 0.0005) {
			snprintf(buf, len, "<1ms");
			return buf;
		}
		return ladder(short_rungs, s, buf, len);
	case FMT_DURATION_STEP:
		return ladder(step_rungs, s, buf, len);
	case FMT_DURATION_PRECISE:
		if (!(s > 0)) {
			snprintf(buf, len, "0");
			return buf;
		}
		return ladder(s < 600 ? precise_rungs : text_rungs, s, buf, len);
	case FMT_DURATION_TEXT:
	default:
		return ladder(text_rungs, s, buf, len);
	}
}

const char *fmt_grouped(double v, int dec, char *out, size_t len)
{
	char raw[400], *dot, *p;
	size_t ilen, i, o = 0;
	if (isnan(v) || !len)
		return dash(out, len);
	if (!isfinite(v))
		return dash(out, len);
	snprintf(raw, sizeof(raw), "%.*f", dec, fabs(v));
	dot = strchr(raw, '.');
	ilen = dot ? (size_t)(dot - raw) : strlen(raw);
	/* "-0" is not negative: a sign only where a digit is not zero */
	if (v < 0 && strspn(raw, "0.") != strlen(raw) && o + 1 < len)
		out[o++] = '-';
	for (i = 0, p = raw; i < ilen && o + 2 < len; i++, p++) {
		out[o++] = *p;
		if ((ilen - i - 1) % 3 == 0 && i + 1 < ilen)
			out[o++] = ',';
	}
	for (; *p && o + 1 < len; p++)
		out[o++] = *p;
	out[o] = 0;
	return out;
}

static const char *count_si_short(double v, char *buf, size_t len)
{
	static const char *const sfx[] = {"", "k", "M", "G", "T"};
	int i = 0;
	if (!(v >= 0) || !isfinite(v))
		return dash(buf, len);
	/* 999.7k prints as "1000k" with %.0f: move up a letter first */
	while (v >= 999.5 && i < 4) {
		v /= 1000;
		i++;
	}
	if (!i && v < 10)
		snprintf(buf, len, v == 0 ? "0" : "%.2f", v);
	else
		snprintf(buf, len, v >= 100 || !i ? "%.0f%s" : "%.3g%s", v, sfx[i]);
	return buf;
}

static const char *money_short(double usd, char *buf, size_t len)
{
	char t[FMT_LEN];
	double a = fabs(usd);
	const char *sign = usd < 0 ? "-" : "";
	if (a > 0 && a < 0.005)
		snprintf(buf, len, "%s<$0.01", sign);
	else if (a < 9.995)
		snprintf(buf, len, "%s$%.2f", sign, a);
	else if (a < 999.5)
		snprintf(buf, len, "%s$%.0f", sign, a);
	else
		snprintf(buf, len, "%s$%s", sign, count_si_short(a, t, sizeof(t)));
	return buf;
}

const char *fmt_money(double usd, enum fmt_money_style style, char *buf, size_t len)
{
	char t[FMT_LEN];
	int dec = 0;
	if (!isfinite(usd))
		return dash(buf, len);
	switch (style) {
	case FMT_MONEY_SHORT:
		return money_short(usd, buf, len);
	case FMT_MONEY_SIGNED:
		if (usd >= 0 && len > 1) {
			buf[0] = '+';
			money_short(usd, buf + 1, len - 1);
			return buf;
		}
		return money_short(usd, buf, len);
	case FMT_MONEY_CENTS:
		dec = 2;
		break;
	case FMT_MONEY_MILLS:
		dec = 3;
		break;
	case FMT_MONEY_WHOLE:
	default:
		dec = 0;
		break;
	}
	fmt_grouped(fabs(usd), dec, t, sizeof(t));
	snprintf(buf, len, "%s$%s", usd < 0 && strspn(t, "0.,") != strlen(t) ? "-" : "", t);
	return buf;
}

const char *fmt_bytes(double b, enum fmt_bytes_style style, char *buf, size_t len)
{
	static const char *const sfx[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	int i = 0;
	if (!isfinite(b))
		return dash(buf, len);
	if (style == FMT_BYTES_GIB) {
		snprintf(buf, len, "%.2f", b / 1073741824.0);
		return buf;
	}
	while (fabs(b) >= 1024 && i < 5) {
		b /= 1024;
		i++;
	}
	snprintf(buf, len, i ? "%.1f %s" : "%.0f %s", b, sfx[i]);
	return buf;
}

static const char *count_si(double v, char *buf, size_t len)
{
	static const char *const sfx[] = {"", " k", " M", " G", " T", " P", " E"};
	int i = 0;
	while (fabs(v) >= 1000 && i < 6) {
		v /= 1000;
		i++;
	}
	snprintf(buf, len, i ? "%.2f%s" : "%.3g%s", v, sfx[i]);
	return buf;
}

static const char *count_g3(double v, char *buf, size_t len)
{
	char *e, *q;
	snprintf(buf, len, "%.3g", v);
	e = strchr(buf, 'e');
	if (e) {
		q = e + 1;
		if (*q == '+')
			memmove(q, q + 1, strlen(q));
		while (*q == '0' && q[1])
			memmove(q, q + 1, strlen(q));
	}
	return buf;
}

const char *fmt_count(double v, enum fmt_count_style style, char *buf, size_t len)
{
	if (!isfinite(v))
		return dash(buf, len);
	switch (style) {
	case FMT_COUNT_SI:
		return count_si(v, buf, len);
	case FMT_COUNT_G3:
		return count_g3(v, buf, len);
	case FMT_COUNT_GROUPED:
		return fmt_grouped(v, 0, buf, len);
	case FMT_COUNT_SI_SHORT:
	default:
		return count_si_short(v, buf, len);
	}
}

const char *fmt_num(double v, int decimals, char *buf, size_t len)
{
	if (isnan(v))
		return dash(buf, len);
	snprintf(buf, len, "%.*f", decimals, v);
	return buf;
}

static const char *pct(double fraction, int decimals, int sign, char *buf, size_t len)
{
	if (!isfinite(fraction))
		return dash(buf, len);
	snprintf(buf, len, sign ? "%+.*f%%" : "%.*f%%", decimals, 100 * fraction);
	return buf;
}

const char *fmt_pct(double fraction, int decimals, char *buf, size_t len)
{
	return pct(fraction, decimals, 0, buf, len);
}

const char *fmt_pct_signed(double fraction, int decimals, char *buf, size_t len)
{
	return pct(fraction, decimals, 1, buf, len);
}

/* v in unit with an SI prefix, three figures: "129 W", "1.03 kW", "999 kW", "1.00 MW". */
static const char *si3(double v, const char *unit, char *buf, size_t len)
{
	static const char *const sfx[] = {"", "k", "M", "G", "T", "P"};
	double a = fabs(v);
	int i = 0, dec;
	if (!isfinite(v))
		return dash(buf, len);
	if (a == 0) {
		snprintf(buf, len, "0 %s", unit);
		return buf;
	}
	/* 999.7 prints as "1000" with %.0f: move up a prefix first */
	while (a >= 999.5 && i < 5) {
		a /= 1000;
		v /= 1000;
		i++;
	}
	if (a < 0.001) {
		snprintf(buf, len, "%s<0.001 %s", v < 0 ? "-" : "", unit);
		return buf;
	}
	dec = a >= 99.95 ? 0 : a >= 9.995 ? 1 : a >= 0.9995 ? 2 : 3;
	snprintf(buf, len, "%.*f %s%s", dec, v, sfx[i], unit);
	return buf;
}

const char *fmt_power(double watts, char *buf, size_t len)
{
	return si3(watts, "W", buf, len);
}

const char *fmt_energy(double kwh, char *buf, size_t len)
{
	return si3(kwh * 1000, "Wh", buf, len);
}

const char *fmt_rate(double per_s, const char *unit, char *buf, size_t len)
{
	char n[FMT_LEN];
	if (!isfinite(per_s))
		return dash(buf, len);
	snprintf(buf, len, "%s %s", count_si(per_s, n, sizeof(n)), unit ? unit : "/s");
	return buf;
}
