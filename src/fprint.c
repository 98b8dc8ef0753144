/* fprint.c - see fprint.h. */
#include "fprint.h"

#include <openssl/evp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct fp_pair {
	const char *k, *v;
};

static int fp_cmp(const void *a, const void *b)
{
	const struct fp_pair *x = a, *y = b;
	int c = strcmp(x->k, y->k);

	return c ? c : strcmp(x->v, y->v);
}

/* One string, length first: "ab","c" and "a","bc" hash differently. */
static int fp_add(EVP_MD_CTX *ctx, const char *s)
{
	uint64_t len = strlen(s);
	unsigned char be[8];
	int i;

	for (i = 0; i < 8; i++)
		be[i] = (unsigned char)(len >> (56 - 8 * i));
	return EVP_DigestUpdate(ctx, be, sizeof(be)) == 1 &&
	       EVP_DigestUpdate(ctx, s, (size_t)len) == 1 ? 0 : -1;
}

int fprint_metadata(const char *const *keys, const char *const *values,
		    size_t n, char out[FPRINT_HEX + 1])
{
	static const char hex[] = "0123456789abcdef";
	struct fp_pair *p = NULL;
	EVP_MD_CTX *ctx = NULL;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	size_t i;
	int rc = -1;

	if (n > FPRINT_PAIRS_MAX)
		return -1;
	p = malloc((n ? n : 1) * sizeof(*p));
	ctx = EVP_MD_CTX_new();
	if (!p || !ctx || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
		goto out;
	for (i = 0; i < n; i++) {
		p[i].k = keys[i];
		p[i].v = values[i];
	}
	qsort(p, n, sizeof(*p), fp_cmp);
	for (i = 0; i < n; i++)
		if (fp_add(ctx, p[i].k) || fp_add(ctx, p[i].v))
			goto out;
	if (EVP_DigestFinal_ex(ctx, md, &mdlen) != 1 ||
	    mdlen < FPRINT_HEX / 2)
		goto out;
	for (i = 0; i < FPRINT_HEX / 2; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[FPRINT_HEX] = '\0';
	rc = 0;
out:
	EVP_MD_CTX_free(ctx);
	free(p);
	return rc;
}
