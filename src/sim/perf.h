/*
 * perf.h - service time of one LLM request from its token counts.
 *
 * A piecewise-linear model built from the Splitwise simulator's profile
 * (the Splitwise repository's perf_model.csv, MIT licence, Patel et al.,
 * ISCA 2024; its numbers are built into perf.c):
 *
 *   service_s = prefill(input_tokens) + output_tokens * token_time(batch)
 *
 * prefill() is the measured prompt_time at batch 1, averaged per prompt
 * size and interpolated linearly between sizes; below the smallest size
 * it is the smallest size's time (fixed overhead dominates), above the
 * largest it extends the last segment's slope.  token_time() is the
 * measured per-token decode time averaged per batch size, interpolated
 * linearly and clamped to the measured batch range.  The batch is the
 * number of requests decoding together on one replica: the simulator uses
 * the slots per replica.  Interference between one request's prefill and
 * the others' decode is not modelled.
 *
 * The built-in table (perf_default) is llama2-70b on H100-80GB at tensor
 * parallel 4, averaged from that file.  Plain data; no globals; perf_load
 * reads a file, the rest is pure.
 */
#ifndef STAFFER_PERF_H
#define STAFFER_PERF_H

#include <stddef.h>

#define PERF_POINTS_MAX 32
#define PERF_DESC_MAX 96

struct perf {
	double prompt_tokens[PERF_POINTS_MAX]; /* ascending */
	double prompt_ms[PERF_POINTS_MAX];
	size_t nprompt;
	double batch[PERF_POINTS_MAX];         /* ascending */
	double token_ms[PERF_POINTS_MAX];
	size_t nbatch;
	double attn_ms;      /* prefill's quadratic term, ms per token^2:
			      * the least-squares a + b t + c t^2 through
			      * the prompt points (perf_prefill_batch_s) */
	char desc[PERF_DESC_MAX];              /* "llama2-70b h100-80gb tp4" */
};

/* The built-in table: llama2-70b, h100-80gb, tensor parallel 4. */
void perf_default(struct perf *p);

/*
 * Build the model from a Splitwise perf_model.csv for one model, hardware
 * and tensor-parallel degree.  0 on success; -1 with a sentence in err
 * (file unreadable, header without the needed columns, no rows for that
 * model/hardware/tp, too many distinct sizes, a bad number).
 */
int perf_load(struct perf *p, const char *path, const char *model,
	      const char *hardware, int tensor_parallel, char *err,
	      size_t errlen);

/*
 * The profile `staffer simulate` is given: spec "MODEL,HARDWARE,TP" from
 * file (a Splitwise perf_model.csv), or the built-in table when file is
 * NULL (then spec must be the built-in's, llama2-70b,h100-80gb,4).  0, or
 * -1 with a sentence in err.
 */
int perf_from_spec(struct perf *p, const char *file, const char *spec,
		   char *err, size_t errlen);

/* Prefill seconds for a prompt of `tokens` (>= 0). */
double perf_prefill_s(const struct perf *p, double tokens);
/*
 * Prefill seconds of a batch of prompts (the split fleet, split.h):
 * `tokens` in all, `tokens_sq` the sum of each prompt's tokens squared.
 * The profile's time for one prompt of `tokens`, less the attention it
 * would have spent between the batch's prompts (a prompt attends to its
 * own tokens only): perf_prefill_s(tokens) - attn_ms x (tokens^2 -
 * tokens_sq), at least the time of the batch's longest prompt alone
 * (which tokens_sq bounds from below: sqrt(tokens_sq)).  One prompt
 * gives perf_prefill_s exactly.
 */
double perf_prefill_batch_s(const struct perf *p, double tokens,
			    double tokens_sq);
/* Decode seconds per output token at a batch of `batch` (>= 1). */
double perf_token_s(const struct perf *p, double batch);
/* The whole service time of one request, seconds. */
double perf_service_s(const struct perf *p, double input_tokens,
		      double output_tokens, double batch);

#endif
