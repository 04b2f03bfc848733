/* libyaml document API -> flat key list with marks.
 *
 * libyaml hands us a graph, not a tree: an alias (*name) is a second edge to its anchored node
 * (&name), so a node can contain itself and nine lines can reach 10^9 nodes. The walk below
 * therefore tracks which nodes are open on the current path (a node met again while open is a
 * loop), counts the nodes reached through aliases, and bounds the depth; the whole file is read
 * into memory first, at most ICSIM_YAML_MAX_BYTES, so that a bad byte can be located. */
#include "yaml_flat.h"
#include "paths.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

enum node_state { UNSEEN, OPEN, DONE };

struct walker {
  const char *path;
  yaml_document_t *doc;
  struct icsim_yfile *out;
  size_t cap;
  unsigned char *state; /* enum node_state per node id - 1 */
  size_t alias_nodes;   /* nodes visited through an alias so far */
  char key[ICSIM_YAML_MAX_KEY + 1];
  char *err;
  size_t errlen;
};

static int fail(struct walker *w, yaml_mark_t m, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct walker *w, yaml_mark_t m, const char *fmt, ...)
{
  int n = snprintf(w->err, w->errlen, "%s:%zu:%zu: ", w->path, m.line + 1, m.column + 1);
  if (n >= 0 && (size_t)n < w->errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err + n, w->errlen - (size_t)n, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* ---- the index: entries by key, so that duplicate checks and lookups stay linear overall ---- */

static size_t hash_key(const char *s)
{
  uint64_t h = 1469598103934665603ULL; /* FNV-1a */
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return (size_t)h;
}

/* The slot holding KEY, or the free slot where it would go (the table is never full). */
static size_t *slot_of(const struct icsim_yfile *f, const char *key)
{
  size_t mask = f->nslot - 1;
  for (size_t i = hash_key(key) & mask;; i = (i + 1) & mask)
    if (!f->slot[i] || strcmp(f->e[f->slot[i] - 1].key, key) == 0)
      return &f->slot[i];
}

/* Keep the index at most half full. Returns 0 or -1 (out of memory). */
static int reserve_index(struct icsim_yfile *f, size_t n)
{
  if (2 * n <= f->nslot)
    return 0;
  size_t nslot = f->nslot ? 2 * f->nslot : 64;
  while (2 * n > nslot)
    nslot *= 2;
  size_t *old = f->slot, oldn = f->nslot;
  f->slot = calloc(nslot, sizeof *f->slot);
  if (!f->slot) {
    f->slot = old;
    return -1;
  }
  f->nslot = nslot;
  for (size_t i = 0; i < oldn; i++)
    if (old[i])
      *slot_of(f, f->e[old[i] - 1].key) = old[i];
  free(old);
  return 0;
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

static int push(struct walker *w, const char *value, const char *origin, const char *ref, yaml_mark_t vmark,
                yaml_mark_t kmark)
{
  struct icsim_yfile *f = w->out;
  if (f->n == ICSIM_YAML_MAX_ENTRIES)
    return fail(w, kmark, "more than %d values in one file, the most icsim reads (README, Limits); split the file",
                ICSIM_YAML_MAX_ENTRIES);
  if (reserve_index(f, f->n + 1))
    return fail(w, kmark, "out of memory reading '%s'", w->key);
  size_t *slot = slot_of(f, w->key);
  if (*slot)
    return fail(w, kmark, "key '%s' given twice (first at line %d); keep one", w->key, f->e[*slot - 1].key_line);
  if (f->n == w->cap) {
    size_t cap = w->cap ? 2 * w->cap : 32;
    struct icsim_yentry *e = realloc(f->e, cap * sizeof *e);
    if (!e)
      return fail(w, kmark, "out of memory reading '%s'", w->key);
    f->e = e;
    w->cap = cap;
  }
  struct icsim_yentry *e = &f->e[f->n];
  memset(e, 0, sizeof *e);
  e->key = strdup(w->key);
  e->value = strdup(value);
  e->origin = dup_or_null(origin);
  e->ref = dup_or_null(ref);
  if (!e->key || !e->value || (origin && !e->origin) || (ref && !e->ref)) {
    free(e->key), free(e->value), free(e->origin), free(e->ref);
    return fail(w, kmark, "out of memory reading '%s'", w->key);
  }
  e->line = (int)vmark.line + 1;
  e->column = (int)vmark.column + 1;
  e->key_line = (int)kmark.line + 1;
  e->key_column = (int)kmark.column + 1;
  *slot = ++f->n;
  return 0;
}

static const char *scalar_of(const yaml_node_t *n) { return (const char *)n->data.scalar.value; }

/* An empty plain scalar: what YAML reads after a colon with nothing behind it. */
static int is_null(const yaml_node_t *n)
{
  return n->type == YAML_SCALAR_NODE && n->data.scalar.length == 0 && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* A value is one line of text: a NUL would cut it short, a newline (block scalars, "\n")
 * would break the one-line outputs that print it. */
static int check_text(struct walker *w, const yaml_node_t *n, const char *what)
{
  const unsigned char *s = n->data.scalar.value;
  for (size_t i = 0; i < n->data.scalar.length; i++)
    if ((s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f)
      return fail(w, n->start_mark,
                  "%s holds a control character (0x%02x); write it on one line, without control characters", what,
                  s[i]);
  return 0;
}

/* Keys are words: letters, digits, '-', '_', '.'. A '/' would fake nesting, a number would
 * fake a list index ("metrics/0"), anything else is a typo or junk. */
static int check_key(struct walker *w, const yaml_node_t *k)
{
  if (k->type != YAML_SCALAR_NODE)
    return fail(w, k->start_mark, "keys must be plain words, not lists or mappings");
  const unsigned char *s = k->data.scalar.value;
  size_t len = k->data.scalar.length;
  if (len == 0)
    return fail(w, k->start_mark, "empty key; write a word before the colon");
  if (len == 2 && s[0] == '<' && s[1] == '<')
    return fail(w, k->start_mark, "merge keys ('<<') are not supported; write the keys out");
  int digits = 1;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = s[i];
    int word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
               c == '.';
    if (c == '/')
      return fail(w, k->start_mark, "key '%.*s' contains '/'; nest it as a mapping instead", (int)len, (const char *)s);
    if (!word) {
      if (c >= 0x20 && c < 0x7f)
        return fail(w, k->start_mark, "key '%.*s' contains '%c'; keys are words of letters, digits, '-', '_' and '.'",
                    (int)len, (const char *)s, c);
      return fail(w, k->start_mark, "key holds byte 0x%02x; keys are words of letters, digits, '-', '_' and '.'", c);
    }
    digits &= c >= '0' && c <= '9';
  }
  if (digits)
    return fail(w, k->start_mark, "key '%s' is a number; write a list as [a, b] or as '- ' items, not with number keys",
                (const char *)s);
  return 0;
}

/* Append SEG to the current key; *SAVED gets the length to restore. */
static int enter(struct walker *w, size_t *saved, const char *seg, size_t seglen, yaml_mark_t m)
{
  size_t len = strlen(w->key);
  size_t need = len + (len ? 1 : 0) + seglen;
  if (need > ICSIM_YAML_MAX_KEY)
    return fail(w, m, "key '%s/%.*s' is longer than %d characters (README, Limits); use shorter names or less nesting",
                w->key, (int)(seglen < 40 ? seglen : 40), seg, ICSIM_YAML_MAX_KEY);
  *saved = len;
  if (len)
    w->key[len++] = '/';
  memcpy(w->key + len, seg, seglen);
  w->key[len + seglen] = '\0';
  return 0;
}

static int walk(struct walker *w, yaml_node_t *node, int depth, int in_alias, yaml_mark_t kmark);

/* The two ends of `range: [LO, HI]`: a list of exactly two single values. */
static int range_ends(struct walker *w, yaml_node_t *v, yaml_node_t *ends[2])
{
  size_t n = v->type == YAML_SEQUENCE_NODE ? (size_t)(v->data.sequence.items.top - v->data.sequence.items.start) : 0;
  if (n != 2)
    return fail(w, v->start_mark, "'range' of '%s' must be a list of two values, low then high, written with units "
                "like the value: range: [20ns, 200ns]", w->key);
  for (int i = 0; i < 2; i++) {
    ends[i] = yaml_document_get_node(w->doc, v->data.sequence.items.start[i]);
    if (ends[i]->type != YAML_SCALAR_NODE || is_null(ends[i]))
      return fail(w, ends[i]->start_mark, "the %s end of the range of '%s' must be a single value, e.g. 20ns",
                  i ? "high" : "low", w->key);
    if (check_text(w, ends[i], "a range end"))
      return -1;
  }
  return 0;
}

/* {value: 4, origin: paper, ref: "...", range: [2, 8], range-ref: "..."}: one leaf with
 * provenance; nothing else may stand beside. Whether a range fits its value and its parameter
 * is checked against the descriptor table (params.c), not here. */
static int walk_value_leaf(struct walker *w, yaml_node_t *node, yaml_mark_t kmark)
{
  enum { VALUE, ORIGIN, REF, RANGE, RANGE_REF, NNAMES };
  static const char *const names[NNAMES] = {"value", "origin", "ref", "range", "range-ref"};
  yaml_node_t *given[NNAMES] = {NULL};
  yaml_node_t *ends[2] = {NULL, NULL};
  for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(w->doc, p->key);
    yaml_node_t *v = yaml_document_get_node(w->doc, p->value);
    int which = -1;
    for (int i = 0; i < NNAMES; i++)
      if (k->type == YAML_SCALAR_NODE && strlen(scalar_of(k)) == k->data.scalar.length && !strcmp(scalar_of(k), names[i]))
        which = i;
    if (which < 0)
      return fail(w, k->start_mark,
                  "'%s' takes only value, origin, ref, range and range-ref beside its value; remove the other key",
                  w->key);
    if (given[which])
      return fail(w, k->start_mark, "'%s' of '%s' given twice (first at line %zu); keep one", names[which], w->key,
                  given[which]->start_mark.line + 1);
    if (is_null(v))
      return fail(w, k->start_mark, "'%s' of '%s' has no value; write one after the colon", names[which], w->key);
    if (which == RANGE) {
      if (range_ends(w, v, ends))
        return -1;
      given[which] = v;
      continue;
    }
    if (v->type != YAML_SCALAR_NODE)
      return fail(w, v->start_mark, "'%s' of '%s' must be a single value", names[which], w->key);
    char what[ICSIM_YAML_MAX_KEY + 32];
    snprintf(what, sizeof what, "'%s' of '%s'", names[which], w->key);
    if (check_text(w, v, what))
      return -1;
    given[which] = v;
  }
  const char *origin = given[ORIGIN] ? scalar_of(given[ORIGIN]) : NULL;
  if (origin && strcmp(origin, "paper") && strcmp(origin, "spec") && strcmp(origin, "calibrated") &&
      strcmp(origin, "assumed") && strcmp(origin, "measured"))
    return fail(w, given[ORIGIN]->start_mark,
                "origin '%s' of '%s' is not one of paper, spec, calibrated, measured, assumed", origin, w->key);
  /* a range without its reason is a defect, a reason without a range a leftover */
  if (given[RANGE] && !given[RANGE_REF])
    return fail(w, given[RANGE]->start_mark,
                "the range of '%s' has no range-ref; say what bounds it (a published measurement of comparable "
                "hardware, a vendor's spread, a physical limit): range-ref: \"...\"", w->key);
  if (given[RANGE_REF] && !given[RANGE])
    return fail(w, given[RANGE_REF]->start_mark,
                "'%s' has a range-ref but no range; add range: [LO, HI] or remove the range-ref", w->key);
  if (push(w, scalar_of(given[VALUE]), origin, given[REF] ? scalar_of(given[REF]) : NULL, given[VALUE]->start_mark,
           kmark))
    return -1;
  if (!given[RANGE])
    return 0;
  struct icsim_yentry *e = &w->out->e[w->out->n - 1];
  e->range_lo = strdup(scalar_of(ends[0]));
  e->range_hi = strdup(scalar_of(ends[1]));
  e->range_ref = strdup(scalar_of(given[RANGE_REF]));
  if (!e->range_lo || !e->range_hi || !e->range_ref)
    return fail(w, kmark, "out of memory reading '%s'", w->key); /* freed with the file */
  e->range_line = (int)given[RANGE]->start_mark.line + 1;
  e->range_column = (int)given[RANGE]->start_mark.column + 1;
  e->range_ref_line = (int)given[RANGE_REF]->start_mark.line + 1;
  e->range_ref_column = (int)given[RANGE_REF]->start_mark.column + 1;
  return 0;
}

/* 1 if NODE is a mapping with key NAME. */
static int has_key(yaml_document_t *doc, yaml_node_t *node, const char *name)
{
  for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(doc, p->key);
    if (k->type == YAML_SCALAR_NODE && !strcmp(scalar_of(k), name) && strlen(name) == k->data.scalar.length)
      return 1;
  }
  return 0;
}

static int walk_mapping(struct walker *w, yaml_node_t *node, int depth, int in_alias, yaml_mark_t kmark)
{
  size_t npairs = (size_t)(node->data.mapping.pairs.top - node->data.mapping.pairs.start);
  if (npairs == 0) {
    if (depth == 0)
      return fail(w, node->start_mark, "the file holds no keys");
    return fail(w, node->start_mark, "'%s' is empty; give it keys or remove it", w->key);
  }
  if (depth > 0 && has_key(w->doc, node, "value"))
    return walk_value_leaf(w, node, kmark);
  if (depth > 0) { /* provenance words only, no value: a leaf that forgot its value */
    size_t prov = 0;
    static const char *const words[] = {"origin", "ref", "range", "range-ref"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
      prov += (size_t)has_key(w->doc, node, words[i]);
    if (prov && npairs <= prov)
      return fail(w, node->start_mark,
                  "'%s' has origin, ref or range but no value; write {value: ..., origin: ..., ref: ...}", w->key);
  }
  for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(w->doc, p->key);
    yaml_node_t *v = yaml_document_get_node(w->doc, p->value);
    size_t saved;
    if (check_key(w, k) || enter(w, &saved, scalar_of(k), k->data.scalar.length, k->start_mark))
      return -1;
    if (is_null(v))
      return fail(w, k->start_mark, "'%s' has no value; write one after the colon", w->key);
    if (walk(w, v, depth + 1, in_alias, k->start_mark))
      return -1;
    w->key[saved] = '\0';
  }
  return 0;
}

static int walk_sequence(struct walker *w, yaml_node_t *node, int depth, int in_alias)
{
  if (node->data.sequence.items.start == node->data.sequence.items.top)
    return fail(w, node->start_mark, "'%s' is an empty list; give it items or remove it", w->key);
  size_t i = 0;
  for (yaml_node_item_t *it = node->data.sequence.items.start; it < node->data.sequence.items.top; it++, i++) {
    yaml_node_t *child = yaml_document_get_node(w->doc, *it);
    char seg[24];
    size_t saved;
    int len = snprintf(seg, sizeof seg, "%zu", i);
    if (enter(w, &saved, seg, (size_t)len, child->start_mark))
      return -1;
    if (is_null(child))
      return fail(w, child->start_mark, "item '%s' is empty; write a value after the '-' or remove it", w->key);
    if (walk(w, child, depth + 1, in_alias, child->start_mark))
      return -1;
    w->key[saved] = '\0';
  }
  return 0;
}

static int walk(struct walker *w, yaml_node_t *node, int depth, int in_alias, yaml_mark_t kmark)
{
  unsigned char *state = &w->state[node - w->doc->nodes.start];
  if (*state == OPEN)
    return fail(w, kmark,
                "'%s' contains itself: an alias (*name) refers to an anchor (&name, line %zu) around it; an alias may "
                "only repeat a complete node",
                w->key, node->start_mark.line + 1);
  if (*state == DONE)
    in_alias = 1; /* only an alias reaches a node twice */
  if (in_alias && ++w->alias_nodes > ICSIM_YAML_MAX_ALIAS_NODES)
    return fail(w, kmark,
                "aliases (*name) expand to more than %d nodes (README, Limits); write the repeated part out or repeat "
                "less",
                ICSIM_YAML_MAX_ALIAS_NODES);
  if (depth > ICSIM_YAML_MAX_DEPTH)
    return fail(w, node->start_mark, "nested deeper than %d levels (README, Limits); flatten the file",
                ICSIM_YAML_MAX_DEPTH);
  *state = OPEN;
  int rc = 0;
  switch (node->type) {
  case YAML_SCALAR_NODE:
    if (depth == 0)
      rc = fail(w, node->start_mark, "the file holds a single value; it must be a mapping of keys");
    else {
      char what[ICSIM_YAML_MAX_KEY + 32];
      snprintf(what, sizeof what, "the value of '%s'", w->key);
      rc = check_text(w, node, what) || push(w, scalar_of(node), NULL, NULL, node->start_mark, kmark) ? -1 : 0;
    }
    break;
  case YAML_SEQUENCE_NODE: rc = walk_sequence(w, node, depth, in_alias); break;
  case YAML_MAPPING_NODE: rc = walk_mapping(w, node, depth, in_alias, kmark); break;
  case YAML_NO_NODE: break;
  }
  *state = DONE;
  return rc;
}

/* ---- reading and syntax errors ---- */

/* The whole file, at most ICSIM_YAML_MAX_BYTES (a device or a pipe that never ends is refused
 * at that size). Returns a malloc-ed buffer or NULL with ERR set. */
static char *read_bounded(const char *what, const char *path, size_t *len, char *err, size_t errlen)
{
  /* a regular file only, refused before any open that could block (paths.h) */
  FILE *fp = icsim_input_fopen(what, path, err, errlen);
  if (!fp)
    return NULL;
  struct stat st;
  int known = fstat(fileno(fp), &st) == 0;
  /* sized by the file when it says (regular files), grown up to the limit when not (pipes) */
  size_t cap = known && S_ISREG(st.st_mode) && st.st_size < ICSIM_YAML_MAX_BYTES ? (size_t)st.st_size + 1 : 65536;
  size_t n = 0;
  char *buf = malloc(cap);
  int bad = !buf, oom = bad;
  while (!bad && n <= ICSIM_YAML_MAX_BYTES) {
    if (n == cap) {
      size_t more = cap * 2 > ICSIM_YAML_MAX_BYTES + 1 ? ICSIM_YAML_MAX_BYTES + 1 : cap * 2;
      char *grown = more > cap ? realloc(buf, more) : NULL;
      if (!grown) {
        bad = oom = 1;
        break;
      }
      buf = grown, cap = more;
    }
    size_t got = fread(buf + n, 1, cap - n, fp);
    n += got;
    if (got == 0)
      break;
  }
  bad = bad || ferror(fp);
  int e = errno;
  fclose(fp);
  if (bad) {
    snprintf(err, errlen, "%s: cannot read (%s)", icsim_path_shown(path), oom ? "out of memory" : strerror(e));
    free(buf);
    return NULL;
  }
  if (n > ICSIM_YAML_MAX_BYTES) {
    snprintf(err, errlen, "%s: larger than %d KiB, the most icsim reads from one file (README, Limits); is it the "
             "right file?", icsim_path_shown(path), ICSIM_YAML_MAX_BYTES / 1024);
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

static void syntax_error(const char *path, const char *text, size_t len, const yaml_parser_t *p, char *err,
                         size_t errlen)
{
  const char *problem = p->problem ? p->problem : "unknown problem";
  if (p->error == YAML_MEMORY_ERROR) {
    snprintf(err, errlen, "%s: out of memory while parsing", path);
    return;
  }
  if (p->error == YAML_READER_ERROR) { /* bytes that are not text: locate the offset */
    size_t line = 1, col = 1;
    for (size_t i = 0; i < p->problem_offset && i < len; i++)
      if (text[i] == '\n')
        line++, col = 1;
      else
        col++;
    snprintf(err, errlen, "%s:%zu:%zu: not UTF-8 text: %s (byte 0x%02x); save the file as UTF-8 text", path, line,
             col, problem, p->problem_value & 0xff);
    return;
  }
  /* A token that never ended (a key without its colon, an unclosed quote) is best shown where
   * it starts; a structure that went wrong (a block mapping) where it went wrong, which libyaml
   * notices only on a later line. */
  yaml_mark_t at = p->problem_mark;
  char ctx[200] = "";
  if (p->context && !strncmp(p->context, "while scanning", 14) && strcmp(p->context, "while scanning for the next token")) {
    at = p->context_mark;
    snprintf(ctx, sizeof ctx, " (%s that starts here; noticed at %zu:%zu)", p->context, p->problem_mark.line + 1,
             p->problem_mark.column + 1);
  } else if (p->context)
    snprintf(ctx, sizeof ctx, " (%s that starts at %zu:%zu)", p->context, p->context_mark.line + 1,
             p->context_mark.column + 1);
  const char *fix = "check indentation, colons and quotes";
  if (strstr(problem, "mapping values are not allowed"))
    fix = "a 'key:' stands where no key can start: check this line's indentation, or quote a value holding ': '";
  else if (strstr(problem, "did not find expected key"))
    fix = "this line's indentation matches no key above it: indent it like the keys it belongs with";
  else if (strstr(problem, "could not find expected ':'"))
    fix = "write 'key: value', with a colon and a space";
  else if (strstr(problem, "cannot start any token") && p->problem_mark.index < len && text[p->problem_mark.index] == '\t')
    fix = "tabs cannot indent YAML: indent with spaces";
  snprintf(err, errlen, "%s:%zu:%zu: YAML syntax error: %s%s; %s", path, at.line + 1, at.column + 1, problem, ctx, fix);
}

/* A first pass over the parser's events, before libyaml builds the document: libyaml's
 * scanner takes time quadratic in the depth of flow nesting (100 000 '[' take a minute), so the
 * depth is bounded here, where parsing stops at the first level too deep. A second document,
 * which the document loader would silently leave unread, is refused here too. */
static int prescan(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
  yaml_parser_t parser;
  yaml_event_t ev;
  if (!yaml_parser_initialize(&parser)) {
    snprintf(err, errlen, "%s: out of memory", path);
    return -1;
  }
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
  int depth = 0, docs = 0, anchors = 0, aliases = 0, rc = 0;
  for (int end = 0; !end && !rc;) {
    if (!yaml_parser_parse(&parser, &ev)) {
      syntax_error(path, text, len, &parser, err, errlen);
      rc = -1;
      break;
    }
    yaml_mark_t m = ev.start_mark;
    /* libyaml compares each anchor with every earlier one, and each alias with every anchor */
    const yaml_char_t *anchor = ev.type == YAML_SCALAR_EVENT           ? ev.data.scalar.anchor
                                : ev.type == YAML_SEQUENCE_START_EVENT ? ev.data.sequence_start.anchor
                                : ev.type == YAML_MAPPING_START_EVENT  ? ev.data.mapping_start.anchor
                                                                       : NULL;
    if (anchor && ++anchors > ICSIM_YAML_MAX_ANCHORS) {
      snprintf(err, errlen, "%s:%zu:%zu: more than %d anchors (&name) (README, Limits); write the values out", path,
               m.line + 1, m.column + 1, ICSIM_YAML_MAX_ANCHORS);
      rc = -1;
    }
    if (ev.type == YAML_ALIAS_EVENT && ++aliases > ICSIM_YAML_MAX_ALIAS_NODES) {
      snprintf(err, errlen,
               "%s:%zu:%zu: aliases (*name) expand to more than %d nodes (README, Limits); write the repeated part "
               "out or repeat less",
               path, m.line + 1, m.column + 1, ICSIM_YAML_MAX_ALIAS_NODES);
      rc = -1;
    }
    switch (rc ? YAML_NO_EVENT : ev.type) {
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
      /* containers at walk() depth 0..MAX; one deeper is refused (as walk() would) */
      if (++depth > ICSIM_YAML_MAX_DEPTH + 1) {
        snprintf(err, errlen, "%s:%zu:%zu: nested deeper than %d levels (README, Limits); flatten the file", path,
                 m.line + 1, m.column + 1, ICSIM_YAML_MAX_DEPTH);
        rc = -1;
      }
      break;
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT: depth--; break;
    case YAML_DOCUMENT_START_EVENT:
      if (++docs > 1) {
        snprintf(err, errlen,
                 "%s:%zu:%zu: a second YAML document starts here; a file holds one: remove this '---' and what follows",
                 path, m.line + 1, m.column + 1);
        rc = -1;
      }
      break;
    case YAML_STREAM_END_EVENT: end = 1; break;
    default: break;
    }
    yaml_event_delete(&ev);
  }
  yaml_parser_delete(&parser);
  return rc;
}

int icsim_yaml_load(const char *path, struct icsim_yfile *out, char *err, size_t errlen)
{
  return icsim_yaml_load_as("file", path, out, err, errlen);
}

int icsim_yaml_load_as(const char *what, const char *path, struct icsim_yfile *out, char *err, size_t errlen)
{
  memset(out, 0, sizeof *out);
  size_t len = 0;
  char *text = read_bounded(what, path, &len, err, errlen);
  const char *full = path;
  char shown[ICSIM_PATH_SHOWN + 1]; /* messages name the path shortened, never cut their reason */
  path = icsim_path_short(path, shown, sizeof shown);
  if (!text)
    return -1;
  if (prescan(path, text, len, err, errlen)) {
    free(text);
    return -1;
  }
  yaml_parser_t parser;
  yaml_document_t doc;
  if (!yaml_parser_initialize(&parser)) {
    snprintf(err, errlen, "%s: out of memory", path);
    free(text);
    return -1;
  }
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
  int rc = -1;
  if (!yaml_parser_load(&parser, &doc)) {
    syntax_error(path, text, len, &parser, err, errlen);
    goto out;
  }
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  if (!root) {
    snprintf(err, errlen, "%s:1:1: the file is empty; a platform or case file is a mapping of keys", path);
  } else if (root->type != YAML_MAPPING_NODE) {
    snprintf(err, errlen, "%s:%zu:%zu: the top level must be a mapping of keys", path, root->start_mark.line + 1,
             root->start_mark.column + 1);
  } else {
    struct walker w = {.path = path, .doc = &doc, .out = out, .err = err, .errlen = errlen};
    w.state = calloc((size_t)(doc.nodes.top - doc.nodes.start), 1);
    rc = w.state ? walk(&w, root, 0, 0, root->start_mark) : -1;
    if (!w.state)
      snprintf(err, errlen, "%s: out of memory", path);
    free(w.state);
  }
  yaml_document_delete(&doc);
out:
  yaml_parser_delete(&parser);
  free(text);
  if (rc == 0 && !(out->path = strdup(full))) {
    snprintf(err, errlen, "%s: out of memory", path);
    rc = -1;
  }
  if (rc)
    icsim_yaml_free(out);
  return rc;
}

void icsim_yaml_free(struct icsim_yfile *f)
{
  for (size_t i = 0; i < f->n; i++) {
    free(f->e[i].key);
    free(f->e[i].value);
    free(f->e[i].origin);
    free(f->e[i].ref);
    free(f->e[i].range_lo);
    free(f->e[i].range_hi);
    free(f->e[i].range_ref);
  }
  free(f->e);
  free(f->slot);
  free(f->path);
  memset(f, 0, sizeof *f);
}

const struct icsim_yentry *icsim_yaml_get(const struct icsim_yfile *f, const char *key)
{
  if (!f->nslot)
    return NULL;
  size_t s = *slot_of(f, key);
  return s ? &f->e[s - 1] : NULL;
}
