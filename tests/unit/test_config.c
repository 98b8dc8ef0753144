/*
 * test_config.c - the config file: the documented example, defaults,
 * lookups, --prometheus, and one case per validation error.
 *
 * Built with ASan: every error case also proves nothing leaks on the way
 * out, and each checks the config is left empty.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "check.h"
#include "config.h"

static void check_empty(const struct config *c)
{
	assert_null(c->backends);
	assert_int_equal(c->n_backends, 0);
	assert_int_equal(c->default_backend, 0);
	assert_true(c->cache_ttl_s == 20.0);
	assert_int_equal(c->max_body_bytes, 4u << 20);
}

static const char full[] =
	"{\n"
	"  \"defaultBackend\": \"prom\",\n"
	"  \"cacheTTLSeconds\": 10,\n"
	"  \"maxBodyBytes\": 8388608,\n"
	"  \"backends\": [\n"
	"    {\"name\": \"prom\",\n"
	"     \"url\": \"http://prometheus.monitoring:9090\","
	"     \"timeoutSeconds\": 2, \"auth\": {\"type\": \"none\"}},\n"
	"    {\"name\": \"mimir\",\n"
	"     \"url\": \"https://mimir.example.com/prometheus/\",\n"
	"     \"timeoutSeconds\": 2.5,\n"
	"     \"auth\": {\"type\": \"bearer\",\n"
	"              \"tokenFile\": \"/var/run/secrets/mimir/token\"},\n"
	"     \"headers\": {\"X-Scope-OrgID\": \"tenant-a\",\n"
	"                 \"X-Note\": \"a\\tb \\u00e9\"},\n"
	"     \"tls\": {\"caFile\": \"/etc/staffer/tls/ca.crt\",\n"
	"             \"certFile\": \"/etc/staffer/tls/client.crt\",\n"
	"             \"keyFile\": \"/etc/staffer/tls/client.key\"}},\n"
	"    {\"name\": \"thanos\", \"url\": \"https://thanos.example.com\",\n"
	"     \"auth\": {\"type\": \"basic\",\n"
	"              \"usernameFile\": \"/var/run/secrets/thanos/user\",\n"
	"              \"passwordFile\": \"/var/run/secrets/thanos/pass\"}},\n"
	"    {\"name\": \"amp_us-east-1.prod\",\n"
	"     \"url\": \"https://aps-workspaces.us-east-1.amazonaws.com/"
	"workspaces/ws-1\",\n"
	"     \"timeoutSeconds\": 60,\n"
	"     \"auth\": {\"type\": \"sigv4\", \"region\": \"us-east-1\"}}\n"
	"  ]\n"
	"}\n";

static void test_full_example(void **state)
{
	struct config c = CONFIG_INIT;
	char err[CONFIG_ERR_MAX] = "";
	const struct backend *b;

	assert_int_equal(config_load_text(&c, full, "full.json", err), 0);
	assert_int_equal(c.n_backends, 4);
	assert_int_equal(c.default_backend, 0);
	assert_true(c.cache_ttl_s == 10);
	assert_int_equal(c.max_body_bytes, 8388608);

	b = &c.backends[0];
	assert_string_equal(b->name, "prom");
	assert_string_equal(b->url, "http://prometheus.monitoring:9090");
	assert_int_equal(b->auth, CONFIG_AUTH_NONE);
	assert_int_equal(b->n_headers, 0);
	assert_true(b->timeout_s == 2);

	b = &c.backends[1];
	assert_string_equal(b->url, "https://mimir.example.com/prometheus");
	assert_true(b->timeout_s == 2.5);
	assert_int_equal(b->auth, CONFIG_AUTH_BEARER);
	assert_string_equal(b->bearer_token_file,
			    "/var/run/secrets/mimir/token");
	assert_int_equal(b->n_headers, 2);
	assert_string_equal(b->headers[0], "X-Scope-OrgID: tenant-a");
	assert_string_equal(b->headers[1], "X-Note: a\tb \xc3\xa9");
	assert_string_equal(b->ca_file, "/etc/staffer/tls/ca.crt");
	assert_string_equal(b->cert_file, "/etc/staffer/tls/client.crt");
	assert_string_equal(b->key_file, "/etc/staffer/tls/client.key");

	b = &c.backends[2];
	assert_int_equal(b->auth, CONFIG_AUTH_BASIC);
	assert_string_equal(b->basic_user_file,
			    "/var/run/secrets/thanos/user");
	assert_string_equal(b->basic_password_file,
			    "/var/run/secrets/thanos/pass");
	assert_null(b->ca_file);

	b = &c.backends[3];
	assert_string_equal(b->name, "amp_us-east-1.prod");
	assert_int_equal(b->auth, CONFIG_AUTH_SIGV4);
	assert_string_equal(b->sigv4_region, "us-east-1");
	assert_true(b->timeout_s == 60);

	assert_ptr_equal(config_backend(&c, NULL), &c.backends[0]);
	assert_ptr_equal(config_backend(&c, "thanos"), &c.backends[2]);
	assert_null(config_backend(&c, "Thanos"));
	assert_null(config_backend(&c, ""));
	config_release(&c);
	check_empty(&c);
	/* Release twice is harmless. */
	config_release(&c);
}

