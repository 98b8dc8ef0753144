/*
 * test_fetch.c - the fetch module's bounds (fetch.h): its per-namespace
 * queues (lanes) exist only while they have work, however many
 * namespaces callers name.
 *
 * The backend is a loopback port that is bound but not listening, so
 * every request is refused at once: the transfers are real (dispatch,
 * connection in use, completion), only quick.
 *
 * And the fetch thread's SIGPIPE: blocked, so that a write to a reset
 * connection there fails instead of killing the process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <signal.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "check.h"
#include "config.h"
#include "fetch.h"

#define NS_COUNT 3000

struct done {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t n;
};

static void on_done(void *arg, const struct fetch_answer *a, size_t n)
{
	struct done *d = arg;

	(void)a;
	(void)n;
	pthread_mutex_lock(&d->mu);
	d->n++;
	pthread_cond_signal(&d->cv);
	pthread_mutex_unlock(&d->mu);
}

/* Wait until want callbacks ran; 0, or -1 after 60 s. */
static int wait_done(struct done *d, size_t want)
{
	struct timespec until;
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 60;
	pthread_mutex_lock(&d->mu);
	while (d->n < want && rc == 0)
		rc = pthread_cond_timedwait(&d->cv, &d->mu, &until);
	rc = d->n >= want ? 0 : -1;
	pthread_mutex_unlock(&d->mu);
	return rc;
}

/* A loopback port bound and not listening (connections are refused);
 * *fd keeps it taken. */
static int refused_port(int *fd)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);

	*fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(*fd >= 0);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(*fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(*fd, (struct sockaddr *)&a, &len), 0);
	return ntohs(a.sin_port);
}

static void load(struct config *c, int port, int max_conn)
{
	char text[512], err[CONFIG_ERR_MAX];

	snprintf(text, sizeof(text), "{\"backends\":[{\"name\":\"p\","
		 "\"url\":\"http://127.0.0.1:%d\",\"maxConnections\":%d}]}",
		 port, max_conn);
	config_init(c);
	if (config_load_text(c, text, "test.json", err)) {
		print_error("%s\n", err);
		fail();
	}
}

/*
 * Every job from a namespace never seen before, each with its own query:
 * once they are answered no lane is left, and requests went out one per
 * query.  Then many namespaces asking one query at once with a single
 * connection: most of their tickets are dropped unsent (the entry is in
 * flight or answered by then), and those lanes go too.
 */
static void test_lanes_bounded(void **state)
{
	struct config c;
	struct fetch *f;
	struct fetch_stats st;
	struct done d = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
			  0 };
	char ns[64], q[64];
	int fd, port, i;

	(void)state;
	port = refused_port(&fd);
	load(&c, port, 1);
	f = fetch_new();
	assert_non_null(f);
	for (i = 0; i < NS_COUNT; i++) {
		struct fetch_query fq = { .backend = &c.backends[0], .cfg = &c,
					  .query = q };

		snprintf(ns, sizeof(ns), "tenant-%d", i);
		snprintf(q, sizeof(q), "up{n=\"%d\"}", i);
		assert_int_equal(fetch_submit(f, "caller", ns, &fq, 1, on_done, &d), 0);
	}
	assert_int_equal(wait_done(&d, NS_COUNT), 0);
	fetch_get_stats(f, &st);
	assert_int_equal(st.requests, NS_COUNT);
	assert_int_equal(st.lanes, 0);

	for (i = 0; i < NS_COUNT; i++) {
		struct fetch_query fq = { .backend = &c.backends[0], .cfg = &c,
					  .query = "up{shared=\"1\"}" };

		snprintf(ns, sizeof(ns), "other-%d", i);
		assert_int_equal(fetch_submit(f, "caller", ns, &fq, 1, on_done, &d), 0);
	}
	assert_int_equal(wait_done(&d, 2 * NS_COUNT), 0);
	fetch_get_stats(f, &st);
	assert_int_equal(st.lanes, 0);
	assert_true(st.requests < 2 * NS_COUNT);

	fetch_free(f);
	config_release(&c);
	close(fd);
}

/* A callback runs on the fetch thread: a SIGPIPE raised there (as a TLS
 * write to a reset connection raises it) must be blocked, not kill the
 * test binary with SIGPIPE's default action. */
static void on_pipe(void *arg, const struct fetch_answer *a, size_t n)
{
	sigset_t now;

	(void)a;
	(void)n;
	raise(SIGPIPE);
	pthread_sigmask(SIG_SETMASK, NULL, &now);
	if (sigismember(&now, SIGPIPE))
		on_done(arg, a, n);
}

static void test_sigpipe_blocked(void **state)
{
	struct config c;
	struct fetch *f;
	struct done d = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
			  0 };
	struct fetch_query fq = { .query = "up" };
	int fd, port;

	(void)state;
	port = refused_port(&fd);
	load(&c, port, 1);
	fq.backend = &c.backends[0];
	fq.cfg = &c;
	f = fetch_new();
	assert_non_null(f);
	assert_int_equal(fetch_submit(f, "caller", "ns", &fq, 1, on_pipe, &d),
			 0);
	assert_int_equal(wait_done(&d, 1), 0);
	fetch_free(f);
	config_release(&c);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lanes_bounded),
		cmocka_unit_test(test_sigpipe_blocked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
