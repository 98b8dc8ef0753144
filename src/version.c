/*
 * version.c - see version.h.  build/gen/version-gen.h is written by
 * scripts/version.sh (the Makefile runs it on every build and it rewrites
 * the file only when the version changed).
 */
#include "version.h"

#include "version-gen.h"

const char *version_string(void)
{
	return STAFFER_VERSION;
}

const char *version_revision(void)
{
	return STAFFER_REVISION;
}
