/*
 * fuzz.c - the fuzz harness (fuzz.h): the generator, failure reports, the
 * growable input, the mutator and the runner.  The targets are in the
 * other files of this folder; tests/unit/test_fuzz.c runs them.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz.h"

/* ---- the generator ------------------------------------------------------- */

uint64_t fz_seed = 0x5eed;
unsigned long fz_iters;   /* 0: each target's default */
const char *fz_only;      /* run only this target; NULL: all */

/* What runs now, for failure reports. */
const char *fz_target = "";
unsigned long fz_iter;
const char *fz_in;
size_t fz_in_len;
unsigned long fz_accepted;   /* inputs the parser accepted */

static uint64_t fz_mix(uint64_t x)
{
	/* splitmix64's finaliser */
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

void fz_init(struct fz *r, const char *target, unsigned long i)
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
uint64_t fz_next(struct fz *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

/* Uniform in [0, n); n > 0. */
size_t fz_below(struct fz *r, size_t n)
{
	return (size_t)(fz_next(r) % n);
}

/* 1 with probability 1/n. */
int fz_one_in(struct fz *r, size_t n)
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

void fz_report(void)
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
void fz_on_death(void)
{
	fz_report();
}
#endif

/* A message: non-empty, NUL-terminated within size, printable ASCII. */
void fz_check_msg(const char *msg, size_t size, const char *what)
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

static void fz_buf_set(struct fz_buf *b, const char *s, size_t n)
{
	if (n > FZ_MAX)
		n = FZ_MAX;
	memcpy(b->p, s, n);
	b->len = n;
}

/* Insert n bytes at pos, as many as fit under FZ_MAX. */
void fz_insert(struct fz_buf *b, size_t pos, const char *s, size_t n)
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

void fz_append(struct fz_buf *b, const char *fmt, ...)
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

void fz_puts(struct fz_buf *b, const char *s)
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

void fz_mutate(struct fz *r, struct fz_buf *b, const struct fz_dict *d,
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
void fz_json(struct fz *r, struct fz_buf *b, const struct fz_dict *d,
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

/* The input being built: one buffer for the process, so a failed test
 * (cmocka longjmps out of it) leaks nothing large. */
char *fz_space;

static size_t fz_corpus_len(const struct fz_target *t, size_t c)
{
	return t->corpus_len ? t->corpus_len[c] : strlen(t->corpus[c]);
}

void fz_run(const struct fz_target *t)
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

/* A copy of len bytes in a buffer of exactly len (ASan sees any read
 * past it), or with a NUL after them for APIs that take C strings. */
char *fz_copy(const char *in, size_t len, int nul)
{
	char *p = malloc(len + (nul ? 1 : 0) + (len || nul ? 0 : 1));

	assert_non_null(p);
	memcpy(p, in, len);
	if (nul)
		p[len] = '\0';
	return p;
}
