/*
 * ydoc.h - ScaledObject YAML as kubectl reads it: documents as trees,
 * scalars typed the YAML 1.1 way, trigger metadata as meta_parse() takes
 * it.  Shared by `staffer lint` (checks the YAML) and `staffer explain`
 * (takes a trigger's metadata from it), so both read a file alike.  What
 * go-yaml refuses in a whole document is ycheck.h's.
 *
 * The YAML is read with libyaml's event API into a small tree (struct
 * ydoc) rather than its document loader, because only the events tell a
 * plain `1.5` from `!!str 1.5`: scalars are typed as kubectl's YAML
 * library (go-yaml v2, YAML 1.1) reads them.  Aliases share nodes and are
 * never expanded, and an alias finds its anchor through a hash table; an
 * alias inside the node it names (`&c {x: *c}`, a cycle) is invalid YAML,
 * as go-yaml's decoder refuses it ("anchor 'c' value contains itself"),
 * so no node is its own descendant.  A walk that follows aliases may
 * still meet one node many times, so the merge walks (`<<`, which
 * kubectl applies in every map: what it reads
 * goes through ymap_get_merged(), ymap_each_merged(), ypath() and the
 * ScaledObject functions below, never ymap_get() alone) visit each merged
 * map once, and crd.c counts its visits.  A merge walk's marks are its
 * own, in a set of the maps it visits: it costs what it visits, not the
 * document's size, and allocates only past a few maps.
 *
 * Bounds: a file of at most YDOC_FILE_MAX bytes, collections nested at
 * most YDOC_DEPTH deep, merges within merges at most YDOC_MERGE_DEPTH.
 * Memory: a document is 32 bytes a node (and 4 a kid) with its scalars'
 * text, in a few large blocks; the file itself is held while it is read.
 * A lint's peak beyond the program's own 15 MB is about 4.5 times the
 * file for ScaledObjects as kubectl writes them, and at most about 42
 * times for nothing but one-byte nodes (`{a,b,c,...}`).
 * No globals; thread-safe for distinct documents.  Errors: the functions
 * that read say so on the FILE they are given; the rest return codes.
 */
#ifndef STAFFER_YDOC_H
#define STAFFER_YDOC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define YDOC_FILE_MAX (16u << 20)  /* bytes in one input file */
#define YDOC_DEPTH 256             /* nested collections in a document */
#define YDOC_MERGE_DEPTH 8         /* merge keys within merge keys */
#define YDOC_MERGE_SOURCES 1024    /* `<<` values and list items one
				    * merge walk looks at */
#define YDOC_SHOW_MAX 60           /* characters of a value in a message */
#define YDOC_SHOW_BUF (YDOC_SHOW_MAX + 4)  /* show.h: max + 4 */
#define YDOC_WHO_MAX 160           /* "NS/NAME", shown */
#define YDOC_MSG_MAX 512           /* one message about metadata */
#define YDOC_PATH_MAX 256          /* a path in a message (crd.c's) */
#define YDOC_NAME_MAX 4096         /* characters of a file's name shown */
#define YDOC_NAME_BUF (YDOC_NAME_MAX + 4)  /* show.h: max + 4 */

/* ---- a YAML document as a tree ------------------------------------------ */

enum yn_kind { YN_SCALAR, YN_SEQ, YN_MAP };

/* What kubectl reads a scalar as: the YAML 1.1 types of go-yaml v2. */
enum yn_type {
	YT_STR,
	YT_NULL,
	YT_BOOL,
	YT_NUMBER,   /* int or float */
	YT_MERGE,    /* a merge key: `<<` plain, or tagged !!merge or !;
		      * where it is not a key, go-yaml reads the string
		      * "<<" (its readers say so) */
	YT_TAGGED,   /* an explicit tag go-yaml reads the text under:
		      * !!bool, !!int, !!float, !!null, and !!timestamp
		      * or !!binary over a text go-yaml refuses (a valid
		      * one is the string kubectl sends, YT_STR: the
		      * timestamp's text, the bytes decoded from
		      * base64); under any other tag (`!foo 5`, `!!set
		      * x`) the text is a string to it, YT_STR */
};

