/*
 * memlimit.c - see memlimit.h.
 */
#include "memlimit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"

#define MEMLIMIT_MAX (1ull << 50)

/* The number in file path, 0 when absent, "max" or unreadable. */
static unsigned long long read_limit(const char *path)
{
	char buf[64];
	unsigned long long v;
	char *end;
	FILE *fp = fopen(path, "r");

	if (!fp)
		return 0;
	if (!fgets(buf, sizeof(buf), fp)) {
		fclose(fp);
		return 0;
	}
	fclose(fp);
	if (!ascii_is_digit((unsigned char)buf[0]))
		return 0;            /* "max": no limit */
	v = strtoull(buf, &end, 10);
	if (*end != '\n' && *end != '\0')
		return 0;
	/* cgroup v1 writes "no limit" as the largest page-aligned value */
	return v >= MEMLIMIT_MAX ? 0 : v;
}

/* The cgroup path of this process for the v2 hierarchy ("0::/path") or
 * the v1 memory controller ("N:...memory...:/path"), into out. */
static int own_cgroup(int v2, char *out, size_t len)
{
	char line[1024];
	FILE *fp = fopen("/proc/self/cgroup", "r");
	int rc = -1;

	if (!fp)
		return -1;
	while (rc && fgets(line, sizeof(line), fp)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		size_t n;

		if (!c2)
			continue;
		*c1 = '\0';         /* line: the hierarchy's id */
		*c2 = '\0';         /* c1 + 1: its controllers */
		if (v2 ? strcmp(line, "0") || c1[1] :
			 !strstr(c1 + 1, "memory"))
			continue;
		n = strcspn(c2 + 1, "\n");
		if (n >= len)
			continue;
		memcpy(out, c2 + 1, n);
		out[n] = '\0';
		rc = 0;
	}
	fclose(fp);
	return rc;
}

size_t memlimit_cgroup(void)
{
	static const struct {
		int v2;
		const char *root, *file;
	} where[] = {
		{ 1, "/sys/fs/cgroup", "memory.max" },
		{ 0, "/sys/fs/cgroup/memory", "memory.limit_in_bytes" },
	};
	char own[512], path[1024 + 64];
	unsigned long long v;
	size_t i;

	for (i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		/* the process's own cgroup, then the mount's root (a cgroup
		 * namespace shows the container's cgroup as "/") */
		if (!own_cgroup(where[i].v2, own, sizeof(own)) &&
		    strcmp(own, "/")) {
			snprintf(path, sizeof(path), "%s%s/%s", where[i].root,
				 own, where[i].file);
			if ((v = read_limit(path)))
				return (size_t)v;
		}
		snprintf(path, sizeof(path), "%s/%s", where[i].root,
			 where[i].file);
		if ((v = read_limit(path)))
			return (size_t)v;
	}
	return 0;
}

int memlimit_parse(const char *s, size_t *out, char err[MEMLIMIT_ERR_MAX])
{
	static const char *const sfx[] = { "Ki", "Mi", "Gi", "Ti" };
	unsigned long long v = 0, mul = 1;
	const char *p = s;
	size_t i;

	if (!s || !ascii_is_digit((unsigned char)*p))
		goto bad;
	for (; ascii_is_digit((unsigned char)*p); p++) {
		if (v > MEMLIMIT_MAX)
			goto bad;
		v = v * 10 + (unsigned long long)(*p - '0');
	}
	if (*p) {
		for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++)
			if (!strcmp(p, sfx[i]))
				break;
		if (i == sizeof(sfx) / sizeof(sfx[0]))
			goto bad;
		mul = 1ull << (10 * (i + 1));
	}
	if (v == 0 || v > MEMLIMIT_MAX / mul)
		goto bad;
	*out = (size_t)(v * mul);
	return 0;
bad:
	snprintf(err, MEMLIMIT_ERR_MAX, "'%.40s' is not a size; allowed: "
		 "a whole number of bytes from 1 to 2^50, optionally with "
		 "Ki, Mi, Gi or Ti (e.g. 64Mi)", s ? s : "");
	return -1;
}
