/*
 * fprint.h - a trigger's identity: a digest of its whole metadata map.
 *
 * Two calls carry the same trigger when their scalerMetadata maps are
 * equal, whatever order the pairs arrive in.  The scaler keys smoothing
 * and hold state by it (scaler.h), so a caller that sends other metadata
 * under a victim's namespace/name gets state of its own and never changes
 * the victim's answers (docs/security.md).
 *
 * The digest is SHA-256 (OpenSSL's libcrypto) over the pairs sorted by key
 * and value, each string length-prefixed, so no two different maps share
 * an input; 128 bits of it are kept, as hex.  Pure; thread-safe.
 */
#ifndef STAFFER_FPRINT_H
#define STAFFER_FPRINT_H

#include <stddef.h>

#define FPRINT_HEX 32          /* hex digits of a fingerprint, without NUL */
#define FPRINT_PAIRS_MAX 1024  /* pairs one map may have */

/*
 * The fingerprint of the map keys[i] -> values[i] (n pairs, NUL-terminated
 * strings) into out, NUL-terminated.  0, or -1 when n is over
 * FPRINT_PAIRS_MAX or memory or the digest fails (out untouched).
 */
int fprint_metadata(const char *const *keys, const char *const *values,
		    size_t n, char out[FPRINT_HEX + 1]);

#endif