static void test_defaults(void **state)
{
	struct config c = CONFIG_INIT;
	char err[CONFIG_ERR_MAX];

	assert_int_equal(config_load_text(&c, "{\"backends\":[{\"name\":\"p\","
		"\"url\":\"HTTP://p:9090/\"}]}", NULL, err), 0);
	assert_int_equal(c.n_backends, 1);
	assert_int_equal(c.default_backend, 0);
	assert_true(c.cache_ttl_s == 20);
	assert_int_equal(c.max_body_bytes, 4u << 20);
	assert_string_equal(c.backends[0].url, "HTTP://p:9090");
	assert_true(c.backends[0].timeout_s == 2);
	assert_int_equal(c.backends[0].auth, CONFIG_AUTH_NONE);
	assert_int_equal(c.backends[0].compression, CONFIG_COMPRESS_AUTO);
	assert_true(c.backends[0].range_settle_s == CONFIG_SETTLE_DEFAULT);
	assert_ptr_equal(config_backend(&c, NULL), &c.backends[0]);
	config_release(&c);
	/* given */
	assert_int_equal(config_load_text(&c, "{\"backends\":[{\"name\":\"p\","
		"\"url\":\"http://p\",\"compression\":\"never\","
		"\"rangeSettleSeconds\":1.5},{\"name\":\"q\",\"url\":\"http://q\","
		"\"compression\":\"always\"}],\"defaultBackend\":\"p\"}", NULL,
		err), 0);
	assert_int_equal(c.backends[0].compression, CONFIG_COMPRESS_NEVER);
	assert_true(c.backends[0].range_settle_s == 1.5);
	assert_int_equal(c.backends[1].compression, CONFIG_COMPRESS_ALWAYS);
	config_release(&c);
	/* --prometheus: the defaults too */
	assert_int_equal(config_from_url(&c, "http://p", err), 0);
	assert_true(c.backends[0].range_settle_s == CONFIG_SETTLE_DEFAULT);
	assert_int_equal(c.backends[0].compression, CONFIG_COMPRESS_AUTO);
	config_release(&c);
}

static void test_default_backend(void **state)
{
	struct config c = CONFIG_INIT;
	char err[CONFIG_ERR_MAX];

	assert_int_equal(config_load_text(&c, "{\"defaultBackend\":\"b\","
		"\"backends\":[{\"name\":\"a\",\"url\":\"http://a\"},"
		"{\"name\":\"b\",\"url\":\"http://b\"}],"
		"\"cacheTTLSeconds\":0,\"maxBodyBytes\":1024}", "x", err), 0);
	assert_int_equal(c.default_backend, 1);
	assert_string_equal(config_backend(&c, NULL)->url, "http://b");
	assert_string_equal(config_backend(&c, "a")->url, "http://a");
	assert_true(c.cache_ttl_s == 0);
	assert_int_equal(c.max_body_bytes, 1024);
	config_release(&c);
}

static void test_empty_config_lookup(void **state)
{
	struct config c;

	config_init(&c);
	check_empty(&c);
	assert_null(config_backend(&c, NULL));
	assert_null(config_backend(&c, "default"));
	config_release(&c);
}

static void test_from_url(void **state)
{
	struct config c = CONFIG_INIT;
	char err[CONFIG_ERR_MAX];
	const struct backend *b;

	assert_int_equal(config_from_url(&c, "http://prom:9090/", err), 0);
	b = config_backend(&c, NULL);
	assert_non_null(b);
	assert_ptr_equal(b, config_backend(&c, "default"));
	assert_string_equal(b->name, "default");
	assert_string_equal(b->url, "http://prom:9090");
	assert_true(b->timeout_s == 2);
	assert_int_equal(b->auth, CONFIG_AUTH_NONE);
	assert_int_equal(b->n_headers, 0);
	config_release(&c);

	assert_int_equal(config_from_url(&c, "ftp://prom", err), -1);
	assert_string_equal(err, "--prometheus: 'ftp://prom' is not allowed; "
			    "expected an http:// or https:// base URL such "
			    "as http://prometheus.monitoring:9090");
	check_empty(&c);
	assert_int_equal(config_from_url(&c, "http://prom:9090 ", err), -1);
	check_contains(err, "contains a space");
	assert_int_equal(config_from_url(&c, "https://", err), -1);
	check_contains(err, "has no host");
	assert_int_equal(config_from_url(&c, "http://p/?q=1", err), -1);
	check_contains(err, "query or fragment");
	assert_int_equal(config_from_url(&c, "", err), -1);
	assert_int_equal(config_from_url(&c, NULL, err), -1);
	check_empty(&c);
}

