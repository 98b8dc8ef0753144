/*
 * test_fuzz.c - deterministic fuzzing of every parser of untrusted input.
 *
 * Each target starts from a corpus of valid inputs (which must parse) and
 * feeds its parser inputs made by a small mutator: bit flips, bytes set,
 * inserted and deleted, dictionary tokens spliced in, truncation, ranges
 * repeated or copied (duplicate keys), deep nesting, huge numbers,
 * NaN/Inf strings, NULs, invalid UTF-8 and crossover with other corpus
 * entries.  Some targets also generate structured inputs (random JSON,
 * giant arrays).  For every input the parser must return success or one of
 * its documented errors with a non-empty, NUL-terminated, printable message
 * within its bound, must leave out-parameters alone on error, and on
 * success give outputs within the ranges its header promises.  Built with
 * ASan/UBSan, so "no crash" also means no read past a length, no leak and
 * no undefined behaviour.
 *
 * Deterministic: iteration i of a target draws from a generator seeded
 * with (FUZZ_SEED, target, i).  Environment:
 *   FUZZ_SEED=N    base seed (default 0x5eed; decimal or 0x hex)
 *   FUZZ_ITERS=N   iterations per target instead of the defaults (which
 *                  keep the whole file under ~20 s with ASan on 2 cores)
 *   FUZZ_ONLY=T    run target T alone (prom_instant, meta, ...; the
 *                  others pass at once)
 * A failing check or a sanitizer report prints the target, the iteration,
 * the seed and the input (escaped); `FUZZ_SEED=S FUZZ_ONLY=T
 * FUZZ_ITERS=I build/tests/test_fuzz` replays it.  See tests/README.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <grpc/byte_buffer.h>
#include <grpc/slice.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

#include "awscred.h"
#include "cmd.h"
#include "config.h"
#include "externalscaler.pb-c.h"
#include "log.h"
#include "decide.h"
#include "meta.h"
#include "num.h"
#include "model.h"
#include "pb.h"
#include "prom.h"
#include "scaler.h"
#include "sched.h"
#include "sim/simrng.h"
#include "sim/trace.h"
#include "tz.h"

#define FZ_MAX (1u << 20)     /* bytes in one input */
#define FZ_SHOW 2000          /* bytes of an input shown on failure */

/* ---- the generator ------------------------------------------------------- */

struct fz {
	uint64_t s;
};

static uint64_t fz_seed = 0x5eed;
static unsigned long fz_iters;   /* 0: each target's default */
static const char *fz_only;      /* run only this target; NULL: all */

/* What runs now, for failure reports. */
static const char *fz_target = "";
static unsigned long fz_iter;
static const char *fz_in;
static size_t fz_in_len;
static unsigned long fz_accepted;   /* inputs the parser accepted */

