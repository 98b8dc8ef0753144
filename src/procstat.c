/*
 * procstat.c - see procstat.h.  Field numbers are those of proc(5):
 * 14 utime, 15 stime, 22 starttime (in clock ticks since boot), 23 vsize
 * (bytes), 24 rss (pages).
 */
#include "procstat.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define PROCSTAT_TEXT_MAX 4096   /* one /proc/self/stat line fits */
#define PROCSTAT_FIELDS 24       /* the last field read */
#define PROCSTAT_LINE_MAX 64     /* of a /proc/stat line, what is kept:
				  * "btime" and its number fit */
#define PROCSTAT_STAT_MAX (16u << 20) /* bytes of /proc/stat read at most */
#define PROCSTAT_STATUS_MAX 8192 /* /proc/self/status fits (about 1.5 KB) */

/* Read at most size - 1 bytes of path into buf, NUL-terminated.  The
 * length, or -1. */
static ssize_t procstat_slurp(const char *path, char *buf, size_t size)
{
	ssize_t n, got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((size_t)got < size - 1) {
		n = read(fd, buf + got, size - 1 - (size_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}

/* line (NUL-terminated) is "btime N" with N whole seconds after 1970:
 * 0 and *boot = N; else -1, *boot untouched. */
static int procstat_btime(const char *line, double *boot)
{
	const char *p;
	char *end;
	long long v;

	if (strncmp(line, "btime ", 6))
		return -1;
	p = line + 6;
	if (*p < '0' || *p > '9')
		return -1;
	errno = 0;
	v = strtoll(p, &end, 10);
	if (errno || v <= 0 || (*end && *end != ' '))
		return -1;
	*boot = (double)v;
	return 0;
}

int procstat_parse(const char *text, size_t len, long ticks,
		   long page_size, double boot_time, struct procstat *out)
{
	char buf[PROCSTAT_TEXT_MAX];
	unsigned long long v[PROCSTAT_FIELDS + 1];
	char *p, *end;
	int field;

	if (!text || ticks <= 0 || page_size <= 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, text, len);
	buf[len] = '\0';
	/* "PID (COMM) STATE FIELD4 ...": COMM may hold ')' itself */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2])
		return -1;
	p += 2;
	/* field 3 is the state, a letter */
	while (*p && *p != ' ')
		p++;
	for (field = 4; field <= PROCSTAT_FIELDS; field++) {
		if (*p != ' ')
			return -1;
		p++;
		errno = 0;
		/* some fields are signed (priority, nice): read them as
		 * such, keep only the ones we need, which are not */
		if (*p == '-') {
			(void)strtoll(p, &end, 10);
			v[field] = 0;
		} else {
			v[field] = strtoull(p, &end, 10);
		}
		if (end == p || errno)
			return -1;
		p = end;
	}
	out->cpu_seconds = (double)(v[14] + v[15]) / (double)ticks;
	out->start_time = boot_time + (double)v[22] / (double)ticks;
	out->virtual_bytes = (double)v[23];
	out->resident_bytes = (double)v[24] * (double)page_size;
	return 0;
}

/*
 * The boot time from the "btime" line, read line by line in chunks,
 * keeping only a line's first PROCSTAT_LINE_MAX - 1 bytes: /proc/stat has
 * a cpuN line per CPU and an intr line with a number per interrupt, so on
 * a large host btime lies far past any buffer sized for a small one.
 */
double procstat_boot_time(const char *path)
{
	char chunk[PROCSTAT_TEXT_MAX], line[PROCSTAT_LINE_MAX];
	size_t used = 0, total = 0;
	double boot = -1;
	ssize_t n, i;
	int cut = 0;              /* the line is longer than line[] */
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (size_t)n > PROCSTAT_STAT_MAX - total)
			goto out;        /* no boot time */
		if (n == 0)
			break;
		total += (size_t)n;
		for (i = 0; i < n; i++) {
			if (chunk[i] != '\n') {
				if (used < sizeof(line) - 1)
					line[used++] = chunk[i];
				else
					cut = 1;
				continue;
			}
			line[used] = '\0';
			if (!cut && !procstat_btime(line, &boot))
				goto out;
			used = 0;
			cut = 0;
		}
	}
	line[used] = '\0';       /* a last line without a newline */
	if (!cut)
		(void)procstat_btime(line, &boot);
out:
	close(fd);
	return boot;
}

int procstat_parse_anon(const char *text, size_t len, double *out)
{
	static const char key[] = "RssAnon:";
	const char *p = text, *end = text + len, *nl;
	unsigned long long kb = 0;
	int digits = 0;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if ((size_t)(nl - p) < sizeof(key) - 1 ||
		    memcmp(p, key, sizeof(key) - 1))
			continue;
		p += sizeof(key) - 1;
		while (p < nl && (*p == ' ' || *p == '\t'))
			p++;
		for (; p < nl && *p >= '0' && *p <= '9' && digits < 15; p++) {
			kb = kb * 10 + (unsigned long long)(*p - '0');
			digits++;
		}
		if (!digits || nl - p != 3 || memcmp(p, " kB", 3))
			return -1;
		*out = (double)kb * 1024;
		return 0;
	}
	return -1;
}

static double procstat_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	double n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;            /* not the descriptor opendir() holds */
}

int procstat_read(struct procstat *out)
{
	char buf[PROCSTAT_TEXT_MAX];
	struct rlimit rl;
	ssize_t n;
	double boot;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	n = procstat_slurp("/proc/self/stat", buf, sizeof(buf));
	boot = procstat_boot_time("/proc/stat");
	if (n <= 0 || boot < 0)
		goto out;
	if (procstat_parse(buf, (size_t)n, sysconf(_SC_CLK_TCK),
			   sysconf(_SC_PAGESIZE), boot, out))
		goto out;
	out->open_fds = procstat_fds();
	if (out->open_fds < 0)
		goto out;
	out->max_fds = getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
		       rl.rlim_cur != RLIM_INFINITY ? (double)rl.rlim_cur : -1;
	out->anon_bytes = -1;
	{
		char st[PROCSTAT_STATUS_MAX];

		n = procstat_slurp("/proc/self/status", st, sizeof(st));
		if (n > 0)
			(void)procstat_parse_anon(st, (size_t)n,
						  &out->anon_bytes);
	}
	rc = 0;
out:
	if (rc)
		memset(out, 0, sizeof(*out));
	return rc;
}