/* The message for the brief's example, word for word. */
static void test_message_format(void **state)
{
	struct config c = CONFIG_INIT;
	char err[CONFIG_ERR_MAX];

	assert_int_equal(config_load_text(&c, "{\"defaultBackend\":\"a\","
		"\"backends\":[{\"name\":\"a\",\"url\":\"http://a\"},"
		"{\"name\":\"b\",\"url\":\"http://b\",\"timeoutSeconds\":0}]}",
		"/etc/staffer/config.json", err), -1);
	assert_string_equal(err, "config /etc/staffer/config.json: "
			    "backends[1].timeoutSeconds: '0' is out of range; "
			    "allowed: a number of seconds from 0.1 to 60");
	check_empty(&c);
	assert_int_equal(config_load_text(&c, "{\"backend\":[]}", "c.json",
					  err), -1);
	assert_string_equal(err, "config c.json: unknown field 'backend'; "
			    "did you mean 'backends'?");
	check_empty(&c);
}

/* One backend "a" at http://h with extra fields f. */
#define B(f) "{\"backends\":[{\"name\":\"a\",\"url\":\"http://h\"," f "}]}"
/* The same at https://h. */
#define BS(f) "{\"backends\":[{\"name\":\"a\",\"url\":\"https://h\"," f "}]}"
/* One backend whose url is u. */
#define U(u) "{\"backends\":[{\"name\":\"a\",\"url\":" u "}]}"
/* One backend whose name is n. */
#define N(n) "{\"backends\":[{\"name\":" n ",\"url\":\"http://h\"}]}"

struct bad {
	const char *text;
	const char *says;
};