static uint64_t fz_mix(uint64_t x)
{
	/* splitmix64's finaliser */
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void fz_init(struct fz *r, const char *target, unsigned long i)
{
	uint64_t h = 1469598103934665603ULL;   /* FNV-1a of the name */
	const char *p;

	for (p = target; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	r->s = fz_mix(fz_seed ^ fz_mix(h + i));
	if (!r->s)
		r->s = 1;
}

/* xorshift64* */
static uint64_t fz_next(struct fz *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

/* Uniform in [0, n); n > 0. */
static size_t fz_below(struct fz *r, size_t n)
{
	return (size_t)(fz_next(r) % n);
}

/* 1 with probability 1/n. */
static int fz_one_in(struct fz *r, size_t n)
{
	return fz_below(r, n) == 0;
}

/* A length biased to small values: mostly below 8, sometimes up to max. */
static size_t fz_len(struct fz *r, size_t max)
{
	size_t cap = fz_one_in(r, 4) ? max : (max < 8 ? max : 8);

	return cap ? fz_below(r, cap + 1) : 0;
}

/* ---- failure reports ----------------------------------------------------- */

static void fz_report(void)
{
	size_t i, n = fz_in_len < FZ_SHOW ? fz_in_len : FZ_SHOW;

	if (!fz_in)
		return;   /* between targets: nothing to show */
	fprintf(stderr, "# fuzz: target %s iteration %lu FUZZ_SEED=0x%llx "
		"failed; input (%zu bytes%s):\n# \"", fz_target, fz_iter,
		(unsigned long long)fz_seed, fz_in_len,
		n < fz_in_len ? ", start shown" : "");
	for (i = 0; fz_in && i < n; i++) {
		unsigned char c = (unsigned char)fz_in[i];

		if (c == '"' || c == '\\')
			fprintf(stderr, "\\%c", c);
		else if (c >= 0x20 && c < 0x7f)
			fputc(c, stderr);
		else
			fprintf(stderr, "\\x%02x\"\"", c);
	}
	fprintf(stderr, "\"\n");
}

#if defined(__SANITIZE_ADDRESS__)
static void fz_on_death(void)
{
	fz_report();
}
#endif

/* A failed property: report the input and fail the cmocka test. */
#define FZ_CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fz_report();					\
			print_error("%s:%d: %s: ", __FILE__, __LINE__,	\
				    #cond);				\
			print_error(__VA_ARGS__);			\
			print_error("\n");				\
			fail();						\
		}							\
	} while (0)

/* A message: non-empty, NUL-terminated within size, printable ASCII. */
static void fz_check_msg(const char *msg, size_t size, const char *what)
{
	size_t n = strnlen(msg, size), i;

	FZ_CHECK(n < size, "%s: not NUL-terminated within %zu bytes", what,
		 size);
	FZ_CHECK(n > 0, "%s: empty message", what);
	for (i = 0; i < n; i++)
		FZ_CHECK((unsigned char)msg[i] >= 0x20 &&
			 (unsigned char)msg[i] < 0x7f,
			 "%s: byte 0x%02x at %zu of '%s' is not printable",
			 what, (unsigned char)msg[i], i, msg);
}

/* ---- a growable input ---------------------------------------------------- */

struct fz_buf {
	char *p;
	size_t len;
};

static void fz_buf_set(struct fz_buf *b, const char *s, size_t n)
{
	if (n > FZ_MAX)
		n = FZ_MAX;
	memcpy(b->p, s, n);
	b->len = n;
}

/* Insert n bytes at pos, as many as fit under FZ_MAX. */
static void fz_insert(struct fz_buf *b, size_t pos, const char *s, size_t n)
{
	if (pos > b->len)
		pos = b->len;
	if (n > FZ_MAX - b->len)
		n = FZ_MAX - b->len;
	memmove(b->p + pos + n, b->p + pos, b->len - pos);
	memcpy(b->p + pos, s, n);
	b->len += n;
}

/* Insert n bytes at pos `times` times over (s may point into b), as many
 * whole copies as fit, with one move of the tail. */
static void fz_insert_repeated(struct fz_buf *b, size_t pos, const char *s,
			       size_t n, size_t times)
{
	char *copy;
	size_t k;

	if (pos > b->len)
		pos = b->len;
	if (n == 0 || times == 0)
		return;
	if (times > (FZ_MAX - b->len) / n)
		times = (FZ_MAX - b->len) / n;
	copy = malloc(n);
	assert_non_null(copy);
	memcpy(copy, s, n);
	memmove(b->p + pos + n * times, b->p + pos, b->len - pos);
	for (k = 0; k < times; k++)
		memcpy(b->p + pos + k * n, copy, n);
	b->len += n * times;
	free(copy);
}

static void fz_erase(struct fz_buf *b, size_t pos, size_t n)
{
	if (pos > b->len)
		pos = b->len;
	if (n > b->len - pos)
		n = b->len - pos;
	memmove(b->p + pos, b->p + pos + n, b->len - pos - n);
	b->len -= n;
}

static void fz_append(struct fz_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fz_append(struct fz_buf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < sizeof(tmp));
	fz_insert(b, b->len, tmp, (size_t)n);
}

static void fz_puts(struct fz_buf *b, const char *s)
{
	fz_insert(b, b->len, s, strlen(s));
}

/* ---- the mutator --------------------------------------------------------- */

/* Tokens every target may get: numbers that overflow or underflow, the
 * spellings of NaN and infinity, invalid UTF-8, escapes. */
static const char *const fz_common[] = {
	"1e400", "-1e400", "1e-400", "4.9e-324", "1.7976931348623157e308",
	"99999999999999999999999", "-9223372036854775809",
	"9223372036854775807", "18446744073709551616", "-0", "0", "1",
	"NaN", "nan", "+Inf", "-Inf", "inf", "Infinity", "nan(0x1)", "0x10",
	"0x1p4", " 1", "1 ", "1e", ".", "-", "+", "",
	"\xc3\x28", "\xed\xa0\x80", "\xf8\x88\x80\x80\x80", "\xff\xfe",
	"\xe2\x80\xae", "\x1b[31m", "\r\n", "\t", "\\", "\\u0000",
	"\\ud800", "%s%n", "../", "/etc/passwd",
};
#define FZ_NCOMMON (sizeof(fz_common) / sizeof(fz_common[0]))

static const unsigned char fz_bytes[] = {
	0, 1, 0x7f, 0x80, 0xff, '"', '\'', '\\', '{', '}', '[', ']', ',',
	':', ';', '=', '-', '.', '/', ' ', '\n', '\t', 'e', '0', '9',
};

/* A byte that means something to some parser. */
static char fz_byte(struct fz *r)
{
	return (char)fz_bytes[fz_below(r, sizeof(fz_bytes))];
}

struct fz_dict {
	const char *const *w;
	size_t n;
};

static const char *fz_word(struct fz *r, const struct fz_dict *d)
{
	if (d->n && !fz_one_in(r, 3))
		return d->w[fz_below(r, d->n)];
	return fz_common[fz_below(r, FZ_NCOMMON)];
}

/* Openers and closers for deep nesting. */
static const char *const fz_open[] = { "[", "{\"a\":", "(", "[[", "{" };
static const char *const fz_close[] = { "]", "}", ")", "]]", "}" };

static void fz_mutate_once(struct fz *r, struct fz_buf *b,
			   const struct fz_dict *d, const char *const *corpus,
			   size_t ncorpus)
{
	size_t pos = b->len ? fz_below(r, b->len + 1) : 0, n, k, i;
	const char *w;
	char tmp[16];

	switch (fz_below(r, 14)) {
	case 0: /* flip a bit */
		if (b->len)
			b->p[fz_below(r, b->len)] ^=
				(char)(1u << fz_below(r, 8));
		break;
	case 1: /* set a byte */
		if (b->len)
			b->p[fz_below(r, b->len)] = fz_byte(r);
		break;
	case 2: /* insert random bytes */
		n = 1 + fz_below(r, sizeof(tmp));
		for (i = 0; i < n; i++)
			tmp[i] = fz_one_in(r, 2) ? fz_byte(r)
						 : (char)fz_next(r);
		fz_insert(b, pos, tmp, n);
		break;
	case 3: /* delete a range */
		fz_erase(b, pos, 1 + fz_len(r, b->len / 2));
		break;
	case 4: /* insert a token */
		w = fz_word(r, d);
		fz_insert(b, pos, w, strlen(w));
		break;
	case 5: /* replace a range with a token */
		w = fz_word(r, d);
		fz_erase(b, pos, 1 + fz_len(r, 16));
		fz_insert(b, pos, w, strlen(w));
		break;
	case 6: /* truncate */
		b->len = pos;
		break;
	case 7: { /* repeat a range */
		size_t from = b->len ? fz_below(r, b->len) : 0;
		size_t len = 1 + fz_len(r, b->len - from ? b->len - from : 1);
		size_t times = fz_one_in(r, 8) ? 1 + fz_below(r, 5000)
					       : 1 + fz_below(r, 8);

		if (from + len > b->len)
			len = b->len - from;
		if (len && times > (FZ_MAX - b->len) / len)
			times = (FZ_MAX - b->len) / len;
		fz_insert_repeated(b, from, b->p + from, len, times);
		break;
	}
	case 8: { /* nest deeply */
		size_t depth = fz_one_in(r, 4) ? 900 + fz_below(r, 300)
					       : 1 + fz_below(r, 5000);
		size_t which = fz_below(r, sizeof(fz_open) /
					   sizeof(fz_open[0]));
		size_t end = pos + fz_below(r, b->len - pos + 1);
		const char *o = fz_open[which], *c = fz_close[which];

		fz_insert_repeated(b, end, c, strlen(c), depth);
		fz_insert_repeated(b, pos, o, strlen(o), depth);
		break;
	}
	case 9: /* a NUL */
		fz_insert(b, pos, "", 1);
		break;
	case 10: /* invalid UTF-8 or a control byte */
		tmp[0] = (char)(0x80 + fz_below(r, 0x80));
		tmp[1] = (char)fz_below(r, 0x20);
		fz_insert(b, pos, tmp, 1 + fz_below(r, 2));
		break;
	case 11: /* crossover: our head, another corpus entry's tail */
		if (ncorpus) {
			const char *o = corpus[fz_below(r, ncorpus)];
			size_t olen = strlen(o), from = fz_below(r, olen + 1);

			b->len = pos;
			fz_insert(b, pos, o + from, olen - from);
		}
		break;
	case 12: { /* copy a range elsewhere: duplicate keys, fields */
		size_t from = b->len ? fz_below(r, b->len) : 0;
		size_t len = 1 + fz_len(r, 64);
		char *copy;

		if (from + len > b->len)
			len = b->len - from;
		copy = malloc(len ? len : 1);
		assert_non_null(copy);
		memcpy(copy, b->p + from, len);
		fz_insert(b, pos, copy, len);
		free(copy);
		break;
	}
	default: /* replace a number-like run with a special number */
		w = fz_common[fz_below(r, 20)];
		for (k = pos; k < b->len && ((b->p[k] >= '0' &&
					       b->p[k] <= '9') ||
					      b->p[k] == '.'); k++)
			;
		fz_erase(b, pos, k - pos);
		fz_insert(b, pos, w, strlen(w));
		break;
	}
}

static void fz_mutate(struct fz *r, struct fz_buf *b, const struct fz_dict *d,
		      const char *const *corpus, size_t ncorpus)
{
	size_t n, i;

	/* Half the time one change, so that many inputs still get past the
	 * first checks to the deeper parts of a parser. */
	if (fz_one_in(r, 2))
		n = 1;
	else
		n = 1 + fz_below(r, fz_one_in(r, 4) ? 16 : 4);
	for (i = 0; i < n; i++)
		fz_mutate_once(r, b, d, corpus, ncorpus);
}

/*
 * A random JSON value, keys and strings mostly from the dictionary:
 * sometimes huge arrays or deep nesting.
 */
static void fz_json(struct fz *r, struct fz_buf *b, const struct fz_dict *d,
		    int depth)
{
	size_t n, i;

	if (b->len > FZ_MAX / 2) {
		fz_puts(b, "0");
		return;
	}
	switch (depth > 6 ? fz_below(r, 4) : fz_below(r, 7)) {
	case 0:
		fz_append(b, "\"%s\"", fz_word(r, d));
		break;
	case 1:
		fz_puts(b, fz_common[fz_below(r, 20)]);
		break;
	case 2:
		fz_puts(b, fz_one_in(r, 2) ? "null" :
			   fz_one_in(r, 2) ? "true" : "false");
		break;
	case 3:
		fz_append(b, "%.17g", (double)(int64_t)fz_next(r) / 1e9);
		break;
	case 4:
	case 5:
		n = fz_one_in(r, 50) ? fz_below(r, 20000) : fz_below(r, 5);
		fz_puts(b, "[");
		for (i = 0; i < n; i++) {
			if (i)
				fz_puts(b, ",");
			if (n > 100)
				fz_append(b, "[%zu,\"%zu\"]", i, i);
			else
				fz_json(r, b, d, depth + 1);
		}
		fz_puts(b, "]");
		break;
	default:
		n = fz_below(r, 6);
		fz_puts(b, "{");
		for (i = 0; i < n; i++) {
			fz_append(b, "%s\"%s\":", i ? "," : "",
				  fz_word(r, d));
			fz_json(r, b, d, depth + 1);
		}
		fz_puts(b, "}");
		break;
	}
}

/* ---- the runner ---------------------------------------------------------- */

/*
 * One target: its corpus (each entry must be accepted: check(.., 1)), its
 * dictionary and an optional generator of structured inputs used for one
 * iteration in gen_every.  check() runs the parser on len bytes.
 */
struct fz_target {
	const char *name;
	const char *const *corpus;
	size_t ncorpus;
	struct fz_dict dict;
	unsigned long iters;
	void (*check)(struct fz *r, const char *in, size_t len, int valid);
	void (*gen)(struct fz *r, struct fz_buf *b);
	size_t gen_every;
	/* Binary corpora (NULs inside): each entry's length.  NULL: C
	 * strings, which crossover may splice in too. */
	const size_t *corpus_len;
	/* Instead of fz_mutate, e.g. for formats with many checks to get
	 * past; NULL: fz_mutate. */
	void (*mutate)(struct fz *r, struct fz_buf *b);
};

/* The input being built: one buffer for the process, so a failed test
 * (cmocka longjmps out of it) leaks nothing large. */
static char *fz_space;

static size_t fz_corpus_len(const struct fz_target *t, size_t c)
{
	return t->corpus_len ? t->corpus_len[c] : strlen(t->corpus[c]);
}

static void fz_run(const struct fz_target *t)
{
	struct fz_buf b = { fz_space, 0 };
	struct fz r;
	unsigned long i, iters = fz_iters ? fz_iters : t->iters;
	const char *const *cross = t->corpus_len ? NULL : t->corpus;
	struct timespec t0, t1;
	size_t c;

	if (fz_only && strcmp(fz_only, t->name))
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fz_target = t->name;
	fz_accepted = 0;
	fprintf(stderr, "# fuzz %s: FUZZ_SEED=0x%llx, %lu iterations\n",
		t->name, (unsigned long long)fz_seed, iters);
	for (c = 0; c < t->ncorpus; c++) {
		fz_iter = 0;
		fz_in = t->corpus[c];
		fz_in_len = fz_corpus_len(t, c);
		fz_init(&r, t->name, 0);
		t->check(&r, fz_in, fz_in_len, 1);
	}
	fz_accepted = 0;
	for (i = 1; i <= iters; i++) {
		fz_init(&r, t->name, i);
		fz_iter = i;
		b.len = 0;
		if (t->gen && fz_one_in(&r, t->gen_every)) {
			t->gen(&r, &b);
			if (fz_one_in(&r, 2))
				fz_mutate(&r, &b, &t->dict, cross,
					  cross ? t->ncorpus : 0);
		} else {
			c = fz_below(&r, t->ncorpus);
			fz_buf_set(&b, t->corpus[c], fz_corpus_len(t, c));
			if (t->mutate)
				t->mutate(&r, &b);
			else
				fz_mutate(&r, &b, &t->dict, cross,
					  cross ? t->ncorpus : 0);
		}
		fz_in = b.p;
		fz_in_len = b.len;
		t->check(&r, b.p, b.len, 0);
	}
	fz_in = NULL;
	fz_in_len = 0;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* How many inputs got past the parser: a target where none do is
	 * testing only its first checks. */
	fprintf(stderr, "# fuzz %s: %lu of %lu accepted, %.1f s\n", t->name,
		fz_accepted, iters,
		(double)(t1.tv_sec - t0.tv_sec) +
		(double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
}

#define FZ_N(a) (sizeof(a) / sizeof((a)[0]))

/* The cmocka test test_fuzz_NAME: target NAME, from arrays corpus and
 * words. */
#define FZ_TEST(name, corpus, words, iters, check, gen, gen_every)	\
	static void test_fuzz_##name(void **state)			\
	{								\
		static const struct fz_target t = {			\
			#name, corpus, FZ_N(corpus),			\
			{ words, FZ_N(words) }, iters, check, gen,	\
			gen_every, NULL, NULL,				\
		};							\
									\
		(void)state;						\
		fz_run(&t);						\
	}

/* A copy of len bytes in a buffer of exactly len (ASan sees any read
 * past it), or with a NUL after them for APIs that take C strings. */
static char *fz_copy(const char *in, size_t len, int nul)
{
	char *p = malloc(len + (nul ? 1 : 0) + (len || nul ? 0 : 1));

	assert_non_null(p);
	memcpy(p, in, len);
	if (nul)
		p[len] = '\0';
	return p;
}

/* ---- Prometheus replies -------------------------------------------------- */

#define VEC(v) "{\"status\":\"success\",\"data\":{\"resultType\":" \
	"\"vector\",\"result\":[{\"metric\":{\"job\":\"api\"}," \
	"\"value\":[1700000000.123," v "]}]}}"
#define MAT(v) "{\"status\":\"success\",\"data\":{\"resultType\":" \
	"\"matrix\",\"result\":[{\"metric\":{\"model\":\"x\"}," \
	"\"values\":[" v "]}]}}"

static const char *const prom_instant_corpus[] = {
	VEC("\"27\""),
	VEC("\"-1.5e3\""),
	VEC("\"0.000001\""),
	"{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\","
	"\"result\":[1700000000.5,\"3.25\"]}}",
	"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\","
	"\"result\":[{\"metric\":{},\"value\":[1,\"1\"]}]},"
	"\"warnings\":[\"w\"],\"infos\":[\"i\"]}\n",
	" {\"data\":{\"result\":[{\"value\":[1.5,\"7\"]}],"
	"\"resultType\":\"vector\"},\"status\":\"success\"} ",
};

static const char *const prom_range_corpus[] = {
	MAT("[1,\"1\"],[2,\"2\"],[3,\"3\"]"),
	MAT("[1700000000,\"0.5\"],[1700000005,\"NaN\"],"
	    "[1700000010,\"1e3\"]"),
	MAT("[1.001,\"-2\"]"),
};

static const char *const prom_words[] = {
	"status", "success", "error", "data", "resultType", "vector",
	"scalar", "matrix", "string", "result", "metric", "value", "values",
	"histogram", "histograms", "errorType", "bad_data", "warnings",
	"\"NaN\"", "\"+Inf\"", "\"-Inf\"", "\"1e400\"", "1e400", "null",
	"true", "[1,\"2\"]", "[1,\"2\",3]", "{\"a\":\"b\"}", "[]", "{}",
	"\"status\":\"success\",", "\"status\":\"error\",",
	"\"resultType\":\"matrix\",", "{\"metric\":{},\"value\":[1,\"1\"]},",
	"\"result\":[],", "\\\"", "\\u00e9",
};

/* Structured replies: the shape right, the content hostile. */
static void prom_gen(struct fz *r, struct fz_buf *b)
{
	static const char *const values[] = {
		"\"NaN\"", "\"+Inf\"", "\"-Inf\"", "\"1e400\"", "\"-1e400\"",
		"\"1e-400\"", "\"0x10\"", "\" 1\"", "\"1 \"", "\"\"",
		"\"infinity\"", "\"nan(1)\"", "1", "null", "[]", "{}",
		"\"1\\u0000\"", "true", "\"\xff\"", "\"5\"",
	};
	static const char *const types[] = {
		"vector", "scalar", "matrix", "string", "Vector", "", "\xc3",
	};
	struct fz_dict d = { prom_words,
			     sizeof(prom_words) / sizeof(prom_words[0]) };
	size_t n, i, depth;
	const char *type = types[fz_below(r, sizeof(types) / sizeof(types[0]))];

	switch (fz_below(r, 5)) {
	case 0: /* any JSON, keys from the API */
		fz_json(r, b, &d, 0);
		break;
	case 1: /* many points, near and past the limits */
		n = fz_one_in(r, 4) ? PROM_RANGE_MAX - 2 + fz_below(r, 4) :
		    fz_one_in(r, 8) ? fz_below(r, 100000) : fz_below(r, 50);
		fz_append(b, "{\"status\":\"success\",\"data\":{\"resultType\""
			  ":\"%s\",\"result\":[{\"values\":[", type);
		for (i = 0; i < n && b->len < FZ_MAX - 64; i++)
			fz_append(b, "%s[%zu,\"%zu\"]", i ? "," : "", i + 1,
				  i);
		fz_puts(b, "]}]}}");
		break;
	case 2: /* many series */
		n = fz_one_in(r, 8) ? fz_below(r, 50000) : fz_below(r, 50);
		fz_append(b, "{\"status\":\"success\",\"data\":{\"resultType\""
			  ":\"%s\",\"result\":[", type);
		for (i = 0; i < n && b->len < FZ_MAX - 64; i++)
			fz_append(b, "%s{\"metric\":{\"i\":\"%zu\"},\"value\":"
				  "[1,\"1\"]}", i ? "," : "", i);
		fz_puts(b, "]}}");
		break;
	case 3: /* deep nesting in the value */
		depth = fz_one_in(r, 2) ? 995 + fz_below(r, 10)
					: fz_below(r, 200000);
		fz_append(b, "{\"status\":\"success\",\"data\":{\"resultType\""
			  ":\"%s\",\"result\":", type);
		for (i = 0; i < depth && b->len < FZ_MAX / 2; i++)
			fz_puts(b, "[");
		n = i;
		for (i = 0; i < n; i++)
			fz_puts(b, "]");
		fz_puts(b, "}}");
		break;
	default: /* duplicate keys, wrong types, numbers as strings */
		fz_append(b, "{\"status\":\"%s\",\"status\":\"success\","
			  "\"data\":{\"resultType\":\"%s\",\"resultType\":"
			  "\"%s\",\"result\":[{\"metric\":%s,\"value\":[%s,%s]"
			  ",\"values\":[[1,%s],[%s,%s]]}]}}",
			  fz_one_in(r, 2) ? "error" : "success", type,
			  types[fz_below(r, sizeof(types) / sizeof(types[0]))],
			  fz_one_in(r, 2) ? "{}" : values[fz_below(r, 20)],
			  fz_one_in(r, 2) ? "1" : values[fz_below(r, 20)],
			  values[fz_below(r, 20)], values[fz_below(r, 20)],
			  fz_one_in(r, 2) ? "2" : values[fz_below(r, 20)],
			  values[fz_below(r, 20)]);
		break;
	}
}

static int prom_err_known(enum prom_err e)
{
	return e >= PROM_OK && e <= PROM_ENOMEM;
}

static void check_prom_instant(struct fz *r, const char *in, size_t len,
			       int valid)
{
	char *body = fz_copy(in, len, 0);
	char err[PROM_ERR_MAX];
	double v = -12345.5, w = -12345.5;
	enum prom_err rc, rc2;

	memset(err, 'x', sizeof(err));
	rc = prom_parse_instant(body, len, &v, err, sizeof(err));
	FZ_CHECK(prom_err_known(rc), "unknown code %d", (int)rc);
	FZ_CHECK(!valid || rc == PROM_OK, "valid reply refused: %s", err);
	if (rc == PROM_OK) {
		fz_accepted++;
		FZ_CHECK(isfinite(v), "value %g is not finite", v);
	} else {
		FZ_CHECK(v == -12345.5, "out set on error %d", (int)rc);
		FZ_CHECK(rc != PROM_EHTTP && rc != PROM_ESTATUS,
			 "transport code %d from a parser", (int)rc);
		fz_check_msg(err, sizeof(err), "prom_parse_instant");
	}
	/* The same answer without an error buffer, and with a small one. */
	rc2 = prom_parse_instant(body, len, &w, NULL, 0);
	FZ_CHECK(rc2 == rc, "code %d without err, %d with", (int)rc2, (int)rc);
	FZ_CHECK(rc != PROM_OK || w == v, "value %g then %g", v, w);
	if (rc != PROM_OK && fz_one_in(r, 4)) {
		char small[8];

		rc2 = prom_parse_instant(body, len, &w, small, sizeof(small));
		FZ_CHECK(rc2 == rc && strnlen(small, sizeof(small)) <
			 sizeof(small), "small err buffer");
	}
	free(body);
}

static void check_prom_range(struct fz *r, const char *in, size_t len,
			     int valid)
{
	char *body = fz_copy(in, len, 0);
	char err[PROM_ERR_MAX];
	double *ts = (double *)&ts, *vals = (double *)&vals;
	size_t n = 77777, i;
	enum prom_err rc;

	(void)r;
	memset(err, 'x', sizeof(err));
	rc = prom_parse_range(body, len, &ts, &vals, &n, err, sizeof(err));
	FZ_CHECK(prom_err_known(rc), "unknown code %d", (int)rc);
	FZ_CHECK(!valid || rc == PROM_OK, "valid reply refused: %s", err);
	if (rc == PROM_OK) {
		fz_accepted++;
		FZ_CHECK(n >= 1 && n <= PROM_RANGE_MAX, "%zu points", n);
		for (i = 0; i < n; i++) {
			FZ_CHECK(isfinite(ts[i]) && isfinite(vals[i]),
				 "point %zu: %g %g", i, ts[i], vals[i]);
			FZ_CHECK(i == 0 || ts[i] > ts[i - 1],
				 "point %zu not after the one before", i);
		}
		free(ts);
		free(vals);
	} else {
		FZ_CHECK(n == 77777 && ts == (double *)&ts &&
			 vals == (double *)&vals, "outputs set on error");
		fz_check_msg(err, sizeof(err), "prom_parse_range");
	}
	free(body);
}

FZ_TEST(prom_instant, prom_instant_corpus, prom_words,
	6000, check_prom_instant, prom_gen, 8)

FZ_TEST(prom_range, prom_range_corpus, prom_words,
	5000, check_prom_range, prom_gen, 8)

/* ---- AWS credential replies (STS XML, container JSON) --------------------- */

static const char *const aws_corpus[] = {
	"<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult>"
	"<Credentials><AccessKeyId>ASIAX</AccessKeyId><SecretAccessKey>s/+="
	"</SecretAccessKey><SessionToken>t&amp;t</SessionToken><Expiration>"
	"2027-01-15T08:00:00Z</Expiration></Credentials>"
	"</AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>",
	"<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code>"
	"<Message>Not authorized</Message></Error></ErrorResponse>",
	"{\"AccessKeyId\":\"ASIAP\",\"SecretAccessKey\":\"s\",\"Token\":"
	"\"t\",\"Expiration\":\"2027-01-15T08:00:00.5Z\"}",
	"{\"AccessKeyId\":\"A\",\"SecretAccessKey\":\"s\"}",
};

static const char *const aws_words[] = {
	"<AccessKeyId>", "</AccessKeyId>", "<SecretAccessKey>",
	"</SecretAccessKey>", "<SessionToken>", "</SessionToken>",
	"<Expiration>", "</Expiration>", "<Code>", "</Code>", "<Message>",
	"&amp;", "&lt;", "&#0;", "&", "<", "\"Expiration\"", "\"Token\"",
	"2027-01-15T08:00:00Z", "9999-12-31T23:59:60Z", "+00:00", ".",
	"\x00", "\n", "\x1b[2J", "null", "[]", "{}",
};

/* Both parsers on the same bytes: 0 with every field printable and the
 * expiry a time, or -1 with a message and *out untouched. */
static void check_aws(struct fz *r, const char *in, size_t len, int valid)
{
	char *body = fz_copy(in, len, 0);
	char why[AWSCRED_ERR_MAX];
	struct awscred c, seen;
	int k, rc;
	size_t i;

	(void)r;
	(void)valid;
	for (k = 0; k < 2; k++) {
		memset(&c, 0x5a, sizeof(c));
		seen = c;
		memset(why, 'x', sizeof(why));
		rc = k ? awscred_parse_container(body, len, 1e9, &c, why,
						 sizeof(why))
		       : awscred_parse_sts(body, len, &c, why, sizeof(why));
		if (rc == 0) {
			fz_accepted++;
			FZ_CHECK(c.id[0] && c.secret[0], "empty key");
			for (i = 0; c.token[i]; i++)
				FZ_CHECK(c.token[i] > ' ' && c.token[i] < 0x7f,
					 "token byte 0x%02x",
					 (unsigned char)c.token[i]);
			FZ_CHECK(c.expires >= 0 && c.expires < 3e11,
				 "expiry %g", c.expires);
		} else {
			FZ_CHECK(rc == -1, "code %d", rc);
			FZ_CHECK(!memcmp(&c, &seen, sizeof(c)),
				 "out set on error");
			fz_check_msg(why, sizeof(why), k ?
				     "awscred_parse_container" :
				     "awscred_parse_sts");
		}
	}
	free(body);
}

FZ_TEST(awscred, aws_corpus, aws_words, 4000, check_aws, NULL, 0)

/* ---- ScaledObject metadata ----------------------------------------------- */

/*
 * A metadata map as text: pairs end in RS (0x1e), key and value are split
 * at the first US (0x1f).  Mutations may add, drop or merge pairs.
 */
#define KV(k, v) k "\x1f" v "\x1e"
#define META_PAIRS_MAX 256

static const char *const meta_corpus[] = {
	KV("arrivalRateQuery", "sum(rate(x[1m]))") KV("serviceTime", "10"),
	KV("scalerAddress", "staffer.keda.svc:9090")
	KV("arrivalRateQuery", "sum(rate(gateway_requests_total[1m])) or "
	   "vector(0)")
	KV("serviceTimeQuery", "sum(rate(a_sum[5m])) / sum(rate(a_count[5m]))")
	KV("serviceTime", "20") KV("queueDepthQuery", "sum(q)")
	KV("shedRateQuery", "sum(rate(shed[1m]))")
	KV("slotsPerReplica", "32") KV("beta", "1.5")
	KV("drainSeconds", "300") KV("maxReplicas", "40"),
	KV("arrivalRateQuery", "a") KV("serviceTime", "2.5")
	KV("staffing", "erlangc") KV("targetWaitSeconds", "2")
	KV("waitProbability", "0.05") KV("workload", "batch"),
	KV("arrivalRateQuery", "a") KV("serviceTime", "1")
	KV("schedule", "Mon-Fri 08:00-19:00 beta=2.0; 22:00-07:00 beta=1 "
	   "scaleDownStep=2") KV("timezone", "Europe/Berlin"),
	KV("arrivalRateQuery", "a") KV("serviceTime", "1")
	KV("schedule", "Sat,Sun 00:00-24:00 staffing=erlangc "
	   "targetWaitSeconds=1 waitProbability=0.1")
	KV("timezone", "Asia/Kolkata"),
	KV("arrivalRateQuery", "a") KV("serviceTimeQuery", "w")
	KV("coldStartSeconds", "30") KV("forecastWindowSeconds", "60")
	KV("forecastAlpha", "0.8") KV("forecastBeta", "0.5")
	KV("staleHoldSeconds", "4") KV("pushIntervalSeconds", "1")
	KV("metricName", "llama") KV("backend", "amp")
	KV("activationArrivalRate", "0.1") KV("enableTLS", "false"),
	KV("arrivalRateQuery", "a") KV("serviceTime", "3")
	KV("staffing", "cost") KV("targetWaitSeconds", "5")
	KV("costPerReplicaHour", "4") KV("slaPenaltyPerHour", "100")
	KV("shedRateQuery", "s") KV("shedThreshold", "0.5")
	KV("boostFactor", "2")
	KV("scaleDownStep", "3") KV("scaleDownPeriodSeconds", "60")
	KV("currentReplicasQuery", "c") KV("timezone", "UTC"),
};

static const char *const meta_values[] = {
	"\x1f", "\x1e", "sqrt", "erlangc", "cost", "none", "batch",
	"interactive", "0.5", "2", "-1", "1e9", "300", "UTC",
	"Europe/Berlin", "America/New_York", "Australia/Lord_Howe",
	"../../etc/passwd", "/etc/passwd", "Europe/../Berlin", "right/UTC",
	"posix/Asia/Tokyo", "Europe", "Mon-Fri", "Fri-Mon", "08:00-19:00",
	"22:00-07:00", "00:00-24:00", "24:00", "23:59", ";", "=", ",",
	"beta=", "staffing=erlangc", " scaleDownStep=2", "Sun", "mon",
	"default", "amp", "sum(x)", "or vector(0)",
};

static const char *meta_words[sizeof(meta_values) / sizeof(meta_values[0]) +
			      64];
static size_t meta_nwords;

static void meta_words_init(void)
{
	size_t i, n = meta_key_count();

	if (meta_nwords)
		return;
	for (i = 0; i < sizeof(meta_values) / sizeof(meta_values[0]); i++)
		meta_words[meta_nwords++] = meta_values[i];
	for (i = 0; i < n && meta_nwords < sizeof(meta_words) /
	     sizeof(meta_words[0]); i++)
		meta_words[meta_nwords++] = meta_key_name(i);
}

/* Split text (NUL-terminated, modified) into at most META_PAIRS_MAX pairs. */
static size_t meta_split(char *text, const char **keys, const char **values)
{
	size_t n = 0;
	char *p = text, *end, *us;

	while (*p && n < META_PAIRS_MAX) {
		end = strchr(p, '\x1e');
		if (end)
			*end = '\0';
		us = strchr(p, '\x1f');
		if (us)
			*us = '\0';
		keys[n] = p;
		values[n] = us ? us + 1 : "";
		n++;
		if (!end)
			break;
		p = end + 1;
	}
	return n;
}

static int fz_finite_all(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return 0;
	return 1;
}

/*
 * A parsed trigger the model must accept: every number finite, and with
 * any window of the schedule in force the parameters lie in the model's
 * domain (the ranges meta promises are the ones model_evaluate checks).
 */
static void meta_check_result(const struct meta *m)
{
	/* small, and large enough for the staffing limits */
	static const struct model_signals sigs[] = {
		{ 2, 10, 3, 0, 0, 0, 0, 0 }, { 500, 60, 1e4, 50, 800, 0, 0, 2 },
	};
	struct model_breakdown b;
	struct meta at;
	const char *win;
	enum model_err me;
	int64_t t;
	unsigned i;

	FZ_CHECK(m->arrival_rate_query && m->arrival_rate_query[0],
		 "no arrivalRateQuery after success");
	FZ_CHECK(m->sched.n <= SCHED_WINDOWS_MAX, "%u windows", m->sched.n);
	FZ_CHECK(strnlen(m->metric_name, META_NAME_MAX) < META_NAME_MAX,
		 "metric name not terminated");
	/* Every half hour of a week, from a Monday, in the zone's time. */
	for (i = 0; i < 7 * 48; i++) {
		t = tz_from_local(m->tz, 1782691200LL + (int64_t)i * 1800);
		win = meta_at(m, (time_t)t, &at);
		FZ_CHECK(!win || strlen(win) < SCHED_TEXT_MAX,
			 "window text");
		{
			double d[] = {
				at.service_time_s, at.cold_start_s,
				at.forecast_window_s, at.forecast_alpha,
				at.forecast_beta, at.scale_down_period_s,
				at.stale_hold_s, at.push_interval_s,
				at.model.beta, at.model.target_wait_s,
				at.model.wait_probability, at.model.drain_s,
				at.model.shed_threshold,
				at.model.boost_factor,
				at.model.cost_per_replica_hour,
				at.model.sla_penalty_per_hour,
				at.model.activation_arrival_rate,
				at.scale_down_hold_s, at.rate_window_s,
				at.peakedness, at.peakedness_max,
			};

			FZ_CHECK(fz_finite_all(d, sizeof(d) / sizeof(d[0])),
				 "a number is not finite in window '%s'",
				 win ? win : "(none)");
		}
		FZ_CHECK(at.scale_down_step >= 1 &&
			 at.model.slots_per_replica >= 1 &&
			 at.model.max_replicas >= 0,
			 "step %ld slots %ld max %ld", at.scale_down_step,
			 at.model.slots_per_replica, at.model.max_replicas);
		me = model_evaluate(&at.model, &sigs[i % 2], &b);
		FZ_CHECK(me != MODEL_EINVAL, "model refuses the parameters "
			 "of window '%s'", win ? win : "(none)");
		FZ_CHECK(at.rate_window_s > 0 && meta_hold_seconds(&at) >= 0,
			 "rate window %g hold %g", at.rate_window_s,
			 meta_hold_seconds(&at));
		/* The whole decision, with a series that the forecast, the
		 * hold and the peakedness read. */
		{
			static const double series[] = {
				1, 3, 2, 5, 4, 6, 5, 8, 7, 9, 8, 10, 9, 12,
				11, 13, 12, 14, 13, 15, 14, 16, 15, 17,
			};
			struct decide_obs o;
			struct model_signals sg;
			struct decision d;
			enum decide_err de;

			memset(&o, 0, sizeof(o));
			o.arrival_rate = sigs[i % 2].arrival_rate;
			o.queue_depth = sigs[i % 2].queue_depth;
			o.w_measured = sigs[i % 2].service_time_s;
			o.series = series;
			o.n_series = sizeof(series) / sizeof(series[0]);
			o.series_step_s = 15;
			de = decide_observations(&at, &o, 0, NULL, &sg, &d,
						 &me);
			FZ_CHECK(de == DECIDE_OK || (de == DECIDE_EMODEL &&
						     me == MODEL_ERANGE),
				 "decide refuses window '%s' (%d/%d)",
				 win ? win : "(none)", (int)de, (int)me);
		}
	}
}

/* Keys that take numbers, and numbers at and around their bounds. */
static const char *const meta_num_keys[] = {
	"serviceTime", "slotsPerReplica", "beta", "targetWaitSeconds",
	"waitProbability", "drainSeconds", "shedThreshold", "boostFactor",
	"scaleDownStep", "scaleDownPeriodSeconds", "coldStartSeconds",
	"forecastWindowSeconds", "forecastAlpha", "forecastBeta",
	"costPerReplicaHour", "slaPenaltyPerHour", "maxReplicas",
	"activationArrivalRate", "staleHoldSeconds", "pushIntervalSeconds",
	"scaleDownHoldSeconds", "rateWindowSeconds", "metricsLagSeconds",
	"peakedness", "peakednessMax", "forecastDamping",
};

static const char *const meta_num_values[] = {
	"0", "-0", "1e-300", "4.9e-324", "1e-9", "0.5", "0.999999999", "1",
	"1.0000001", "2", "10", "59.999", "60", "3600", "3600.001", "86400",
	"86400.5", "1e6", "1e9", "1e9.5", "2147483647", "2147483648",
	"100000", "100001", "-1e-300", "-1", "auto", "off",
};

static const char *meta_pick(struct fz *r, const char *const *a, size_t n)
{
	return a[fz_below(r, n)];
}

#define META_PICK(r, a) meta_pick(r, a, sizeof(a) / sizeof((a)[0]))

/* A map of the required keys, numbers at their bounds, a staffing mode
 * and sometimes a schedule whose windows override numbers too. */
static void meta_gen(struct fz *r, struct fz_buf *b)
{
	static const char *const staffing[] = {
		"sqrt", "erlangc", "cost", "none",
	};
	static const char *const zones[] = {
		"UTC", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Kolkata",
	};
	size_t i, n = fz_below(r, 8), w, k;

	fz_puts(b, KV("arrivalRateQuery", "a"));
	if (!fz_one_in(r, 8))
		fz_append(b, "serviceTime\x1f%s\x1e",
			  META_PICK(r, meta_num_values));
	if (fz_one_in(r, 2))
		fz_append(b, "staffing\x1f%s\x1e", META_PICK(r, staffing));
	for (i = 0; i < n; i++)
		fz_append(b, "%s\x1f%s\x1e", META_PICK(r, meta_num_keys),
			  META_PICK(r, meta_num_values));
	if (fz_one_in(r, 2)) {
		fz_puts(b, "schedule\x1f");
		for (w = 0, n = 1 + fz_below(r, 3); w < n; w++) {
			fz_append(b, "%s%s %02zu:00-%02zu:00", w ? "; " : "",
				  sched_day_name((int)w), fz_below(r, 24),
				  fz_below(r, 25));
			for (k = 0; k < 1 + fz_below(r, 3); k++)
				fz_append(b, " %s=%s",
					  fz_one_in(r, 4) ? "staffing" :
					  META_PICK(r, meta_num_keys),
					  META_PICK(r, meta_num_values));
		}
		fz_append(b, "\x1etimezone\x1f%s\x1e", META_PICK(r, zones));
	}
}

static struct config meta_cfg;
static struct scaler *meta_scaler;

static void check_meta(struct fz *r, const char *in, size_t len, int valid)
{
	const char *keys[META_PAIRS_MAX], *values[META_PAIRS_MAX];
	char *text = fz_copy(in, len, 1);
	char msg[SCALER_MSG_MAX], quoted[META_NAME_MAX + 2];
	struct meta_error err;
	struct meta m, m2;
	enum meta_err rc;
	enum scaler_err se;
	size_t n = meta_split(text, keys, values);

	(void)r;
	meta_init(&m);
	memset(&err, 'x', sizeof(err));
	rc = meta_parse(&m, keys, values, n, &err);
	FZ_CHECK(rc >= META_OK && rc <= META_ENOMEM, "unknown code %d",
		 (int)rc);
	FZ_CHECK(!valid || rc == META_OK, "valid metadata refused: %s",
		 err.msg);
	if (rc == META_OK) {
		fz_accepted++;
		meta_check_result(&m);
	} else {
		FZ_CHECK(err.code == rc, "err.code %d, returned %d",
			 (int)err.code, (int)rc);
		FZ_CHECK(strnlen(err.key, sizeof(err.key)) < sizeof(err.key),
			 "err.key not terminated");
		fz_check_msg(err.msg, sizeof(err.msg), "meta_parse");
		/* the message names the key it is about */
		snprintf(quoted, sizeof(quoted), "'%s'", err.key);
		FZ_CHECK(strstr(err.msg, quoted) != NULL,
			 "'%s' does not name key %s", err.msg, quoted);
	}
	/* What the server runs: the same verdict, plus the backend. */
	meta_init(&m2);
	memset(msg, 'x', sizeof(msg));
	se = scaler_parse(meta_scaler, "fuzz", &m2, keys, values, n, msg);
	FZ_CHECK(se == SCALER_OK || se == SCALER_EINVAL, "scaler code %d",
		 (int)se);
	FZ_CHECK((se == SCALER_OK) <= (rc == META_OK),
		 "scaler_parse accepts what meta_parse refuses");
	if (se != SCALER_OK)
		fz_check_msg(msg, sizeof(msg), "scaler_parse");
	meta_release(&m2);
	meta_release(&m);
	free(text);
}

static void test_fuzz_meta(void **state)
{
	struct fz_target t = {
		"meta", meta_corpus,
		sizeof(meta_corpus) / sizeof(meta_corpus[0]),
		{ NULL, 0 }, 20000, check_meta, meta_gen, 3,
		NULL, NULL,
	};

	(void)state;
	meta_words_init();
	t.dict.w = meta_words;
	t.dict.n = meta_nwords;
	fz_run(&t);
}

/* ---- schedule ------------------------------------------------------------ */

static const char *const sched_corpus[] = {
	"Mon-Fri 08:00-19:00 beta=2.0; 22:00-07:00 beta=1 scaleDownStep=2",
	"Sat,Sun 00:00-24:00 beta=0.5",
	"Fri-Mon 22:00 - 07:00 beta = 3",
	"mon,WED , fri 12:00-12:30 beta=1;;; tue 00:00-24:00 x=2",
	"; 23:59-00:01 x=0 beta=9",
};

static const char *const sched_words[] = {
	"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun", "mon", "SUN", "-",
	",", ";", "=", " ", "00:00", "24:00", "23:59", "12:30", "08:00-19:00",
	"22:00-07:00", "beta=1", "x=2", "scaleDownStep=3", "beta", "x",
	"unknown=1", "beta=abc", "99:99", "1:00", "0:0", "Mon-Mon",
	"Mon-Fri 08:00-19:00 beta=2;",
};

static const char *const sched_keys[] = { "beta", "scaleDownStep", "x" };

/* The test's keys: three known ones, values numbers from 0 to 100. */
static int sched_resolve(void *ctx, const char *key, const char *value,
			 struct sched_override *o, char *why, size_t size)
{
	double v;
	size_t i;

	(void)ctx;
	for (i = 0; i < sizeof(sched_keys) / sizeof(sched_keys[0]); i++) {
		if (strcmp(key, sched_keys[i]))
			continue;
		if (num_parse_double(value, &v) || v < 0 || v > 100) {
			snprintf(why, size, "a value that is not a number "
				 "from 0 to 100");
			return -1;
		}
		o->key = (int)i;
		o->value = v;
		return 0;
	}
	snprintf(why, size, "an unknown key");
	return -1;
}

/* Whether two parsed schedules are the same windows. */
static int sched_same(const struct sched *a, const struct sched *b)
{
	unsigned i, j;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++) {
		const struct sched_window *x = &a->w[i], *y = &b->w[i];

		if (x->days != y->days || x->start != y->start ||
		    x->len != y->len || x->n != y->n ||
		    strcmp(sched_window_text(a, i), sched_window_text(b, i)))
			return 0;
		for (j = 0; j < x->n; j++)
			if (a->o[x->first + j].key != b->o[y->first + j].key ||
			    a->o[x->first + j].value !=
			    b->o[y->first + j].value)
				return 0;
	}
	return 1;
}

static struct sched sched_a, sched_b;  /* big: not on the stack */

static void check_sched(struct fz *r, const char *in, size_t len, int valid)
{
	char *text = fz_copy(in, len, 1);
	char msg[SCHED_ERR_MAX], again[SCHED_TEXT_MAX * 2];
	enum sched_err rc;
	unsigned i, total = 0;
	int mow, found, covers;
	size_t at = 0;

	(void)r;
	memset(msg, 'x', sizeof(msg));
	rc = sched_parse(&sched_a, text, sched_resolve, NULL, msg,
			 sizeof(msg));
	FZ_CHECK(rc >= SCHED_OK && rc <= SCHED_ELIMIT, "unknown code %d",
		 (int)rc);
	FZ_CHECK(!valid || rc == SCHED_OK, "valid schedule refused: %s", msg);
	if (rc != SCHED_OK) {
		fz_check_msg(msg, sizeof(msg), "sched_parse");
		goto out;
	}
	fz_accepted++;
	FZ_CHECK(sched_a.n <= SCHED_WINDOWS_MAX, "%u windows", sched_a.n);
	for (i = 0; i < sched_a.n; i++) {
		const struct sched_window *w = &sched_a.w[i];

		FZ_CHECK(w->days >= 1 && w->days <= 0x7f, "days 0x%x",
			 w->days);
		FZ_CHECK(w->start < 1440 && w->len >= 1 && w->len <= 1440,
			 "start %u len %u", w->start, w->len);
		FZ_CHECK(w->n >= 1 && w->first + w->n <= SCHED_OVERRIDES_MAX,
			 "overrides %u..%u", w->first, w->first + w->n);
		FZ_CHECK(w->text < SCHED_TEXT_MAX &&
			 strnlen(sched_a.text + w->text,
				 SCHED_TEXT_MAX - w->text) <
			 SCHED_TEXT_MAX - w->text, "window %u text", i);
		total += w->n;
	}
	FZ_CHECK(total <= SCHED_OVERRIDES_MAX, "%u overrides", total);
	/* No minute in two windows, and sched_find agrees. */
	for (mow = 0; mow < SCHED_WEEK; mow++) {
		found = -1;
		covers = 0;
		for (i = 0; i < sched_a.n; i++) {
			if (sched_covers(&sched_a.w[i], mow)) {
				covers++;
				found = (int)i;
			}
		}
		FZ_CHECK(covers <= 1, "minute %d in %d windows", mow, covers);
		FZ_CHECK(sched_find(&sched_a, mow) == found,
			 "sched_find(%d) = %d, expected %d", mow,
			 sched_find(&sched_a, mow), found);
	}
	/* Idempotence: the windows' normalised texts parse to the same. */
	for (i = 0; i < sched_a.n; i++)
		at += (size_t)snprintf(again + at, sizeof(again) - at, "%s%s",
				       i ? "; " : "",
				       sched_window_text(&sched_a, i));
	FZ_CHECK(at < sizeof(again), "normalised text too long");
	rc = sched_parse(&sched_b, again, sched_resolve, NULL, msg,
			 sizeof(msg));
	FZ_CHECK(rc == SCHED_OK, "normalised '%s' refused: %s", again, msg);
	FZ_CHECK(sched_same(&sched_a, &sched_b), "normalised '%s' parses "
		 "differently", again);
out:
	free(text);
}

FZ_TEST(sched, sched_corpus, sched_words,
	20000, check_sched, NULL, 1)

/* ---- time zones ---------------------------------------------------------- */

/* Zone files read from the system for the corpus (fixed names, never
 * fuzzed ones), plus built images. */
static const char *const tz_files[] = {
	"Europe/Berlin", "America/New_York", "Australia/Lord_Howe",
	"Asia/Kolkata", "America/Sao_Paulo", "Pacific/Chatham",
};
#define TZ_NFILES (sizeof(tz_files) / sizeof(tz_files[0]))
#define TZ_NBUILT 3

static char *tz_corpus[TZ_NFILES + TZ_NBUILT];
static size_t tz_corpus_len[TZ_NFILES + TZ_NBUILT];
static size_t tz_ncorpus;

static void tz_be32(struct fz_buf *b, uint32_t v)
{
	char c[4] = { (char)(v >> 24), (char)(v >> 16), (char)(v >> 8),
		      (char)v };

	fz_insert(b, b->len, c, 4);
}

/*
 * A version 2 TZif image: an empty v1 block, then ntimes transitions an
 * hour apart from t0 alternating between two types (off0, off1 with DST),
 * and the footer.
 */
static void tz_build(struct fz_buf *b, size_t ntimes, int64_t t0,
		     long off0, long off1, const char *footer)
{
	static const char zeros[15];
	size_t i;

	b->len = 0;
	fz_puts(b, "TZif2");
	fz_insert(b, b->len, zeros, 15);
	for (i = 0; i < 6; i++)
		tz_be32(b, 0);
	fz_puts(b, "TZif2");
	fz_insert(b, b->len, zeros, 15);
	tz_be32(b, 0);                 /* isut */
	tz_be32(b, 0);                 /* isstd */
	tz_be32(b, 0);                 /* leap */
	tz_be32(b, (uint32_t)ntimes);  /* time */
	tz_be32(b, 2);                 /* type */
	tz_be32(b, 8);                 /* chars */
	for (i = 0; i < ntimes; i++) {
		int64_t t = t0 + (int64_t)i * 3600;

		tz_be32(b, (uint32_t)((uint64_t)t >> 32));
		tz_be32(b, (uint32_t)t);
	}
	for (i = 0; i < ntimes; i++)
		fz_insert(b, b->len, i % 2 ? "\1" : "\0", 1);
	tz_be32(b, (uint32_t)off0);
	fz_insert(b, b->len, "\0\0", 2);
	tz_be32(b, (uint32_t)off1);
	fz_insert(b, b->len, "\1\4", 2);
	fz_insert(b, b->len, "STD\0DST\0", 8);
	fz_append(b, "\n%s\n", footer);
}

static void tz_corpus_init(void)
{
	static const struct {
		size_t n;
		int64_t t0;
		long off0, off1;
		const char *footer;
	} built[TZ_NBUILT] = {
		{ 0, 0, 12600, 16200, "<+0330>-3:30" },
		{ 4, 1700000000, -18000, -14400,
		  "EST5EDT,M3.2.0,M11.1.0" },
		{ 2, -2000000000, 37800, 39600,
		  "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0" },
	};
	const char *dir = getenv("TZDIR");
	struct fz_buf b;
	char path[512];
	size_t i;
	FILE *f;

	if (tz_ncorpus)
		return;
	if (!dir || !*dir)
		dir = "/usr/share/zoneinfo";
	for (i = 0; i < TZ_NFILES; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, tz_files[i]);
		f = fopen(path, "rb");
		if (!f)
			continue;   /* no tzdata: the built images remain */
		b.p = malloc(TZ_FILE_MAX);
		assert_non_null(b.p);
		b.len = fread(b.p, 1, TZ_FILE_MAX, f);
		fclose(f);
		tz_corpus[tz_ncorpus] = b.p;
		tz_corpus_len[tz_ncorpus++] = b.len;
	}
	for (i = 0; i < TZ_NBUILT; i++) {
		b.p = malloc(FZ_MAX);
		assert_non_null(b.p);
		tz_build(&b, built[i].n, built[i].t0, built[i].off0,
			 built[i].off1, built[i].footer);
		tz_corpus[tz_ncorpus] = b.p;
		tz_corpus_len[tz_ncorpus++] = b.len;
	}
}

static void tz_corpus_release(void)
{
	while (tz_ncorpus)
		free(tz_corpus[--tz_ncorpus]);
}

/* A usable zone: offsets within RFC 8536's range at instants all over
 * the calendar, and the helpers that use them stay in bounds. */
static void tz_check_zone(struct fz *r, const struct tz *z)
{
	static const int64_t fixed[] = {
		INT64_MIN, -62135596800LL, -1, 0, 1700000000, 4102444800LL,
		253402300799LL, INT64_MAX,
	};
	char buf[TZ_TIME_MAX + 8];
	int64_t t, local;
	size_t i;
	long off;
	int dst, n, wd;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]) + 24; i++) {
		t = i < sizeof(fixed) / sizeof(fixed[0]) ? fixed[i] :
			(int64_t)(fz_next(r) % 600000000000ULL) -
			300000000000LL;
		dst = 7;
		off = tz_offset(z, t, &dst);
		FZ_CHECK(off >= -89999 && off <= 93599, "offset %ld at %lld",
			 off, (long long)t);
		FZ_CHECK(dst == 0 || dst == 1, "isdst %d", dst);
		n = tz_format(z, t, buf, TZ_TIME_MAX);
		FZ_CHECK(n > 0 && n < TZ_TIME_MAX, "tz_format gave %d", n);
		wd = tz_weekday(z, t);
		FZ_CHECK(wd >= 0 && wd <= 6, "weekday %d", wd);
		local = tz_local(z, t);
		(void)tz_from_local(z, local);
	}
}

