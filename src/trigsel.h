/*
 * trigsel.h - the metadata of one staffer trigger, as `staffer explain`
 * and `staffer tune` take it from the command line.
 *
 * The metadata comes from key=value arguments and/or --file, a
 * ScaledObject YAML read by ydoc.c as `staffer lint` reads it; --name
 * NS/NAME and --trigger N pick one trigger of type external or
 * external-push when the file holds several, and key=value arguments
 * override the file's keys.  "<key>FromEnv: NAME" in the file is resolved
 * from this process's environment, as KEDA resolves it from the scale
 * target's container.
 *
 * Errors are printed to stderr as "PROG: message" (the file's own problems
 * as "FILE:LINE: message" lines first); the caller exits 2 on them.
 * Start-up only (reads the environment and files); not thread-safe.
 */
#ifndef STAFFER_TRIGSEL_H
#define STAFFER_TRIGSEL_H

#include <stddef.h>

#include "meta.h"
#include "ydoc.h"

#define TRIGSEL_WHO_MAX (YDOC_WHO_MAX + 32)  /* "NS/NAME trigger N" */
#define TRIGSEL_ABSENT (-1L)   /* a replica count the file does not give */
#define TRIGSEL_INVALID (-2L)  /* ... or gives as no whole number >= 0 */

/* A metadata map being put together: owned copies, at most META_KEYS_MAX
 * pairs, as KEDA could send.  Zeroed memory is an empty map. */
struct trigsel_pairs {
	char *keys[META_KEYS_MAX];
	char *values[META_KEYS_MAX];
	size_t n;
};

/* Free every pair; p is then empty. */
void trigsel_pairs_release(struct trigsel_pairs *p);

/* A command-line argument a as key=value into p, for an opt.h argument
 * callback: 0, or 2 with "PROG: message" printed (not key=value, or as
 * trigsel_pairs_set). */
int trigsel_pairs_arg(struct trigsel_pairs *p, const char *prog,
		      const char *a);

/* Set key (klen bytes) to value, replacing an earlier value.  0, or -1
 * with "PROG: message" printed (too many keys, out of memory). */
int trigsel_pairs_set(struct trigsel_pairs *p, const char *prog,
		      const char *key, size_t klen, const char *value);

/* The trigger picked, owned. */
struct trigsel {
	struct trigsel_pairs md;      /* the metadata, file then arguments */
	char *ns, *name;              /* as written; NULL when absent */
	char who[TRIGSEL_WHO_MAX];    /* "NS/NAME trigger N"; "" without
				       * a file */
	/* The ScaledObject's spec.minReplicaCount and maxReplicaCount:
	 * a whole number, TRIGSEL_ABSENT or TRIGSEL_INVALID. */
	long min_replicas, max_replicas;
};

/*
 * The command line's choice of metadata is complete: --name (sel) and
 * --trigger (trigger >= 0) need --file; without a file there must be
 * nargs key=value arguments.  0, or with "PROG: message" printed -1
 * (a selection without a file) or -2 (no metadata at all).
 */
int trigsel_check_args(const char *prog, const char *file, const char *sel,
		       long trigger, size_t nargs);

void trigsel_init(struct trigsel *t);
void trigsel_release(struct trigsel *t);

/*
 * Fill t (trigsel_init()ed): the metadata of the trigger of file (NULL:
 * none; "-": stdin) that sel ("NS/NAME", "NAME" in any namespace, or
 * NULL) and trigger (index in spec.triggers, or -1: any) pick, with its
 * FromEnv keys resolved, then args over it (a FromEnv pair the arguments
 * give anyway is dropped).  0, or -1 with the message printed
 * (unreadable file, invalid YAML, no staffer trigger, none or several
 * picked, metadata kubectl would refuse, an unset variable).  On either,
 * release t afterwards.
 */
int trigsel_gather(struct trigsel *t, const char *prog, const char *file,
		   const char *sel, long trigger,
		   const struct trigsel_pairs *args);

#endif
