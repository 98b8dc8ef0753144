/*
 * version.h - the version staffer was built as.
 *
 * Baked in at build time by scripts/version.sh: the VERSION file (as is at
 * a commit tagged vVERSION, else with "-dev+gSHORT", or "-dev" where there
 * is no git), or the STAFFER_VERSION / STAFFER_REVISION make variables
 * (`make release`, the Dockerfile).  Static strings, never NULL;
 * thread-safe.
 */
#ifndef STAFFER_VERSION_H
#define STAFFER_VERSION_H

/* e.g. "0.2.0", "0.2.0-3-gabc1234", "0.1.0-dev+g76b8cce.dirty" */
const char *version_string(void);

/* The commit: 12 hex digits, the whole commit (with "-dirty" for
 * uncommitted changes) in a `make release` build, or "unknown". */
const char *version_revision(void);

#endif
