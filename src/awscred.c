/*
 * awscred.c - see awscred.h.
 */
#include "awscred.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ascii.h"
#include "http.h"
#include "secret.h"
#include "show.h"

#define AWSCRED_DEFAULT_LIFE_S 900.0   /* container reply without expiry */
#define AWSCRED_URL_MAX 2048
#define AWSCRED_SHOW_MAX 160           /* bytes of a reply quoted in why */
#define CONTAINER_HOST "http://169.254.170.2"

enum src_kind { SRC_NONE, SRC_ENV, SRC_WEB, SRC_CONTAINER };

struct awscred_src {
	struct awscred cur;          /* valid when have */
	int have;
	CURL *easy;                  /* the refresh in flight, or NULL */
	enum src_kind easy_kind;
	char easy_what[128];         /* "STS AssumeRoleWithWebIdentity at URL" */
	struct curl_slist *headers;
	struct http_body body;
	char curl_err[CURL_ERROR_SIZE];
	double failed_at;            /* Unix time of the last failure; 0 */
	double refreshed_at;         /* of the last success; 0 */
	char why[AWSCRED_ERR_MAX];   /* the last failure */
};

static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

static enum src_kind src_kind(void)
{
	if (env("AWS_ACCESS_KEY_ID") && env("AWS_SECRET_ACCESS_KEY"))
		return SRC_ENV;
	if (env("AWS_WEB_IDENTITY_TOKEN_FILE") && env("AWS_ROLE_ARN"))
		return SRC_WEB;
	if (env("AWS_CONTAINER_CREDENTIALS_FULL_URI") ||
	    env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"))
		return SRC_CONTAINER;
	return SRC_NONE;
}

/* ---- pure parts ----------------------------------------------------------- */

int awscred_parse_time(const char *s, double *out)
{
	struct tm tm;
	int y, mo, d, h, mi, sec, n = 0;
	const char *p;
	time_t t;

	if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi,
			 &sec, &n) != 6 || n != 19)
		return -1;
	p = s + n;
	if (*p == '.') {
		p++;
		if (!ascii_is_digit((unsigned char)*p))
			return -1;
		while (ascii_is_digit((unsigned char)*p))
			p++;
	}
	if (strcmp(p, "Z") && strcmp(p, "+00:00"))
		return -1;
	if (y < 1970 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > 31 ||
	    h > 23 || mi > 59 || sec > 60 || h < 0 || mi < 0 || sec < 0)
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	t = timegm(&tm);
	if (t == (time_t)-1)
		return -1;
	*out = (double)t;
	return 0;
}

/*
 * The text of the first <tag>...</tag> in body[0..len) after from, XML
 * entities decoded, into dst[size].  0, or -1 when absent, too long or
 * holding markup.
 */
static int xml_text(const char *body, size_t len, const char *tag,
		    char *dst, size_t size)
{
	char open[64], close[64];
	const char *a, *b, *end = body + len, *p;
	size_t n = 0, ol, cl;

	snprintf(open, sizeof(open), "<%s>", tag);
	snprintf(close, sizeof(close), "</%s>", tag);
	ol = strlen(open);
	cl = strlen(close);
	for (a = body; a + ol <= end && memcmp(a, open, ol); a++)
		;
	if (a + ol > end)
		return -1;
	a += ol;
	for (b = a; b + cl <= end && memcmp(b, close, cl); b++)
		;
	if (b + cl > end)
		return -1;
	for (p = a; p < b; p++) {
		char c = *p;

		if (c == '<')
			return -1;
		if (c == '&') {
			static const struct { const char *e; char c; } ents[] = {
				{ "&amp;", '&' }, { "&lt;", '<' },
				{ "&gt;", '>' }, { "&quot;", '"' },
				{ "&apos;", '\'' },
			};
			size_t i;

			for (i = 0; i < sizeof(ents) / sizeof(ents[0]); i++) {
				size_t el = strlen(ents[i].e);

				if ((size_t)(b - p) >= el &&
				    !memcmp(p, ents[i].e, el)) {
					c = ents[i].c;
					p += el - 1;
					break;
				}
			}
			if (i == sizeof(ents) / sizeof(ents[0]))
				return -1;
		}
		if (n + 1 >= size)
			return -1;
		dst[n++] = c;
	}
	dst[n] = '\0';
	return 0;
}

/* A key, secret or token: printable ASCII without spaces (it goes into a
 * header and a signature). */
static int cred_text_ok(const char *s)
{
	for (; *s; s++)
		if (*s <= ' ' || *s >= 0x7f)
			return 0;
	return 1;
}

