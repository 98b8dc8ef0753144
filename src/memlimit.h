/*
 * memlimit.h - the memory limit of staffer's container, and byte sizes as
 * Kubernetes writes them.
 *
 * The request budget (budget.h) is sized from it.  Kubernetes puts a
 * container's resources.limits.memory in its cgroup: memory.max (cgroup
 * v2) or memory.limit_in_bytes (v1), under the path /proc/self/cgroup
 * names (with a cgroup namespace, the mount's root).  The chart also
 * passes it through the Downward API (STAFFER_MEMORY_LIMIT), for nodes
 * where the cgroup cannot be read.
 */
#ifndef STAFFER_MEMLIMIT_H
#define STAFFER_MEMLIMIT_H

#include <stddef.h>

#define MEMLIMIT_ERR_MAX 160

/* The cgroup's memory limit in bytes; 0 when there is none ("max", or a
 * v1 limit near the largest page-aligned value) or it cannot be read. */
size_t memlimit_cgroup(void);

/*
 * A size in bytes: a whole number, optionally with a binary suffix Ki,
 * Mi, Gi or Ti (Kubernetes' quantities), from 1 to 2^50.  0 with *out
 * set, or -1 with a sentence in err naming what is allowed.
 */
int memlimit_parse(const char *s, size_t *out, char err[MEMLIMIT_ERR_MAX]);

#endif
