/*
 * mcache.h - parsed trigger metadata, cached by the exact metadata map.
 *
 * KEDA sends a trigger's whole metadata map with every call, and the map
 * of a given trigger never changes between calls.  Parsing it (meta.h)
 * and taking its SHA-256 fingerprint (fprint.h) cost more than the rest
 * of a cached answer, so rpc.c keeps the outcome here: the parsed struct
 * meta and the fingerprint, under the map itself.  A hit compares the
 * whole map byte for byte, pair by pair in the order given (a hash only
 * picks the bucket), so two maps share an entry only when they are
 * identical, which is what the fingerprint would say too; rpc.c sorts the
 * pairs by key first, since KEDA's Go client sends a map in a random
 * order.  Only maps that parse are kept; whether the
 * namespace may use the backend is checked on every call (scaler.h), as
 * that depends on the config and the caller.
 *
 * Bounded: at most `max` entries, the least recently used evicted first.
 * One thread owns a cache (the gRPC completion-queue thread); no locks.
 */
#ifndef STAFFER_MCACHE_H
#define STAFFER_MCACHE_H

#include <stddef.h>

#include "fprint.h"
#include "meta.h"

#define MCACHE_DEFAULT_MAX 256   /* entries; ~3.5 KB each (struct meta) */
#define MCACHE_MAP_MAX 65536     /* bytes of a map kept; larger: not kept */

struct mcache;

/* An empty cache of at most max entries (>= 1); NULL when out of memory. */
struct mcache *mcache_new(size_t max);
void mcache_free(struct mcache *c);

/*
 * The parsed metadata of the map keys[i] = values[i] (n pairs) and its
 * fingerprint, or NULL when not cached.  Borrowed: valid until the next
 * mcache_put() or mcache_free() (copy it with meta_copy()).  A hit makes
 * the entry the most recently used.
 */
const struct meta *mcache_get(struct mcache *c, const char *const *keys,
			      const char *const *values, size_t n,
			      char fprint[FPRINT_HEX + 1]);

/* Keep a copy of m (parsed from that map, with fingerprint fp).  0; -1
 * when out of memory or the map is too large (nothing kept). */
int mcache_put(struct mcache *c, const char *const *keys,
	       const char *const *values, size_t n, const struct meta *m,
	       const char *fp);

/* Entries kept (for tests). */
size_t mcache_count(const struct mcache *c);

#endif
