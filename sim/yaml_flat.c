/* libyaml document API -> flat key list with marks. */
#include "yaml_flat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct walker {
  const char *path;
  yaml_document_t *doc;
  struct icsim_yfile *out;
  size_t cap;
  char *err;
  size_t errlen;
};

static int push(struct walker *w, const char *key, const char *value, const char *origin, const char *ref,
                yaml_mark_t vmark, yaml_mark_t kmark)
{
  for (size_t i = 0; i < w->out->n; i++)
    if (strcmp(w->out->e[i].key, key) == 0) {
      snprintf(w->err, w->errlen, "%s:%zu:%zu: key '%s' given twice (first at line %d); keep one", w->path,
               kmark.line + 1, kmark.column + 1, key, w->out->e[i].key_line);
      return -1;
    }
  if (w->out->n == w->cap) {
    w->cap = w->cap ? 2 * w->cap : 32;
    w->out->e = realloc(w->out->e, w->cap * sizeof *w->out->e);
  }
  struct icsim_yentry *e = &w->out->e[w->out->n++];
  e->key = strdup(key);
  e->value = strdup(value);
  e->origin = origin ? strdup(origin) : NULL;
  e->ref = ref ? strdup(ref) : NULL;
  e->line = (int)vmark.line + 1;
  e->column = (int)vmark.column + 1;
  e->key_line = (int)kmark.line + 1;
  e->key_column = (int)kmark.column + 1;
  return 0;
}

static const char *scalar_of(yaml_node_t *n) { return (const char *)n->data.scalar.value; }

/* A mapping whose keys are only value/origin/ref and which has `value` is a leaf with provenance. */
static int is_value_leaf(yaml_document_t *doc, yaml_node_t *node)
{
  int has_value = 0;
  for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(doc, p->key);
    if (k->type != YAML_SCALAR_NODE)
      return 0;
    if (strcmp(scalar_of(k), "value") == 0)
      has_value = 1;
    else if (strcmp(scalar_of(k), "origin") != 0 && strcmp(scalar_of(k), "ref") != 0)
      return 0;
  }
  return has_value;
}

static int walk(struct walker *w, yaml_node_t *node, const char *prefix, yaml_mark_t kmark)
{
  char key[512];
  switch (node->type) {
  case YAML_SCALAR_NODE:
    if (prefix[0] == '\0') {
      snprintf(w->err, w->errlen, "%s:%zu:%zu: the file holds a single value; it must be a mapping of keys",
               w->path, node->start_mark.line + 1, node->start_mark.column + 1);
      return -1;
    }
    return push(w, prefix, scalar_of(node), NULL, NULL, node->start_mark, kmark);
  case YAML_SEQUENCE_NODE: {
    size_t i = 0;
    for (yaml_node_item_t *it = node->data.sequence.items.start; it < node->data.sequence.items.top; it++, i++) {
      yaml_node_t *child = yaml_document_get_node(w->doc, *it);
      snprintf(key, sizeof key, "%s/%zu", prefix, i);
      if (walk(w, child, key, child->start_mark))
        return -1;
    }
    return 0;
  }
  case YAML_MAPPING_NODE:
    if (prefix[0] && is_value_leaf(w->doc, node)) {
      const char *value = NULL, *origin = NULL, *ref = NULL;
      yaml_mark_t vmark = node->start_mark;
      for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(w->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(w->doc, p->value);
        if (v->type != YAML_SCALAR_NODE) {
          snprintf(w->err, w->errlen, "%s:%zu:%zu: '%s' of '%s' must be a single value", w->path,
                   v->start_mark.line + 1, v->start_mark.column + 1, scalar_of(k), prefix);
          return -1;
        }
        if (strcmp(scalar_of(k), "value") == 0) {
          value = scalar_of(v);
          vmark = v->start_mark;
        } else if (strcmp(scalar_of(k), "origin") == 0)
          origin = scalar_of(v);
        else
          ref = scalar_of(v);
      }
      if (origin && strcmp(origin, "paper") && strcmp(origin, "spec") && strcmp(origin, "calibrated") &&
          strcmp(origin, "assumed") && strcmp(origin, "measured")) {
        snprintf(w->err, w->errlen,
                 "%s:%d:%d: origin '%s' of '%s' is not one of paper, spec, calibrated, measured, assumed", w->path,
                 (int)vmark.line + 1, (int)vmark.column + 1, origin, prefix);
        return -1;
      }
      return push(w, prefix, value, origin, ref, vmark, kmark);
    }
    if (node->data.mapping.pairs.start == node->data.mapping.pairs.top && prefix[0]) {
      snprintf(w->err, w->errlen, "%s:%zu:%zu: '%s' is empty; give it keys or remove it", w->path,
               node->start_mark.line + 1, node->start_mark.column + 1, prefix);
      return -1;
    }
    for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
      yaml_node_t *k = yaml_document_get_node(w->doc, p->key);
      yaml_node_t *v = yaml_document_get_node(w->doc, p->value);
      if (k->type != YAML_SCALAR_NODE) {
        snprintf(w->err, w->errlen, "%s:%zu:%zu: keys must be plain words", w->path, k->start_mark.line + 1,
                 k->start_mark.column + 1);
        return -1;
      }
      if (strchr(scalar_of(k), '/')) {
        snprintf(w->err, w->errlen, "%s:%zu:%zu: key '%s' contains '/'; nest it as a mapping instead", w->path,
                 k->start_mark.line + 1, k->start_mark.column + 1, scalar_of(k));
        return -1;
      }
      snprintf(key, sizeof key, "%s%s%s", prefix, prefix[0] ? "/" : "", scalar_of(k));
      if (v->type == YAML_SCALAR_NODE && v->data.scalar.length == 0 && v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
        snprintf(w->err, w->errlen, "%s:%zu:%zu: '%s' has no value; write one after the colon", w->path,
                 k->start_mark.line + 1, k->start_mark.column + 1, key);
        return -1;
      }
      if (walk(w, v, key, k->start_mark))
        return -1;
    }
    return 0;
  case YAML_NO_NODE:
    break;
  }
  return 0;
}

