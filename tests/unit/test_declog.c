/*
 * test_declog.c - the decision line: its text is the line `staffer serve`
 * has always written (byte for byte: the demo and log readers parse it),
 * and its JSON fields carry the same terms as numbers with the trigger's
 * identity.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cJSON.h>
#include <cmocka.h>

#include "check.h"
#include "decide.h"
#include "declog.h"
#include "log.h"

/* A decision with every optional term shown, or none. */
static void fill(struct scaler_result *r, struct decision *d,
		 struct decide_obs *o, int extras)
{
	memset(r, 0, sizeof(*r));
	memset(d, 0, sizeof(*d));
	memset(o, 0, sizeof(*o));
	r->sig.arrival_rate = 5.4;
	r->sig.arrival_forecast = 7.0712;
	r->sig.arrival_held = 5.4;
	r->sig.arrival_surge = 6.5;
	r->sig.service_time_s = 10;
	r->sig.queue_depth = 3;
	r->sig.shed_rate = 0.25;
	/* z is the arrivals' (the TTFT's Erlang C may have set b's) */
	r->sig.peakedness = 1.3125;
	r->b.peakedness = 2.5;
	r->b.busy_slots = 70.7104;
	r->b.headroom_slots = 14.3851;
	r->b.drain_slots = 1;
	r->b.boost_slots = 0;
	r->b.total_slots = 86.0955;
	r->b.active = 1;
	r->b.capped = extras;
	r->b.correction = 1.25;
	d->raw = 86;
	d->down = DECIDE_DOWN_FREE;
	d->have_feedback = extras;
	d->hold_forgot = extras;
	d->have_pool = extras;
	d->pool.ttft_token_peak = extras;
	d->pool.ttft_peakedness = 2.5;
	d->cold_s = 180;
	o->have_cold = extras;
	r->target = 86;
	r->ns = "llm";
	r->name = "chat";
	snprintf(r->metric_name, sizeof(r->metric_name), "staffer");
	r->window = extras ? "nights" : NULL;
	r->d = d;
	r->obs = o;
}

static void test_text(void **state)
{
	struct scaler_result r;
	struct decision d;
	struct decide_obs o;
	struct declog dl;
	char want[1024];
	int extras;

	(void)state;
	for (extras = 0; extras <= 1; extras++) {
		fill(&r, &d, &o, extras);
		r.floored = extras;
		declog_build(&dl, &r, "llm/chat/staffer", "prom", extras,
			     extras ? "slaMissQuery" : NULL);
		/* the format of scaler.c's log line before declog.c */
		snprintf(want, sizeof(want), "decision ref=%s lambda=%.4g "
			 "forecast=%.4g held=%.4g surge=%.4g z=%.3g W=%.4g "
			 "Q=%.4g S=%.4g "
			 "busy=%.3f headroom=%.3f drain=%.3f boost=%.3f "
			 "total=%.3f raw=%lld target=%lld active=%d down=%s "
			 "state=%s%s%s%s%s%s%s", "llm/chat/staffer", 5.4, 7.0712,
			 5.4, 6.5, 1.3125, 10.0, 3.0, 0.25, 70.7104, 14.3851,
			 1.0,
			 0.0, 86.0955, 86LL, 86LL, 1,
			 decide_down_name(DECIDE_DOWN_FREE),
			 extras ? "observed" : "memory",
			 extras ? " capped=1" : "",
			 extras ? " unknown=\"slaMissQuery\" floored=1 c=1.25 "
				  "cold=180" : "",
			 extras ? " window=" : "", extras ? "nights" : "",
			 extras ? " forgot=1" : "",
			 extras ? " zTokens=2.5" : "");
		assert_string_equal(dl.text, want);
	}
}

static void test_json(void **state)
{
	static const char *const numbers[] = {
		"lambda", "forecast", "held", "surge", "z", "W", "Q", "S",
		"busy",
		"headroom", "drain", "boost", "total", "raw", "target",
		"active", "capped", "c", "cold", "forgot", "zTokens" };
	struct scaler_result r;
	struct decision d;
	struct decide_obs o;
	struct declog dl;
	char line[LOG_JSON_MAX + 128];
	cJSON *j;
	size_t i;

	(void)state;
	fill(&r, &d, &o, 1);
	declog_build(&dl, &r, "llm/chat/staffer", "prom", 1, NULL);
	log_format_fields(line, sizeof(line), 1, "T", LOG_INFO, dl.text,
			  dl.f, dl.n);
	j = cJSON_Parse(line);
	assert_non_null(j);
	assert_string_equal(cJSON_GetObjectItem(j, "msg")->valuestring,
			    dl.text);
	assert_string_equal(cJSON_GetObjectItem(j, "namespace")->valuestring,
			    "llm");
	assert_string_equal(cJSON_GetObjectItem(j,
			    "scaledObject")->valuestring, "chat");
	assert_string_equal(cJSON_GetObjectItem(j, "trigger")->valuestring,
			    "staffer");
	assert_string_equal(cJSON_GetObjectItem(j, "backend")->valuestring,
			    "prom");
	for (i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++)
		if (!cJSON_IsNumber(cJSON_GetObjectItem(j, numbers[i]))) {
			print_error("no number '%s' in %s\n", numbers[i], line);
			fail();
		}
	assert_near(cJSON_GetObjectItem(j, "W")->valuedouble, 10, 1e-12);
	assert_near(cJSON_GetObjectItem(j, "busy")->valuedouble, 70.7104,
		    1e-9);
	assert_string_equal(cJSON_GetObjectItem(j, "window")->valuestring,
			    "nights");
	assert_string_equal(cJSON_GetObjectItem(j, "state")->valuestring,
			    "observed");
	cJSON_Delete(j);
	/* without the optional terms, their fields are absent */
	fill(&r, &d, &o, 0);
	declog_build(&dl, &r, "llm/chat/staffer", NULL, 0, NULL);
	log_format_fields(line, sizeof(line), 1, "T", LOG_INFO, dl.text,
			  dl.f, dl.n);
	j = cJSON_Parse(line);
	assert_non_null(j);
	assert_null(cJSON_GetObjectItem(j, "capped"));
	assert_null(cJSON_GetObjectItem(j, "c"));
	assert_null(cJSON_GetObjectItem(j, "cold"));
	assert_null(cJSON_GetObjectItem(j, "forgot"));
	assert_null(cJSON_GetObjectItem(j, "zTokens"));
	assert_null(cJSON_GetObjectItem(j, "backend"));
	cJSON_Delete(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