static void check_tz_file(struct fz *r, const char *in, size_t len,
			  int valid)
{
	unsigned char *img = (unsigned char *)fz_copy(in, len, 0);
	struct tz *z = (struct tz *)&z;
	enum tz_err rc;

	rc = tz_parse("Fuzz/Zone", img, len, &z);
	FZ_CHECK(rc == TZ_OK || rc == TZ_EFORMAT || rc == TZ_ENOENT ||
		 rc == TZ_ENOMEM, "tz_parse code %d", (int)rc);
	FZ_CHECK(!valid || rc == TZ_OK, "valid image refused: %s",
		 tz_strerror(rc));
	if (rc == TZ_OK) {
		fz_accepted++;
		FZ_CHECK(!strcmp(tz_name(z), "Fuzz/Zone"), "name '%s'",
			 tz_name(z));
		tz_check_zone(r, z);
		tz_free(z);
	} else {
		FZ_CHECK(z == (struct tz *)&z, "zone set on error");
	}
	free(img);
}

/* Mostly a few bytes changed: a TZif image has many checks to get past
 * before the deep parts. */
static void tz_file_mutate(struct fz *r, struct fz_buf *b)
{
	static const struct fz_dict none = { NULL, 0 };
	size_t k, n = 1 + fz_below(r, 3);

	if (fz_one_in(r, 3)) {
		fz_mutate(r, b, &none, NULL, 0);
		return;
	}
	for (k = 0; k < n && b->len; k++)
		b->p[fz_below(r, b->len)] = (char)fz_next(r);
}

