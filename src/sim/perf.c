/*
 * perf.c - see perf.h.
 */
#include "perf.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "num.h"

/* Averages of perf_model.csv rows for llama2-70b, h100-80gb, tp 4:
 * prompt_time at batch_size 1 per prompt_size, token_time per
 * batch_size (all rows of that batch size). */
static const double perf_def_prompt[][2] = {
	{ 128, 48.8891 }, { 256, 54.3110 }, { 512, 61.0427 },
	{ 1024, 106.3140 }, { 2048, 200.9289 }, { 4096, 466.3972 },
	{ 8192, 943.2766 },
};
static const double perf_def_token[][2] = {
	{ 1, 29.4062 }, { 2, 29.9921 }, { 4, 29.9841 }, { 8, 31.4136 },
	{ 16, 32.8364 }, { 32, 36.9180 }, { 64, 51.9867 },
};

/* attn_ms: the quadratic coefficient of the least-squares fit
 * a + b t + c t^2 to the prompt points (normal equations, 3 x 3), at
 * least 0; 0 with fewer than 3 points. */
static void perf_fit_attn(struct perf *p)
{
	double m[3][4] = { { 0 } }, f;
	size_t i, j, k, r;

	p->attn_ms = 0;
	if (p->nprompt < 3)
		return;
	for (i = 0; i < p->nprompt; i++) {
		double t = p->prompt_tokens[i], x[3] = { 1, t, t * t };

		for (j = 0; j < 3; j++) {
			for (k = 0; k < 3; k++)
				m[j][k] += x[j] * x[k];
			m[j][3] += x[j] * p->prompt_ms[i];
		}
	}
	for (i = 0; i < 3; i++) {
		for (r = i, j = i + 1; j < 3; j++)
			if (fabs(m[j][i]) > fabs(m[r][i]))
				r = j;
		for (k = 0; k < 4; k++) {
			f = m[i][k];
			m[i][k] = m[r][k];
			m[r][k] = f;
		}
		if (m[i][i] == 0)
			return;
		for (j = 0; j < 3; j++) {
			if (j == i)
				continue;
			f = m[j][i] / m[i][i];
			for (k = 0; k < 4; k++)
				m[j][k] -= f * m[i][k];
		}
	}
	f = m[2][3] / m[2][2];
	p->attn_ms = f > 0 && isfinite(f) ? f : 0;
}

void perf_default(struct perf *p)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < sizeof(perf_def_prompt) / sizeof(perf_def_prompt[0]);
	     i++) {
		p->prompt_tokens[i] = perf_def_prompt[i][0];
		p->prompt_ms[i] = perf_def_prompt[i][1];
	}
	p->nprompt = i;
	for (i = 0; i < sizeof(perf_def_token) / sizeof(perf_def_token[0]);
	     i++) {
		p->batch[i] = perf_def_token[i][0];
		p->token_ms[i] = perf_def_token[i][1];
	}
	p->nbatch = i;
	perf_fit_attn(p);
	snprintf(p->desc, sizeof(p->desc), "llama2-70b h100-80gb tp4");
}

/* Linear interpolation in (xs, ys); extend = 1 extends the last segment
 * past the end, else clamps.  Always clamps below the first point. */
static double perf_interp(const double *xs, const double *ys, size_t n,
			  double x, int extend)
{
	size_t i;

	if (n == 0)
		return 0.0;
	if (n == 1 || x <= xs[0])
		return ys[0];
	for (i = 1; i < n; i++)
		if (x <= xs[i])
			break;
	if (i == n) {
		if (!extend)
			return ys[n - 1];
		i = n - 1;
	}
	return ys[i - 1] + (ys[i] - ys[i - 1]) * (x - xs[i - 1]) /
	       (xs[i] - xs[i - 1]);
}

double perf_prefill_s(const struct perf *p, double tokens)
{
	double ms = perf_interp(p->prompt_tokens, p->prompt_ms, p->nprompt,
				tokens, 1);

	return ms > 0 ? ms / 1000.0 : 0.0;
}

double perf_prefill_batch_s(const struct perf *p, double tokens,
			    double tokens_sq)
{
	double s = perf_prefill_s(p, tokens) -
		   p->attn_ms / 1000.0 * (tokens * tokens - tokens_sq);
	double longest = perf_prefill_s(p, sqrt(tokens_sq));

	return s > longest ? s : longest;
}