int icsim_yaml_load(const char *path, struct icsim_yfile *out, char *err, size_t errlen)
{
  memset(out, 0, sizeof *out);
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    snprintf(err, errlen, "%s: cannot open (%s); check the path", path, strerror(errno));
    return -1;
  }
  yaml_parser_t parser;
  yaml_document_t doc;
  yaml_parser_initialize(&parser);
  yaml_parser_set_input_file(&parser, fp);
  int rc = -1;
  if (!yaml_parser_load(&parser, &doc)) {
    const yaml_mark_t *m = &parser.problem_mark;
    if (parser.context) /* libyaml finds the problem after the line at fault: point at its start */
      snprintf(err, errlen,
               "%s:%zu:%zu: YAML syntax error: %s %s (noticed at %zu:%zu); check indentation, colons and quotes",
               path, parser.context_mark.line + 1, parser.context_mark.column + 1,
               parser.problem ? parser.problem : "unknown", parser.context, m->line + 1, m->column + 1);
    else
      snprintf(err, errlen, "%s:%zu:%zu: YAML syntax error: %s; check indentation, colons and quotes", path,
               m->line + 1, m->column + 1, parser.problem ? parser.problem : "unknown");
    yaml_parser_delete(&parser);
    fclose(fp);
    return -1;
  }
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  if (!root) {
    snprintf(err, errlen, "%s:1:1: the file is empty", path);
  } else if (root->type != YAML_MAPPING_NODE) {
    snprintf(err, errlen, "%s:%zu:%zu: the top level must be a mapping of keys", path,
             root->start_mark.line + 1, root->start_mark.column + 1);
  } else {
    struct walker w = {path, &doc, out, 0, err, errlen};
    rc = walk(&w, root, "", root->start_mark);
  }
  yaml_document_delete(&doc);
  yaml_parser_delete(&parser);
  fclose(fp);
  if (rc == 0)
    out->path = strdup(path);
  else
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
  }
  free(f->e);
  free(f->path);
  memset(f, 0, sizeof *f);
}

const struct icsim_yentry *icsim_yaml_get(const struct icsim_yfile *f, const char *key)
{
  for (size_t i = 0; i < f->n; i++)
    if (strcmp(f->e[i].key, key) == 0)
      return &f->e[i];
  return NULL;
}
