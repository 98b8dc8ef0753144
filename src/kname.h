/*
 * kname.h - Kubernetes object names, as the API server accepts them.
 *
 * KEDA sends a ScaledObject's namespace and name with every call; what
 * Kubernetes accepts is the whole set of values KEDA can send.  Anything
 * else did not come from KEDA, and is refused before it reaches a state
 * key, a log line, a queue or /metrics (rpc.c).  The rules are
 * apimachinery's IsDNS1123Label (namespaces) and IsDNS1123Subdomain (the
 * names of most objects, ScaledObjects among them).  Pure; thread-safe.
 */
#ifndef STAFFER_KNAME_H
#define STAFFER_KNAME_H

#include <stddef.h>

#define KNAME_LABEL_MAX 63       /* bytes of a DNS-1123 label */
#define KNAME_SUBDOMAIN_MAX 253  /* bytes of a DNS-1123 subdomain */
#define KNAME_WHY_MAX 192        /* a sentence from kname_check() */

enum kname_kind {
	KNAME_LABEL,      /* a namespace: RFC 1123 label */
	KNAME_SUBDOMAIN,  /* an object name: RFC 1123 subdomain */
};

/*
 * 0 when s (NUL-terminated) is a valid name of that kind; else -1 and
 * why[KNAME_WHY_MAX] says which rule it breaks and where, e.g. "character
 * 3 is not allowed (byte 0xff); a DNS-1123 label is 1 to 63 of a-z, 0-9
 * and '-', starting and ending with a letter or digit".  why never quotes
 * the name itself: the caller shows it (show.h).
 */
int kname_check(enum kname_kind kind, const char *s, char why[KNAME_WHY_MAX]);

#endif
