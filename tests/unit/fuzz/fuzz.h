/*
 * fuzz.h - the harness of tests/unit/test_fuzz.c: a deterministic
 * generator, a mutator over a corpus and a dictionary, failure reports that
 * print the input, and the runner of one target.  What the fuzzing checks
 * and how to replay a failure: test_fuzz.c and tests/README.md.
 *
 * One target a cmocka test; the targets, by area, are the other files of
 * tests/unit/fuzz/.  Single-threaded, as cmocka runs tests.
 */
#ifndef STAFFER_TEST_FUZZ_H
#define STAFFER_TEST_FUZZ_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define FZ_MAX (1u << 20)     /* bytes in one input */
#define FZ_SHOW 2000          /* bytes of an input shown on failure */

/* ---- the generator (fuzz.c) */

struct fz {
	uint64_t s;
};

extern uint64_t fz_seed;
extern unsigned long fz_iters;   /* 0: each target's default */
extern const char *fz_only;      /* run only this target; NULL: all */

/* What runs now, for failure reports. */
extern const char *fz_target;
extern unsigned long fz_iter;
extern const char *fz_in;
extern size_t fz_in_len;
extern unsigned long fz_accepted;   /* inputs the parser accepted */

/* Seed r for iteration i of target. */
void fz_init(struct fz *r, const char *target, unsigned long i);
uint64_t fz_next(struct fz *r);
/* Uniform in [0, n); n > 0. */
size_t fz_below(struct fz *r, size_t n);
/* 1 with probability 1/n. */
int fz_one_in(struct fz *r, size_t n);

/* ---- failure reports */

/* Print the target, iteration, seed and input (nothing between targets). */
void fz_report(void);
/* For ASan's death callback. */
void fz_on_death(void);

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
void fz_check_msg(const char *msg, size_t size, const char *what);

/* ---- a growable input, at most FZ_MAX bytes */

struct fz_buf {
	char *p;
	size_t len;
};

void fz_insert(struct fz_buf *b, size_t pos, const char *s, size_t n);
void fz_append(struct fz_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fz_puts(struct fz_buf *b, const char *s);

/* ---- the mutator */

struct fz_dict {
	const char *const *w;
	size_t n;
};

/* Mutate b a few times: bytes, dictionary words (d's, then common ones),
 * nesting, crossover with cross[0..ncross) (may be NULL). */
void fz_mutate(struct fz *r, struct fz_buf *b, const struct fz_dict *d,
	       const char *const *cross, size_t ncross);
/* Random JSON, d's words among its strings, into b. */
void fz_json(struct fz *r, struct fz_buf *b, const struct fz_dict *d,
	     int depth);

/* ---- the runner */

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

/* The input being built: one buffer for the process (FZ_MAX bytes). */
extern char *fz_space;

void fz_run(const struct fz_target *t);

#define FZ_N(a) (sizeof(a) / sizeof((a)[0]))

/* The cmocka test test_fuzz_NAME: target NAME, from arrays corpus and
 * words. */
#define FZ_TEST(name, corpus, words, iters, check, gen, gen_every)	\
	void test_fuzz_##name(void **state)				\
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
char *fz_copy(const char *in, size_t len, int nul);

/* ---- the targets, by file of this folder */

struct config;
struct meta;
struct scaler;

/* prom.c */
void test_fuzz_prom_instant(void **state);
void test_fuzz_prom_range(void **state);
void test_fuzz_awscred(void **state);
/* meta.c: the scaler that meta and pb hand their maps to, set up by
 * test_fuzz.c's setup */
extern struct config meta_cfg;
extern struct scaler *meta_scaler;
void meta_check_result(const struct meta *m);
void test_fuzz_meta(void **state);
void test_fuzz_sched(void **state);
/* tz.c */
void tz_corpus_release(void);
extern char *tz_rule_space;
void test_fuzz_tz_file(void **state);
void test_fuzz_tz_rule(void **state);
void test_fuzz_tz_name(void **state);
void test_fuzz_tz_time(void **state);
/* num.c */
void test_fuzz_numbers(void **state);
void test_fuzz_config(void **state);
/* pb.c */
void pb_corpus_release(void);
void test_fuzz_pb(void **state);
/* files.c: the folder the file targets write into ("" until one does) */
extern char fz_dir[64];
void test_fuzz_trace(void **state);
void test_fuzz_rates(void **state);
void test_fuzz_state(void **state);
void test_fuzz_lint(void **state);
/* promql.c */
void test_fuzz_promql(void **state);

#endif