static const struct bad bad[] = {
	/* the document */
	{ "", "config t.json: is empty" },
	{ " \n\t", "is empty" },
	{ "{\"backends\": [}", "not valid JSON: syntax error at line 1, "
	  "column 15" },
	{ "{\n  \"backends\": [\n    {\"name\": \"a\",}\n  ]\n}",
	  "syntax error at line 3, column" },
	{ "{\"backends\": [", "not valid JSON" },
	{ "{} x", "unexpected text after the end at line 1, column 4" },
	{ "[]", "expected a JSON object, got an array" },
	{ "null", "expected a JSON object, got null" },
	/* top-level fields */
	{ "{\"zzz\":1}", "unknown field 'zzz'; allowed: defaultBackend, "
	  "cacheTTLSeconds, maxBodyBytes, maxStates, maxStatesPerNamespace, "
	  "maxStatesPerCaller, clients, backends" },
	{ "{\"maxStates\":1000,\"maxStatesPerCaller\":2000}",
	  "maxStatesPerCaller: 2000 is more than maxStates 1000" },
	/* clients */
	{ "{\"clients\":{}}", "clients: expected an array of clients, got "
	  "an object" },
	{ "{\"clients\":[]}", "clients: has 0 entries; allowed: 1 to 256" },
	{ "{\"clients\":[{}]}", "clients[0]: no identity; allowed: an object "
	  "with exactly one of 'uri'" },
	{ "{\"clients\":[{\"cn\":\"a\",\"dns\":\"b\"}]}",
	  "clients[0].cn: a client has one identity" },
	{ "{\"clients\":[{\"uri\":\"spiffe://x y\"}]}",
	  "clients[0].uri: 'spiffe://x y' is not allowed; allowed: 1 to 1024 "
	  "printable ASCII characters without spaces" },
	{ "{\"clients\":[{\"cn\":\"a\",\"namespace\":[\"x\"]}]}",
	  "clients[0]: unknown field 'namespace'; did you mean "
	  "'namespaces'?" },
	{ "{\"clients\":[{\"cn\":\"a\",\"namespaces\":[\"Team\"]}]}",
	  "clients[0].namespaces[0]: 'Team' is not allowed" },
	{ "{\"maxStates\":10}", "maxStates: '10' is out of range; allowed: "
	  "a whole number from 100 to 1000000" },
	{ "{\"maxStates\":1000,\"maxStatesPerNamespace\":2000}",
	  "maxStatesPerNamespace: 2000 is more than maxStates 1000" },
	{ "{\"maxStatesPerNamespace\":100.5}", "is not a whole number" },
	{ "{\"cacheTTL\":1}", "did you mean 'cacheTTLSeconds'?" },
	{ "{\"maxbodybytes\":1}", "did you mean 'maxBodyBytes'?" },
	{ "{\"default_backend\":1}", "did you mean 'defaultBackend'?" },
	{ "{\"\\u001b[2J\":1}", "unknown field '?[2J'" },
	{ "{\"cacheTTLSeconds\":1,\"cacheTTLSeconds\":2}",
	  "field 'cacheTTLSeconds' is given twice" },
	{ "{}", "missing field 'backends'; expected an array of 1 to 64" },
	{ "{\"backends\":{}}", "backends: expected an array of 1 to 64 "
	  "backends, got an object" },
	{ "{\"backends\":[]}", "backends: has 0 backends; allowed: 1 to 64" },
	{ "{\"cacheTTLSeconds\":-1,\"backends\":[]}",
	  "cacheTTLSeconds: '-1' is out of range; allowed: a number of "
	  "seconds from 0 to 300" },
	{ "{\"cacheTTLSeconds\":300.5}", "'300.5' is out of range" },
	{ "{\"cacheTTLSeconds\":\"5\"}", "cacheTTLSeconds: expected a "
	  "number, got a string; allowed: a number of seconds" },
	{ "{\"maxBodyBytes\":1023}", "maxBodyBytes: '1023' is out of range; "
	  "allowed: a whole number of bytes from 1024 to 67108864 (64 MiB)" },
	{ "{\"maxBodyBytes\":67108865}", "'67108865' is out of range" },
	{ "{\"maxBodyBytes\":1e999}", "'inf' is out of range" },
	{ "{\"maxBodyBytes\":2048.5}", "'2048.5' is not a whole number" },
	{ "{\"maxBodyBytes\":true}", "expected a number, got a boolean" },
	{ "{\"defaultBackend\":\"c\",\"backends\":[{\"name\":\"a\",\"url\":"
	  "\"http://a\"},{\"name\":\"b\",\"url\":\"http://b\"}]}",
	  "defaultBackend: 'c' names no backend; allowed: one of 'a', 'b'" },
	{ "{\"backends\":[{\"name\":\"a\",\"url\":\"http://a\"},"
	  "{\"name\":\"b\",\"url\":\"http://b\"}]}",
	  "missing field 'defaultBackend'; required with several backends; "
	  "allowed: one of 'a', 'b'" },
	{ "{\"defaultBackend\":1,\"backends\":[{\"name\":\"a\",\"url\":"
	  "\"http://a\"}]}", "defaultBackend: expected a string, got a "
	  "number" },
	/* backends[i] */
	{ "{\"backends\":[\"http://h\"]}", "backends[0]: expected an "
	  "object, got a string" },
	{ "{\"backends\":[{\"url\":\"http://h\"}]}",
	  "backends[0]: missing field 'name'; expected 1 to 63 characters" },
	{ N("\"a b\""), "backends[0].name: 'a b' is not allowed; allowed: "
	  "1 to 63 characters from A-Z a-z 0-9 _ . -" },
	{ N("\"a/b\""), "'a/b' is not allowed" },
	{ N("\"\""), "backends[0].name: is empty" },
	{ N("\"0123456789012345678901234567890123456789012345678901234567890"
	    "123\""), "backends[0].name: is longer than 63 bytes" },
	{ N("7"), "backends[0].name: expected a string, got a number" },
	{ "{\"backends\":[{\"name\":\"a\",\"url\":\"http://a\"},"
	  "{\"name\":\"a\",\"url\":\"http://b\"}]}",
	  "backends[1].name: 'a' is already the name of backends[0]" },
	{ "{\"backends\":[{\"name\":\"a\"}]}",
	  "backends[0]: missing field 'url'" },
	{ U("\"ftp://h\""), "backends[0].url: 'ftp://h' is not allowed; "
	  "expected an http:// or https:// base URL" },
	{ U("\"prometheus:9090\""), "'prometheus:9090' is not allowed" },
	{ U("\"http://h \""), "'http://h ' contains a space" },
	{ U("\"http://h\\n\""), "'http://h?' contains a space, a control" },
	{ U("\"http://\""), "'http://' has no host" },
	{ U("\"http:///x\""), "has no host" },
	{ U("\"http://:80\""), "'http://:80' has no host" },
	/* a password in the URL: refused, and not shown */
	{ U("\"http://alice:s3cret@h:9090\""), "backends[0].url: holds user "
	  "information (user:password@); secrets never go in a URL" },
	{ U("\"http://alice@h\""), "holds user information" },
	/* \u0000 would end the string: 'http://a' would be loaded */
	{ U("\"http://a\\u0000 evil\""), "holds a NUL character (\\u0000) "
	  "at line 1, column 41" },
	{ "{\"backends\":[{\"name\":\"a\",\"url\":\"http://h\",\"headers\":"
	  "{\"X-Scope-OrgID\":\"a\\u0000b\"}}]}", "holds a NUL character" },
	{ U("\"http://h/?a=1\""), "has a query or fragment" },
	{ U("\"http://h/#x\""), "has a query or fragment" },
	{ U("[]"), "backends[0].url: expected a string, got an array" },
	{ B("\"timeout\":1"), "backends[0]: unknown field 'timeout'; did "
	  "you mean 'timeoutSeconds'?" },
	{ B("\"URL\":\"x\""), "did you mean 'url'?" },
	{ B("\"header\":{}"), "did you mean 'headers'?" },
	{ B("\"name\":\"b\""), "backends[0]: field 'name' is given twice" },
	{ B("\"timeoutSeconds\":0.05"), "'0.05' is out of range" },
	{ B("\"timeoutSeconds\":60.001"), "'60.001' is out of range" },
	{ B("\"timeoutSeconds\":\"2s\""), "backends[0].timeoutSeconds: "
	  "expected a number, got a string" },
	/* auth */
	{ B("\"auth\":\"bearer\""), "backends[0].auth: expected an object, "
	  "got a string" },
	{ B("\"auth\":{}"), "backends[0].auth: missing field 'type'; "
	  "expected one of none, bearer, basic, sigv4" },
	{ B("\"auth\":{\"type\":\"oauth\"}"), "backends[0].auth.type: "
	  "'oauth' is not allowed; allowed: none, bearer, basic, sigv4" },
	{ B("\"auth\":{\"type\":\"bearer\"}"), "backends[0].auth: missing "
	  "field 'tokenFile'; type 'bearer' takes tokenFile" },
	{ B("\"auth\":{\"type\":\"bearer\",\"tokenFile\":\"/t\","
	    "\"region\":\"x\"}"), "backends[0].auth.region: not used with "
	  "type 'bearer', which takes tokenFile" },
	{ B("\"auth\":{\"type\":\"none\",\"tokenFile\":\"/t\"}"),
	  "auth.tokenFile: not used with type 'none'" },
	{ B("\"auth\":{\"type\":\"bearer\",\"tokenfile\":\"/t\"}"),
	  "backends[0].auth: unknown field 'tokenfile'; did you mean "
	  "'tokenFile'?" },
	{ B("\"auth\":{\"type\":\"bearer\",\"tokenFile\":\"\"}"),
	  "auth.tokenFile: is empty; expected a file path" },
	{ B("\"auth\":{\"type\":\"bearer\",\"tokenFile\":\"/t\\n\"}"),
	  "auth.tokenFile: contains a control character" },
	{ B("\"auth\":{\"type\":\"bearer\",\"tokenFile\":[]}"),
	  "auth.tokenFile: expected a string, got an array" },
	{ B("\"auth\":{\"type\":\"basic\",\"usernameFile\":\"/u\"}"),
	  "missing field 'passwordFile'; type 'basic' takes usernameFile "
	  "and passwordFile" },
	{ B("\"auth\":{\"type\":\"sigv4\"}"), "missing field 'region'" },
	{ B("\"auth\":{\"type\":\"sigv4\",\"region\":\"US-EAST-1\"}"),
	  "auth.region: 'US-EAST-1' is not allowed; expected an AWS region "
	  "such as us-east-1" },
	{ B("\"auth\":{\"type\":\"sigv4\",\"region\":\"us_east_1\"}"),
	  "'us_east_1' is not allowed" },
	{ B("\"auth\":{\"type\":\"sigv4\",\"region\":\"\"}"),
	  "auth.region: is empty" },
	/* a path libcurl's SigV4 signs unlike AWS's (checked with
	 * botocore): refused, as every request would be */
	{ "{\"backends\":[{\"name\":\"a\",\"url\":\"https://h/a:b\","
	  "\"auth\":{\"type\":\"sigv4\",\"region\":\"us-east-1\"}}]}",
	  "backends[0].url: with 'auth' type sigv4 the path may hold only" },
	{ "{\"backends\":[{\"name\":\"a\",\"url\":\"https://h/a//b\","
	  "\"auth\":{\"type\":\"sigv4\",\"region\":\"us-east-1\"}}]}",
	  "single '/'" },
	{ "{\"backends\":[{\"name\":\"a\",\"url\":\"https://h/a%20b\","
	  "\"auth\":{\"type\":\"sigv4\",\"region\":\"us-east-1\"}}]}",
	  "the path may hold only" },
	/* headers */
	{ B("\"headers\":[]"), "backends[0].headers: expected an object, "
	  "got an array" },
	{ B("\"headers\":{\"X Scope\":\"a\"}"), "backends[0].headers: "
	  "'X Scope' is not a valid header name" },
	{ B("\"headers\":{\"X-A:\":\"a\"}"), "'X-A:' is not a valid header" },
	{ B("\"headers\":{\"\":\"a\"}"), "'' is not a valid header name" },
	{ B("\"headers\":{\"X-A\":\"a\\r\\nX-Evil: 1\"}"),
	  "backends[0].headers.X-A: value contains a control character such "
	  "as CR or LF" },
	{ B("\"headers\":{\"X-A\":\"a\\nb\"}"), "control character" },
	{ B("\"headers\":{\"X-A\":\"a\\u007f\"}"), "control character" },
	{ B("\"headers\":{\"X-A\":1}"), "headers.X-A: expected a string, got "
	  "a number" },
	{ B("\"headers\":{\"X-A\":\"\"}"), "headers.X-A: value must be 1 to "
	  "4096 bytes" },
	{ B("\"headers\":{\"X-A\":\"1\",\"x-a\":\"2\"}"),
	  "header 'x-a' is given twice" },
	{ B("\"auth\":{\"type\":\"bearer\",\"tokenFile\":\"/t\"},"
	    "\"headers\":{\"authorization\":\"Bearer x\"}"),
	  "headers.authorization: not allowed with an auth type" },
	{ B("\"headers\":{\"H1\":\"v\",\"H2\":\"v\",\"H3\":\"v\",\"H4\":\"v\","
	    "\"H5\":\"v\",\"H6\":\"v\",\"H7\":\"v\",\"H8\":\"v\",\"H9\":\"v\","
	    "\"H10\":\"v\",\"H11\":\"v\",\"H12\":\"v\",\"H13\":\"v\","
	    "\"H14\":\"v\",\"H15\":\"v\",\"H16\":\"v\",\"H17\":\"v\"}"),
	  "headers: has 17 headers; allowed: at most 16" },
	/* tls */
	{ BS("\"tls\":true"), "backends[0].tls: expected an object, got a "
	  "boolean" },
	{ B("\"tls\":{\"caFile\":\"/ca\"}"), "backends[0].tls: set, but the "
	  "url is http://" },
	{ BS("\"tls\":{\"keyFile\":\"/k\"}"), "tls: keyFile is set without "
	  "certFile" },
	{ BS("\"tls\":{\"ca\":\"/k\"}"), "backends[0].tls: unknown field "
	  "'ca'; did you mean 'caFile'?" },
	{ BS("\"tls\":{\"caFile\":\"\"}"), "tls.caFile: is empty" },
	/* namespaces and connections */
	{ B("\"namespaces\":\"team-a\""), "backends[0].namespaces: expected "
	  "an array of namespaces, got a string" },
	{ B("\"namespaces\":[]"), "namespaces: has 0 entries; allowed: 1 to "
	  "256 (leave the field out to allow every namespace)" },
	{ B("\"namespaces\":[\"Team_A\"]"), "backends[0].namespaces[0]: "
	  "'Team_A' is not allowed; allowed: a namespace name" },
	{ B("\"namespaces\":[\"a\",7]"), "namespaces[1]: expected a string, "
	  "got a number" },
	{ B("\"namespaces\":[\"a\\nb\"]"), "'a?b' is not allowed" },
	{ B("\"maxConnections\":0"), "backends[0].maxConnections: '0' is out "
	  "of range; allowed: a whole number from 1 to 256" },
	{ B("\"maxConnections\":4,\"maxConnectionsPerNamespace\":5"),
	  "maxConnectionsPerNamespace: 5 is more than maxConnections 4" },
	{ B("\"namespace\":[\"a\"]"), "did you mean 'namespaces'?" },
	/* how replies are fetched */
	{ B("\"compression\":\"gzip\""), "backends[0].compression: 'gzip' is "
	  "not allowed; allowed: 'auto', 'always' or 'never'" },
	{ B("\"compression\":true"), "backends[0].compression: expected a "
	  "string, got a boolean" },
	{ B("\"rangeSettleSeconds\":0"), "backends[0].rangeSettleSeconds: '0' "
	  "is out of range; allowed: a number of seconds from 1 to 86400" },
	{ B("\"rangeSettleSeconds\":86401"), "out of range" },
	{ B("\"rangeSettleSeconds\":\"60\""), "expected a number, got a "
	  "string" },
	{ B("\"rangeSettle\":60"), "did you mean 'rangeSettleSeconds'?" },
};

