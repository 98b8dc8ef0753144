/*
 * test_fuzz.c - deterministic fuzzing of every parser of untrusted input.
 * The harness is tests/unit/fuzz/fuzz.[ch]; the targets, by area, the other
 * files of tests/unit/fuzz/; this file sets up and runs them.
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz/fuzz.h"
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

#include "config.h"
#include "log.h"
#include "scaler.h"

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
		cmocka_unit_test(test_fuzz_promql),
	};

	return cmocka_run_group_tests(tests, fz_setup, fz_teardown);
}
