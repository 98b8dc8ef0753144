/*
 * test_awscred.c - AWS credentials for SigV4: the STS and container
 * replies, times, the container URL rule, and the refresh state machine
 * (which source, when to ask again, what a failure says).  Nothing here
 * touches the network: refresh handles are built and handed back unsent.
 * The whole chain against fake STS, container and AMP endpoints, with
 * signatures checked by botocore, is tests/integration/test_aws.py.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "check.h"
#include "awscred.h"

#define T0 1800000000.0      /* 2027-01-15T08:00:00Z */

static const char *const aws_vars[] = {
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_ROLE_SESSION_NAME",
	"AWS_ENDPOINT_URL_STS", "AWS_REGION", "AWS_DEFAULT_REGION",
	"AWS_CONTAINER_CREDENTIALS_FULL_URI",
	"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
	"AWS_CONTAINER_AUTHORIZATION_TOKEN",
	"AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
};

static int clean_env(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(aws_vars) / sizeof(aws_vars[0]); i++)
		unsetenv(aws_vars[i]);
	return 0;
}

static int sts(const char *body, struct awscred *c, char *why)
{
	return awscred_parse_sts(body, strlen(body), c, why, AWSCRED_ERR_MAX);
}

static void test_time(void **state)
{
	double t = 0;

	(void)state;
	assert_int_equal(awscred_parse_time("2027-01-15T08:00:00Z", &t), 0);
	assert_true(t == T0);
	assert_int_equal(awscred_parse_time("2027-01-15T08:00:00.123Z", &t),
			 0);
	assert_true(t == T0);
	assert_int_equal(awscred_parse_time("2027-01-15T08:00:00+00:00", &t),
			 0);
	assert_true(t == T0);
	assert_int_equal(awscred_parse_time("1970-01-01T00:00:00Z", &t), 0);
	assert_true(t == 0);
	/* what is not ISO 8601 UTC */
	assert_int_equal(awscred_parse_time("2027-01-15 08:00:00Z", &t), -1);
	assert_int_equal(awscred_parse_time("2027-01-15T08:00:00", &t), -1);
	assert_int_equal(awscred_parse_time("2027-01-15T08:00:00+02:00", &t),
			 -1);
	assert_int_equal(awscred_parse_time("2027-13-15T08:00:00Z", &t), -1);
	assert_int_equal(awscred_parse_time("2027-01-15T24:00:00Z", &t), -1);
	assert_int_equal(awscred_parse_time("2027-01-15T08:00:00.Z", &t), -1);
	assert_int_equal(awscred_parse_time("", &t), -1);
	assert_int_equal(awscred_parse_time(NULL, &t), -1);
	assert_true(t == 0);    /* untouched on error */
}

static void test_sts_reply(void **state)
{
	static const char ok[] =
		"<AssumeRoleWithWebIdentityResponse xmlns=\"https://sts."
		"amazonaws.com/doc/2011-06-15/\"><AssumeRoleWithWebIdentity"
		"Result><Credentials><AccessKeyId>ASIAEXAMPLE</AccessKeyId>"
		"<SecretAccessKey>se/cr+et</SecretAccessKey><SessionToken>"
		"to&amp;ken==</SessionToken><Expiration>2027-01-15T08:00:00Z"
		"</Expiration></Credentials></AssumeRoleWithWebIdentityResult>"
		"</AssumeRoleWithWebIdentityResponse>";
	struct awscred c;
	char why[AWSCRED_ERR_MAX];

	(void)state;
	assert_int_equal(sts(ok, &c, why), 0);
	assert_string_equal(c.id, "ASIAEXAMPLE");
	assert_string_equal(c.secret, "se/cr+et");
	assert_string_equal(c.token, "to&ken==");
	assert_true(c.expires == T0);
}