/* namespaces, per-backend connections and the state quotas: values,
 * defaults, and who may use which backend. */
static void test_tenancy(void **state)
{
	struct config c = CONFIG_INIT, *s;
	char err[CONFIG_ERR_MAX];
	const struct backend *a, *open;

	(void)state;
	if (config_load_text(&c, "{\"defaultBackend\":\"open\","
			     "\"maxStates\":5000,\"backends\":["
			     "{\"name\":\"a\",\"url\":\"http://a\","
			     "\"namespaces\":[\"team-a\",\"ml-*\"],"
			     "\"maxConnections\":5},"
			     "{\"name\":\"open\",\"url\":\"http://b\"}]}",
			     "t.json", err)) {
		print_error("%s\n", err);
		fail();
	}
	assert_int_equal(c.max_states, 5000);
	/* the default quota, capped by a smaller maxStates */
	assert_int_equal(c.max_states_ns, 5000);
	a = config_backend(&c, "a");
	open = config_backend(&c, "open");
	assert_int_equal(a->max_connections, 5);
	assert_int_equal(a->max_connections_ns, 2);
	assert_int_equal(open->max_connections, 16);
	assert_int_equal(open->max_connections_ns, 8);
	assert_true(config_namespace_ok(a, "team-a"));
	assert_true(config_namespace_ok(a, "ml-serving"));
	assert_false(config_namespace_ok(a, "team-b"));
	assert_false(config_namespace_ok(a, "team-a2"));
	assert_false(config_namespace_ok(a, "xml-1"));
	assert_true(config_namespace_ok(open, "anything"));
	/* one caller: half of maxStates by default */
	assert_int_equal(c.max_states_caller, 2500);
	assert_int_equal(c.n_clients, 0);

	/* shared: the last reference frees it (ASan checks) */
	s = config_share(&c);
	assert_non_null(s);
	assert_null(c.backends);
	assert_ptr_equal(config_hold(s), s);
	config_drop(s);
	assert_int_equal(s->n_backends, 2);
	config_drop(s);
	/* a config that was not shared is not counted */
	assert_ptr_equal(config_hold(&c), &c);
	config_drop(&c);
	config_drop(NULL);
}