double perf_token_s(const struct perf *p, double batch)
{
	double ms = perf_interp(p->batch, p->token_ms, p->nbatch, batch, 0);

	return ms > 0 ? ms / 1000.0 : 0.0;
}

double perf_service_s(const struct perf *p, double input_tokens,
		      double output_tokens, double batch)
{
	return perf_prefill_s(p, input_tokens) +
	       output_tokens * perf_token_s(p, batch);
}

/* ---- loading a profile ---------------------------------------------- */

/* Running sums per distinct x, kept sorted by x. */
struct perf_acc {
	double x[PERF_POINTS_MAX], sum[PERF_POINTS_MAX];
	long cnt[PERF_POINTS_MAX];
	size_t n;
};

static int perf_acc_add(struct perf_acc *a, double x, double y)
{
	size_t i, j;

	for (i = 0; i < a->n && a->x[i] < x; i++)
		;
	if (i < a->n && a->x[i] == x) {
		a->sum[i] += y;
		a->cnt[i]++;
		return 0;
	}
	if (a->n == PERF_POINTS_MAX)
		return -1;
	for (j = a->n; j > i; j--) {
		a->x[j] = a->x[j - 1];
		a->sum[j] = a->sum[j - 1];
		a->cnt[j] = a->cnt[j - 1];
	}
	a->x[i] = x;
	a->sum[i] = y;
	a->cnt[i] = 1;
	a->n++;
	return 0;
}

enum { PC_MODEL, PC_HW, PC_PROMPT, PC_BATCH, PC_PTIME, PC_TTIME, PC_TP,
       PC_N };
static const char *const perf_cols[PC_N] = {
	"model", "hardware", "prompt_size", "batch_size", "prompt_time",
	"token_time", "tensor_parallel",
};

#define PERF_FIELDS_MAX 32
#define PERF_LINE_MAX 1024