static void test_fuzz_tz_file(void **state)
{
	struct fz_target t = {
		"tz_file", NULL, 0, { NULL, 0 }, 20000, check_tz_file, NULL, 1,
		NULL, tz_file_mutate,
	};

	(void)state;
	tz_corpus_init();
	t.corpus = (const char *const *)tz_corpus;
	t.ncorpus = tz_ncorpus;
	t.corpus_len = tz_corpus_len;
	fz_run(&t);
}

/* The footer alone: POSIX TZ strings in a built image. */
static const char *const tz_rule_corpus[] = {
	"CET-1CEST,M3.5.0,M10.5.0/3",
	"EST5EDT,M3.2.0,M11.1.0",
	"<+1030>-10:30<+11>-11,M10.1.0,M4.1.0",
	"NZST-12NZDT,M9.5.0,M4.1.0/3",
	"IST-2IDT,M3.4.4/26,M10.5.0",
	"<-03>3",
	"WGT3WGST,M3.5.0/-2,M10.5.0/-1",
	"EST5EDT,0/0,J365/25",
	"<+00>0<+02>-2,M3.5.0/1,M10.5.0/3",
	"AAA-24:59:59BBB,J1/-167,J365/167",
};

static const char *const tz_rule_words[] = {
	"M", "J", "/", ",", ".", "<", ">", "-", "+", ":", "167", "168", "24",
	"25", "365", "366", "M13.1.0", "M3.6.0", "M3.5.7", "EST", "<+05>",
	"<>", "<a>", "AB",
};