static void test_sts_errors(void **state)
{
	struct awscred c;
	char why[AWSCRED_ERR_MAX];

	(void)state;
	memset(&c, 0x5a, sizeof(c));
	assert_int_equal(sts("<ErrorResponse><Error><Type>Sender</Type>"
			     "<Code>AccessDenied</Code><Message>Not "
			     "authorized to perform sts:AssumeRoleWith"
			     "WebIdentity</Message></Error></ErrorResponse>",
			     &c, why), -1);
	assert_string_equal(why, "STS says AccessDenied: Not authorized to "
			    "perform sts:AssumeRoleWithWebIdentity");
	assert_true(c.id[0] == 0x5a);      /* untouched on error */
	/* hostile text in the error is quoted safely */
	assert_int_equal(sts("<Error><Code>X\x1b[2J</Code></Error>", &c,
			     why), -1);
	assert_string_equal(why, "STS says X?[2J: no message");
	/* missing fields, markup inside a field, a bad expiry, empty */
	assert_int_equal(sts("<Credentials><AccessKeyId>A</AccessKeyId>"
			     "</Credentials>", &c, why), -1);
	check_contains(why, "no Credentials with AccessKeyId");
	assert_int_equal(sts("<AccessKeyId>A<b/></AccessKeyId><SecretAccessKey"
			     ">s</SecretAccessKey><SessionToken>t</Session"
			     "Token><Expiration>2027-01-15T08:00:00Z</Expi"
			     "ration>", &c, why), -1);
	assert_int_equal(sts("<AccessKeyId>A</AccessKeyId><SecretAccessKey"
			     ">s</SecretAccessKey><SessionToken>t</Session"
			     "Token><Expiration>tomorrow</Expiration>", &c,
			     why), -1);
	assert_int_equal(sts("<AccessKeyId>A B</AccessKeyId><SecretAccessKey"
			     ">s</SecretAccessKey><SessionToken>t</Session"
			     "Token><Expiration>2027-01-15T08:00:00Z</Expi"
			     "ration>", &c, why), -1);
	check_contains(why, "spaces or control characters");
	assert_int_equal(sts("", &c, why), -1);
	assert_int_equal(awscred_parse_sts(NULL, 0, &c, why, sizeof(why)),
			 -1);
	/* an unknown entity, an unterminated tag */
	assert_int_equal(sts("<AccessKeyId>&nbsp;</AccessKeyId>", &c, why),
			 -1);
	assert_int_equal(sts("<AccessKeyId>ASIA", &c, why), -1);
	assert_true(c.id[0] == 0x5a);
}

static void test_container_reply(void **state)
{
	struct awscred c;
	char why[AWSCRED_ERR_MAX];
	const char *b;

	(void)state;
	b = "{\"AccessKeyId\":\"ASIAPOD\",\"SecretAccessKey\":\"s\","
	    "\"Token\":\"t\",\"Expiration\":\"2027-01-15T08:00:00Z\"}";
	assert_int_equal(awscred_parse_container(b, strlen(b), 1, &c, why,
						 sizeof(why)), 0);
	assert_string_equal(c.id, "ASIAPOD");
	assert_string_equal(c.token, "t");
	assert_true(c.expires == T0);
	/* no expiry: 15 minutes; no token: none */
	b = "{\"AccessKeyId\":\"A\",\"SecretAccessKey\":\"s\"}";
	assert_int_equal(awscred_parse_container(b, strlen(b), 1000, &c, why,
						 sizeof(why)), 0);
	assert_true(c.expires == 1900);
	assert_string_equal(c.token, "");

	memset(&c, 0x5a, sizeof(c));
	b = "{\"AccessKeyId\":1,\"SecretAccessKey\":\"s\"}";
	assert_int_equal(awscred_parse_container(b, strlen(b), 1, &c, why,
						 sizeof(why)), -1);
	check_contains(why, "no string AccessKeyId");
	b = "{\"AccessKeyId\":\"A\",\"SecretAccessKey\":\"s\","
	    "\"Expiration\":\"soon\"}";
	assert_int_equal(awscred_parse_container(b, strlen(b), 1, &c, why,
						 sizeof(why)), -1);
	check_contains(why, "Expiration that is not ISO 8601");
	b = "[1]";
	assert_int_equal(awscred_parse_container(b, strlen(b), 1, &c, why,
						 sizeof(why)), -1);
	check_contains(why, "not a JSON object");
	b = "{\"AccessKeyId\":\"A\\n\",\"SecretAccessKey\":\"s\"}";
	assert_int_equal(awscred_parse_container(b, strlen(b), 1, &c, why,
						 sizeof(why)), -1);
	assert_true(c.id[0] == 0x5a);
}

