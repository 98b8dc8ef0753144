/* opt.c - see opt.h. */
#include "opt.h"

#include <string.h>

#include "num.h"

static void opt_unit(char *buf, size_t size, const char *unit)
{
	snprintf(buf, size, "%s%s", unit && *unit ? " " : "",
		 unit ? unit : "");
}

int opt_double(const char *prog, const char *name, const char *value,
	       double lo, double hi, const char *unit, int flags,
	       double *out)
{
	char u[64];
	double d;

	if (num_parse_double(value, &d) == 0 && d <= hi &&
	    ((flags & OPT_ABOVE) ? d > lo : d >= lo)) {
		*out = d;
		return 0;
	}
	opt_unit(u, sizeof(u), unit);
	if (flags & OPT_ABOVE)
		fprintf(stderr, "%s: %s '%.60s': allowed: a number above %g "
			"up to %g%s\n", prog, name, value, lo, hi, u);
	else
		fprintf(stderr, "%s: %s '%.60s': allowed: a number from %g "
			"to %g%s\n", prog, name, value, lo, hi, u);
	return OPT_BAD;
}

int opt_long(const char *prog, const char *name, const char *value,
	     double lo, double hi, const char *unit, long *out)
{
	char u[64];
	long l;

	if (num_parse_long(value, &l) == 0 && l >= lo && l <= hi) {
		*out = l;
		return 0;
	}
	opt_unit(u, sizeof(u), unit);
	fprintf(stderr, "%s: %s '%.60s': allowed: a whole number from %.0f "
		"to %.0f%s\n", prog, name, value, lo, hi, u);
	return OPT_BAD;
}

size_t opt_key_value(const char *prog, const char *a, size_t max)
{
	const char *eq = strchr(a, '=');

	if (eq && eq != a && (size_t)(eq - a) < max)
		return (size_t)(eq - a);
	fprintf(stderr, "%s: '%.60s' is not key=value (see --help)\n", prog,
		a);
	return 0;
}

/* The row named by a up to '=' (or its end), or NULL. */
static const struct opt *opt_find(const struct opt *opts, const char *a,
				  size_t len)
{
	for (; opts->name; opts++)
		if (strlen(opts->name) == len && !strncmp(opts->name, a, len))
			return opts;
	return NULL;
}

static int opt_set(const struct opt_spec *spec, const struct opt *op,
		   void *ctx, const char *v)
{
	char *field = (char *)ctx + op->off;

	switch (op->type) {
	case OPT_FLAG:
		*(int *)field = 1;
		return 0;
	case OPT_STR:
		if ((op->flags & OPT_NONEMPTY) && !*v) {
			fprintf(stderr, "%s: %s: empty value\n", spec->prog,
				op->name);
			return OPT_BAD;
		}
		*(const char **)field = v;
		return 0;
	case OPT_DOUBLE:
		return opt_double(spec->prog, op->name, v, op->lo, op->hi,
				  op->unit, op->flags, (double *)field);
	case OPT_LONG:
		return opt_long(spec->prog, op->name, v, op->lo, op->hi,
				op->unit, (long *)field);
	case OPT_FN:
		return op->fn(ctx, spec->prog, op->name, v) ? OPT_BAD : 0;
	}
	return OPT_BAD;
}

enum opt_rc opt_parse(const struct opt_spec *spec, int argc, char **argv,
		      void *ctx)
{
	const struct opt *op;
	const char *a, *eq, *v;
	int i, args_only = 0;
	size_t len;

	for (i = 0; i < argc; i++) {
		a = argv[i];
		if (args_only || a[0] != '-' || !a[1]) {
			if (!spec->arg) {
				fprintf(stderr, "%s: unexpected '%.60s' (see "
					"--help)\n", spec->prog, a);
				return OPT_BAD;
			}
			if (spec->arg(ctx, spec->prog, a))
				return OPT_BAD;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			spec->usage(stdout);
			return OPT_HELP;
		}
		if (!strcmp(a, "--")) {
			args_only = 1;
			continue;
		}
		eq = strchr(a, '=');
		len = eq ? (size_t)(eq - a) : strlen(a);
		op = opt_find(spec->opts, a, len);
		if (!op) {
			fprintf(stderr, "%s: unknown option '%.60s' (see "
				"--help)\n", spec->prog, a);
			return OPT_BAD;
		}
		if (op->type == OPT_FLAG) {
			if (eq) {
				fprintf(stderr, "%s: %s takes no value\n",
					spec->prog, op->name);
				return OPT_BAD;
			}
			v = NULL;
		} else if (eq) {
			v = eq + 1;
		} else if (i + 1 < argc) {
			v = argv[++i];
		} else {
			fprintf(stderr, "%s: %s needs a value\n", spec->prog,
				op->name);
			return OPT_BAD;
		}
		if (opt_set(spec, op, ctx, v))
			return OPT_BAD;
	}
	return OPT_OK;
}
