/*
 * config.c - load and check staffer's backend configuration (see config.h
 * and docs/config.md).
 *
 * The file is written by the platform team, but it decides where staffer
 * sends credentials and which headers go out with them, so it is checked
 * strictly: unknown fields, wrong types, out-of-range numbers and header
 * injection are all errors that name the file, the JSON path and what is
 * allowed.  Everything is parsed into a scratch config that replaces the
 * caller's only when the whole file is good.
 *
 * Credential files are not opened here: only their paths are kept, and the
 * HTTP client reads them, so a rotated token is picked up without a restart.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "ascii.h"
#include "config.h"
#include "jsonnul.h"
#include "near.h"
#include "show.h"
#include "slurp.h"

/* Bytes of a namespace quoted in a message (a Kubernetes name is at
 * most 253). */
#define CONFIG_SHOW_NS 253

#define CFG_PATH_MAX 160          /* a JSON path in an error */
#define CFG_SHOW_MAX 60           /* bytes of a bad value quoted */
#define CFG_KEY_MAX 32            /* longest key considered for hints */
#define CFG_URL_MAX 2048
#define CFG_FILE_PATH_MAX 4096
#define CFG_HEADER_NAME_MAX 128
#define CFG_HEADER_VALUE_MAX 4096
#define CFG_REGION_MAX 32

#define CFG_TIMEOUT_DEFAULT 2.0
#define CFG_BODY_MIN 1024.0
#define CFG_BODY_MAX (64.0 * 1024 * 1024)

static const char *const cfg_top_keys[] = {
	"defaultBackend", "cacheTTLSeconds", "maxBodyBytes", "maxStates",
	"maxStatesPerNamespace", "maxStatesPerCaller", "clients", "backends",
	NULL
};
static const char *const cfg_client_keys[] = {
	"uri", "dns", "cn", "namespaces", NULL
};
static const char *const cfg_backend_keys[] = {
	"name", "url", "timeoutSeconds", "auth", "headers", "tls",
	"namespaces", "maxConnections", "maxConnectionsPerNamespace",
	"maxConnectionsPerCaller", "compression", "rangeSettleSeconds", NULL
};
/* The order is the bit order of cfg_auth_kinds[].fields. */
static const char *const cfg_auth_keys[] = {
	"type", "tokenFile", "usernameFile", "passwordFile", "region", NULL
};
static const char *const cfg_tls_keys[] = {
	"caFile", "certFile", "keyFile", NULL
};

/* Each auth type takes exactly the fields in its mask, all required. */
static const struct cfg_auth_kind {
	const char *type;
	enum config_auth auth;
	unsigned fields;       /* bit i: cfg_auth_keys[i] */
	const char *takes;     /* the same, for messages */
} cfg_auth_kinds[] = {
	{ "none", CONFIG_AUTH_NONE, 0, "no other field" },
	{ "bearer", CONFIG_AUTH_BEARER, 1u << 1, "tokenFile" },
	{ "basic", CONFIG_AUTH_BASIC, 1u << 2 | 1u << 3,
	  "usernameFile and passwordFile" },
	{ "sigv4", CONFIG_AUTH_SIGV4, 1u << 4, "region" },
};

#define CFG_ALLOWED_TIMEOUT "a number of seconds from 0.1 to 60"
#define CFG_ALLOWED_TTL "a number of seconds from 0 to 300"
#define CFG_ALLOWED_BODY "a whole number of bytes from 1024 to 67108864 " \
	"(64 MiB)"
#define CFG_ALLOWED_NAME "1 to 63 characters from A-Z a-z 0-9 _ . -"
#define CFG_ALLOWED_URL "an http:// or https:// base URL such as " \
	"http://prometheus.monitoring:9090"
#define CFG_ALLOWED_FILE "a file path"
#define CFG_ALLOWED_REGION "an AWS region such as us-east-1 (a-z, 0-9, -)"
#define CFG_ALLOWED_HEADER "a header name of letters, digits and " \
	"!#$%&'*+-.^_`|~"
#define CFG_ALLOWED_HVALUE "text without control characters"
#define CFG_ALLOWED_NS "a namespace name (a-z, 0-9, -; at most 63 " \
	"characters) in which '*' stands for any characters, e.g. " \
	"\"team-a\" or \"ml-*\""
#define CFG_ALLOWED_CONNS "a whole number from 1 to 256"
#define CFG_ALLOWED_STATES "a whole number from 100 to 1000000"
#define CFG_ALLOWED_CLIENT "an object with exactly one of 'uri' (a URI " \
	"SAN such as a SPIFFE ID), 'dns' (a DNS SAN) or 'cn' (the subject's " \
	"common name), and optionally 'namespaces'"
#define CFG_ALLOWED_ID "1 to 1024 printable ASCII characters without " \
	"spaces"
#define CFG_ALLOWED_COMPRESS "'auto', 'always' or 'never'"
#define CFG_ALLOWED_SETTLE "a number of seconds from 1 to 86400"

/* Where errors go: prefix is "config <file>" or "--prometheus". */
struct cfg_ctx {
	const char *prefix;
	char *err;
};

/* ---- messages ---------------------------------------------------------- */

/* Text a user wrote, made safe to quote (see show.h). */
static void cfg_show(char dst[CFG_SHOW_MAX + 4], const char *s)
{
	show_text(dst, CFG_SHOW_MAX, s, strnlen(s, CFG_SHOW_MAX + 1));
}

