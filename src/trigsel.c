/*
 * trigsel.c - the metadata of one staffer trigger from --file and
 * key=value arguments; see trigsel.h.  (Moved here from explain.c so that
 * `staffer tune` picks a trigger exactly as `staffer explain` does.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arr.h"
#include "meta.h"
#include "num.h"
#include "opt.h"
#include "show.h"
#include "trigsel.h"
#include "ydoc.h"

/* ---- metadata pairs ------------------------------------------------------ */

void trigsel_pairs_release(struct trigsel_pairs *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		free(p->keys[i]);
		free(p->values[i]);
	}
	p->n = 0;
}

int trigsel_pairs_arg(struct trigsel_pairs *p, const char *prog,
		      const char *a)
{
	size_t klen = opt_key_value(prog, a, (size_t)-1);

	if (!klen)
		return 2;
	return trigsel_pairs_set(p, prog, a, klen, a + klen + 1) ? 2 : 0;
}

int trigsel_pairs_set(struct trigsel_pairs *p, const char *prog,
		      const char *key, size_t klen, const char *value)
{
	char *k, *v;
	size_t i;

	for (i = 0; i < p->n; i++)
		if (strlen(p->keys[i]) == klen && !memcmp(p->keys[i], key, klen))
			break;
	if (i == META_KEYS_MAX) {
		fprintf(stderr, "%s: metadata has more than %d "
			"keys; at most %d are allowed\n", prog, META_KEYS_MAX,
			META_KEYS_MAX);
		return -1;
	}
	k = strndup(key, klen);
	v = strdup(value);
	if (!k || !v) {
		free(k);
		free(v);
		fprintf(stderr, "%s: out of memory\n", prog);
		return -1;
	}
	if (i < p->n) {
		free(p->keys[i]);
		free(p->values[i]);
	} else {
		p->n++;
	}
	p->keys[i] = k;
	p->values[i] = v;
	return 0;
}

/* ---- --file: the staffer triggers of a ScaledObject YAML ----------------- */

/* One trigger of type external or external-push. */
struct cand {
	char who[YDOC_WHO_MAX];       /* "NS/NAME", shown */
	char *ns, *name;              /* as written; NULL when absent */
	long trigger;                 /* index in spec.triggers */
	long min_replicas, max_replicas; /* trigsel.h: a count, ABSENT, or
					  * INVALID */
	struct trigsel_pairs md;
	char *problems;               /* "FILE:LINE: ...\n" lines, or NULL */
	size_t problems_len;
};

struct from_file {
	const char *prog;             /* "staffer explain", ... */
	const char *file;             /* as shown in messages */
	struct cand *c;
	size_t n, cap;
	int nomem;
};

static void cand_release(struct cand *c)
{
	free(c->ns);
	free(c->name);
	free(c->problems);
	trigsel_pairs_release(&c->md);
}

/* ydoc_report_fn: keep the problem for when this trigger is chosen. */
static void cand_problem(void *arg, unsigned long line, const char *msg)
{
	struct from_file *ff = arg;
	struct cand *c = &ff->c[ff->n];
	char head[64];
	size_t add;
	char *p;

	snprintf(head, sizeof(head), ":%lu: ", line);
	add = strlen(ff->file) + strlen(head) + strlen(msg) + 2;
	p = realloc(c->problems, c->problems_len + add);
	if (!p) {
		ff->nomem = 1;
		return;
	}
	c->problems = p;
	c->problems_len += (size_t)snprintf(p + c->problems_len, add,
					    "%s%s%s\n", ff->file, head, msg);
}

static char *dup_text(const struct ynode *n, int *nomem)
{
	char *s;

	if (!ytext(n))
		return NULL;
	s = strdup(n->text);
	if (!s)
		*nomem = 1;
	return s;
}

/* spec.KEY of ScaledObject obj as a replica count (trigsel.h). */
static long replica_count(const struct ydoc *d, const struct ynode *obj,
			  const char *key)
{
	const struct ynode *spec = ymap_get_merged(d, obj, "spec", NULL);
	const struct ynode *n = ymap_get_merged(d, spec, key, NULL);
	long v;

	if (!n)
		return TRIGSEL_ABSENT;
	if (!ytext(n) || num_parse_long(n->text, &v) || v < 0)
		return TRIGSEL_INVALID;
	return v;
}