static char *tz_rule_space;  /* the image being built, FZ_MAX bytes */

static void check_tz_rule(struct fz *r, const char *in, size_t len,
			  int valid)
{
	struct fz_buf b;
	struct tz *z = NULL;
	enum tz_err rc;

	if (memchr(in, '\n', len) || memchr(in, '\0', len))
		return;   /* not a footer: tz_file covers framing */
	if (!tz_rule_space)
		tz_rule_space = malloc(FZ_MAX);
	assert_non_null(tz_rule_space);
	b.p = tz_rule_space;
	tz_build(&b, fz_below(r, 3), 1600000000, 3600, 7200, "");
	b.len--;   /* the footer's closing newline */
	fz_insert(&b, b.len, in, len);
	fz_puts(&b, "\n");
	rc = tz_parse("Fuzz/Rule", (const unsigned char *)b.p, b.len, &z);
	FZ_CHECK(rc == TZ_OK || rc == TZ_EFORMAT, "tz_parse code %d",
		 (int)rc);
	FZ_CHECK(!valid || rc == TZ_OK, "valid rule refused");
	if (rc == TZ_OK) {
		fz_accepted++;
		tz_check_zone(r, z);
		tz_free(z);
	}
}

FZ_TEST(tz_rule, tz_rule_corpus, tz_rule_words,
	20000, check_tz_rule, NULL, 1)