/* The mTLS allowlist: the first entry whose identity the certificate
 * has, each kind compared on its own (a CN is never a URI SAN), DNS
 * ignoring case; and the namespaces each may claim. */
static void test_clients(void **state)
{
	struct config c = CONFIG_INIT;
	char err[CONFIG_ERR_MAX];
	const struct config_client *cl;
	const char *uri[] = { "spiffe://cluster.local/ns/keda/sa/keda-operator" };
	const char *dns[] = { "Tenant-B.example" };
	struct config_peer keda = { uri, 1, NULL, 0, "keda-operator" };
	struct config_peer b = { NULL, 0, dns, 1, "tenant-b-pod" };
	struct config_peer cn_only = { NULL, 0, NULL, 0,
		"spiffe://cluster.local/ns/keda/sa/keda-operator" };

	(void)state;
	if (config_load_text(&c, "{\"clients\":["
			     "{\"uri\":\"spiffe://cluster.local/ns/keda/sa/"
			     "keda-operator\"},"
			     "{\"dns\":\"tenant-b.example\",\"namespaces\":"
			     "[\"tenant-b\",\"tenant-b-*\"]}],"
			     "\"maxStatesPerCaller\":300,"
			     "\"backends\":[{\"name\":\"p\",\"url\":"
			     "\"http://p\"}]}", "t.json", err)) {
		print_error("%s\n", err);
		fail();
	}
	assert_int_equal(c.n_clients, 2);
	assert_int_equal(c.max_states_caller, 300);
	cl = config_client(&c, &keda);
	assert_non_null(cl);
	assert_int_equal(cl->kind, CONFIG_ID_URI);
	assert_true(config_client_ns_ok(cl, "team-a"));
	cl = config_client(&c, &b);
	assert_non_null(cl);
	assert_string_equal(config_id_kind_name(cl->kind), "dns");
	assert_true(config_client_ns_ok(cl, "tenant-b"));
	assert_true(config_client_ns_ok(cl, "tenant-b-2"));
	assert_false(config_client_ns_ok(cl, "team-a"));
	assert_null(config_client(&c, &cn_only));
	config_release(&c);
}