/* Take trigger t of ScaledObject obj as candidate ff->n.  -1: no memory. */
static int take_trigger(struct from_file *ff, const struct ydoc *d,
			const struct ynode *obj, const struct ynode *trig,
			long t)
{
	const struct ynode *om = ymap_get_merged(d, obj, "metadata", NULL);
	struct ydoc_md md;
	struct cand *c;
	unsigned long line;
	size_t i;
	int rc = -1;

	c = arr_room(ff->c, ff->n, &ff->cap, sizeof(*ff->c));
	if (!c)
		return -1;
	ff->c = c;
	c = &ff->c[ff->n];
	memset(c, 0, sizeof(*c));
	memset(&md, 0, sizeof(md));
	ydoc_who(d, obj, c->who, sizeof(c->who));
	c->ns = dup_text(ymap_get_merged(d, om, "namespace", NULL), &ff->nomem);
	c->name = dup_text(ymap_get_merged(d, om, "name", NULL), &ff->nomem);
	c->trigger = t;
	c->min_replicas = replica_count(d, obj, "minReplicaCount");
	c->max_replicas = replica_count(d, obj, "maxReplicaCount");
	if (ydoc_md_collect(d, trig, &md, &line, cand_problem, ff) < 0)
		goto out;
	if (md.n > META_KEYS_MAX) {
		char msg[128];

		snprintf(msg, sizeof(msg), "scalerMetadata has %zu keys; at "
			 "most %d are allowed", md.n, META_KEYS_MAX);
		cand_problem(ff, line, msg);
	}
	for (i = 0; i < md.n && i < META_KEYS_MAX; i++)
		if (trigsel_pairs_set(&c->md, ff->prog, md.keys[i],
				      strlen(md.keys[i]), md.values[i]))
			goto out;
	rc = 0;
out:
	ff->n++;             /* released with the rest, taken or not */
	ydoc_md_release(&md);
	return rc || ff->nomem ? -1 : 0;
}

/* ydoc_object_fn: every staffer trigger of a keda.sh ScaledObject. */
static int take_object(void *arg, const struct ydoc *d,
		       const struct ynode *obj)
{
	struct from_file *ff = arg;
	const char *api = ytext(ymap_get_merged(d, obj, "apiVersion", NULL));
	const struct ynode *triggers;
	size_t i;

	if (!api || strcmp(api, "keda.sh/v1alpha1"))
		return 0;
	triggers = ymap_get_merged(d, ymap_get_merged(d, obj, "spec", NULL),
				   "triggers", NULL);
	if (!triggers || triggers->kind != YN_SEQ)
		return 0;
	for (i = 0; i < triggers->n_kids; i++) {
		const struct ynode *trig = &d->nodes[triggers->kids[i]];

		if (ydoc_is_external(d, trig, NULL) &&
		    take_trigger(ff, d, obj, trig, (long)i))
			return -1;
	}
	return 0;
}

static int take_doc(void *arg, const struct ydoc *d)
{
	return ydoc_each_scaledobject(d, take_object, arg) ? -1 : 0;
}

/* c matches --name sel ("NS/NAME", or "NAME" in any namespace) and
 * --trigger t (-1: any). */
static int cand_match(const struct cand *c, const char *sel, long t)
{
	const char *slash = sel ? strchr(sel, '/') : NULL;

	if (t >= 0 && c->trigger != t)
		return 0;
	if (!sel)
		return 1;
	if (!c->name)
		return 0;
	if (!slash)
		return !strcmp(c->name, sel);
	return c->ns && strlen(c->ns) == (size_t)(slash - sel) &&
	       !memcmp(c->ns, sel, (size_t)(slash - sel)) &&
	       !strcmp(c->name, slash + 1);
}

static void list_cands(const struct from_file *ff)
{
	size_t i;

	for (i = 0; i < ff->n; i++)
		fprintf(stderr, "  %s trigger %ld\n", ff->c[i].who,
			ff->c[i].trigger);
}

/*
 * Read path and move the metadata of the one trigger that sel and t pick
 * into out (trigsel.h).  0, or -1 with the message printed.
 */