/*
 * Zone names: tz_get() must refuse every name that could leave the zone
 * directory, and reads only names tz_check_name() accepts.  Names that
 * pass are looked up for real (under $TZDIR or /usr/share/zoneinfo, which
 * is all such a name can reach).
 */
static const char *const tz_name_corpus[] = {
	"Europe/Berlin", "America/Argentina/Buenos_Aires", "Etc/GMT+5",
	"UTC", "America/Port-au-Prince", "EST5EDT",
};

static const char *const tz_name_words[] = {
	"/", "..", ".", "../", "/..", "//", "\\", "Europe", "Berlin", "etc",
	"passwd", "posix/", "right/", "~", "%2e%2e", "\xc0\xae", "zone.tab",
	"tzdata.zi",
};

static void check_tz_name(struct fz *r, const char *in, size_t len,
			  int valid)
{
	char *name = fz_copy(in, len, 1);
	const struct tz *z = (const struct tz *)&z;
	size_t n = strlen(name), i;
	enum tz_err rc;
	int ok = tz_check_name(name) == 0;

	if (ok) {
		FZ_CHECK(n >= 1 && n < TZ_NAME_MAX, "length %zu accepted", n);
		FZ_CHECK(name[0] != '/' && !strchr(name, '.') &&
			 !strstr(name, "//") && name[n - 1] != '/',
			 "name '%s' accepted", name);
		for (i = 0; i < n; i++)
			FZ_CHECK(strchr("abcdefghijklmnopqrstuvwxyz"
					"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					"0123456789_+-/", name[i]),
				 "byte 0x%02x accepted",
				 (unsigned char)name[i]);
	}
	rc = tz_get(name, &z);
	FZ_CHECK(rc >= TZ_OK && rc <= TZ_ENOMEM, "tz_get code %d", (int)rc);
	FZ_CHECK((rc == TZ_ENAME) == !ok, "tz_get %d, tz_check_name %d",
		 (int)rc, ok);
	FZ_CHECK(!valid || rc == TZ_OK, "zone '%s' not found: %s", name,
		 tz_strerror(rc));
	if (rc == TZ_OK) {
		fz_accepted++;
		FZ_CHECK(!strcmp(tz_name(z), name), "name '%s' for '%s'",
			 tz_name(z), name);
		tz_check_zone(r, z);
	} else {
		FZ_CHECK(z == (const struct tz *)&z, "zone set on error");
		FZ_CHECK(tz_strerror(rc)[0], "no text for code %d", (int)rc);
	}
	free(name);
}

FZ_TEST(tz_name, tz_name_corpus, tz_name_words,
	10000, check_tz_name, NULL, 1)

/* tz_parse_time: instants from text (`staffer calc now=...`). */
static const char *const tz_time_corpus[] = {
	"2026-07-01T12:00:00Z", "2026-07-01T14:00+02:00", "2026-07-01T14:00",
	"@1782907200", "0001-01-01T00:00:00z", "9999-12-31t23:59:59-23:59",
	"2024-02-29T02:30", "@-62135596800",
};

static const char *const tz_time_words[] = {
	"T", "t", "Z", "z", ":", "-", "+", "@", "00", "59", "60", "99",
	"0000", "9999", "10000", "02-29", "02-30", "13", "+24:00",
};

static void check_tz_time(struct fz *r, const char *in, size_t len,
			  int valid)
{
	char *s = fz_copy(in, len, 1);
	const struct tz *z = NULL;
	int64_t t = 424242;
	int rc;

	if (fz_one_in(r, 2))
		assert_int_equal(tz_get("Europe/Berlin", &z) == TZ_OK ||
				 tz_get("UTC", &z) == TZ_OK, 1);
	rc = tz_parse_time(z, s, &t);
	FZ_CHECK(rc == 0 || rc == -1, "code %d", rc);
	FZ_CHECK(!valid || rc == 0, "valid time refused");
	fz_accepted += rc == 0;
	if (rc == 0)
		FZ_CHECK(t >= -62135596800LL - 90000 &&
			 t <= 253402300799LL + 90000, "time %lld",
			 (long long)t);
	else
		FZ_CHECK(t == 424242, "out set on error");
	free(s);
}

FZ_TEST(tz_time, tz_time_corpus, tz_time_words,
	20000, check_tz_time, NULL, 1)

/* ---- strict numbers ------------------------------------------------------ */

static const char *const num_corpus[] = {
	"1.5", "-2", "0", "1e3", "+7", "0.000001", "123456789012",
};

static void check_number(struct fz *r, const char *in, size_t len,
			 int valid)
{
	char *s = fz_copy(in, len, 1);
	double d = 4242.5;
	long l = 4242;
	const char *p;
	int rd, rl;

	(void)r;
	rd = num_parse_double(s, &d);
	rl = num_parse_long(s, &l);
	FZ_CHECK(!valid || rd == 0, "valid number refused");
	if (rd == 0) {
		fz_accepted++;
		FZ_CHECK(isfinite(d), "%g not finite", d);
		/* a decimal: sign, digits, point, exponent, and nothing
		 * else (no hex, no nan, no inf, no spaces) */
		for (p = s; *p; p++)
			FZ_CHECK(strchr("0123456789+-.eE", *p),
				 "byte 0x%02x in an accepted number",
				 (unsigned char)*p);
	} else {
		FZ_CHECK(rd == -1 && d == 4242.5, "double: %d %g", rd, d);
	}
	if (rl == 0) {
		FZ_CHECK(rd == 0 && (double)l == d,
			 "long %ld, double %g", l, d);
	} else {
		FZ_CHECK(rl == -1 && l == 4242, "long: %d %ld", rl, l);
	}
	free(s);
}

static const char *const num_words[] = {
	"e", "E", ".", "-", "+", "0", "9", "e-", "e+", "1e308", "1e309",
};

FZ_TEST(numbers, num_corpus, num_words,
	20000, check_number, NULL, 1)

/* ---- config JSON --------------------------------------------------------- */

static const char *const config_corpus[] = {
	"{\"backends\":[{\"name\":\"default\","
	"\"url\":\"http://prometheus:9090\"}]}",
	"{\n  \"defaultBackend\": \"prom\",\n  \"cacheTTLSeconds\": 5,\n"
	"  \"maxBodyBytes\": 4194304,\n  \"backends\": [\n"
	"    {\"name\": \"prom\", \"url\": "
	"\"http://prometheus.monitoring:9090\","
	" \"timeoutSeconds\": 2, \"auth\": {\"type\": \"none\"}},\n"
	"    {\"name\": \"mimir\", \"url\": \"https://mimir.example.com/"
	"prometheus\", \"timeoutSeconds\": 2.5,\n"
	"     \"auth\": {\"type\": \"bearer\", \"tokenFile\": "
	"\"/var/run/secrets/token\"},\n"
	"     \"headers\": {\"X-Scope-OrgID\": \"tenant-a\"},\n"
	"     \"tls\": {\"caFile\": \"/etc/ca.crt\", \"certFile\": "
	"\"/etc/client.crt\", \"keyFile\": \"/etc/client.key\"}},\n"
	"    {\"name\": \"thanos\", \"url\": \"https://thanos-query.example."
	"com\", \"auth\": {\"type\": \"basic\", \"usernameFile\": \"/u\", "
	"\"passwordFile\": \"/p\"}},\n"
	"    {\"name\": \"amp\", \"url\": \"https://aps-workspaces.us-east-1."
	"amazonaws.com/workspaces/ws-0123abcd\", \"timeoutSeconds\": 5, "
	"\"auth\": {\"type\": \"sigv4\", \"region\": \"us-east-1\"}}\n"
	"  ]\n}\n",
	"{\"cacheTTLSeconds\":0,\"backends\":[{\"name\":\"a-b_c.9\","
	"\"url\":\"http://[::1]:9090/\"}]}",
	"{\"maxStates\":5000,\"maxStatesPerNamespace\":500,\"backends\":["
	"{\"name\":\"t\",\"url\":\"http://t\",\"namespaces\":[\"team-a\","
	"\"ml-*\"],\"maxConnections\":8,\"maxConnectionsPerNamespace\":2}]}",
};

static const char *const config_words[] = {
	"backends", "name", "url", "timeoutSeconds", "auth", "type", "none",
	"bearer", "basic", "sigv4", "tokenFile", "usernameFile",
	"passwordFile", "region", "headers", "tls", "caFile", "certFile",
	"keyFile", "defaultBackend", "cacheTTLSeconds", "maxBodyBytes",
	"maxStates", "maxStatesPerNamespace", "namespaces", "maxConnections",
	"maxConnectionsPerNamespace", "\"*\"", "[\"a\",\"b-*\"]", "http://", "https://", "file:///etc/passwd", "?q=1", "#f", " ", "\\n",
	"\"name\":\"default\",", "{\"name\":\"x\",\"url\":\"http://x\"},",
	"Authorization", "Host", "\\r\\nX: y", "null", "[]", "{}",
};

static void check_config(struct fz *r, const char *in, size_t len,
			 int valid)
{
	char *text = fz_copy(in, len, 1);
	char err[CONFIG_ERR_MAX];
	struct config c;
	size_t i, j;
	int rc;

	(void)r;
	config_init(&c);
	memset(err, 'x', sizeof(err));
	rc = config_load_text(&c, text, "fuzz.json", err);
	FZ_CHECK(rc == 0 || rc == -1, "code %d", rc);
	FZ_CHECK(!valid || rc == 0, "valid config refused: %s", err);
	if (rc == 0) {
		fz_accepted++;
		FZ_CHECK(c.n_backends >= 1 &&
			 c.n_backends <= CONFIG_BACKENDS_MAX &&
			 c.default_backend < c.n_backends, "%zu backends, "
			 "default %zu", c.n_backends, c.default_backend);
		FZ_CHECK(c.cache_ttl_s >= 0 && c.cache_ttl_s <= 300,
			 "cache TTL %g", c.cache_ttl_s);
		FZ_CHECK(c.max_body_bytes > 0, "max body %zu",
			 c.max_body_bytes);
		for (i = 0; i < c.n_backends; i++) {
			const struct backend *b = &c.backends[i];

			FZ_CHECK(b->name[0] && strnlen(b->name,
				 CONFIG_NAME_MAX) < CONFIG_NAME_MAX,
				 "backend %zu name", i);
			FZ_CHECK(config_backend(&c, b->name) != NULL,
				 "backend '%s' not found by name", b->name);
			FZ_CHECK(b->url && b->url[0], "backend %zu url", i);
			FZ_CHECK(isfinite(b->timeout_s) && b->timeout_s > 0,
				 "timeout %g", b->timeout_s);
			FZ_CHECK(b->n_headers <= CONFIG_HEADERS_MAX,
				 "%zu headers", b->n_headers);
			FZ_CHECK(b->auth != CONFIG_AUTH_SIGV4 ||
				 b->sigv4_region, "sigv4 without region");
			for (j = 0; j < b->n_headers; j++)
				FZ_CHECK(!strpbrk(b->headers[j], "\r\n"),
					 "header with a line break");
		}
		FZ_CHECK(config_backend(&c, NULL) ==
			 &c.backends[c.default_backend], "default backend");
	} else {
		FZ_CHECK(c.n_backends == 0 && !c.backends,
			 "config not empty after an error");
		fz_check_msg(err, CONFIG_ERR_MAX, "config_load_text");
		FZ_CHECK(!strncmp(err, "config fuzz.json", 16),
			 "'%s' does not name the file", err);
	}
	config_release(&c);
	free(text);
}

static void config_gen(struct fz *r, struct fz_buf *b)
{
	struct fz_dict d = { config_words,
			     sizeof(config_words) / sizeof(config_words[0]) };

	fz_json(r, b, &d, 0);
}

FZ_TEST(config, config_corpus, config_words,
	20000, check_config, config_gen, 6)

/* ---- KEDA's protobuf messages -------------------------------------------- */

/*
 * The request bytes of IsActive / StreamIsActive / GetMetricSpec
 * (ScaledObjectRef) and GetMetrics (GetMetricsRequest), unpacked by
 * pb_unpack as rpc.c does, then the metadata map handed to scaler_parse
 * as rpc.c's parse_ref() does.
 */
static char *pb_corpus[4];
static size_t pb_corpus_len[4];
static size_t pb_ncorpus;

static void pb_corpus_init(void)
{
	Externalscaler__ScaledObjectRef ref =
		EXTERNALSCALER__SCALED_OBJECT_REF__INIT;
	Externalscaler__GetMetricsRequest req =
		EXTERNALSCALER__GET_METRICS_REQUEST__INIT;
	Externalscaler__ScaledObjectRef__ScalerMetadataEntry e[4] = {
		EXTERNALSCALER__SCALED_OBJECT_REF__SCALER_METADATA_ENTRY__INIT,
		EXTERNALSCALER__SCALED_OBJECT_REF__SCALER_METADATA_ENTRY__INIT,
		EXTERNALSCALER__SCALED_OBJECT_REF__SCALER_METADATA_ENTRY__INIT,
		EXTERNALSCALER__SCALED_OBJECT_REF__SCALER_METADATA_ENTRY__INIT,
	};
	Externalscaler__ScaledObjectRef__ScalerMetadataEntry *ep[4] = {
		&e[0], &e[1], &e[2], &e[3],
	};
	const ProtobufCMessage *msgs[4];
	size_t i;

	if (pb_ncorpus)
		return;
	e[0].key = "arrivalRateQuery";
	e[0].value = "sum(rate(x[1m]))";
	e[1].key = "serviceTime";
	e[1].value = "10";
	e[2].key = "scalerAddress";
	e[2].value = "staffer:9090";
	e[3].key = "schedule";
	e[3].value = "Mon-Fri 08:00-19:00 beta=2";
	ref.name = "llama";
	ref.namespace_ = "inference";
	ref.n_scalermetadata = 4;
	ref.scalermetadata = ep;
	req.scaledobjectref = &ref;
	req.metricname = "s0-staffer";
	msgs[0] = &ref.base;
	msgs[1] = &req.base;
	for (i = 0; i < 2; i++) {
		size_t n = protobuf_c_message_get_packed_size(msgs[i]);

		pb_corpus[pb_ncorpus] = malloc(n ? n : 1);
		assert_non_null(pb_corpus[pb_ncorpus]);
		protobuf_c_message_pack(msgs[i],
					(uint8_t *)pb_corpus[pb_ncorpus]);
		pb_corpus_len[pb_ncorpus++] = n;
	}
}

static void pb_corpus_release(void)
{
	while (pb_ncorpus)
		free(pb_corpus[--pb_ncorpus]);
}

static grpc_byte_buffer *pb_buffer(const char *in, size_t len)
{
	grpc_slice s = grpc_slice_from_copied_buffer(in, len);
	grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);

	grpc_slice_unref(s);
	return bb;
}

