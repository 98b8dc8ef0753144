/*
 * opt.h - one option parser for the subcommands (serve, calc, explain,
 * lint, simulate, tune), driven by a table, so that flags, their errors
 * and the way values are given are the same everywhere:
 *
 *   -h, --help          usage on stdout; the caller exits 0
 *   --name VALUE        or --name=VALUE
 *   --flag              a flag takes no value ("--json=1" is refused)
 *   --                  the rest are arguments, even if they start with -
 *   anything else       an argument (key=value, a file; "-" is one)
 *
 * Every message is one line on stderr, "PROG: ...":
 *   unknown option '--x' (see --help)
 *   --x needs a value
 *   --x takes no value
 *   --x 'V': allowed: a number from LO to HI[ UNIT]
 *   --x 'V': allowed: a number above LO up to HI[ UNIT]     (OPT_ABOVE)
 *   --x 'V': allowed: a whole number from LO to HI[ UNIT]
 *   --x: empty value                                        (OPT_NONEMPTY)
 *   unexpected 'A' (see --help)                     (a command without args)
 *   'A' is not key=value (see --help)               (opt_key_value())
 *
 * Values are argv's strings, not copied.  No state; thread-safe.
 */
#ifndef STAFFER_OPT_H
#define STAFFER_OPT_H

#include <stddef.h>
#include <stdio.h>

enum opt_type {
	OPT_FLAG,     /* int at off set to 1 */
	OPT_STR,      /* const char * at off */
	OPT_DOUBLE,   /* double at off: num.h's strict number in range */
	OPT_LONG,     /* long at off: a whole number in range */
	OPT_FN,       /* fn(ctx, prog, name, value) decides */
};

/* opt.flags */
#define OPT_ABOVE    1   /* OPT_DOUBLE: lo itself is not allowed */
#define OPT_NONEMPTY 2   /* OPT_STR: "" is refused */

struct opt {
	const char *name;            /* "--listen"; NULL ends the table */
	enum opt_type type;
	size_t off;                  /* offsetof() in the caller's ctx */
	double lo, hi;               /* OPT_DOUBLE, OPT_LONG: inclusive */
	const char *unit;            /* after the range in messages, or NULL */
	int flags;
	/* OPT_FN: 0, or 2 with the message printed */
	int (*fn)(void *ctx, const char *prog, const char *name,
		  const char *value);
};

/* Rows, so that a table reads one option a line. */
#define OPT_F(name, off)        { name, OPT_FLAG, off, 0, 0, NULL, 0, NULL }
#define OPT_S(name, off, flags) { name, OPT_STR, off, 0, 0, NULL, flags, NULL }
#define OPT_D(name, off, lo, hi, unit, flags) \
	{ name, OPT_DOUBLE, off, lo, hi, unit, flags, NULL }
#define OPT_L(name, off, lo, hi, unit) \
	{ name, OPT_LONG, off, lo, hi, unit, 0, NULL }
#define OPT_CALL(name, fn)      { name, OPT_FN, 0, 0, 0, NULL, 0, fn }
#define OPT_END                 { NULL, OPT_FLAG, 0, 0, 0, NULL, 0, NULL }

struct opt_spec {
	const char *prog;            /* "staffer serve" */
	const struct opt *opts;
	void (*usage)(FILE *fp);
	/* One argument that is not an option: 0, or 2 with the message
	 * printed.  NULL: the command takes none ("unexpected"). */
	int (*arg)(void *ctx, const char *prog, const char *a);
};

enum opt_rc {
	OPT_OK = 0,
	OPT_HELP = 1,                /* usage printed on stdout: exit 0 */
	OPT_BAD = 2,                 /* message printed: exit 2 */
};

/* Parse argv[0..argc) into ctx through spec. */
enum opt_rc opt_parse(const struct opt_spec *spec, int argc, char **argv,
		      void *ctx);

/* The command's exit status when opt_parse() did not return OPT_OK: 0
 * after --help, 2 on bad usage. */
static inline int opt_status(enum opt_rc rc)
{
	return rc == OPT_HELP ? 0 : 2;
}

/* A range-checked number for an OPT_FN option, with the messages above:
 * 0 and *out set, or 2 with the message printed (*out untouched). */
int opt_double(const char *prog, const char *name, const char *value,
	       double lo, double hi, const char *unit, int flags,
	       double *out);
int opt_long(const char *prog, const char *name, const char *value,
	     double lo, double hi, const char *unit, long *out);

/* a as key=value: the key's length (1 to max - 1 bytes), or 0 with
 * "'a' is not key=value (see --help)" printed. */
size_t opt_key_value(const char *prog, const char *a, size_t max);

#endif
