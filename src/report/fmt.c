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

static const char *duration_text(double s, char *buf, size_t len)
{
	if (s < 1e-3)
		snprintf(buf, len, "%.1f us", s * 1e6);
	else if (s < 1)
		snprintf(buf, len, "%.1f ms", s * 1e3);
	else if (s < 120)
		snprintf(buf, len, "%.2f s", s);
	else if (s < 7200)
		snprintf(buf, len, "%.1f min", s / 60);
	else if (s < 3 * 86400)
		snprintf(buf, len, "%.1f h", s / 3600);
	else if (s < 2 * YEAR_S)
		snprintf(buf, len, "%.1f d", s / 86400);
	else
		snprintf(buf, len, "%.1f years", s / YEAR_S);
	return buf;
}

static const char *duration_short(double s, char *buf, size_t len)
{
	if (!(s > 0))
		return dash(buf, len);
	if (s < 0.0005)
		snprintf(buf, len, "<1ms");
	else if (s < 1)
		snprintf(buf, len, "%.0fms", s * 1e3);
	else if (s < 60)
		snprintf(buf, len, "%.2gs", s);
	else if (s < 3600)
		snprintf(buf, len, "%.0fm", s / 60);
	else if (s < 86400 * 2)
		snprintf(buf, len, "%.2gh", s / 3600);
	else if (s < 2 * YEAR_S)
		snprintf(buf, len, "%.0fd", s / 86400);
	else
		snprintf(buf, len, "%.2gy", s / YEAR_S);
	return buf;
}

static const char *duration_step(double s, char *buf, size_t len)
{
	if (s < 1e-3)
		snprintf(buf, len, "%.0fus", s * 1e6);
	else if (s < 10e-3)
		snprintf(buf, len, "%.1fms", s * 1e3);
	else if (s < 1)
		snprintf(buf, len, "%.0fms", s * 1e3);
	else if (s < 10)
		snprintf(buf, len, "%.1fs", s);
	else
		snprintf(buf, len, "%.0fs", s);
	return buf;
}

const char *fmt_duration(double s, enum fmt_duration_style style, char *buf, size_t len)
{
	if (!isfinite(s))
		return dash(buf, len);
	switch (style) {
	case FMT_DURATION_SHORT:
		return duration_short(s, buf, len);
	case FMT_DURATION_STEP:
		return duration_step(s, buf, len);
	case FMT_DURATION_PRECISE:
		if (!(s > 0))
			snprintf(buf, len, "0");
		else if (s < 1e-3)
			snprintf(buf, len, "%.1f us", s * 1e6);
		else if (s < 1)
			snprintf(buf, len, "%.1f ms", s * 1e3);
		else if (s < 600)
			snprintf(buf, len, "%.2f s", s);
		else
			duration_text(s, buf, len);
		return buf;
	case FMT_DURATION_TEXT:
	default:
		return duration_text(s, buf, len);
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

const char *fmt_pct(double fraction, int decimals, char *buf, size_t len)
{
	if (!isfinite(fraction))
		return dash(buf, len);
	snprintf(buf, len, "%.*f%%", decimals, 100 * fraction);
	return buf;
}

const char *fmt_pct_signed(double fraction, int decimals, char *buf, size_t len)
{
	if (!isfinite(fraction))
		return dash(buf, len);
	snprintf(buf, len, "%+.*f%%", decimals, 100 * fraction);
	return buf;
}

const char *fmt_rate(double per_s, const char *unit, char *buf, size_t len)
{
	char n[FMT_LEN];
	if (!isfinite(per_s))
		return dash(buf, len);
	snprintf(buf, len, "%s %s", count_si(per_s, n, sizeof(n)), unit ? unit : "/s");
	return buf;
}