/* What the server does with a ScaledObjectRef, and what it must not do. */
static void pb_check_ref(const Externalscaler__ScaledObjectRef *ref)
{
	const char *keys[128], *values[128];
	char msg[SCALER_MSG_MAX];
	struct meta m;
	enum scaler_err se;
	size_t i;

	FZ_CHECK(ref->name && ref->namespace_, "NULL name or namespace");
	FZ_CHECK(ref->n_scalermetadata == 0 || ref->scalermetadata,
		 "metadata entries without an array");
	if (ref->n_scalermetadata > 128)
		return;   /* rpc.c answers INVALID_ARGUMENT first */
	for (i = 0; i < ref->n_scalermetadata; i++) {
		FZ_CHECK(ref->scalermetadata[i] &&
			 ref->scalermetadata[i]->key &&
			 ref->scalermetadata[i]->value, "entry %zu", i);
		keys[i] = ref->scalermetadata[i]->key;
		values[i] = ref->scalermetadata[i]->value;
	}
	meta_init(&m);
	se = scaler_parse(meta_scaler, "fuzz", &m, keys, values,
			  ref->n_scalermetadata, msg);
	FZ_CHECK(se == SCALER_OK || se == SCALER_EINVAL, "scaler code %d",
		 (int)se);
	if (se == SCALER_OK)
		meta_check_result(&m);
	else
		fz_check_msg(msg, sizeof(msg), "scaler_parse");
	meta_release(&m);
}

/* Unpack as d; on success, pack and unpack again: the second packing
 * must equal the first (what the server reads is stable). */
/* Whether m or a message inside it kept unknown fields. */
static int pb_unknown(const ProtobufCMessage *m)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	const ProtobufCFieldDescriptor *f;
	const char *base = (const char *)m;
	ProtobufCMessage *const *subs;
	unsigned i;
	size_t j, n;

	if (m->n_unknown_fields)
		return 1;
	for (i = 0; i < d->n_fields; i++) {
		f = &d->fields[i];
		if (f->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			/* a count and an array of pointers */
			n = *(const size_t *)(base + f->quantifier_offset);
			subs = *(ProtobufCMessage *const *const *)
				(base + f->offset);
		} else {
			/* one pointer, NULL when absent */
			subs = (ProtobufCMessage *const *)(base + f->offset);
			n = *subs ? 1 : 0;
		}
		for (j = 0; j < n; j++)
			if (pb_unknown(subs[j]))
				return 1;
	}
	return 0;
}

static ProtobufCMessage *pb_roundtrip(const ProtobufCMessageDescriptor *d,
				      const char *in, size_t len)
{
	grpc_byte_buffer *bb = pb_buffer(in, len), *bb2;
	ProtobufCMessage *msg, *msg2;
	size_t n1, n2;
	uint8_t *p1, *p2;

	msg = pb_unpack(d, bb, 1u << 20, NULL);
	grpc_byte_buffer_destroy(bb);
	if (!msg)
		return NULL;
	bb2 = pb_pack(msg);
	FZ_CHECK(bb2 != NULL, "pb_pack failed");
	msg2 = pb_unpack(d, bb2, 1u << 20, NULL);
	grpc_byte_buffer_destroy(bb2);
	/* libprotobuf-c keeps an unknown field numbered 0 (when its tag is
	 * written in two bytes), packs it in one byte and then refuses
	 * that: its quirk, and the server never packs what it received. */
	if (!msg2 && pb_unknown(msg))
		return msg;
	FZ_CHECK(msg2 != NULL, "a packed message does not unpack");
	n1 = protobuf_c_message_get_packed_size(msg);
	n2 = protobuf_c_message_get_packed_size(msg2);
	FZ_CHECK(n1 == n2, "packed sizes %zu and %zu", n1, n2);
	p1 = malloc(n1 + 1);
	p2 = malloc(n2 + 1);
	assert_true(p1 && p2);
	protobuf_c_message_pack(msg, p1);
	protobuf_c_message_pack(msg2, p2);
	FZ_CHECK(!memcmp(p1, p2, n1), "packing is not stable");
	free(p1);
	free(p2);
	protobuf_c_message_free_unpacked(msg2, NULL);
	return msg;
}

static void check_pb(struct fz *r, const char *in, size_t len, int valid)
{
	Externalscaler__ScaledObjectRef *ref;
	Externalscaler__GetMetricsRequest *req;
	grpc_byte_buffer *bb;

	ref = (Externalscaler__ScaledObjectRef *)pb_roundtrip(
		&externalscaler__scaled_object_ref__descriptor, in, len);
	req = (Externalscaler__GetMetricsRequest *)pb_roundtrip(
		&externalscaler__get_metrics_request__descriptor, in, len);
	FZ_CHECK(!valid || ref || req, "valid message refused");
	if (ref) {
		fz_accepted++;
		pb_check_ref(ref);
		protobuf_c_message_free_unpacked(&ref->base, NULL);
	}
	if (req) {
		FZ_CHECK(req->metricname, "NULL metricName");
		if (req->scaledobjectref)
			pb_check_ref(req->scaledobjectref);
		protobuf_c_message_free_unpacked(&req->base, NULL);
	}
	/* The size cap: a message one byte over is refused unread. */
	if (len > 0 && fz_one_in(r, 8)) {
		const ProtobufCMessageDescriptor *d =
			&externalscaler__scaled_object_ref__descriptor;

		bb = pb_buffer(in, len);
		FZ_CHECK(!pb_unpack(d, bb, len - 1, NULL), "cap ignored");
		grpc_byte_buffer_destroy(bb);
	}
}

static void test_fuzz_pb(void **state)
{
	struct fz_target t = {
		"pb", NULL, 0, { NULL, 0 }, 20000, check_pb, NULL, 1,
		NULL, NULL,
	};

	(void)state;
	pb_corpus_init();
	t.corpus = (const char *const *)pb_corpus;
	t.ncorpus = pb_ncorpus;
	t.corpus_len = pb_corpus_len;
	fz_run(&t);
}

/* ---- files: trace CSV and lint's YAML ------------------------------------ */

static char fz_dir[64];

static void fz_dir_init(void)
{
	const char *tmp = getenv("TMPDIR");

	if (fz_dir[0])
		return;
	snprintf(fz_dir, sizeof(fz_dir), "%s/staffer-fuzz.XXXXXX",
		 tmp && *tmp && strlen(tmp) < 30 ? tmp : "/tmp");
	assert_non_null(mkdtemp(fz_dir));
}