static void test_errors(void **state)
{
	struct config c = CONFIG_INIT;
	char err[CONFIG_ERR_MAX];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (config_load_text(&c, bad[i].text, "t.json", err) != -1 ||
		    !strstr(err, bad[i].says) ||
		    strncmp(err, "config t.json: ", 15)) {
			print_error("case %zu: %s\n  got '%s'\n  want '%s'\n",
				    i, bad[i].text, err, bad[i].says);
			fail();
		}
		check_empty(&c);
	}
}

/* The first ```json block of docs/config.md must load as it is. */
static void test_docs_example(void **state)
{
	struct config c = CONFIG_INIT;
	char err[CONFIG_ERR_MAX], *text, *start, *end;
	FILE *f = fopen("docs/config.md", "r");
	size_t n;

	if (!f)
		skip();
	text = calloc(1, 1 << 17);
	assert_non_null(text);
	n = fread(text, 1, (1 << 17) - 1, f);
	fclose(f);
	assert_true(n > 0);
	start = strstr(text, "```json\n");
	assert_non_null(start);
	start += 8;
	end = strstr(start, "```");
	assert_non_null(end);
	*end = '\0';
	if (config_load_text(&c, start, "docs/config.md", err)) {
		print_error("%s\n", err);
		fail();
	}
	assert_true(c.n_backends >= 3);
	config_release(&c);
	free(text);
}

static void test_many_backends(void **state)
{
	struct config c = CONFIG_INIT;
	char err[CONFIG_ERR_MAX], *text;
	size_t cap = 64 * 1024, n;
	int i, count;

	text = malloc(cap);
	assert_non_null(text);
	for (count = CONFIG_BACKENDS_MAX; count <= CONFIG_BACKENDS_MAX + 1;
	     count++) {
		n = (size_t)snprintf(text, cap, "{\"defaultBackend\":\"b7\","
				     "\"backends\":[");
		for (i = 0; i < count; i++)
			n += (size_t)snprintf(text + n, cap - n,
				"%s{\"name\":\"b%d\",\"url\":\"http://h%d\"}",
				i ? "," : "", i, i);
		snprintf(text + n, cap - n, "]}");
		if (count == CONFIG_BACKENDS_MAX) {
			assert_int_equal(config_load_text(&c, text, "m",
							  err), 0);
			assert_int_equal(c.n_backends, CONFIG_BACKENDS_MAX);
			assert_string_equal(config_backend(&c, NULL)->url,
					    "http://h7");
			assert_string_equal(config_backend(&c, "b63")->url,
					    "http://h63");
			config_release(&c);
		} else {
			assert_int_equal(config_load_text(&c, text, "m",
							  err), -1);
			check_contains(err, "backends: has 65 backends; "
				       "allowed: 1 to 64");
			check_empty(&c);
		}
	}
	free(text);
}

