/*
 * budget.h - a server-wide bound on the bytes of requests in flight.
 *
 * gRPC caps one request message (rpc.h's RPC_RECV_MAX), not their sum:
 * 256 requests of 1 MiB at once took staffer past a 256 MiB container
 * limit.  Every call takes its request's bytes, and what they expand into
 * while staffer works on them (budget_cost()), from this budget when it
 * arrives and gives them back when it is answered (a stream: when it
 * ends); a call that does not fit is refused at once (rpc.c answers
 * RESOURCE_EXHAUSTED and drops its bytes).  One caller may hold at most
 * half of the budget, so a caller that fills its half leaves the other
 * half to the rest.  gRPC's own buffers (requests read before staffer
 * sees them) are bounded too: rpc.c gives gRPC a resource quota of
 * budget_quota() bytes, under whose pressure gRPC reads more slowly and,
 * past it, refuses streams ("Buffers full") and asks idle connections to
 * reconnect.
 *
 * Sizing: --request-budget, else a quarter of the container's memory
 * limit (memlimit.h), else BUDGET_DEFAULT.  An open stream holds its cost
 * (about 8.5 KiB; gRPC's own part of a stream measures ~12 KiB,
 * docs/service-bench.md) for its life, so one caller can keep about
 * 3,900 streams open at the chart's 256 MiB limit (a 64 MiB budget) and
 * about 7,700 without a limit.
 *
 * Threading: every function may be called from any thread (a mutex).
 */
#ifndef STAFFER_BUDGET_H
#define STAFFER_BUDGET_H

#include <stddef.h>

#define BUDGET_DEFAULT (128u << 20)  /* bytes, without a memory limit */
#define BUDGET_MIN (4u << 20)        /* bytes, at least */
#define BUDGET_SHARE 4               /* of the memory limit: a quarter */
#define BUDGET_QUOTA_FACTOR 2        /* gRPC's buffers: twice the budget */
#define BUDGET_CALL_COST 8192        /* bytes a call costs beyond its
				      * request: gRPC's call, ours, the
				      * reply */

struct budget;

/* A budget of limit bytes (>= 1).  NULL when out of memory. */
struct budget *budget_new(size_t limit);
void budget_free(struct budget *b);    /* NULL is fine */

/* What a call whose request message has len bytes costs: the message,
 * its unpacked form and copies of what it holds (about twice its size),
 * and BUDGET_CALL_COST. */
size_t budget_cost(size_t len);

/* The budget for a memory limit of mem bytes (0: none known). */
size_t budget_for_limit(size_t mem);

/*
 * gRPC's resource quota for a budget of b bytes: BUDGET_QUOTA_FACTOR
 * times it.  Measured (tests/integration/test_attack.py, 512 requests of
 * 1 MiB at once over 32 connections, 256 MiB cgroup): at the budget
 * itself gRPC reclaims often, and its GOAWAYs fail other callers' calls
 * (5 of 30 of a victim's); at twice the budget its slower reading alone
 * keeps the peak near 150-190 MB and the victim's calls all answer.
 */
size_t budget_quota(size_t b);

/* Take n bytes for caller (a key, rpc.c's; NULL is "").  0; -1 when the
 * total would pass the limit or caller would hold more than half of it
 * (then nothing is taken and the refusal is counted). */
int budget_take(struct budget *b, const char *caller, size_t n);

/* Give back n bytes that caller took. */
void budget_give(struct budget *b, const char *caller, size_t n);

struct budget_stats {
	size_t limit;             /* bytes */
	size_t used;              /* bytes taken now */
	size_t callers;           /* callers holding bytes now */
	unsigned long long refused; /* takes refused since the start */
};
void budget_get_stats(struct budget *b, struct budget_stats *out);

#endif
