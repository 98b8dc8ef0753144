/*
 * version.h - the version staffer was built as.
 *
 * Baked in at build time by scripts/version.sh (from `git describe`, or
 * the STAFFER_VERSION / STAFFER_REVISION make variables, or the chart's
 * appVersion with "-dev" where there is no git).  Static strings, never
 * NULL; thread-safe.
 */
#ifndef STAFFER_VERSION_H
#define STAFFER_VERSION_H

/* e.g. "0.2.0", "0.2.0-3-gabc1234", "0.1.0-dev+g76b8cce.dirty" */
const char *version_string(void);

/* The commit, 12 hex digits, or "unknown". */
const char *version_revision(void);

#endif
