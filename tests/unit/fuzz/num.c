/*
 * num.c - fuzz targets: strict numbers and the config file (see fuzz.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

#include "config.h"
#include "num.h"

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