static int cred_check(const struct awscred *c, const char *what, char *why,
		      size_t whylen)
{
	if (!c->id[0] || !c->secret[0] || !cred_text_ok(c->id) ||
	    !cred_text_ok(c->secret) || !cred_text_ok(c->token)) {
		snprintf(why, whylen, "%s: the credentials are empty or hold "
			 "spaces or control characters", what);
		return -1;
	}
	return 0;
}

int awscred_parse_sts(const char *body, size_t len, struct awscred *out,
		      char *why, size_t whylen)
{
	struct awscred c;
	char code[128], msg[256], exp[64];
	char c_shown[44], m_shown[AWSCRED_SHOW_MAX + 4];

	memset(&c, 0, sizeof(c));
	if (!body)
		len = 0;
	if (len && xml_text(body, len, "Code", code, sizeof(code)) == 0) {
		if (xml_text(body, len, "Message", msg, sizeof(msg)))
			snprintf(msg, sizeof(msg), "no message");
		show_text(c_shown, 40, code, strlen(code));
		show_text(m_shown, AWSCRED_SHOW_MAX, msg, strlen(msg));
		snprintf(why, whylen, "STS says %s: %s", c_shown, m_shown);
		return -1;
	}
	if (!len ||
	    xml_text(body, len, "AccessKeyId", c.id, sizeof(c.id)) ||
	    xml_text(body, len, "SecretAccessKey", c.secret,
		     sizeof(c.secret)) ||
	    xml_text(body, len, "SessionToken", c.token, sizeof(c.token)) ||
	    xml_text(body, len, "Expiration", exp, sizeof(exp)) ||
	    awscred_parse_time(exp, &c.expires)) {
		snprintf(why, whylen, "the STS reply has no Credentials with "
			 "AccessKeyId, SecretAccessKey, SessionToken and an "
			 "ISO 8601 Expiration");
		return -1;
	}
	if (cred_check(&c, "the STS reply", why, whylen))
		return -1;
	*out = c;
	return 0;
}

/* A string member of o into dst[size]: 1 copied, 0 absent, -1 wrong. */
static int json_str(const cJSON *o, const char *name, char *dst,
		    size_t size)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, name);

	if (!it)
		return 0;
	if (!cJSON_IsString(it) || strlen(it->valuestring) >= size)
		return -1;
	memcpy(dst, it->valuestring, strlen(it->valuestring) + 1);
	return 1;
}

int awscred_parse_container(const char *body, size_t len, double now,
			    struct awscred *out, char *why, size_t whylen)
{
	struct awscred c;
	cJSON *o = NULL;
	char exp[64];
	int rc = -1, r;

	memset(&c, 0, sizeof(c));
	o = body ? cJSON_ParseWithLength(body, len) : NULL;
	if (!cJSON_IsObject(o)) {
		snprintf(why, whylen, "the container credentials reply is "
			 "not a JSON object");
		goto out;
	}
	if (json_str(o, "AccessKeyId", c.id, sizeof(c.id)) != 1 ||
	    json_str(o, "SecretAccessKey", c.secret, sizeof(c.secret)) != 1 ||
	    json_str(o, "Token", c.token, sizeof(c.token)) < 0) {
		snprintf(why, whylen, "the container credentials reply has no "
			 "string AccessKeyId and SecretAccessKey (Token "
			 "optional)");
		goto out;
	}
	r = json_str(o, "Expiration", exp, sizeof(exp));
	if (r < 0 || (r == 1 && awscred_parse_time(exp, &c.expires))) {
		snprintf(why, whylen, "the container credentials reply has an "
			 "Expiration that is not ISO 8601 UTC "
			 "(2026-01-02T03:04:05Z)");
		goto out;
	}
	if (r == 0)
		c.expires = now + AWSCRED_DEFAULT_LIFE_S;
	if (cred_check(&c, "the container credentials reply", why, whylen))
		goto out;
	*out = c;
	rc = 0;
out:
	cJSON_Delete(o);
	return rc;
}

/* Whether host (as curl's URL parser gives it: an IPv6 address in
 * brackets) is one the token may go to over plain http: a numeric
 * loopback IPv4 address, localhost, ::1, or the ECS and EKS agents'. */