static int cfg_fail(const struct cfg_ctx *x, const char *path,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Write "<prefix>: <path>: <message>" to x->err.  Returns -1. */
static int cfg_fail(const struct cfg_ctx *x, const char *path,
		    const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!x->err)
		return -1;
	if (path && *path)
		n = snprintf(x->err, CONFIG_ERR_MAX, "%s: %s: ", x->prefix,
			     path);
	else
		n = snprintf(x->err, CONFIG_ERR_MAX, "%s: ", x->prefix);
	if (n < 0 || n >= CONFIG_ERR_MAX)
		return -1;
	va_start(ap, fmt);
	vsnprintf(x->err + n, CONFIG_ERR_MAX - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* "parent.key", or "key" at the top.  key may be user text. */
static void cfg_join(char out[CFG_PATH_MAX], const char *parent,
		     const char *key)
{
	char k[CFG_SHOW_MAX + 4];
	int n;

	cfg_show(k, key);
	if (parent && *parent)
		n = snprintf(out, CFG_PATH_MAX, "%s.%s", parent, k);
	else
		n = snprintf(out, CFG_PATH_MAX, "%s", k);
	/* Only ever part of a message: cut it, visibly. */
	if (n < 0 || n >= CFG_PATH_MAX)
		memcpy(out + CFG_PATH_MAX - 4, "...", 4);
}

/* A number as short as it reads back exactly ("0.1", not 0.1000...01). */
static void cfg_show_number(char dst[32], double v)
{
	snprintf(dst, 32, "%.15g", v);
	if (strtod(dst, NULL) != v)
		snprintf(dst, 32, "%.17g", v);
}

/* ---- field names ------------------------------------------------------- */

/*
 * The known key nearest to an unknown one: within 2 edits, or one a prefix
 * of the other ("timeout" for "timeoutSeconds", "ca" for "caFile").  NULL
 * if none is close.
 */
static const char *cfg_nearest(const char *key, const char *const *known)
{
	const char *best = NULL;
	size_t bestd = 3, d, lk = strlen(key);

	for (; *known; known++) {
		size_t lw = strlen(*known);

		/* plain edits, no swaps (near.h); SIZE_MAX past the hint
		 * length */
		d = lk > CFG_KEY_MAX || lw > CFG_KEY_MAX ? SIZE_MAX :
		    near_distance(key, lk, *known, lw, 0);
		if (d >= bestd && lk >= 2 &&
		    !strncasecmp(key, *known, lk < lw ? lk : lw))
			d = 2;
		if (d < bestd) {
			bestd = d;
			best = *known;
		}
	}
	return best;
}

static int cfg_known(const char *key, const char *const *known)
{
	for (; *known; known++)
		if (!strcmp(key, *known))
			return 1;
	return 0;
}

/*
 * Reject fields of obj (at path) not in known, and fields given twice
 * (cJSON keeps both; which one wins would be an accident).
 */
static int cfg_check_keys(const struct cfg_ctx *x, const char *path,
			  const cJSON *obj, const char *const *known)
{
	const cJSON *it, *prev;
	const char *near;
	char k[CFG_SHOW_MAX + 4], list[CONFIG_ERR_MAX / 2];
	const char *const *kp;
	size_t n;

	cJSON_ArrayForEach(it, obj) {
		cfg_show(k, it->string);
		if (!cfg_known(it->string, known)) {
			near = cfg_nearest(it->string, known);
			if (near)
				return cfg_fail(x, path, "unknown field '%s'; "
						"did you mean '%s'?", k, near);
			n = 0;
			list[0] = '\0';
			for (kp = known; *kp && n < sizeof(list); kp++)
				n += (size_t)snprintf(list + n,
					sizeof(list) - n, "%s%s",
					kp == known ? "" : ", ", *kp);
			return cfg_fail(x, path, "unknown field '%s'; "
					"allowed: %s", k, list);
		}
		for (prev = obj->child; prev != it; prev = prev->next)
			if (!strcmp(prev->string, it->string))
				return cfg_fail(x, path, "field '%s' is "
						"given twice", k);
	}
	return 0;
}

/* ---- typed fields ------------------------------------------------------ */

/*
 * The number at obj.key, in [lo, hi] (and whole if integer), or dflt when
 * absent.  Sets *out only on success.
 */
static int cfg_number(const struct cfg_ctx *x, const char *parent,
		      const cJSON *obj, const char *key, double lo, double hi,
		      int integer, const char *allowed, double dflt,
		      double *out)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	char path[CFG_PATH_MAX], shown[32];
	double v;

	cfg_join(path, parent, key);
	if (!it) {
		*out = dflt;
		return 0;
	}
	if (!cJSON_IsNumber(it))
		return cfg_fail(x, path, "expected a number, got %s; "
				"allowed: %s", show_json_kind(it), allowed);
	v = it->valuedouble;
	cfg_show_number(shown, v);
	/* Written this way round, NaN (which JSON cannot hold) fails too. */
	if (!(v >= lo && v <= hi))
		return cfg_fail(x, path, "'%s' is out of range; allowed: %s",
				shown, allowed);
	if (integer && v != (double)(long long)v)
		return cfg_fail(x, path, "'%s' is not a whole number; "
				"allowed: %s", shown, allowed);
	*out = v;
	return 0;
}

/*
 * The string at obj.key in *out (pointing into the tree), or NULL when it
 * is absent and not required.  Must be 1..maxlen bytes.
 */
static int cfg_string(const struct cfg_ctx *x, const char *parent,
		      const cJSON *obj, const char *key, int required,
		      size_t maxlen, const char *allowed, const char **out)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	char path[CFG_PATH_MAX];
	size_t len;

	cfg_join(path, parent, key);
	if (!it && required)
		return cfg_fail(x, parent, "missing field '%s'; expected %s",
				key, allowed);
	if (!it) {
		*out = NULL;
		return 0;
	}
	if (!cJSON_IsString(it))
		return cfg_fail(x, path, "expected a string, got %s; "
				"allowed: %s", show_json_kind(it), allowed);
	len = strlen(it->valuestring);
	if (len == 0)
		return cfg_fail(x, path, "is empty; expected %s", allowed);
	if (len > maxlen)
		return cfg_fail(x, path, "is longer than %zu bytes; "
				"expected %s", maxlen, allowed);
	*out = it->valuestring;
	return 0;
}

/* A field that must be an object, or be absent (*out = NULL). */
static int cfg_object(const struct cfg_ctx *x, const char *parent,
		      const cJSON *obj, const char *key, const cJSON **out)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	char path[CFG_PATH_MAX];

	if (it && !cJSON_IsObject(it)) {
		cfg_join(path, parent, key);
		return cfg_fail(x, path, "expected an object, got %s",
				show_json_kind(it));
	}
	*out = it;
	return 0;
}

static int cfg_oom(const struct cfg_ctx *x)
{
	return cfg_fail(x, NULL, "out of memory");
}

/* A copy of s in *out; fails with "out of memory". */
static int cfg_dup(const struct cfg_ctx *x, const char *s, char **out)
{
	char *d = strdup(s);

	if (!d)
		return cfg_oom(x);
	*out = d;
	return 0;
}