static void test_url_allowed(void **state)
{
	(void)state;
	assert_true(awscred_url_allowed("https://creds.example.com/x"));
	assert_true(awscred_url_allowed("http://169.254.170.23/v1/creds"));
	assert_true(awscred_url_allowed("http://169.254.170.2/v2/creds"));
	assert_true(awscred_url_allowed("http://[fd00:ec2::23]/v1/creds"));
	assert_true(awscred_url_allowed("http://127.0.0.1:8080/creds"));
	assert_true(awscred_url_allowed("http://localhost/creds"));
	assert_true(awscred_url_allowed("http://[::1]:80/"));
	assert_false(awscred_url_allowed("http://169.254.170.234/"));
	assert_false(awscred_url_allowed("http://169.254.170.2.evil.com/"));
	assert_false(awscred_url_allowed("http://localhost.evil.com/"));
	assert_false(awscred_url_allowed("http://127evil.com/"));
	assert_false(awscred_url_allowed("http://evil.com/?127.0.0.1"));
	assert_false(awscred_url_allowed("ftp://127.0.0.1/"));
	/* the host curl connects to, not a prefix of the text: user
	 * information before it, a name that starts like loopback */
	assert_false(awscred_url_allowed("http://127.0.0.1@192.0.2.2:1/c"));
	assert_false(awscred_url_allowed("http://169.254.170.2:x@evil/"));
	assert_false(awscred_url_allowed("http://localhost:80@evil/"));
	assert_false(awscred_url_allowed("http://[::1]@evil/"));
	assert_false(awscred_url_allowed("http://127.evil.example/"));
	assert_false(awscred_url_allowed("https://u:p@creds.example.com/"));
	assert_true(awscred_url_allowed("http://127.1.2.3/creds"));
	assert_true(awscred_url_allowed("http://[0:0:0:0:0:0:0:1]/"));
	assert_false(awscred_url_allowed(""));
	assert_false(awscred_url_allowed(NULL));
}

/* Static keys from the environment: read at each use, no refresh. */
static void test_env_keys(void **state)
{
	struct awscred_src *s = awscred_new();
	struct awscred c;
	char why[AWSCRED_ERR_MAX];

	(void)state;
	assert_non_null(s);
	setenv("AWS_ACCESS_KEY_ID", "AKIDSTATIC", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "secret", 1);
	/* keys win over a web identity also configured */
	setenv("AWS_WEB_IDENTITY_TOKEN_FILE", "/nonexistent", 1);
	setenv("AWS_ROLE_ARN", "arn:aws:iam::1:role/r", 1);
	assert_null(awscred_refresh(s, "us-east-1", T0));
	assert_int_equal(awscred_get(s, T0, &c, why, sizeof(why)),
			 AWSCRED_READY);
	assert_string_equal(c.id, "AKIDSTATIC");
	assert_string_equal(c.token, "");
	setenv("AWS_SESSION_TOKEN", "sess", 1);
	assert_int_equal(awscred_get(s, T0, &c, why, sizeof(why)),
			 AWSCRED_READY);
	assert_string_equal(c.token, "sess");
	setenv("AWS_SECRET_ACCESS_KEY", "has space", 1);
	assert_int_equal(awscred_get(s, T0, &c, why, sizeof(why)),
			 AWSCRED_FAIL);
	check_contains(why, "AWS_* environment variables");
	awscred_free(s);
}

static void test_nothing(void **state)
{
	struct awscred_src *s = awscred_new();
	struct awscred c;
	char why[AWSCRED_ERR_MAX];

	(void)state;
	assert_null(awscred_refresh(s, "us-east-1", T0));
	assert_int_equal(awscred_get(s, T0, &c, why, sizeof(why)),
			 AWSCRED_FAIL);
	check_contains(why, "no AWS credentials: set AWS_ACCESS_KEY_ID");
	check_contains(why, "AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN");
	/* a half-set pair is not a source */
	setenv("AWS_ACCESS_KEY_ID", "AKID", 1);
	setenv("AWS_ROLE_ARN", "arn:aws:iam::1:role/r", 1);
	assert_null(awscred_refresh(s, "us-east-1", T0 + 60));
	assert_int_equal(awscred_get(s, T0 + 60, &c, why, sizeof(why)),
			 AWSCRED_FAIL);
	awscred_free(s);
}

