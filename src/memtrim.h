/*
 * memtrim.h - the heap's free pages given back to the kernel, on a thread
 * of its own (`staffer serve`).
 *
 * glibc keeps what the process frees: the top of each heap up to
 * M_TRIM_THRESHOLD (serve sets 4 MiB, for the CPU: docs/service-bench.md)
 * and every free page inside a heap, between chunks still in use, for as
 * long as the process lives, so a burst of streams or calls left its
 * high-water mark resident: 5,000 streams opened and closed left 79 MiB
 * of anonymous memory where 20 MiB were in use.  malloc_trim(0) gives
 * every whole free page back (madvise(MADV_DONTNEED)); a page that is
 * used again costs one page fault.  Done every period_s, a trim takes the
 * arenas' locks for 0.3-2 ms at 10,000 triggers (docs/service-bench.md,
 * "Where the memory goes").
 *
 * Threading: one thread of its own, sleeping between trims; start and
 * stop from the same thread.
 */
#ifndef STAFFER_MEMTRIM_H
#define STAFFER_MEMTRIM_H

#define MEMTRIM_PERIOD_S 1.0     /* serve's period */

struct memtrim;

/* Start trimming every period_s (> 0) seconds.  NULL when the thread
 * cannot start (the process then runs without). */
struct memtrim *memtrim_start(double period_s);

/* Stop the thread and free t.  NULL is fine. */
void memtrim_stop(struct memtrim *t);

/* Trims done so far and the longest one, in seconds (for tests and the
 * benchmark's notes). */
void memtrim_stats(struct memtrim *t, unsigned long *trims,
		   double *longest_s);

#endif