static int cfg_has_ctl(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

/* An optional (or required) file path at obj.key, copied to *out. */
static int cfg_file(const struct cfg_ctx *x, const char *parent,
		    const cJSON *obj, const char *key, int required,
		    char **out)
{
	const char *s;
	char path[CFG_PATH_MAX];

	if (cfg_string(x, parent, obj, key, required, CFG_FILE_PATH_MAX,
		       CFG_ALLOWED_FILE, &s))
		return -1;
	if (!s)
		return 0;
	if (cfg_has_ctl(s)) {
		cfg_join(path, parent, key);
		return cfg_fail(x, path, "contains a control character; "
				"expected %s", CFG_ALLOWED_FILE);
	}
	return cfg_dup(x, s, out);
}

/* ---- backends ---------------------------------------------------------- */

/*
 * Check a base URL and copy it without one trailing slash.  Paths such as
 * "/api/v1/query" are appended to it, so a query or fragment in it would
 * swallow them; whitespace would be a header- or request-splitting hazard
 * and is almost always a copy-and-paste accident.
 */
enum cfg_url_parts { CFG_URL_OK, CFG_URL_NOHOST, CFG_URL_USERINFO };

/* url as curl will read it: a host, and no user information (which a
 * text test cannot tell from a host: "http://:80", "http://u:p@h"). */
static enum cfg_url_parts cfg_url_parts(const char *url)
{
	enum cfg_url_parts rc = CFG_URL_NOHOST;
	char *host = NULL, *user = NULL, *pass = NULL;
	CURLU *u = curl_url();

	if (!u || curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK)
		goto out;
	if (curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK ||
	    curl_url_get(u, CURLUPART_PASSWORD, &pass, 0) == CURLUE_OK) {
		rc = CFG_URL_USERINFO;
		goto out;
	}
	if (curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK && *host)
		rc = CFG_URL_OK;
out:
	curl_free(host);
	curl_free(user);
	curl_free(pass);
	curl_url_cleanup(u);
	return rc;
}

/* Whether url's path (after the host) signs alike under libcurl's
 * SigV4 and AWS's: unreserved characters and single slashes only. */
static int cfg_sigv4_path_ok(const char *url)
{
	const char *p = url ? strstr(url, "://") : NULL;

	if (!p)
		return 0;
	p = strchr(p + 3, '/');
	for (; p && *p; p++) {
		if (*p == '/' && p[1] == '/')
			return 0;
		if (!ascii_is_alnum((unsigned char)*p) && !strchr("-._~/", *p))
			return 0;
	}
	return 1;
}

static int cfg_url(const struct cfg_ctx *x, const char *path,
		   const char *url, char **out)
{
	char shown[CFG_SHOW_MAX + 4], *d = NULL;
	size_t len = strlen(url), skip;
	const unsigned char *p;

	cfg_show(shown, url);
	if (len > CFG_URL_MAX)
		return cfg_fail(x, path, "is longer than %d bytes; "
				"expected %s", CFG_URL_MAX, CFG_ALLOWED_URL);
	if (!strncasecmp(url, "http://", 7))
		skip = 7;
	else if (!strncasecmp(url, "https://", 8))
		skip = 8;
	else
		return cfg_fail(x, path, "'%s' is not allowed; expected %s",
				shown, CFG_ALLOWED_URL);
	for (p = (const unsigned char *)url; *p; p++)
		if (*p <= 0x20 || *p >= 0x7f)
			return cfg_fail(x, path, "'%s' contains a space, a "
					"control or a non-ASCII character; "
					"expected %s", shown,
					CFG_ALLOWED_URL);
	if (url[skip] == '\0' || url[skip] == '/')
		return cfg_fail(x, path, "'%s' has no host; expected %s",
				shown, CFG_ALLOWED_URL);
	if (strpbrk(url, "?#"))
		return cfg_fail(x, path, "'%s' has a query or fragment; "
				"expected a base URL only (staffer appends "
				"/api/v1/query)", shown);
	switch (cfg_url_parts(url)) {
	case CFG_URL_NOHOST:
		return cfg_fail(x, path, "'%s' has no host; expected %s",
				shown, CFG_ALLOWED_URL);
	case CFG_URL_USERINFO:
		/* not shown: it may hold a password */
		return cfg_fail(x, path, "holds user information "
				"(user:password@); secrets never go in a URL: "
				"give them as files with 'auth' type "
				"basic (usernameFile, passwordFile) or bearer "
				"(tokenFile)");
	case CFG_URL_OK:
		break;
	}
	if (cfg_dup(x, url, &d))
		return -1;
	if (d[len - 1] == '/')
		d[len - 1] = '\0';
	*out = d;
	return 0;
}

static int cfg_name_ok(const char *s)
{
	for (; *s; s++)
		if (!ascii_is_alnum((unsigned char)*s) && *s != '_' &&
		    *s != '.' && *s != '-')
			return 0;
	return 1;
}

/* RFC 9110 token characters, the only ones a field name may use. */
static int cfg_token_ok(const char *s)
{
	for (; *s; s++)
		if (!ascii_is_alnum((unsigned char)*s) &&
		    !strchr("!#$%&'*+-.^_`|~", *s))
			return 0;
	return 1;
}

/*
 * Header values may hold spaces and tabs but no other control character:
 * a CR or LF would let the value start a new header (injection) or end
 * the request.
 */
static int cfg_hvalue_ok(const char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\t') || *s == 0x7f)
			return 0;
	return 1;
}

static int cfg_headers(const struct cfg_ctx *x, const char *parent,
		       const cJSON *obj, struct backend *b)
{
	const cJSON *h, *prev;
	char path[CFG_PATH_MAX], hpath[CFG_PATH_MAX], k[CFG_SHOW_MAX + 4];
	size_t nlen, vlen;

	cfg_join(path, parent, "headers");
	if (cJSON_GetArraySize(obj) > CONFIG_HEADERS_MAX)
		return cfg_fail(x, path, "has %d headers; allowed: at most "
				"%d", cJSON_GetArraySize(obj),
				CONFIG_HEADERS_MAX);
	cJSON_ArrayForEach(h, obj) {
		cfg_join(hpath, path, h->string);
		cfg_show(k, h->string);
		nlen = strlen(h->string);
		if (nlen == 0 || nlen > CFG_HEADER_NAME_MAX ||
		    !cfg_token_ok(h->string))
			return cfg_fail(x, path, "'%s' is not a valid header "
					"name; allowed: %s of at most %d "
					"bytes", k, CFG_ALLOWED_HEADER,
					CFG_HEADER_NAME_MAX);
		for (prev = obj->child; prev != h; prev = prev->next)
			if (!strcasecmp(prev->string, h->string))
				return cfg_fail(x, path, "header '%s' is "
						"given twice (names ignore "
						"case)", k);
		/* Two sources of credentials for one request: refuse. */
		if (b->auth != CONFIG_AUTH_NONE &&
		    !strcasecmp(h->string, "Authorization"))
			return cfg_fail(x, hpath, "not allowed with an auth "
					"type other than 'none'");
		if (!cJSON_IsString(h))
			return cfg_fail(x, hpath, "expected a string, got "
					"%s", show_json_kind(h));
		vlen = strlen(h->valuestring);
		if (vlen == 0 || vlen > CFG_HEADER_VALUE_MAX)
			return cfg_fail(x, hpath, "value must be 1 to %d "
					"bytes", CFG_HEADER_VALUE_MAX);
		if (!cfg_hvalue_ok(h->valuestring))
			return cfg_fail(x, hpath, "value contains a control "
					"character such as CR or LF; allowed: "
					CFG_ALLOWED_HVALUE);
		b->headers[b->n_headers] = malloc(nlen + vlen + 3);
		if (!b->headers[b->n_headers])
			return cfg_oom(x);
		snprintf(b->headers[b->n_headers], nlen + vlen + 3, "%s: %s",
			 h->string, h->valuestring);
		b->n_headers++;
	}
	return 0;
}

static int cfg_region_ok(const char *s)
{
	for (; *s; s++)
		if (!ascii_is_lower((unsigned char)*s) &&
		    !ascii_is_digit((unsigned char)*s) && *s != '-')
			return 0;
	return 1;
}

static int cfg_auth(const struct cfg_ctx *x, const char *parent,
		    const cJSON *obj, struct backend *b)
{
	const struct cfg_auth_kind *kind = NULL;
	const char *type, *region;
	char path[CFG_PATH_MAX], fpath[CFG_PATH_MAX], shown[CFG_SHOW_MAX + 4];
	size_t i;
	int has, wants;

	cfg_join(path, parent, "auth");
	if (cfg_check_keys(x, path, obj, cfg_auth_keys))
		return -1;
	if (cfg_string(x, path, obj, "type", 1, 16,
		       "one of none, bearer, basic, sigv4", &type))
		return -1;
	for (i = 0; i < sizeof(cfg_auth_kinds) / sizeof(*cfg_auth_kinds); i++)
		if (!strcmp(type, cfg_auth_kinds[i].type))
			kind = &cfg_auth_kinds[i];
	if (!kind) {
		cfg_join(fpath, path, "type");
		cfg_show(shown, type);
		return cfg_fail(x, fpath, "'%s' is not allowed; allowed: "
				"none, bearer, basic, sigv4", shown);
	}
	for (i = 1; cfg_auth_keys[i]; i++) {
		has = !!cJSON_GetObjectItemCaseSensitive(obj,
							 cfg_auth_keys[i]);
		wants = (kind->fields >> i) & 1;
		cfg_join(fpath, path, cfg_auth_keys[i]);
		if (has && !wants)
			return cfg_fail(x, fpath, "not used with type '%s', "
					"which takes %s", kind->type,
					kind->takes);
		if (!has && wants)
			return cfg_fail(x, path, "missing field '%s'; type "
					"'%s' takes %s", cfg_auth_keys[i],
					kind->type, kind->takes);
	}
	b->auth = kind->auth;
	switch (kind->auth) {
	case CONFIG_AUTH_NONE:
		break;
	case CONFIG_AUTH_BEARER:
		return cfg_file(x, path, obj, "tokenFile", 1,
				&b->bearer_token_file);
	case CONFIG_AUTH_BASIC:
		if (cfg_file(x, path, obj, "usernameFile", 1,
			     &b->basic_user_file))
			return -1;
		return cfg_file(x, path, obj, "passwordFile", 1,
				&b->basic_password_file);
	case CONFIG_AUTH_SIGV4:
		if (cfg_string(x, path, obj, "region", 1, CFG_REGION_MAX,
			       CFG_ALLOWED_REGION, &region))
			return -1;
		if (!cfg_region_ok(region)) {
			cfg_join(fpath, path, "region");
			cfg_show(shown, region);
			return cfg_fail(x, fpath, "'%s' is not allowed; "
					"expected %s", shown,
					CFG_ALLOWED_REGION);
		}
		if (!cfg_sigv4_path_ok(b->url)) {
			cfg_join(fpath, parent, "url");
			return cfg_fail(x, fpath, "with 'auth' type sigv4 the "
					"path may hold only A-Z a-z 0-9 - . _ ~ "
					"and single '/' (libcurl's SigV4 signs "
					"other paths unlike AWS, which then "
					"refuses every request); an Amazon "
					"Managed Prometheus URL is "
					"https://aps-workspaces.REGION."
					"amazonaws.com/workspaces/ID");
		}
		return cfg_dup(x, region, &b->sigv4_region);
	}
	return 0;
}

static int cfg_tls(const struct cfg_ctx *x, const char *parent,
		   const cJSON *obj, struct backend *b)
{
	char path[CFG_PATH_MAX];

	cfg_join(path, parent, "tls");
	if (cfg_check_keys(x, path, obj, cfg_tls_keys))
		return -1;
	/* b->url is checked already: it starts with one of the schemes. */
	if (strncasecmp(b->url, "https://", 8))
		return cfg_fail(x, path, "set, but the url is http://; TLS "
				"settings need an https:// url");
	if (cfg_file(x, path, obj, "caFile", 0, &b->ca_file) ||
	    cfg_file(x, path, obj, "certFile", 0, &b->cert_file) ||
	    cfg_file(x, path, obj, "keyFile", 0, &b->key_file))
		return -1;
	/* A certFile alone may be a PEM holding the key too. */
	if (b->key_file && !b->cert_file)
		return cfg_fail(x, path, "keyFile is set without certFile; "
				"a client key needs its certificate");
	return 0;
}

static int cfg_ns_ok(const char *s)
{
	size_t n = 0;

	for (; *s; s++, n++)
		if (!ascii_is_lower((unsigned char)*s) &&
		    !ascii_is_digit((unsigned char)*s) && *s != '-' &&
		    *s != '*')
			return 0;
	return n >= 1 && n <= 63;
}

/* A `namespaces` allowlist of obj (a backend's or a client's) into
 * *list and *n (absent: none, every namespace). */
static int cfg_namespaces(const struct cfg_ctx *x, const char *parent,
			  const cJSON *obj, char ***list, size_t *nlist)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, "namespaces");
	const cJSON *it;
	char path[CFG_PATH_MAX], ipath[CFG_PATH_MAX + 16];
	char shown[CFG_SHOW_MAX + 4];
	int n, i = 0;

	if (!arr)
		return 0;
	cfg_join(path, parent, "namespaces");
	if (!cJSON_IsArray(arr))
		return cfg_fail(x, path, "expected an array of namespaces, "
				"got %s; allowed: %s", show_json_kind(arr),
				CFG_ALLOWED_NS);
	n = cJSON_GetArraySize(arr);
	if (n < 1 || n > CONFIG_NAMESPACES_MAX)
		return cfg_fail(x, path, "has %d entries; allowed: 1 to %d "
				"(leave the field out to allow every "
				"namespace)", n, CONFIG_NAMESPACES_MAX);
	*list = calloc((size_t)n, sizeof(**list));
	if (!*list)
		return cfg_oom(x);
	cJSON_ArrayForEach(it, arr) {
		snprintf(ipath, sizeof(ipath), "%s[%d]", path, i);
		if (!cJSON_IsString(it))
			return cfg_fail(x, ipath, "expected a string, got %s; "
					"allowed: %s", show_json_kind(it),
					CFG_ALLOWED_NS);
		if (!cfg_ns_ok(it->valuestring)) {
			cfg_show(shown, it->valuestring);
			return cfg_fail(x, ipath, "'%s' is not allowed; "
					"allowed: %s", shown, CFG_ALLOWED_NS);
		}
		if (cfg_dup(x, it->valuestring, &(*list)[i]))
			return -1;
		*nlist = (size_t)++i;
	}
	return 0;
}