/* Web identity: a refresh is built, callers wait; it fails; nobody asks
 * STS again for AWSCRED_RETRY_S, and the failure says why. */
static void test_refresh_cycle(void **state)
{
	char path[] = "/tmp/test_awscred_XXXXXX", why[AWSCRED_ERR_MAX];
	struct awscred_src *s = awscred_new();
	struct awscred c;
	CURL *h;
	FILE *fp;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	fputs("jwt-token\n", fp);
	fclose(fp);
	setenv("AWS_WEB_IDENTITY_TOKEN_FILE", path, 1);
	setenv("AWS_ROLE_ARN", "arn:aws:iam::1:role/r", 1);
	setenv("AWS_ENDPOINT_URL_STS", "http://127.0.0.1:1/sts", 1);

	h = awscred_refresh(s, "eu-west-1", T0);
	assert_non_null(h);
	/* one in flight at a time */
	assert_null(awscred_refresh(s, "eu-west-1", T0));
	assert_int_equal(awscred_get(s, T0, &c, why, sizeof(why)),
			 AWSCRED_WAIT);
	awscred_done(s, h, CURLE_COULDNT_CONNECT, T0 + 1);
	assert_int_equal(awscred_get(s, T0 + 1, &c, why, sizeof(why)),
			 AWSCRED_FAIL);
	check_contains(why, "STS AssumeRoleWithWebIdentity at "
		       "http://127.0.0.1:1/sts: ");
	/* no new attempt within AWSCRED_RETRY_S of the failure */
	assert_null(awscred_refresh(s, "eu-west-1",
				    T0 + AWSCRED_RETRY_S - 1));
	h = awscred_refresh(s, "eu-west-1", T0 + 1 + AWSCRED_RETRY_S);
	assert_non_null(h);
	awscred_cancel(s, h);

	/* a token file that cannot be read fails at once, naming it */
	unlink(path);
	assert_null(awscred_refresh(s, "eu-west-1", T0 + 100));
	assert_int_equal(awscred_get(s, T0 + 100, &c, why, sizeof(why)),
			 AWSCRED_FAIL);
	check_contains(why, "web identity token (AWS_WEB_IDENTITY_TOKEN_FILE)"
		       ": cannot open '/tmp/test_awscred_");
	awscred_free(s);
}

static void test_container_source(void **state)
{
	struct awscred_src *s = awscred_new();
	struct awscred c;
	char why[AWSCRED_ERR_MAX];
	CURL *h;

	(void)state;
	setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://evil.com/c", 1);
	assert_null(awscred_refresh(s, "us-east-1", T0));
	assert_int_equal(awscred_get(s, T0, &c, why, sizeof(why)),
			 AWSCRED_FAIL);
	check_contains(why, "AWS_CONTAINER_CREDENTIALS_FULL_URI must be");
	setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI",
	       "http://169.254.170.23/v1/credentials", 1);
	setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN", "bad\r\nX-Evil: 1", 1);
	assert_null(awscred_refresh(s, "us-east-1", T0 + 20));
	assert_int_equal(awscred_get(s, T0 + 20, &c, why, sizeof(why)),
			 AWSCRED_FAIL);
	check_contains(why, "holds control characters");
	setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN", "good-token", 1);
	h = awscred_refresh(s, "us-east-1", T0 + 40);
	assert_non_null(h);
	assert_int_equal(awscred_get(s, T0 + 40, &c, why, sizeof(why)),
			 AWSCRED_WAIT);
	awscred_done(s, h, CURLE_OPERATION_TIMEDOUT, T0 + 50);
	assert_int_equal(awscred_get(s, T0 + 50, &c, why, sizeof(why)),
			 AWSCRED_FAIL);
	check_contains(why, "container credentials at "
		       "http://169.254.170.23/v1/credentials: ");
	awscred_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_sts_reply),
		cmocka_unit_test(test_sts_errors),
		cmocka_unit_test(test_container_reply),
		cmocka_unit_test(test_url_allowed),
		cmocka_unit_test_setup(test_env_keys, clean_env),
		cmocka_unit_test_setup(test_nothing, clean_env),
		cmocka_unit_test_setup(test_refresh_cycle, clean_env),
		cmocka_unit_test_setup(test_container_source, clean_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