/* Write len bytes to dir/name; returns the path (static). */
static const char *fz_write(const char *name, const char *in, size_t len)
{
	static char path[128];
	FILE *f;

	fz_dir_init();
	snprintf(path, sizeof(path), "%s/%s", fz_dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(in, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return path;
}

static const char *const trace_corpus[] = {
	"arrival_s,input_tokens,output_tokens\n0.5,100,200\n0.1,5,6\n",
	"arrival_s,input_tokens,output_tokens,service_s\n"
	"0,1,1,0.25\n1.5,2000,300,12\n\n3,0,0,86400\n",
	" arrival_s , input_tokens,output_tokens\r\n 10 , 1 , 2 \r\n",
};

static const char *const trace_words[] = {
	"arrival_s", "input_tokens", "output_tokens", "service_s", ",", "\n",
	"\r\n", "31622400", "31622401", "10000000", "10000001", "86400",
	"86400.1", "0.001",
};

/* A loaded trace: what trace.h promises, for the CSV (rates 0) and for
 * a rate file's replay (rates 1). */
static void trace_check_result(const struct trace *t, int rates)
{
	size_t i;

	FZ_CHECK(t->n >= 1 && t->n <= TRACE_REQ_MAX, "%zu requests", t->n);
	FZ_CHECK(isfinite(t->span_s) && t->span_s >= 0 &&
		 (!rates || t->span_s > 0), "span %g", t->span_s);
	for (i = 0; i < t->n; i++) {
		const struct trace_req *q = &t->req[i];

		FZ_CHECK(q->arrival_s >= 0 && q->arrival_s <= t->span_s &&
			 (i == 0 || q->arrival_s >= t->req[i - 1].arrival_s),
			 "arrival %g at %zu", q->arrival_s, i);
		FZ_CHECK(q->input_tokens >= 0 && q->output_tokens >= 0 &&
			 q->input_tokens <= TRACE_TOKENS_MAX &&
			 q->output_tokens <= TRACE_TOKENS_MAX,
			 "tokens %d %d", (int)q->input_tokens,
			 (int)q->output_tokens);
		FZ_CHECK(rates || (t->has_service ?
			 q->service_s > 0 && q->service_s <= TRACE_SERVICE_MAX :
			 q->service_s < 0), "service %g", q->service_s);
	}
	FZ_CHECK(rates || t->span_s == t->req[t->n - 1].arrival_s,
		 "span %g", t->span_s);
}

/* Load in (a CSV, or a rate file with rates 1) from a file and check. */
static void check_trace_file(struct fz *r, const char *in, size_t len,
			     int valid, int rates)
{
	static const struct trace_rates o = { 10, 0.01, 0, 3600, 100, 10 };
	struct trace t;
	struct simrng g;
	char err[TRACE_ERR_MAX];
	const char *path = fz_write(rates ? "rates.csv" : "trace.csv", in,
				    len);
	int rc;

	trace_init(&t);
	simrng_seed(&g, fz_next(r));
	memset(err, 'x', sizeof(err));
	rc = rates ? trace_load_rates(&t, path, &o, &g, err, sizeof(err))
		   : trace_load_csv(&t, path, err, sizeof(err));
	FZ_CHECK(rc == 0 || rc == -1, "code %d", rc);
	FZ_CHECK(!valid || rc == 0, "valid file refused: %s", err);
	if (rc == 0) {
		fz_accepted++;
		trace_check_result(&t, rates);
	} else {
		FZ_CHECK(t.n == 0 && !t.req, "trace not empty after error");
		fz_check_msg(err, sizeof(err), "trace");
	}
	trace_free(&t);
}

static void check_trace(struct fz *r, const char *in, size_t len, int valid)
{
	check_trace_file(r, in, len, valid, 0);
}

FZ_TEST(trace, trace_corpus, trace_words,
	5000, check_trace, NULL, 1)

/*
 * ServeGen rate files for trace_load_rates.  The loader accepts rates up
 * to 1e7 req/s and windows up to 1e9 s, so a file may ask for up to
 * TRACE_REQ_MAX arrivals (640 MB): too much for a unit test.  Inputs with
 * a number of more than 4 digits or with an exponent are skipped, and the
 * scale keeps the rest below ~1e5 arrivals.
 */
static const char *const rates_corpus[] = {
	"window_start_s,total_rate_rps,active_clients\n0,100,5\n600,0,0\n"
	"1200,300,5\n",
	"window_start_s,total_rate_rps,active_clients,x,y\r\n"
	"0, 250 ,1,a,b\r\n600,1000,2,c,d\r\n",
};

static int rates_small(const char *in, size_t len)
{
	size_t i, digits = 0;

	for (i = 0; i < len; i++) {
		if (in[i] >= '0' && in[i] <= '9') {
			if (++digits > 4)
				return 0;
		} else if (in[i] != '.') {
			digits = 0;
		}
		if ((in[i] == 'e' || in[i] == 'E') && i + 1 < len &&
		    strchr("0123456789+-", in[i + 1]) && in[i + 1])
			return 0;
	}
	return 1;
}

static const char *const rates_words[] = {
	"window_start_s", "total_rate_rps", "active_clients", ",", "\n",
	"1e9", "1e7", "10000001", "600", "0,0,0\n",
};

static void check_rates(struct fz *r, const char *in, size_t len, int valid)
{
	if (rates_small(in, len))
		check_trace_file(r, in, len, valid, 1);
}

FZ_TEST(rates, rates_corpus, rates_words,
	3000, check_rates, NULL, 1)

/*
 * The scaler's --state-file: written by staffer itself, but a crash mid-
 * write or a hand edit may leave anything there.  A bad file is logged and
 * means a fresh start; numbers are clamped.  Nothing of it is visible
 * outside the scaler, so the check is: no crash, no sanitizer report, a
 * scaler that works (scaler_parse) and is freed without leaks.
 */
static const char *const state_corpus[] = {
	"{\"version\":2,\"states\":[{\"key\":\"2:ns/so/0123456789abcdef"
	"0123456789abcdef\",\"ns\":\"ns\",\"target\":7,\"lastDown\":"
	"1782907200.5,\"primed\":true,\"haveGood\":true,\"goodTarget\":7,"
	"\"haveActive\":true,\"goodActive\":false,\"activeAt\":1782907100,"
	"\"goodAt\":1782907200,\"goodW\":9.5,\"lastSeen\":1782907200}]}",
	"{\"version\":1,\"states\":[]}",
};

static const char *const state_words[] = {
	"states", "key", "ns", "version", "2", "target", "lastDown", "primed",
	"haveGood",
	"goodTarget", "haveActive", "goodActive", "activeAt", "goodAt",
	"goodW", "lastSeen", "true", "false", "null", "1e400", "-1e400",
	"{\"key\":\"a\"},",
};

static void check_state(struct fz *r, const char *in, size_t len, int valid)
{
	const char *keys[] = { "arrivalRateQuery", "serviceTime" };
	const char *values[] = { "a", "1" };
	const char *path = fz_write("state.json", in, len);
	char msg[SCALER_MSG_MAX];
	struct scaler *sc;
	struct meta m;

	(void)r;
	(void)valid;
	sc = scaler_new(&meta_cfg, NULL, path);
	FZ_CHECK(sc != NULL, "scaler_new failed");
	fz_accepted++;
	meta_init(&m);
	FZ_CHECK(scaler_parse(sc, "fuzz", &m, keys, values, 2, msg) == SCALER_OK,
		 "scaler_parse after loading: %s", msg);
	meta_release(&m);
	scaler_free(sc);
}

FZ_TEST(state, state_corpus, state_words,
	3000, check_state, NULL, 1)

static const char *const lint_corpus[] = {
	"apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata:\n"
	"  name: chat\n  namespace: llm\nspec:\n  scaleTargetRef:\n"
	"    name: chat\n  maxReplicaCount: 40\n  fallback:\n"
	"    failureThreshold: 3\n    replicas: 8\n  advanced:\n"
	"    horizontalPodAutoscalerConfig:\n      behavior:\n"
	"        scaleUp:\n          tolerance: \"0\"\n  triggers:\n"
	"    - type: external\n      metadata:\n"
	"        scalerAddress: staffer.keda.svc:9090\n"
	"        arrivalRateQuery: sum(rate(x[1m])) or vector(0)\n"
	"        serviceTime: \"20\"\n        beta: \"1.5\"\n",
	"---\napiVersion: v1\nkind: List\nitems:\n"
	"- apiVersion: keda.sh/v1alpha1\n  kind: ScaledObject\n"
	"  metadata: {name: a}\n  spec:\n    scaleTargetRef: {name: a}\n"
	"    fallback: {failureThreshold: 3,"
	" replicas: 1}\n    triggers:\n    - type: external-push\n"
	"      metadata: &m\n        scalerAddress: s:1\n"
	"        arrivalRateQuery: rate(x[1m])\n"
	"        serviceTimeQuery: w\n"
	"        schedule: \"Mon-Fri 08:00-19:00 beta=2\"\n"
	"        timezone: Europe/Berlin\n"
	"    - type: external\n      metadata:\n        <<: *m\n"
	"        serviceTime: !!str 3\n        metricName: b\n...\n",
};

static const char *const lint_words[] = {
	"apiVersion", "keda.sh/v1alpha1", "kind", "ScaledObject", "List",
	"items", "metadata", "spec", "triggers", "type", "external",
	"external-push", "scalerAddress", "fallback", "advanced", "- ",
	"\n  ", ": ", "&a ", "*a", "<<: *a\n", "!!str ", "!!int ", "!!binary ",
	"? ", "{", "}", "[", "]", "|\n", ">-\n", "'", "\"", "\\x00",
	"\\uD800", "---\n", "...\n", "%YAML 1.1\n", "%TAG ! tag:x,2000:\n",
	"~", "null", "yes", "0x1F", ".inf", "1_000", "serviceTime",
	"arrivalRateQuery", "backend", "schedule", "timezone", "\xef\xbb\xbf",
};

/* Run `staffer lint FILE` with stdout and stderr in a file; every line of
 * it must be one finding: about FILE, printable, bounded. */
static void check_lint(struct fz *r, const char *in, size_t len, int valid)
{
	char *argv[2];
	char out_path[128], line[8192];
	const char *path = fz_write("lint.yaml", in, len);
	int saved_out, saved_err, fd, rc;
	size_t plen = strlen(path), n, i;
	unsigned long ln, lines = 1;
	char *end;
	FILE *f;

	(void)r;
	snprintf(out_path, sizeof(out_path), "%s/lint.out", fz_dir);
	argv[0] = (char *)path;
	argv[1] = NULL;
	fflush(stdout);
	fflush(stderr);
	saved_out = dup(1);
	saved_err = dup(2);
	fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved_out >= 0 && saved_err >= 0 && fd >= 0);
	dup2(fd, 1);
	dup2(fd, 2);
	close(fd);
	rc = cmd_lint(1, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	FZ_CHECK(rc == 0 || rc == 1 || rc == 2, "exit status %d", rc);
	FZ_CHECK(!valid || rc == 0, "valid YAML: status %d", rc);
	for (i = 0; i < len; i++)
		lines += in[i] == '\n';
	fz_accepted += rc == 0;
	f = fopen(out_path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		n = strlen(line);
		FZ_CHECK(n > 0 && line[n - 1] == '\n', "a line of %zu bytes "
			 "or more, or without a newline", n);
		line[--n] = '\0';
		FZ_CHECK(!strncmp(line, path, plen) && line[plen] == ':',
			 "line '%s' is not about the file", line);
		ln = strtoul(line + plen + 1, &end, 10);
		FZ_CHECK(end > line + plen + 1 && *end == ':' && ln >= 1 &&
			 ln <= lines, "line '%s': not a line of the %lu",
			 line, lines);
		FZ_CHECK(n - plen < 1024 + 32, "line of %zu bytes", n);
		for (i = 0; i < n; i++)
			FZ_CHECK((unsigned char)line[i] >= 0x20 &&
				 (unsigned char)line[i] < 0x7f,
				 "byte 0x%02x at %zu in '%s'",
				 (unsigned char)line[i], i, line);
	}
	fclose(f);
}

FZ_TEST(lint, lint_corpus, lint_words,
	4000, check_lint, NULL, 1)

/* ---- main ---------------------------------------------------------------- */

static int fz_setup(void **state)
{
	static const char cfg[] =
		"{\"defaultBackend\":\"default\",\"backends\":["
		"{\"name\":\"default\",\"url\":\"http://127.0.0.1:1\"},"
		"{\"name\":\"amp\",\"url\":\"http://127.0.0.1:2\"}]}";
	char err[CONFIG_ERR_MAX];
	const char *s = getenv("FUZZ_SEED"), *n = getenv("FUZZ_ITERS");
	const char *only = getenv("FUZZ_ONLY");
	char *end;

	(void)state;
	if (s && *s) {
		errno = 0;
		fz_seed = strtoull(s, &end, 0);
		if (errno || *end) {
			fprintf(stderr, "FUZZ_SEED '%s' is not a number\n", s);
			return -1;
		}
	}
	if (n && *n) {
		errno = 0;
		fz_iters = strtoul(n, &end, 10);
		if (errno || *end || fz_iters == 0) {
			fprintf(stderr, "FUZZ_ITERS '%s' is not a positive "
				"number\n", n);
			return -1;
		}
	}
	if (only && *only)
		fz_only = only;
	/* the state target's bad files are logged as warnings */
	log_set_level("error");
#if defined(__SANITIZE_ADDRESS__)
	__sanitizer_set_death_callback(fz_on_death);
#endif
	fz_space = malloc(FZ_MAX);
	if (!fz_space)
		return -1;
	config_init(&meta_cfg);
	if (config_load_text(&meta_cfg, cfg, NULL, err)) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	meta_scaler = scaler_new(&meta_cfg, NULL, NULL);
	return meta_scaler ? 0 : -1;
}

static int fz_teardown(void **state)
{
	char path[128];

	(void)state;
	fz_in = NULL;   /* a failed target leaves it set: nothing to show */
	free(fz_space);
	scaler_free(meta_scaler);
	config_release(&meta_cfg);
	tz_corpus_release();
	free(tz_rule_space);
	pb_corpus_release();
	if (fz_dir[0]) {
		snprintf(path, sizeof(path), "%s/trace.csv", fz_dir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/rates.csv", fz_dir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/state.json", fz_dir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/lint.yaml", fz_dir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/lint.out", fz_dir);
		unlink(path);
		rmdir(fz_dir);
	}
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fuzz_prom_instant),
		cmocka_unit_test(test_fuzz_prom_range),
		cmocka_unit_test(test_fuzz_awscred),
		cmocka_unit_test(test_fuzz_meta),
		cmocka_unit_test(test_fuzz_sched),
		cmocka_unit_test(test_fuzz_tz_file),
		cmocka_unit_test(test_fuzz_tz_rule),
		cmocka_unit_test(test_fuzz_tz_name),
		cmocka_unit_test(test_fuzz_tz_time),
		cmocka_unit_test(test_fuzz_numbers),
		cmocka_unit_test(test_fuzz_config),
		cmocka_unit_test(test_fuzz_pb),
		cmocka_unit_test(test_fuzz_trace),
		cmocka_unit_test(test_fuzz_rates),
		cmocka_unit_test(test_fuzz_state),
		cmocka_unit_test(test_fuzz_lint),
	};

	return cmocka_run_group_tests(tests, fz_setup, fz_teardown);
}