/*
 * A node: 32 bytes, its text and kids in the document's arena (64-byte
 * nodes, a malloc()ed copy of every scalar and an array per collection
 * made a lint's peak 9 to 105 times the file).  A file is at most
 * YDOC_FILE_MAX bytes, so lines, lengths and node indexes fit 32 bits.
 */
struct ynode {
	const char *text;      /* scalars: the value, NUL-terminated (for
				* YT_TAGGED the tag follows: ytag(); for
				* a valid !!binary, the bytes decoded);
				* else NULL */
	const uint32_t *kids;  /* SEQ: items; MAP: key, value, key, ...;
				* indexes into nodes (NULL when none) */
	uint32_t len;          /* scalars: text's bytes (a "\0" makes it
				* more than strlen) */
	uint32_t n_kids;
	uint32_t line;         /* where the node starts, from 1 */
	unsigned char kind;    /* enum yn_kind */
	unsigned char type;    /* enum yn_type: scalars */
	unsigned char flags;   /* YN_ALIAS or 0 in a document handed out
				* (ydoc.c's own bits while it is read) */
};

/* ynode.flags: a node of its own for an alias, at the alias's line, where
 * go-yaml reads an alias otherwise than its anchor's node: a list given
 * as the value of a `<<`, which go-yaml refuses to merge (a list written
 * in place merges), with the anchored list's kids; a merge key as a key,
 * which go-yaml reads as the string `<<`, typed YT_STR.  Anywhere else
 * an alias is its anchor's node. */
#define YN_ALIAS 0x01u

struct yanchor {
	const char *name;      /* in the arena */
	uint32_t node;
};

/* Where a document's text, anchor names and kids live: blocks that never
 * move (a node's pointers stay valid while nodes grows), freed together.
 * Defined in ydoc.c. */
struct yblock;

/* One document: nodes[0] is the root when n > 0.  Children are indexes,
 * so the array may move while it grows.  Owned by ydoc_read_file(), the
 * callbacks below only borrowing it, or by ydoc_read_one()'s caller. */
struct ydoc {
	struct ynode *nodes;
	size_t n, cap;
	struct yblock *arena;  /* the block being filled first */
	struct yanchor *anchors;
	size_t n_anchors, cap_anchors;
	/* anchors by name: open addressing, an anchor's index + 1 (0:
	 * empty slot), the latest of a name; index_cap a power of 2 at
	 * least twice n_anchors (an alias is found in O(1), not by a scan
	 * of every anchor) */
	size_t *index;
	size_t index_cap;
};

/* s is one of the words of list (NULL-terminated). */
int ydoc_word_in(const char *s, const char *const *list);

/* The value of key among the pairs written in mapping map, merges not
 * applied (NULL if map is not one or lacks the key); *keynode, when
 * given, gets the key's node.  For the CRD's schema and the merge walks:
 * what kubectl reads takes ymap_get_merged(). */
const struct ynode *ymap_get(const struct ydoc *d, const struct ynode *map,
			     const char *key, const struct ynode **keynode);

/*
 * Like ymap_get, with the pairs that `<<` merges into map, as go-yaml
 * applies them: a key written in map wins (wherever it stands; go-yaml v2
 * lets a `<<` after it override it, docs/lint.md), then the merged maps
 * depth first (those of a `<<` list in order), the first with key
 * winning; each merged map searched once, merges within merges followed
 * YDOC_MERGE_DEPTH deep; a merged value that is not a map merges nothing
 * (kubectl refuses the document: ymap_each_bad_merge() tells it).
 * *keynode gets the key's node, in the map that has it.  Short of memory
 * for its marks it still answers, searching a map again each time it is
 * merged.  Costs a second look at map's pairs when key is not among them.
 */
const struct ynode *ymap_get_merged(const struct ydoc *d,
				    const struct ynode *map, const char *key,
				    const struct ynode **keynode);

/* A pair `<<` merges into a map (ymap_each_merged()): key a scalar, kept
 * 1 when kubectl keeps it, 0 when a pair of the map itself or one merged
 * before it gives its key.  Return 0 to go on, nonzero to stop. */
typedef int ymap_pair_fn(void *arg, const struct ynode *key,
			 const struct ynode *value, int kept);