/* maxConnections, maxConnectionsPerNamespace and maxConnectionsPerCaller
 * (at most the first; defaults half of it and all but one, at least 1). */
static int cfg_connections(const struct cfg_ctx *x, const char *parent,
			   const cJSON *obj, struct backend *b)
{
	double all, per, caller;
	char path[CFG_PATH_MAX];

	if (cfg_number(x, parent, obj, "maxConnections", 1,
		       CONFIG_CONNECTIONS_MAX, 1, CFG_ALLOWED_CONNS,
		       CONFIG_CONNECTIONS_DEFAULT, &all) ||
	    cfg_number(x, parent, obj, "maxConnectionsPerNamespace", 1,
		       CONFIG_CONNECTIONS_MAX, 1, CFG_ALLOWED_CONNS,
		       all >= 2 ? (double)((long)all / 2) : 1, &per) ||
	    cfg_number(x, parent, obj, "maxConnectionsPerCaller", 1,
		       CONFIG_CONNECTIONS_MAX, 1, CFG_ALLOWED_CONNS,
		       all >= 2 ? all - 1 : 1, &caller))
		return -1;
	if (per > all || caller > all) {
		cfg_join(path, parent, per > all ? "maxConnectionsPerNamespace" :
			 "maxConnectionsPerCaller");
		return cfg_fail(x, path, "%g is more than maxConnections "
				"%g; allowed: 1 to maxConnections",
				per > all ? per : caller, all);
	}
	b->max_connections = (int)all;
	b->max_connections_ns = (int)per;
	b->max_connections_caller = (int)caller;
	return 0;
}