static int read_file(struct trigsel *out, const char *prog, const char *path,
		     const char *sel, long t)
{
	struct from_file ff;
	struct cand *pick = NULL;
	size_t i, n = 0;
	int rc = -1;

	memset(&ff, 0, sizeof(ff));
	ff.prog = prog;
	ff.file = strcmp(path, "-") ? path : "<stdin>";
	if (ydoc_read_file(path, prog, stderr, take_doc, &ff))
		goto out;
	for (i = 0; i < ff.n; i++)
		if (cand_match(&ff.c[i], sel, t)) {
			n++;
			pick = &ff.c[i];
		}
	if (ff.n == 0) {
		fprintf(stderr, "%s: %s: no ScaledObject "
			"(keda.sh/v1alpha1) with a trigger of type external "
			"or external-push\n", prog, ff.file);
		goto out;
	}
	if (n != 1) {
		char shown[YDOC_SHOW_BUF];

		if (sel)
			show_escaped(shown, YDOC_SHOW_MAX, sel, strlen(sel));
		if (n == 0)
			fprintf(stderr, "%s: %s: no staffer "
				"trigger matches%s%s%s%s; the file holds:\n", prog,
				ff.file, sel ? " --name " : "",
				sel ? shown : "", t >= 0 ? " --trigger " : "",
				t >= 0 ? "N" : "");
		else
			fprintf(stderr, "%s: %s: %zu staffer "
				"triggers match; pick one with --name NS/NAME "
				"(and --trigger N):\n", prog, ff.file, n);
		list_cands(&ff);
		goto out;
	}
	if (pick->problems) {
		fputs(pick->problems, stderr);
		fprintf(stderr, "%s: %s: ScaledObject %s trigger "
			"%ld: metadata kubectl would refuse (see above)\n", prog,
			ff.file, pick->who, pick->trigger);
		goto out;
	}
	snprintf(out->who, TRIGSEL_WHO_MAX, "%s trigger %ld", pick->who,
		 pick->trigger);
	out->md = pick->md;
	pick->md.n = 0;        /* moved */
	out->ns = pick->ns;
	out->name = pick->name;
	pick->ns = pick->name = NULL;
	out->min_replicas = pick->min_replicas;
	out->max_replicas = pick->max_replicas;
	rc = 0;
out:
	for (i = 0; i < ff.n; i++)
		cand_release(&ff.c[i]);
	free(ff.c);
	return rc;
}

/* Whether args give key or base, the key it stands for. */
static int args_cover(const struct trigsel_pairs *args, const char *key,
		      const char *base)
{
	size_t i;

	for (i = 0; i < args->n; i++)
		if (!strcmp(args->keys[i], key) ||
		    !strcmp(args->keys[i], base))
			return 1;
	return 0;
}

/*
 * "<key>FromEnv: NAME" from the file, as KEDA resolves it from the scale
 * target's container: here from this process's environment.  A pair the
 * arguments give anyway is dropped.  0, or -1 with the message printed.
 */
static int resolve_env(struct trigsel_pairs *md, const char *prog,
		       const struct trigsel_pairs *args)
{
	char *dup, shown[68];
	const char *v, *base;
	size_t i = 0;

	while (i < md->n) {
		base = meta_from_env_base(md->keys[i]);
		if (!base) {
			i++;
			continue;
		}
		if (args_cover(args, md->keys[i], base)) {
			free(md->keys[i]);
			free(md->values[i]);
			md->n--;
			md->keys[i] = md->keys[md->n];
			md->values[i] = md->values[md->n];
			continue;
		}
		v = getenv(md->values[i]);
		if (!v) {
			show_escaped(shown, sizeof(shown) - 4, md->values[i],
				     strlen(md->values[i]));
			fprintf(stderr, "%s: metadata '%s' reads "
				"environment variable '%s', which is not set "
				"here (KEDA reads it from the scale target's "
				"container); set it, or give %s=VALUE\n", prog,
				md->keys[i], shown, base);
			return -1;
		}
		dup = strdup(v);
		if (!dup) {
			fprintf(stderr, "%s: out of memory\n", prog);
			return -1;
		}
		free(md->values[i]);
		md->values[i] = dup;
		i++;
	}
	return 0;
}

int trigsel_check_args(const char *prog, const char *file, const char *sel,
		       long trigger, size_t nargs)
{
	if ((sel || trigger >= 0) && !file) {
		fprintf(stderr, "%s: --name and --trigger pick a trigger of "
			"--file FILE; there is no --file\n", prog);
		return -1;
	}
	if (!file && nargs == 0) {
		fprintf(stderr, "%s: no metadata: give key=value arguments or "
			"--file FILE\n", prog);
		return -2;
	}
	return 0;
}

void trigsel_init(struct trigsel *t)
{
	memset(t, 0, sizeof(*t));
	t->min_replicas = t->max_replicas = TRIGSEL_ABSENT;
}

void trigsel_release(struct trigsel *t)
{
	trigsel_pairs_release(&t->md);
	free(t->ns);
	free(t->name);
	trigsel_init(t);
}

int trigsel_gather(struct trigsel *t, const char *prog, const char *file,
		   const char *sel, long trigger,
		   const struct trigsel_pairs *args)
{
	size_t i;

	if (file && read_file(t, prog, file, sel, trigger))
		return -1;
	if (resolve_env(&t->md, prog, args))
		return -1;
	for (i = 0; i < args->n; i++)
		if (trigsel_pairs_set(&t->md, prog, args->keys[i],
				      strlen(args->keys[i]), args->values[i]))
			return -1;
	return 0;
}