/* A failure late in the file frees what earlier backends allocated. */
static void test_late_error_frees(void **state)
{
	struct config c = CONFIG_INIT;
	char err[CONFIG_ERR_MAX];

	assert_int_equal(config_load_text(&c, "{\"backends\":["
		"{\"name\":\"a\",\"url\":\"https://a\",\"auth\":{\"type\":"
		"\"basic\",\"usernameFile\":\"/u\",\"passwordFile\":\"/p\"},"
		"\"headers\":{\"A\":\"1\",\"B\":\"2\"},\"tls\":{\"caFile\":"
		"\"/ca\",\"certFile\":\"/c\",\"keyFile\":\"/k\"}},"
		"{\"name\":\"b\",\"url\":\"https://b\",\"auth\":{\"type\":"
		"\"sigv4\",\"region\":\"eu-west-1\"},\"headers\":{\"A\":\"1\","
		"\"B\":\"2\\r\"}}]}", "late", err), -1);
	check_contains(err, "backends[1].headers.B: value contains a "
		       "control character");
	check_empty(&c);
}

static void test_deep_nesting(void **state)
{
	struct config c = CONFIG_INIT;
	char err[CONFIG_ERR_MAX], *text;
	size_t n = 100000;

	text = malloc(n + 1);
	assert_non_null(text);
	memset(text, '[', n);
	text[n] = '\0';
	assert_int_equal(config_load_text(&c, text, "deep", err), -1);
	check_contains(err, "not valid JSON");
	check_empty(&c);
	free(text);
}

static void test_text_too_large(void **state)
{
	struct config c = CONFIG_INIT;
	char err[CONFIG_ERR_MAX], *text;

	text = malloc(CONFIG_FILE_MAX + 2);
	assert_non_null(text);
	memset(text, ' ', CONFIG_FILE_MAX + 1);
	text[CONFIG_FILE_MAX + 1] = '\0';
	assert_int_equal(config_load_text(&c, text, "big", err), -1);
	assert_string_equal(err, "config big: is larger than 1048576 bytes");
	check_empty(&c);
	free(text);
}

/* Write n bytes to a fresh temporary file; returns its path. */
static char *tmp_file(const void *data, size_t n)
{
	char *path = strdup("/tmp/staffer-config-XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, n), (ssize_t)n);
	close(fd);
	return path;
}

static void test_files(void **state)
{
	struct config c = CONFIG_INIT;
	char err[CONFIG_ERR_MAX], *path, *big;
	const char *bad_url;

	path = tmp_file(full, sizeof(full) - 1);
	assert_int_equal(config_load_file(&c, path, err), 0);
	assert_int_equal(c.n_backends, 4);
	config_release(&c);
	unlink(path);
	free(path);

	/* Errors name the file. */
	bad_url = "{\"backends\":[{\"name\":\"a\",\"url\":\"x\"}]}";
	path = tmp_file(bad_url, strlen(bad_url));
	assert_int_equal(config_load_file(&c, path, err), -1);
	assert_true(strncmp(err, "config /tmp/staffer-config-", 27) == 0);
	check_contains(err, ": backends[0].url: 'x' is not allowed");
	check_empty(&c);
	unlink(path);
	free(path);

	path = tmp_file("{\"backends\"\0:[]}", 16);
	assert_int_equal(config_load_file(&c, path, err), -1);
	check_contains(err, "contains a NUL byte");
	unlink(path);
	free(path);

	path = tmp_file("", 0);
	assert_int_equal(config_load_file(&c, path, err), -1);
	check_contains(err, ": is empty");
	unlink(path);
	free(path);

	big = malloc(CONFIG_FILE_MAX + 1);
	assert_non_null(big);
	memset(big, ' ', CONFIG_FILE_MAX + 1);
	path = tmp_file(big, CONFIG_FILE_MAX + 1);
	free(big);
	assert_int_equal(config_load_file(&c, path, err), -1);
	check_contains(err, "is larger than 1048576 bytes");
	unlink(path);
	free(path);

	assert_int_equal(config_load_file(&c, "/nonexistent/staffer.json",
					  err), -1);
	assert_string_equal(err, "config /nonexistent/staffer.json: cannot "
			    "open: No such file or directory");
	assert_int_equal(config_load_file(&c, "/tmp", err), -1);
	check_contains(err, "config /tmp: is not a regular file");
	check_empty(&c);
	{
		/* a FIFO with no writer: refused at once, never a hang
		 * (SIGHUP reloads run on the gRPC thread) */
		char fifo[] = "/tmp/staffer-test-fifo-XXXXXX";
		int fd = mkstemp(fifo);

		assert_true(fd >= 0);
		close(fd);
		unlink(fifo);
		assert_int_equal(mkfifo(fifo, 0600), 0);
		assert_int_equal(config_load_file(&c, fifo, err), -1);
		check_contains(err, "is not a regular file (a FIFO");
		check_empty(&c);
		unlink(fifo);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_example),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_default_backend),
		cmocka_unit_test(test_empty_config_lookup),
		cmocka_unit_test(test_from_url),
		cmocka_unit_test(test_message_format),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_tenancy),
		cmocka_unit_test(test_clients),
		cmocka_unit_test(test_docs_example),
		cmocka_unit_test(test_many_backends),
		cmocka_unit_test(test_late_error_frees),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_text_too_large),
		cmocka_unit_test(test_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
