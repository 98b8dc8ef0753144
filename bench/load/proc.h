/*
 * proc.h - another process's CPU time and memory, from /proc/PID/stat.
 *
 * The load client reads the server's (and its own, and the fake
 * backend's) counters before and after a measurement window: CPU time of
 * every thread, user and system, and the resident set.  The parsing is
 * staffer's own procstat_parse() (src/procstat.h), so the benchmark reads
 * the same numbers as staffer's process_* metrics.
 */
#ifndef LOAD_PROC_H
#define LOAD_PROC_H

#include <sys/types.h>

struct proc_sample {
	double cpu_s;       /* user + system CPU seconds, all threads */
	double rss_bytes;   /* resident set */
	double at;          /* monotonic seconds when read */
};

/* Read pid (0: this process) into *out.  0, or -1 when pid < 0 (not
 * known), the process is gone or /proc cannot be read (then *out is
 * zeroed). */
int proc_read(pid_t pid, struct proc_sample *out);

/* The whole machine's busy CPU time (every core, every process: user,
 * nice, system, irq, softirq, steal) from /proc/stat into out->cpu_s, so
 * that what other processes took during a window can be told apart.
 * 0, or -1. */
int proc_machine(struct proc_sample *out);

/* The CPU used between two samples of one process, as a share of one
 * core (1.0 = a core busy all the time); 0 when no time passed. */
double proc_cpu_share(const struct proc_sample *a,
		      const struct proc_sample *b);

/* The resident set of pid split as the kernel counts it in
 * /proc/PID/status: RssAnon (heap, stacks, anonymous mappings: the
 * process's own data) and RssFile (pages of mapped files, mostly shared
 * libraries' code), in bytes.  RssShmem, the third part, is left out.
 * Both are set only on success: 0, or -1. */
int proc_rss_parts(pid_t pid, double *anon, double *file);

#endif