/* compression and rangeSettleSeconds: how replies are fetched. */
static int cfg_replies(const struct cfg_ctx *x, const char *parent,
		       const cJSON *obj, struct backend *b)
{
	static const char *const kinds[] = { "auto", "always", "never" };
	const char *v;
	char path[CFG_PATH_MAX], shown[CFG_SHOW_MAX + 4];
	size_t i;

	if (cfg_string(x, parent, obj, "compression", 0, 16,
		       CFG_ALLOWED_COMPRESS, &v))
		return -1;
	b->compression = CONFIG_COMPRESS_AUTO;
	for (i = 0; v && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(v, kinds[i]))
			break;
	if (v && i == sizeof(kinds) / sizeof(kinds[0])) {
		cfg_join(path, parent, "compression");
		cfg_show(shown, v);
		return cfg_fail(x, path, "'%s' is not allowed; allowed: %s",
				shown, CFG_ALLOWED_COMPRESS);
	}
	if (v)
		b->compression = (enum config_compression)i;
	return cfg_number(x, parent, obj, "rangeSettleSeconds", 1,
			  CONFIG_SETTLE_MAX, 0, CFG_ALLOWED_SETTLE,
			  CONFIG_SETTLE_DEFAULT, &b->range_settle_s);
}

/* backends[i]; bs[0..i) are done and their names are taken. */
static int cfg_backend(const struct cfg_ctx *x, const cJSON *obj,
		       struct backend *bs, size_t i)
{
	struct backend *b = &bs[i];
	const cJSON *auth, *headers, *tls;
	const char *name, *url;
	char path[CFG_PATH_MAX], fpath[CFG_PATH_MAX];
	char shown[CFG_SHOW_MAX + 4];
	size_t j;

	snprintf(path, sizeof(path), "backends[%zu]", i);
	if (!cJSON_IsObject(obj))
		return cfg_fail(x, path, "expected an object, got %s",
				show_json_kind(obj));
	if (cfg_check_keys(x, path, obj, cfg_backend_keys))
		return -1;

	if (cfg_string(x, path, obj, "name", 1, CONFIG_NAME_MAX - 1,
		       CFG_ALLOWED_NAME, &name))
		return -1;
	cfg_join(fpath, path, "name");
	cfg_show(shown, name);
	if (!cfg_name_ok(name))
		return cfg_fail(x, fpath, "'%s' is not allowed; allowed: %s",
				shown, CFG_ALLOWED_NAME);
	for (j = 0; j < i; j++)
		if (!strcmp(bs[j].name, name))
			return cfg_fail(x, fpath, "'%s' is already the name "
					"of backends[%zu]; names must be "
					"unique", shown, j);
	memcpy(b->name, name, strlen(name) + 1);

	if (cfg_string(x, path, obj, "url", 1, CFG_URL_MAX,
		       CFG_ALLOWED_URL, &url))
		return -1;
	cfg_join(fpath, path, "url");
	if (cfg_url(x, fpath, url, &b->url))
		return -1;
	if (cfg_number(x, path, obj, "timeoutSeconds", 0.1, 60, 0,
		       CFG_ALLOWED_TIMEOUT, CFG_TIMEOUT_DEFAULT, &b->timeout_s))
		return -1;

	/* auth before headers: headers check Authorization against it. */
	if (cfg_object(x, path, obj, "auth", &auth) ||
	    (auth && cfg_auth(x, path, auth, b)))
		return -1;
	if (cfg_object(x, path, obj, "headers", &headers) ||
	    (headers && cfg_headers(x, path, headers, b)))
		return -1;
	if (cfg_object(x, path, obj, "tls", &tls) ||
	    (tls && cfg_tls(x, path, tls, b)))
		return -1;
	if (cfg_namespaces(x, path, obj, &b->namespaces, &b->n_namespaces) ||
	    cfg_replies(x, path, obj, b))
		return -1;
	return cfg_connections(x, path, obj, b);
}

