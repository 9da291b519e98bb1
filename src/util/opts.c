#include "util/opts.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/suggest.h"
#include "util/units.h"
#include "util/xalloc.h"

int opts_error(const struct opts_cmd *cmd, const char *fmt, ...)
{
	va_list ap;
	fflush(stdout);
	fprintf(stderr, "gpuscope %s: usage error: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nsee 'gpuscope %s --help'\n", cmd->name);
	return -1;
}

static const struct opt *find_opt(const struct opts_cmd *cmd, const char *name, size_t len)
{
	const struct opt *o;
	for (o = cmd->opts; o && o->type != OPT_END; o++)
		if (o->type != OPT_GROUP && strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
	return NULL;
}

static int unknown_opt(const struct opts_cmd *cmd, const char *arg, size_t len)
{
	const char *names[256];
	char hint[256], word[128], dashed[256][64];
	size_t n = 0;
	const struct opt *o;
	snprintf(word, sizeof(word), "%.*s", (int)(len < 100 ? len : 100), arg);
	for (o = cmd->opts; o && o->type != OPT_END && n < 255; o++)
		if (o->type != OPT_GROUP) {
			snprintf(dashed[n], sizeof(dashed[n]), "--%s", o->name);
			names[n] = dashed[n];
			n++;
		}
	names[n] = "--help";
	n++;
	suggest_hint(word, names, n, hint, sizeof(hint));
	return opts_error(cmd, "unknown option '%s'%s", word, hint);
}

/* Whether v is a count and "x" alone: "4x", "12X". */
static int count_times(const char *v)
{
	size_t n = strspn(v, "0123456789");
	return n > 0 && (v[n] == 'x' || v[n] == 'X') && !v[n + 1];
}

/*
 * "a b", for a list value given in two arguments; kept for the life of the
 * process, as argv is (a list's values live as long as the command).
 */
static const char *joined(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = xmalloc(la + lb + 2);
	memcpy(s, a, la);
	s[la] = ' ';
	memcpy(s + la + 1, b, lb + 1);
	return s;
}

static int set_value(const struct opts_cmd *cmd, const struct opt *o, const char *v)
{
	char why[200];
	char *end;
	switch (o->type) {
	case OPT_STRING:
		if (!*v)
			return opts_error(cmd, "option '--%s' needs a non-empty value", o->name);
		*(const char **)o->value = v;
		return 0;
	case OPT_INT: {
		long x;
		errno = 0;
		x = strtol(v, &end, 10);
		if (!*v || *end || errno || !(*v == '-' || (*v >= '0' && *v <= '9')))
			return opts_error(cmd, "option '--%s' expects an integer, got '%s'", o->name, v);
		if (o->max > o->min && (x < o->min || x > o->max))
			return opts_error(cmd, "option '--%s' must be between %.0f and %.0f, got %ld", o->name,
					  o->min, o->max, x);
		*(long *)o->value = x;
		return 0;
	}
	case OPT_DOUBLE:
	case OPT_QUANTITY: {
		double x;
		struct num_range r = {o->min, o->max, o->num_flags};
		if (!(o->max > o->min))
			r = (struct num_range){o->type == OPT_QUANTITY ? 0 : -HUGE_VAL, HUGE_VAL, 0};
		if (unit_parse(v, o->type == OPT_QUANTITY ? o->unit : NULL, &x, why, sizeof(why)))
			return o->type == OPT_QUANTITY ?
				       opts_error(cmd, "option '--%s': %s", o->name, why) :
				       opts_error(cmd, "option '--%s' expects a number, got '%s'", o->name, v);
		if (num_check(x, &r, why, sizeof(why)))
			return opts_error(cmd, "option '--%s' %s", o->name, why);
		*(double *)o->value = x;
		return 0;
	}
	case OPT_DURATION: {
		double x;
		struct num_range r = {o->min, o->max, o->num_flags};
		if (!(o->max > o->min))
			r = (struct num_range){0, OPT_DURATION_MAX_S, o->num_flags};
		if (unit_parse_duration(v, &x, why, sizeof(why)))
			return opts_error(cmd, "option '--%s': %s", o->name, why);
		if (num_check(x, &r, why, sizeof(why)))
			return opts_error(cmd, "option '--%s' %s (seconds)", o->name, why);
		*(double *)o->value = x;
		return 0;
	}
	case OPT_ENUM: {
		int x = o->from_name(v);
		if (x < 0)
			return opts_error(cmd, "--%s '%s' is not one of %s", o->name, v, o->choices);
		*(int *)o->value = x;
		return 0;
	}
	case OPT_LIST: {
		struct opt_list *l = o->value;
		if (!*v)
			return opts_error(cmd, "option '--%s' needs a non-empty value", o->name);
		XGROW(l->v, l->cap, l->n);
		l->v[l->n++] = v;
		return 0;
	}
	default:
		BUG("option type %d takes no value", o->type);
	}
}

int opts_parse(const struct opts_cmd *cmd, int argc, char **argv, int *npos)
{
	int i, n = 0, only_pos = 0;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct opt *o;
		const char *eq, *val = NULL;
		size_t len;
		if (only_pos || a[0] != '-' || !a[1]) {
			argv[n++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			only_pos = 1;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			opts_usage(cmd, stdout);
			return 1;
		}
		if (a[1] != '-')
			return opts_error(cmd, "unknown option '%s' (options are long: --name)", a);
		a += 2;
		eq = strchr(a, '=');
		len = eq ? (size_t)(eq - a) : strlen(a);
		o = find_opt(cmd, a, len);
		if (!o)
			return unknown_opt(cmd, argv[i], len + 2);
		if (o->seen)
			*o->seen = 1;
		if (o->type == OPT_FLAG) {
			if (eq)
				return opts_error(cmd, "option '--%s' takes no value", o->name);
			*(int *)o->value = 1;
			continue;
		}
		if (eq)
			val = eq + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		else
			return opts_error(cmd, "option '--%s' needs a value (%s)", o->name,
					  o->argh ? o->argh : "VALUE");
		if (o->type == OPT_LIST && count_times(val) && i + 1 < argc && argv[i + 1][0] != '-')
			val = joined(val, argv[++i]);
		if (set_value(cmd, o, val))
			return -1;
	}
	*npos = n;
	return 0;
}

/* Help text from column 29, wrapped at spaces to end by column 80, continued at column 29. */
static void print_help_text(FILE *out, const char *h)
{
	const size_t width = 80 - 28;
	size_t len = strlen(h);
	while (len > width) {
		size_t cut = width;
		while (cut > 0 && h[cut] != ' ')
			cut--;
		if (!cut)
			break;
		fprintf(out, "%.*s\n%28s", (int)cut, h, "");
		h += cut + 1;
		len -= cut + 1;
	}
	fprintf(out, "%s\n", h);
}

void opts_usage(const struct opts_cmd *cmd, FILE *out)
{
	const struct opt *o;
	fprintf(out, "usage: gpuscope %s %s\n\n%s\n", cmd->name, cmd->usage ? cmd->usage : "",
		cmd->summary ? cmd->summary : "");
	if (cmd->description)
		fprintf(out, "\n%s", cmd->description);
	fprintf(out, "\noptions:\n");
	for (o = cmd->opts; o && o->type != OPT_END; o++) {
		char left[64];
		if (o->type == OPT_GROUP) {
			fprintf(out, "\n%s:\n", o->name);
			continue;
		}
		if (o->type == OPT_FLAG)
			snprintf(left, sizeof(left), "--%s", o->name);
		else
			snprintf(left, sizeof(left), "--%s %s", o->name, o->argh ? o->argh : "VALUE");
		if (strlen(left) > 24)
			fprintf(out, "  %s\n  %-24s  ", left, "");
		else
			fprintf(out, "  %-24s  ", left);
		print_help_text(out, o->help ? o->help : "");
	}
	fprintf(out, "  %-24s  %s\n", "-h, --help", "show this help");
}