/*
 * Call fn for each pair of the maps `<<` merges into map, in the order
 * ymap_get_merged() searches them (so the pair it would find for a key is
 * the one told kept), leaving out keys that are not scalars and merge
 * keys; the pairs written in map itself are not fn's.  Returns the first
 * nonzero fn returned, or 0.  Costs the merged maps' pairs, once each,
 * and a look at map's own; nothing more when map merges nothing.  Short
 * of memory for its sets a pair may be told kept that is not (never the
 * other way).
 */
int ymap_each_merged(const struct ydoc *d, const struct ynode *map,
		     ymap_pair_fn *fn, void *arg);

/* A `<<` whose value go-yaml refuses (ymap_each_bad_merge()): key the
 * `<<`, bad the value that is not a map, item its index in the `<<`
 * list, or -1 when bad is the `<<`'s value itself.  Return 0 to go on,
 * nonzero to stop. */
typedef int ymerge_bad_fn(void *arg, const struct ynode *key,
			  const struct ynode *bad, long item);

/*
 * Call fn for each `<<` of map, and of the maps it merges (the merge
 * walks' maps: each once, YDOC_MERGE_DEPTH deep), whose value is neither
 * a map nor a list of maps written in place: once per `<<`, with its
 * value (for an alias to a list, a YN_ALIAS node), or the first item of
 * its list that is not a map.  go-yaml v2, so kubectl, refuses such a
 * document ("map merge requires map or sequence of maps as the value"),
 * where the merge walks above merge what maps there are in it.  Returns
 * the first nonzero fn returned, or 0.  Costs a look at map's pairs when
 * it merges nothing, else what ymap_each_merged() walks.
 */
int ymap_each_bad_merge(const struct ydoc *d, const struct ynode *map,
			ymerge_bad_fn *fn, void *arg);

/* A scalar's text, or NULL for anything else (and for NULL). */
const char *ytext(const struct ynode *n);

/* A YT_TAGGED scalar's tag, or NULL for anything else (and for NULL). */
const char *ytag(const struct ynode *n);

/* Follow keys[] (NULL-terminated) down from map, merges applied at each
 * level (ymap_get_merged()).  Returns the last value, or NULL when a key
 * is missing; *line is the line of the deepest key found (unchanged when
 * none is). */
const struct ynode *ypath(const struct ydoc *d, const struct ynode *map,
			  const char *const *keys, unsigned long *line);

/* A user's text for a message: escaped, cut after YDOC_SHOW_MAX ("?" for
 * what is not a scalar).  Returns buf. */
const char *ydoc_show(char buf[YDOC_SHOW_BUF], const struct ynode *n);

/* ---- reading a file ---------------------------------------------------- */

enum ydoc_err {
	YDOC_OK = 0,
	YDOC_EREAD,    /* cannot open or read, or larger than YDOC_FILE_MAX */
	YDOC_EYAML,    /* invalid YAML (the documents before it were read) */
	YDOC_ENOMEM,
};

/* Called for each non-empty document, in order; d is valid during the
 * call only.  Return 0 to go on, -1 for out of memory (reading stops). */
typedef int ydoc_doc_fn(void *arg, const struct ydoc *d);

/* How path ("-": standard input) is named in messages, in buf:
 * "<stdin>", or path escaped as a value is (show.h's show_escaped(): a
 * newline or an ESC in a file's name is "\n", "\x1b", not a line or a
 * terminal escape in the output; a name of more than YDOC_NAME_MAX
 * characters so shown is cut, "...").  Returns buf. */
const char *ydoc_file_name(char buf[YDOC_NAME_BUF], const char *path);

/*
 * Read every YAML document of path ("-": standard input) and call fn for
 * each.  A YAML error is printed on yaml_fp as "NAME:LINE: invalid YAML:
 * WHY" (NAME is ydoc_file_name()'s); read and memory errors on stderr as
 * "PROG: NAME: WHY".  Returns what went wrong, or YDOC_OK.
 */
enum ydoc_err ydoc_read_file(const char *path, const char *prog,
			     FILE *yaml_fp, ydoc_doc_fn *fn, void *arg);

/* The same for len bytes of YAML text in buf (not copied; it must stay
 * valid during the call), named name in messages.  YDOC_EREAD only for
 * more than YDOC_FILE_MAX bytes ("PROG: NAME: larger than N bytes" on
 * stderr). */
enum ydoc_err ydoc_read_buffer(const char *buf, size_t len, const char *name,
			       const char *prog, FILE *yaml_fp,
			       ydoc_doc_fn *fn, void *arg);

