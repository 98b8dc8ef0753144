/* proc.c - see proc.h. */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "procstat.h"

#define PROC_TEXT_MAX 4096     /* one /proc/PID/stat line fits */

static double proc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int proc_read(pid_t pid, struct proc_sample *out)
{
	char path[64], buf[PROC_TEXT_MAX];
	struct procstat ps;
	ssize_t n, got = 0;
	int fd, rc = -1;

	memset(out, 0, sizeof(*out));
	if (pid < 0)
		return -1;
	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/stat");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((size_t)got < sizeof(buf) - 1) {
		n = read(fd, buf + got, sizeof(buf) - 1 - (size_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	if (got <= 0)
		goto out;
	/* the boot time only feeds start_time, which is not used here */
	if (procstat_parse(buf, (size_t)got, sysconf(_SC_CLK_TCK),
			   sysconf(_SC_PAGESIZE), 0, &ps))
		goto out;
	out->cpu_s = ps.cpu_seconds;
	out->rss_bytes = ps.resident_bytes;
	out->at = proc_now();
	rc = 0;
out:
	return rc;
}

int proc_machine(struct proc_sample *out)
{
	unsigned long long v[8] = { 0 };
	char buf[PROC_TEXT_MAX];
	FILE *fp = fopen("/proc/stat", "r");
	int n;

	memset(out, 0, sizeof(*out));
	if (!fp)
		return -1;
	n = fgets(buf, sizeof(buf), fp) ? sscanf(buf,
		"cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
		&v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) : 0;
	fclose(fp);
	if (n < 8)
		return -1;
	/* user nice system idle iowait irq softirq steal: all but idle and
	 * iowait are busy */
	out->cpu_s = (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) /
		     (double)sysconf(_SC_CLK_TCK);
	out->at = proc_now();
	return 0;
}

double proc_cpu_share(const struct proc_sample *a,
		      const struct proc_sample *b)
{
	double dt = b->at - a->at;

	return dt > 0 ? (b->cpu_s - a->cpu_s) / dt : 0;
}

int proc_rss_parts(pid_t pid, double *anon, double *file)
{
	char path[64], line[256];
	double a = -1, f = -1;
	FILE *fp;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	fp = fopen(path, "r");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		/* "RssAnon:	    2560 kB" */
		if (!strncmp(line, "RssAnon:", 8))
			a = strtod(line + 8, NULL) * 1024;
		else if (!strncmp(line, "RssFile:", 8))
			f = strtod(line + 8, NULL) * 1024;
	}
	fclose(fp);
	if (a < 0 || f < 0)
		return -1;
	*anon = a;
	*file = f;
	return 0;
}