static int cfg_id_ok(const char *s)
{
	size_t n = 0;

	for (; *s; s++, n++)
		if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f)
			return 0;
	return n >= 1 && n <= 1024;
}

/* clients[i]: one identity that may call, and the namespaces it may
 * claim. */
static int cfg_client(const struct cfg_ctx *x, const cJSON *obj,
		      struct config_client *cl, size_t i)
{
	static const char *const kinds[] = { "uri", "dns", "cn" };
	char path[CFG_PATH_MAX], fpath[CFG_PATH_MAX];
	char shown[CFG_SHOW_MAX + 4];
	const char *id = NULL, *v;
	int k, found = 0;

	snprintf(path, sizeof(path), "clients[%zu]", i);
	if (!cJSON_IsObject(obj))
		return cfg_fail(x, path, "expected an object, got %s; "
				"allowed: %s", show_json_kind(obj),
				CFG_ALLOWED_CLIENT);
	if (cfg_check_keys(x, path, obj, cfg_client_keys))
		return -1;
	for (k = 0; k < 3; k++) {
		if (cfg_string(x, path, obj, kinds[k], 0, 1024,
			       CFG_ALLOWED_ID, &v))
			return -1;
		if (!v)
			continue;
		cfg_join(fpath, path, kinds[k]);
		if (found++)
			return cfg_fail(x, fpath, "a client has one identity; "
					"allowed: %s", CFG_ALLOWED_CLIENT);
		if (!cfg_id_ok(v)) {
			cfg_show(shown, v);
			return cfg_fail(x, fpath, "'%s' is not allowed; "
					"allowed: %s", shown, CFG_ALLOWED_ID);
		}
		cl->kind = (enum config_id_kind)k;
		id = v;
	}
	if (!id)
		return cfg_fail(x, path, "no identity; allowed: %s",
				CFG_ALLOWED_CLIENT);
	if (cfg_dup(x, id, &cl->id))
		return -1;
	return cfg_namespaces(x, path, obj, &cl->namespaces,
			      &cl->n_namespaces);
}

/* The `clients` allowlist (absent: any client the TLS layer accepts). */
static int cfg_clients(const struct cfg_ctx *x, const cJSON *root,
		       struct config *c)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "clients");
	const cJSON *it;
	size_t i = 0;
	int n;

	if (!arr)
		return 0;
	if (!cJSON_IsArray(arr))
		return cfg_fail(x, "clients", "expected an array of clients, "
				"got %s; allowed: 1 to %d of %s",
				show_json_kind(arr), CONFIG_CLIENTS_MAX,
				CFG_ALLOWED_CLIENT);
	n = cJSON_GetArraySize(arr);
	if (n < 1 || n > CONFIG_CLIENTS_MAX)
		return cfg_fail(x, "clients", "has %d entries; allowed: 1 to "
				"%d (leave the field out to let any client "
				"certificate call)", n, CONFIG_CLIENTS_MAX);
	c->clients = calloc((size_t)n, sizeof(*c->clients));
	if (!c->clients)
		return cfg_oom(x);
	cJSON_ArrayForEach(it, arr) {
		c->n_clients = i + 1;
		if (cfg_client(x, it, &c->clients[i], i))
			return -1;
		i++;
	}
	return 0;
}

/* The index of the default backend, from defaultBackend or the only one. */
static int cfg_default(const struct cfg_ctx *x, const cJSON *root,
		       const struct config *c, size_t *out)
{
	const char *name;
	char list[CONFIG_ERR_MAX / 2], shown[CFG_SHOW_MAX + 4];
	size_t i, n = 0;

	list[0] = '\0';
	for (i = 0; i < c->n_backends && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s'%s'",
				      i ? ", " : "", c->backends[i].name);
	if (cfg_string(x, NULL, root, "defaultBackend", 0,
		       CONFIG_NAME_MAX - 1, "the name of a backend", &name))
		return -1;
	if (!name && c->n_backends == 1) {
		*out = 0;
		return 0;
	}
	if (!name)
		return cfg_fail(x, NULL, "missing field 'defaultBackend'; "
				"required with several backends; allowed: "
				"one of %s", list);
	for (i = 0; i < c->n_backends; i++) {
		if (!strcmp(c->backends[i].name, name)) {
			*out = i;
			return 0;
		}
	}
	cfg_show(shown, name);
	return cfg_fail(x, "defaultBackend", "'%s' names no backend; "
			"allowed: one of %s", shown, list);
}

/* ---- documents --------------------------------------------------------- */

/* 1-based line and column of byte at in text, for JSON syntax errors. */
static void cfg_where(const char *text, size_t at, size_t *line,
		      size_t *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < at; i++) {
		if (text[i] == '\n') {
			++*line;
			*col = 1;
		} else {
			++*col;
		}
	}
}

/*
 * Parse len bytes of text into c.  On success c takes the result; on error
 * c is untouched (empty) and everything allocated on the way is freed.
 */