/*
 * Read the first non-empty document of buf (ydoc_read_buffer()'s messages
 * and codes; the documents after it are not read) into *out, a document
 * the caller owns and frees with ydoc_free(): for a document read once and
 * used many times (crd.c's schema).  *out is set only on YDOC_OK; a buffer
 * with no document gives an empty one (n == 0).  A document is only read
 * once built, so any number of threads may read one.
 */
enum ydoc_err ydoc_read_one(const char *buf, size_t len, const char *name,
			    const char *prog, FILE *yaml_fp, struct ydoc **out);

/* Free a document of ydoc_read_one(); NULL is fine. */
void ydoc_free(struct ydoc *d);

/* ---- ScaledObjects ----------------------------------------------------- */

/* These read every key with merges applied (ymap_get_merged()), as
 * kubectl does. */

/* Called for an object of kind ScaledObject (any apiVersion: the callee
 * decides); return 0 to go on, nonzero to stop with that value. */
typedef int ydoc_object_fn(void *arg, const struct ydoc *d,
			   const struct ynode *obj);

/* Call fn for the ScaledObject at d's root, or for each one among the
 * items of a `kind: List` root.  Returns the first nonzero fn returned,
 * or 0. */
int ydoc_each_scaledobject(const struct ydoc *d, ydoc_object_fn *fn,
			   void *arg);

/* "NS/NAME", or "NAME" without a namespace, or "(no name)": shown (see
 * ydoc_show), into buf of size bytes. */
void ydoc_who(const struct ydoc *d, const struct ynode *obj, char *buf,
	      size_t size);

/* A trigger staffer answers: type external or external-push and, with
 * address non-NULL, a scalerAddress that contains it. */
int ydoc_is_external(const struct ydoc *d, const struct ynode *trig,
		     const char *address);

/* The keys ydoc_md_find() scans at most; past them it looks in a hash of
 * the keys (a metadata map of 100,000 keys took 67 s in `staffer lint`,
 * each key looked for among all the keys before it). */
#define YDOC_MD_SCAN 16

/* A trigger's metadata as meta_parse() takes it, with the nodes for line
 * numbers.  keys/values borrow the document's text. */
struct ydoc_md {
	const char **keys, **values;
	const struct ynode **knodes, **vnodes;
	size_t n, cap_keys, cap_values, cap_knodes, cap_vnodes;
	/* the keys by text once n is past YDOC_MD_SCAN (NULL until then):
	 * open addressing, a key's index + 1 (0: an empty slot), the first
	 * of its text; index_cap a power of 2 at least twice n */
	uint32_t *index;
	size_t index_cap;
	int bad;               /* a value kubectl would refuse was reported */
};

/* How problems in metadata are told: the line and one sentence. */
typedef void ydoc_report_fn(void *arg, unsigned long line, const char *msg);

/*
 * Gather the `metadata` of trigger trig (itself merged in or not) into md
 * (zeroed by the caller): explicit keys first, a repeated one an error;
 * `<<` merges the pairs of
 * a map (or of a list of maps, the first winning) whose keys are not there
 * yet, as go-yaml does.  Each value kubectl would refuse (metadata is
 * map[string]string: not a string, a key given twice, a NUL) is reported
 * through report and sets md->bad; the pair is still gathered.  So is a
 * `<<` of anything but a map or a list of maps (reported once a `<<`,
 * its maps merged).  *line is
 * the line of the `metadata` key, or of the trigger when it has none.
 * Returns 0; 1 when `metadata` is not a map (reported, md empty); -1 out
 * of memory.  md must be released in every case.  Each merged map is
 * gathered once; short of memory for the marks, a map merged again is
 * gathered again (its pairs add nothing; its keys that are not strings
 * are told again).
 */
int ydoc_md_collect(const struct ydoc *d, const struct ynode *trig,
		    struct ydoc_md *md, unsigned long *line,
		    ydoc_report_fn *report, void *arg);

/* The index of key in md (the first, when given twice), or md->n.  O(1)
 * on average: a scan of at most YDOC_MD_SCAN keys, or a look in the
 * hash. */
size_t ydoc_md_find(const struct ydoc_md *md, const char *key);

void ydoc_md_release(struct ydoc_md *md);

#endif