static int awscred_host_allowed(const char *host)
{
	unsigned char a[16], b[16];
	char v6[INET6_ADDRSTRLEN + 1];
	size_t n = strlen(host);

	if (!strcmp(host, "localhost") || !strcmp(host, "169.254.170.2") ||
	    !strcmp(host, "169.254.170.23"))
		return 1;
	if (inet_pton(AF_INET, host, a) == 1)
		return a[0] == 127;
	if (n < 3 || n - 2 >= sizeof(v6) || host[0] != '[' ||
	    host[n - 1] != ']')
		return 0;
	memcpy(v6, host + 1, n - 2);
	v6[n - 2] = '\0';
	if (inet_pton(AF_INET6, v6, a) != 1)
		return 0;
	return (inet_pton(AF_INET6, "::1", b) == 1 && !memcmp(a, b, 16)) ||
	       (inet_pton(AF_INET6, "fd00:ec2::23", b) == 1 &&
		!memcmp(a, b, 16));
}

/* Whether body (len bytes, not NUL-terminated) holds the name of a
 * credential field: then no part of it is quoted in a reason. */
static int body_names_secret(const char *body, size_t len)
{
	static const char *const names[] = {
		"SecretAccessKey", "Token", "AccessKeyId",
	};
	size_t i, j;

	for (i = 0; body && i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = strlen(names[i]);

		for (j = 0; j + n <= len; j++)
			if (!memcmp(body + j, names[i], n))
				return 1;
	}
	return 0;
}

int awscred_url_allowed(const char *url)
{
	CURLU *u;
	char *scheme = NULL, *host = NULL, *user = NULL;
	int ok = 0;

	if (!url || !*url)
		return 0;
	/* The host curl will connect to, as curl reads the URL: a text
	 * test would take "http://127.0.0.1@evil/" for loopback. */
	u = curl_url();
	if (!u || curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK)
		goto out;
	/* user information: never, whoever the host (it hides the host
	 * from a reader, and a token needs no password beside it) */
	if (curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK)
		goto out;
	if (!strcmp(scheme, "https"))
		ok = 1;
	else if (!strcmp(scheme, "http"))
		ok = awscred_host_allowed(host);
out:
	curl_free(scheme);
	curl_free(host);
	curl_free(user);
	curl_url_cleanup(u);
	return ok;
}

/* ---- the source ---------------------------------------------------------- */

struct awscred_src *awscred_new(void)
{
	return calloc(1, sizeof(struct awscred_src));
}

static void easy_release(struct awscred_src *s)
{
	if (s->easy)
		curl_easy_cleanup(s->easy);
	s->easy = NULL;
	curl_slist_free_all(s->headers);
	s->headers = NULL;
	http_body_release(&s->body);
}

void awscred_free(struct awscred_src *s)
{
	if (!s)
		return;
	easy_release(s);
	free(s);
}