static int cfg_parse(struct config *c, const char *text, size_t len,
		     const struct cfg_ctx *x)
{
	struct config tmp = CONFIG_INIT;
	cJSON *root = NULL;
	const cJSON *backends, *it;
	const char *end = NULL;
	size_t i, at, line, col;
	double ttl = 0, body = 0, states = 0, states_ns = 0, states_c = 0;
	int rc = -1, n;

	for (at = 0; at < len && ascii_is_json_space(text[at]); at++)
		;
	if (at == len) {
		cfg_fail(x, NULL, "is empty; expected a JSON object (see "
			 "docs/config.md)");
		goto out;
	}
	if ((at = jsonnul_find(text, len)) < len) {
		cfg_where(text, at, &line, &col);
		cfg_fail(x, NULL, "holds a NUL character (\\u0000) at line "
			 "%zu, column %zu; no value of the config may (docs/"
			 "config.md)", line, col);
		goto out;
	}
	root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	at = (end && end >= text && end <= text + len) ?
		(size_t)(end - text) : len;
	if (!root) {
		cfg_where(text, at, &line, &col);
		cfg_fail(x, NULL, "not valid JSON: syntax error at line %zu, "
			 "column %zu", line, col);
		goto out;
	}
	for (; at < len; at++) {
		if (!ascii_is_json_space(text[at])) {
			cfg_where(text, at, &line, &col);
			cfg_fail(x, NULL, "not valid JSON: unexpected text "
				 "after the end at line %zu, column %zu",
				 line, col);
			goto out;
		}
	}
	if (!cJSON_IsObject(root)) {
		cfg_fail(x, NULL, "expected a JSON object, got %s",
			 show_json_kind(root));
		goto out;
	}
	if (cfg_check_keys(x, NULL, root, cfg_top_keys) ||
	    cfg_number(x, NULL, root, "cacheTTLSeconds", 0, 300, 0,
		       CFG_ALLOWED_TTL, tmp.cache_ttl_s, &ttl) ||
	    cfg_number(x, NULL, root, "maxBodyBytes", CFG_BODY_MIN,
		       CFG_BODY_MAX, 1, CFG_ALLOWED_BODY,
		       (double)tmp.max_body_bytes, &body) ||
	    cfg_number(x, NULL, root, "maxStates", 100, 1e6, 1,
		       CFG_ALLOWED_STATES, (double)tmp.max_states, &states) ||
	    cfg_number(x, NULL, root, "maxStatesPerNamespace", 100, 1e6, 1,
		       CFG_ALLOWED_STATES, (double)tmp.max_states_ns,
		       &states_ns))
		goto out;
	if (states_ns > states) {
		/* an explicit maxStates below the default quota lowers it */
		if (cJSON_GetObjectItemCaseSensitive(root,
				"maxStatesPerNamespace")) {
			cfg_fail(x, "maxStatesPerNamespace", "%g is more than "
				 "maxStates %g; allowed: 100 to maxStates",
				 states_ns, states);
			goto out;
		}
		states_ns = states;
	}
	/* one caller: half the table by default */
	if (cfg_number(x, NULL, root, "maxStatesPerCaller", 100, 1e6, 1,
		       CFG_ALLOWED_STATES, floor(states / 2), &states_c))
		goto out;
	if (states_c > states) {
		cfg_fail(x, "maxStatesPerCaller", "%g is more than maxStates "
			 "%g; allowed: 100 to maxStates", states_c, states);
		goto out;
	}
	tmp.cache_ttl_s = ttl;
	tmp.max_body_bytes = (size_t)body;
	tmp.max_states = (size_t)states;
	tmp.max_states_ns = (size_t)states_ns;
	tmp.max_states_caller = (size_t)states_c;
	if (cfg_clients(x, root, &tmp))
		goto out;

	backends = cJSON_GetObjectItemCaseSensitive(root, "backends");
	if (!backends) {
		cfg_fail(x, NULL, "missing field 'backends'; expected an "
			 "array of 1 to %d backends", CONFIG_BACKENDS_MAX);
		goto out;
	}
	if (!cJSON_IsArray(backends)) {
		cfg_fail(x, "backends", "expected an array of 1 to %d "
			 "backends, got %s", CONFIG_BACKENDS_MAX,
			 show_json_kind(backends));
		goto out;
	}
	n = cJSON_GetArraySize(backends);
	if (n < 1 || n > CONFIG_BACKENDS_MAX) {
		cfg_fail(x, "backends", "has %d backends; allowed: 1 to %d",
			 n, CONFIG_BACKENDS_MAX);
		goto out;
	}
	/* Zeroed, so config_release() can free a half-built list. */
	tmp.backends = calloc((size_t)n, sizeof(*tmp.backends));
	if (!tmp.backends) {
		cfg_oom(x);
		goto out;
	}
	tmp.n_backends = (size_t)n;
	i = 0;
	cJSON_ArrayForEach(it, backends) {
		if (cfg_backend(x, it, tmp.backends, i))
			goto out;
		i++;
	}
	if (cfg_default(x, root, &tmp, &tmp.default_backend))
		goto out;
	rc = 0;
out:
	if (rc == 0) {
		*c = tmp;
		config_init(&tmp);
	}
	config_release(&tmp);
	cJSON_Delete(root);
	return rc;
}

/* ---- public ------------------------------------------------------------ */

void config_init(struct config *c)
{
	struct config init = CONFIG_INIT;

	*c = init;
}

void config_release(struct config *c)
{
	size_t i, j;

	for (i = 0; i < c->n_backends; i++) {
		struct backend *b = &c->backends[i];

		free(b->url);
		free(b->bearer_token_file);
		free(b->basic_user_file);
		free(b->basic_password_file);
		free(b->sigv4_region);
		free(b->ca_file);
		free(b->cert_file);
		free(b->key_file);
		for (j = 0; j < b->n_headers; j++)
			free(b->headers[j]);
		for (j = 0; j < b->n_namespaces; j++)
			free(b->namespaces[j]);
		free(b->namespaces);
	}
	free(c->backends);
	for (i = 0; i < c->n_clients; i++) {
		struct config_client *cl = &c->clients[i];

		free(cl->id);
		for (j = 0; j < cl->n_namespaces; j++)
			free(cl->namespaces[j]);
		free(cl->namespaces);
	}
	free(c->clients);
	config_init(c);
}

int config_load_text(struct config *c, const char *text, const char *origin,
		     char err[CONFIG_ERR_MAX])
{
	char prefix[CONFIG_ERR_MAX / 2];
	struct cfg_ctx x = { prefix, err };
	size_t len;

	if (origin)
		snprintf(prefix, sizeof(prefix), "config %s", origin);
	else
		snprintf(prefix, sizeof(prefix), "config");
	if (!text)
		return cfg_fail(&x, NULL, "no text");
	len = strnlen(text, CONFIG_FILE_MAX + 1);
	if (len > CONFIG_FILE_MAX)
		return cfg_fail(&x, NULL, "is larger than %d bytes",
				CONFIG_FILE_MAX);
	return cfg_parse(c, text, len, &x);
}

