/*
 * mono.h - the monotonic clock, in seconds, shared by the I/O layers
 * (fetch, rpc, httpd, certs): intervals, deadlines and ages that a change
 * of the wall clock must not move.
 *
 * Thread-safe; never fails (CLOCK_MONOTONIC is always there on Linux).
 */
#ifndef STAFFER_MONO_H
#define STAFFER_MONO_H

/* Seconds since an arbitrary point (the boot), with nanosecond bits. */
double mono_now(void);

struct timespec;

/* *ts = now + s (s >= 0) on CLOCK_MONOTONIC, for a wait on a condition
 * variable set to that clock (pthread_condattr_setclock()). */
void mono_deadline(double s, struct timespec *ts);

#endif
