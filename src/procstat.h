/*
 * procstat.h - the process's own CPU time, memory, file descriptors and
 * start time, for the process_* metrics every Prometheus client exports
 * (stats.h renders them with the standard names).
 *
 * Read from Linux's /proc/self/stat, /proc/self/status (the anonymous
 * part of RSS), /proc/stat (the boot time), /proc/self/fd and
 * getrlimit(2) at each scrape: a few small reads, no state, no
 * allocation.  Thread-safe.
 */
#ifndef STAFFER_PROCSTAT_H
#define STAFFER_PROCSTAT_H

#include <stddef.h>

struct procstat {
	double cpu_seconds;      /* user + system CPU time */
	double resident_bytes;   /* RSS */
	double anon_bytes;       /* of it, anonymous (RssAnon: heap, stacks,
				  * arenas: the process's own data, not the
				  * libraries' pages); -1 when unknown */
	double virtual_bytes;    /* VSZ */
	double open_fds;         /* entries of /proc/self/fd */
	double max_fds;          /* RLIMIT_NOFILE soft limit */
	double start_time;       /* Unix seconds the process started */
};

/*
 * Fill *out for this process.  0 on success; -1 when /proc cannot be
 * read (not Linux, or /proc not mounted), with *out zeroed: the caller
 * then leaves the metrics out.
 */
int procstat_read(struct procstat *out);

/*
 * The pure part, for tests: parse the text of a /proc/PID/stat line
 * (len bytes, NUL-terminated or not) with the clock ticks per second,
 * the page size and the boot time (Unix seconds) into the CPU, memory
 * and start time fields of *out.  0, or -1 (out untouched) when the
 * text is not such a line.  The command name may hold any byte,
 * spaces and ')' included: the fields start after the last ')'.
 */
int procstat_parse(const char *text, size_t len, long ticks,
		   long page_size, double boot_time, struct procstat *out);

/*
 * The pure part of anon_bytes, for tests: the "RssAnon:  N kB" line of
 * the text of a /proc/PID/status (len bytes) as bytes in *out.  0, or -1
 * (out untouched) when there is no such line (kernels before 4.5) or it
 * is malformed.
 */
int procstat_parse_anon(const char *text, size_t len, double *out);

/*
 * The boot time (Unix seconds) from the "btime" line of path (/proc/stat,
 * or a copy in tests), or -1 when the file cannot be read or has no such
 * line in its first 16 MiB.  Reads line by line in a fixed buffer, so a
 * host with thousands of CPUs or interrupts (a line each, or a number each
 * before btime) costs no memory.
 */
double procstat_boot_time(const char *path);

#endif