/* Record a failed refresh at now: why, and no new attempt for a while. */
static void fail(struct awscred_src *s, double now, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail(struct awscred_src *s, double now, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
	s->failed_at = now > 0 ? now : 1;
}

/* The STS request: URL into url[], form into *form (malloc()ed).  0, or
 * -1 with s->why set. */
static int sts_request(struct awscred_src *s, const char *region,
		       double now, char url[AWSCRED_URL_MAX], char **form)
{
	const char *ep = env("AWS_ENDPOINT_URL_STS");
	const char *reg = env("AWS_REGION");
	const char *name = env("AWS_ROLE_SESSION_NAME");
	char why[AWSCRED_ERR_MAX];
	char *token = NULL, *e_arn = NULL, *e_name = NULL, *e_tok = NULL;
	size_t need;
	int rc = -1;

	if (!reg)
		reg = env("AWS_DEFAULT_REGION");
	if (!reg)
		reg = region;
	if (ep)
		snprintf(url, AWSCRED_URL_MAX, "%s", ep);
	else
		snprintf(url, AWSCRED_URL_MAX, "https://sts.%s.amazonaws.com/",
			 reg ? reg : "us-east-1");
	token = secret_read(env("AWS_WEB_IDENTITY_TOKEN_FILE"), why,
			    sizeof(why));
	if (!token) {
		fail(s, now, "web identity token (AWS_WEB_IDENTITY_TOKEN_FILE)"
		     ": %s", why);
		goto out;
	}
	e_arn = curl_easy_escape(NULL, env("AWS_ROLE_ARN"), 0);
	e_name = curl_easy_escape(NULL, name ? name : "staffer", 0);
	e_tok = curl_easy_escape(NULL, token, 0);
	if (!e_arn || !e_name || !e_tok) {
		fail(s, now, "out of memory");
		goto out;
	}
	need = strlen(e_arn) + strlen(e_name) + strlen(e_tok) + 160;
	*form = malloc(need);
	if (!*form) {
		fail(s, now, "out of memory");
		goto out;
	}
	snprintf(*form, need, "Action=AssumeRoleWithWebIdentity&Version="
		 "2011-06-15&RoleArn=%s&RoleSessionName=%s&WebIdentityToken="
		 "%s", e_arn, e_name, e_tok);
	rc = 0;
out:
	free(token);
	curl_free(e_arn);
	curl_free(e_name);
	curl_free(e_tok);
	return rc;
}

/* The container request: URL into url[], the Authorization header (or
 * NULL) into *auth.  0, or -1 with s->why set. */
static int container_request(struct awscred_src *s, double now,
			     char url[AWSCRED_URL_MAX], char **auth)
{
	const char *full = env("AWS_CONTAINER_CREDENTIALS_FULL_URI");
	const char *rel = env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI");
	const char *file = env("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
	const char *tok = env("AWS_CONTAINER_AUTHORIZATION_TOKEN");
	char why[AWSCRED_ERR_MAX], *t = NULL, *p;

	*auth = NULL;
	if (rel) {
		snprintf(url, AWSCRED_URL_MAX, "%s%s%s", CONTAINER_HOST,
			 rel[0] == '/' ? "" : "/", rel);
	} else if (!awscred_url_allowed(full)) {
		fail(s, now, "AWS_CONTAINER_CREDENTIALS_FULL_URI must be https,"
		     " or http to a loopback address or 169.254.170.2/.23");
		return -1;
	} else {
		snprintf(url, AWSCRED_URL_MAX, "%s", full);
	}
	if (file) {
		t = secret_read(file, why, sizeof(why));
		if (!t) {
			fail(s, now, "container authorization token "
			     "(AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE): %s",
			     why);
			return -1;
		}
	} else if (tok) {
		t = strdup(tok);
		if (!t) {
			fail(s, now, "out of memory");
			return -1;
		}
	}
	if (!t)
		return 0;
	for (p = t; *p; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			break;
	if (*p || strlen(t) > AWSCRED_TOKEN_MAX) {
		free(t);
		fail(s, now, "the container authorization token holds control "
		     "characters or is longer than %d bytes",
		     AWSCRED_TOKEN_MAX);
		return -1;
	}
	*auth = malloc(strlen(t) + sizeof("Authorization: "));
	if (*auth)
		sprintf(*auth, "Authorization: %s", t);
	free(t);
	if (!*auth) {
		fail(s, now, "out of memory");
		return -1;
	}
	return 0;
}

CURL *awscred_refresh(struct awscred_src *s, const char *region, double now)
{
	enum src_kind kind = src_kind();
	char url[AWSCRED_URL_MAX], *form = NULL, *auth = NULL;
	struct curl_slist *l;
	CURL *rc = NULL;

	if (kind == SRC_ENV || s->easy)
		return NULL;
	if (s->have && (now < s->cur.expires - AWSCRED_REFRESH_S ||
			(now - s->refreshed_at < AWSCRED_RETRY_S &&
			 now >= s->refreshed_at)))
		return NULL;
	if (s->failed_at && now - s->failed_at < AWSCRED_RETRY_S &&
	    now >= s->failed_at)
		return NULL;
	if (kind == SRC_NONE) {
		fail(s, now, "no AWS credentials: set AWS_ACCESS_KEY_ID and "
		     "AWS_SECRET_ACCESS_KEY, or AWS_WEB_IDENTITY_TOKEN_FILE "
		     "and AWS_ROLE_ARN (IRSA), or AWS_CONTAINER_CREDENTIALS_"
		     "FULL_URI (EKS Pod Identity)");
		return NULL;
	}
	if (kind == SRC_WEB ? sts_request(s, region, now, url, &form)
			    : container_request(s, now, url, &auth))
		goto out;
	s->easy = curl_easy_init();
	if (!s->easy) {
		fail(s, now, "out of memory");
		goto out;
	}
	http_body_reset(&s->body, AWSCRED_BODY_MAX);
	s->curl_err[0] = '\0';
	s->easy_kind = kind;
	if (kind == SRC_WEB) {
		snprintf(s->easy_what, sizeof(s->easy_what),
			 "STS AssumeRoleWithWebIdentity at %.80s", url);
		curl_easy_setopt(s->easy, CURLOPT_COPYPOSTFIELDS, form);
	} else {
		snprintf(s->easy_what, sizeof(s->easy_what),
			 "container credentials at %.90s", url);
	}
	if (auth) {
		l = curl_slist_append(NULL, auth);
		if (!l) {
			fail(s, now, "out of memory");
			goto out;
		}
		s->headers = l;
		curl_easy_setopt(s->easy, CURLOPT_HTTPHEADER, s->headers);
	}
	http_easy_setup(s->easy, url, &s->body, s->curl_err,
			AWSCRED_TIMEOUT_S);
	rc = s->easy;
out:
	if (!rc)
		easy_release(s);
	free(form);
	free(auth);
	return rc;
}

enum awscred_state awscred_get(struct awscred_src *s, double now,
			       struct awscred *out, char *why,
			       size_t whylen)
{
	const char *session;

	if (src_kind() == SRC_ENV) {
		memset(out, 0, sizeof(*out));
		session = env("AWS_SESSION_TOKEN");
		if (strlen(env("AWS_ACCESS_KEY_ID")) > AWSCRED_KEY_MAX ||
		    strlen(env("AWS_SECRET_ACCESS_KEY")) > AWSCRED_KEY_MAX ||
		    (session && strlen(session) > AWSCRED_TOKEN_MAX)) {
			snprintf(why, whylen, "AWS_ACCESS_KEY_ID, AWS_SECRET_"
				 "ACCESS_KEY or AWS_SESSION_TOKEN is too long");
			return AWSCRED_FAIL;
		}
		snprintf(out->id, sizeof(out->id), "%s",
			 env("AWS_ACCESS_KEY_ID"));
		snprintf(out->secret, sizeof(out->secret), "%s",
			 env("AWS_SECRET_ACCESS_KEY"));
		snprintf(out->token, sizeof(out->token), "%s",
			 session ? session : "");
		if (cred_check(out, "the AWS_* environment variables", why,
			       whylen))
			return AWSCRED_FAIL;
		return AWSCRED_READY;
	}
	if (s->have && now < s->cur.expires) {
		*out = s->cur;
		return AWSCRED_READY;
	}
	if (s->easy)
		return AWSCRED_WAIT;
	snprintf(why, whylen, "%s", s->why[0] ? s->why
		 : "AWS credentials expired and not yet refreshed");
	return AWSCRED_FAIL;
}

int awscred_done(struct awscred_src *s, CURL *easy, CURLcode res,
		 double now)
{
	char why[AWSCRED_ERR_MAX], shown[AWSCRED_SHOW_MAX + 4];
	struct awscred c;
	long status = 0;
	int r, rc = -1;

	if (!easy || easy != s->easy)
		return -1;
	curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
	if (s->body.too_big || res == CURLE_FILESIZE_EXCEEDED) {
		fail(s, now, "%s: reply larger than %d bytes", s->easy_what,
		     AWSCRED_BODY_MAX);
		goto out;
	}
	if (res != CURLE_OK) {
		snprintf(why, sizeof(why), "%.80s: %.160s",
			 curl_easy_strerror(res),
			 s->curl_err[0] ? s->curl_err : "no detail");
		fail(s, now, "%s: %s", s->easy_what, why);
		goto out;
	}
	r = s->easy_kind == SRC_WEB
	    ? awscred_parse_sts(s->body.buf, s->body.len, &c, why, sizeof(why))
	    : awscred_parse_container(s->body.buf, s->body.len, now, &c, why,
				      sizeof(why));
	if (status != 200) {
		/* The reason is logged and answered to callers: never a
		 * secret.  A body that parsed as credentials, or names their
		 * fields, is not shown; an error body is (STS's own words
		 * are in why already). */
		if (r == 0 || (s->easy_kind != SRC_WEB &&
			       body_names_secret(s->body.buf, s->body.len))) {
			snprintf(why, sizeof(why), "a body with credential "
				 "fields (not shown)");
		} else if (s->easy_kind != SRC_WEB) {
			show_text(shown, AWSCRED_SHOW_MAX, s->body.buf,
				  s->body.len);
			snprintf(why, sizeof(why), "%s", shown);
		}
		fail(s, now, "%s: HTTP status %ld: %s", s->easy_what, status,
		     why);
		goto out;
	}
	if (r) {
		fail(s, now, "%s: %s", s->easy_what, why);
		goto out;
	}
	s->cur = c;
	s->have = 1;
	s->refreshed_at = now;
	s->failed_at = 0;
	s->why[0] = '\0';
	rc = 0;
out:
	easy_release(s);
	return rc;
}

void awscred_cancel(struct awscred_src *s, CURL *easy)
{
	if (easy && easy == s->easy)
		easy_release(s);
}