int config_load_file(struct config *c, const char *path,
		     char err[CONFIG_ERR_MAX])
{
	char prefix[CONFIG_ERR_MAX / 2];
	struct cfg_ctx x = { prefix, err };
	enum slurp_err se;
	char *buf = NULL;
	struct stat sb;
	size_t len;
	int rc = -1, fd;

	snprintf(prefix, sizeof(prefix), "config %s", path);
	/* O_NONBLOCK: a FIFO must not hang start-up or the SIGHUP reload
	 * (which runs on the gRPC thread); only a regular file is read. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		cfg_fail(&x, NULL, "cannot open: %s", strerror(errno));
		goto out;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		cfg_fail(&x, NULL, "is not a regular file (a FIFO, directory "
			 "or device); the config must be a regular file");
		goto out;
	}
	buf = slurp_fd(fd, CONFIG_FILE_MAX, &len, &se);
	if (!buf) {
		if (se == SLURP_ENOMEM)
			cfg_oom(&x);
		else if (se == SLURP_EBIG)
			cfg_fail(&x, NULL, "is larger than %d bytes",
				 CONFIG_FILE_MAX);
		else
			cfg_fail(&x, NULL, "cannot read: %s",
				 strerror(errno));
		goto out;
	}
	if (memchr(buf, '\0', len)) {
		cfg_fail(&x, NULL, "contains a NUL byte; expected JSON text");
		goto out;
	}
	rc = cfg_parse(c, buf, len, &x);
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	return rc;
}

int config_from_url(struct config *c, const char *url,
		    char err[CONFIG_ERR_MAX])
{
	struct cfg_ctx x = { "--prometheus", err };
	struct config tmp = CONFIG_INIT;
	int rc = -1;

	tmp.backends = calloc(1, sizeof(*tmp.backends));
	if (!tmp.backends) {
		cfg_oom(&x);
		goto out;
	}
	tmp.n_backends = 1;
	snprintf(tmp.backends[0].name, CONFIG_NAME_MAX, "default");
	tmp.backends[0].timeout_s = CFG_TIMEOUT_DEFAULT;
	tmp.backends[0].max_connections = CONFIG_CONNECTIONS_DEFAULT;
	tmp.backends[0].max_connections_ns = CONFIG_CONNECTIONS_DEFAULT / 2;
	tmp.backends[0].max_connections_caller = CONFIG_CONNECTIONS_DEFAULT - 1;
	tmp.backends[0].range_settle_s = CONFIG_SETTLE_DEFAULT;
	if (cfg_url(&x, NULL, url ? url : "", &tmp.backends[0].url))
		goto out;
	rc = 0;
out:
	if (rc == 0) {
		*c = tmp;
		config_init(&tmp);
	}
	config_release(&tmp);
	return rc;
}

const char *config_env_or(const char *v, const char *env)
{
	const char *e;

	if (v)
		return v;
	e = getenv(env);
	return e && *e ? e : NULL;
}

int config_from_flags(struct config *c, const char *path, const char *url,
		      char err[CONFIG_ERR_MAX])
{
	path = config_env_or(path, "STAFFER_CONFIG");
	url = config_env_or(url, "STAFFER_PROMETHEUS");
	if (path && url) {
		snprintf(err, CONFIG_ERR_MAX, "give --config or --prometheus, "
			 "not both (declare several backends in the config)");
		return -1;
	}
	if (!path && !url) {
		snprintf(err, CONFIG_ERR_MAX, "no backend: give --config FILE "
			 "or --prometheus URL");
		return -1;
	}
	return path ? config_load_file(c, path, err) :
		      config_from_url(c, url, err);
}

/* Reference counts of shared configs: taken per evaluation and per cached
 * answer, so a plain mutex is cheap enough and keeps the struct copyable. */
static pthread_mutex_t cfg_refs_mu = PTHREAD_MUTEX_INITIALIZER;

struct config *config_share(struct config *c)
{
	struct config *s = malloc(sizeof(*s));

	if (!s)
		return NULL;
	*s = *c;
	s->shared = 1;
	s->refs = 1;
	config_init(c);
	return s;
}

struct config *config_hold(struct config *c)
{
	if (c && c->shared) {
		pthread_mutex_lock(&cfg_refs_mu);
		c->refs++;
		pthread_mutex_unlock(&cfg_refs_mu);
	}
	return c;
}

void config_drop(struct config *c)
{
	long left;

	if (!c || !c->shared)
		return;
	pthread_mutex_lock(&cfg_refs_mu);
	left = --c->refs;
	pthread_mutex_unlock(&cfg_refs_mu);
	if (left == 0) {
		c->shared = 0;
		config_release(c);
		free(c);
	}
}

/* ns matches a pattern of list (n 0: every namespace does). */
static int ns_listed(char *const *list, size_t n, const char *ns)
{
	size_t i;

	if (!n)
		return 1;
	for (i = 0; i < n; i++)
		if (!fnmatch(list[i], ns, FNM_NOESCAPE))
			return 1;
	return 0;
}

int config_namespace_ok(const struct backend *be, const char *ns)
{
	return ns_listed(be->namespaces, be->n_namespaces, ns);
}

const struct config_client *config_client(const struct config *c,
					  const struct config_peer *p)
{
	size_t i, j;

	for (i = 0; i < c->n_clients; i++) {
		const struct config_client *cl = &c->clients[i];

		switch (cl->kind) {
		case CONFIG_ID_URI:
			for (j = 0; j < p->n_uri; j++)
				if (!strcmp(p->uri[j], cl->id))
					return cl;
			break;
		case CONFIG_ID_DNS:
			for (j = 0; j < p->n_dns; j++)
				if (!strcasecmp(p->dns[j], cl->id))
					return cl;
			break;
		case CONFIG_ID_CN:
			if (p->cn && !strcmp(p->cn, cl->id))
				return cl;
			break;
		}
	}
	return NULL;
}

int config_client_ns_ok(const struct config_client *cl, const char *ns)
{
	return ns_listed(cl->namespaces, cl->n_namespaces, ns);
}

const char *config_id_kind_name(enum config_id_kind k)
{
	return k == CONFIG_ID_URI ? "uri" : k == CONFIG_ID_DNS ? "dns" : "cn";
}

const struct backend *config_backend(const struct config *c,
				     const char *name)
{
	size_t i;

	if (!name)
		return c->n_backends ? &c->backends[c->default_backend] :
			NULL;
	for (i = 0; i < c->n_backends; i++)
		if (!strcmp(c->backends[i].name, name))
			return &c->backends[i];
	return NULL;
}

enum config_use config_use(const struct config *c, const char *name,
			   const char *ns, char *msg, size_t size)
{
	const struct backend *be = config_backend(c, name);
	char shown[CONFIG_SHOW_NS + 4];
	size_t i, len;

	if (!be) {
		len = (size_t)snprintf(msg, size, "metadata 'backend': '%.60s' "
				       "is not declared in staffer's config; "
				       "declared:", name ? name : "");
		for (i = 0; i < c->n_backends && len < size; i++)
			len += (size_t)snprintf(msg + len, size - len,
						"%s '%s'", i ? "," : "",
						c->backends[i].name);
		return CONFIG_USE_UNDECLARED;
	}
	if (ns && !config_namespace_ok(be, ns)) {
		show_text(shown, CONFIG_SHOW_NS, ns, strlen(ns));
		snprintf(msg, size, "namespace '%s' may not use backend '%s': "
			 "staffer's config opens it to other namespaces only "
			 "(the backend's 'namespaces' list; ask the platform "
			 "team, docs/config.md)", shown, be->name);
		return CONFIG_USE_DENIED;
	}
	return CONFIG_USE_OK;
}