int perf_load(struct perf *p, const char *path, const char *model,
	      const char *hardware, int tensor_parallel, char *err,
	      size_t errlen)
{
	struct perf_acc pa, ta;
	char line[PERF_LINE_MAX + 1];
	char *f[PERF_FIELDS_MAX];
	int idx[PC_N];
	size_t nf, i, lineno = 0, used = 0;
	enum csv_line lr;
	FILE *fp;
	int rc = -1;

	memset(&pa, 0, sizeof(pa));
	memset(&ta, 0, sizeof(ta));
	fp = fopen(path, "r");
	if (!fp) {
		snprintf(err, errlen, "perf model '%s': %s", path,
			 strerror(errno));
		return -1;
	}
	lr = csv_line(fp, line, sizeof(line));
	lineno = 1;
	if (lr == CSV_LINE_EOF) {
		snprintf(err, errlen, "perf model '%s': empty file", path);
		goto out;
	}
	if (lr != CSV_LINE_OK) {
		csv_line_error(err, errlen, "perf model", path, lineno, lr,
			       PERF_LINE_MAX);
		goto out;
	}
	nf = csv_split(line, f, PERF_FIELDS_MAX);
	if (nf > PERF_FIELDS_MAX) {
		snprintf(err, errlen, "perf model '%s': header has more than "
			 "%d columns", path, PERF_FIELDS_MAX);
		goto out;
	}
	for (i = 0; i < PC_N; i++) {
		size_t j;

		idx[i] = -1;
		for (j = 0; j < nf; j++)
			if (!strcmp(f[j], perf_cols[i]))
				idx[i] = (int)j;
		if (idx[i] < 0) {
			snprintf(err, errlen, "perf model '%s': header has no "
				 "'%s' column; expected the Splitwise "
				 "perf_model.csv layout", path, perf_cols[i]);
			goto out;
		}
	}
	while ((lr = csv_line(fp, line, sizeof(line))) != CSV_LINE_EOF) {
		double v[PC_N];
		long tp;

		lineno++;
		if (lr != CSV_LINE_OK) {
			csv_line_error(err, errlen, "perf model", path, lineno,
				       lr, PERF_LINE_MAX);
			goto out;
		}
		if (!line[0])
			continue;
		nf = csv_split(line, f, PERF_FIELDS_MAX);
		if (nf > PERF_FIELDS_MAX) {
			snprintf(err, errlen, "perf model '%s' line %zu: more "
				 "than %d fields", path, lineno,
				 PERF_FIELDS_MAX);
			goto out;
		}
		for (i = 0; i < PC_N; i++)
			if ((size_t)idx[i] >= nf)
				break;
		if (i < PC_N) {
			snprintf(err, errlen, "perf model '%s' line %zu: too "
				 "few fields", path, lineno);
			goto out;
		}
		if (strcmp(f[idx[PC_MODEL]], model) ||
		    strcmp(f[idx[PC_HW]], hardware))
			continue;
		if (num_parse_long(f[idx[PC_TP]], &tp)) {
			snprintf(err, errlen, "perf model '%s' line %zu: "
				 "tensor_parallel '%.30s' is not a whole "
				 "number", path, lineno, f[idx[PC_TP]]);
			goto out;
		}
		if (tp != tensor_parallel)
			continue;
		for (i = PC_PROMPT; i <= PC_TTIME; i++) {
			if (num_parse_double(f[idx[i]], &v[i]) || v[i] < 0) {
				snprintf(err, errlen, "perf model '%s' line "
					 "%zu: %s '%.30s' is not a number >= 0",
					 path, lineno, perf_cols[i],
					 f[idx[i]]);
				goto out;
			}
		}
		if ((v[PC_BATCH] == 1 &&
		     perf_acc_add(&pa, v[PC_PROMPT], v[PC_PTIME])) ||
		    perf_acc_add(&ta, v[PC_BATCH], v[PC_TTIME])) {
			snprintf(err, errlen, "perf model '%s': more than %d "
				 "distinct prompt or batch sizes", path,
				 PERF_POINTS_MAX);
			goto out;
		}
		used++;
	}
	if (ferror(fp)) {
		snprintf(err, errlen, "perf model '%s': read error", path);
		goto out;
	}
	if (!used || !pa.n || !ta.n) {
		snprintf(err, errlen, "perf model '%s': no rows for model "
			 "'%s', hardware '%s', tensor_parallel %d (with "
			 "batch_size 1 rows for prefill)", path, model,
			 hardware, tensor_parallel);
		goto out;
	}
	memset(p, 0, sizeof(*p));
	for (i = 0; i < pa.n; i++) {
		p->prompt_tokens[i] = pa.x[i];
		p->prompt_ms[i] = pa.sum[i] / (double)pa.cnt[i];
	}
	p->nprompt = pa.n;
	for (i = 0; i < ta.n; i++) {
		p->batch[i] = ta.x[i];
		p->token_ms[i] = ta.sum[i] / (double)ta.cnt[i];
	}
	p->nbatch = ta.n;
	perf_fit_attn(p);
	snprintf(p->desc, sizeof(p->desc), "%.30s %.30s tp%d", model,
		 hardware, tensor_parallel);
	rc = 0;
out:
	fclose(fp);
	return rc;
}

int perf_from_spec(struct perf *p, const char *file, const char *spec,
		   char *err, size_t errlen)
{
	char model[64], hw[64];
	const char *s = spec, *c1, *c2;
	long tp;

	c1 = strchr(s, ',');
	c2 = c1 ? strchr(c1 + 1, ',') : NULL;
	if (!c1 || !c2 || c1 - s >= (long)sizeof(model) || c1 == s ||
	    c2 - c1 - 1 >= (long)sizeof(hw) || c2 == c1 + 1 ||
	    num_parse_long(c2 + 1, &tp) || tp < 1 || tp > 64) {
		snprintf(err, errlen, "--perf-spec '%.60s': allowed "
			 "MODEL,HARDWARE,TP e.g. llama2-70b,h100-80gb,4", s);
		return -1;
	}
	if (!file) {
		if (strcmp(s, "llama2-70b,h100-80gb,4")) {
			snprintf(err, errlen, "--perf-spec other than the "
				 "built-in llama2-70b,h100-80gb,4 needs "
				 "--perf-model FILE");
			return -1;
		}
		perf_default(p);
		return 0;
	}
	memcpy(model, s, (size_t)(c1 - s));
	model[c1 - s] = '\0';
	memcpy(hw, c1 + 1, (size_t)(c2 - c1 - 1));
	hw[c2 - c1 - 1] = '\0';
	return perf_load(p, file, model, hw, (int)tp, err, errlen);
}
