/* Stack registry: each stack's object file registers itself from a constructor. */
#define _GNU_SOURCE
#include "stack.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STACKS 16

static const struct icsim_stack_ops *registry[MAX_STACKS];
static size_t nregistered;

void icsim_stack_register(const struct icsim_stack_ops *ops)
{
  if (nregistered == MAX_STACKS) {
    fprintf(stderr, "icsim: internal error: more than %d stacks registered; raise MAX_STACKS\n", MAX_STACKS);
    abort();
  }
  /* Keep the registry sorted by name so listings do not depend on link order. */
  size_t i = nregistered++;
  while (i > 0 && strcmp(registry[i - 1]->name, ops->name) > 0) {
    registry[i] = registry[i - 1];
    i--;
  }
  registry[i] = ops;
}

const struct icsim_stack_ops *icsim_stack_find(const char *name)
{
  for (size_t i = 0; i < nregistered; i++)
    if (strcmp(registry[i]->name, name) == 0)
      return registry[i];
  return NULL;
}

size_t icsim_stack_count(void) { return nregistered; }

const struct icsim_stack_ops *icsim_stack_at(size_t i) { return i < nregistered ? registry[i] : NULL; }

const char *icsim_role_name(enum icsim_layer_role r)
{
  switch (r) {
  case ICSIM_ROLE_CALLS: return "call";
  case ICSIM_ROLE_NETWORK: return "network";
  case ICSIM_ROLE_NODE: return "node";
  }
  return "?";
}

const char *icsim_wire_mode_name(enum icsim_wire_mode m)
{
  switch (m) {
  case ICSIM_WIRE_NONE: return "none";
  case ICSIM_WIRE_FACTORS: return "factors";
  case ICSIM_WIRE_SCHEDULE: return "schedule";
  case ICSIM_WIRE_SHARING: return "sharing";
  }
  return "?";
}

size_t icsim_counters_out(struct icsim_counter *out, size_t max, const struct icsim_counter *c, size_t n)
{
  if (n > max)
    n = max;
  for (size_t i = 0; i < n; i++)
    out[i] = c[i];
  return n;
}

static void add_phase(struct icsim_wire_cost *c, const char *name, double s, int after)
{
  if (s > 0 && c->nphases < ICSIM_WIRE_MAX_PHASES)
    c->phase[c->nphases++] = (struct icsim_wire_phase){name, s, NULL, after};
}

void icsim_wire_add_phase(struct icsim_wire_cost *c, const char *name, double s) { add_phase(c, name, s, 0); }
void icsim_wire_add_phase_after(struct icsim_wire_cost *c, const char *name, double s) { add_phase(c, name, s, 1); }
void icsim_wire_name_flow(struct icsim_wire_cost *c, const char *name) { c->flow_name = name; }

void icsim_wire_set_alone(struct icsim_wire_cost *c, const char *name, double alone_s)
{
  c->alone_name = name;
  c->alone_s = alone_s;
  c->alone_layer = -1;
}

int icsim_eager_push(const struct icsim_wire_query *q, struct icsim_wire_cost *c)
{
  double flown = q->msg ? q->now_s - q->announced_s : 0;
  if (flown <= 0)
    return 0;
  c->latency_s = c->latency_s - flown > 1e-12 ? c->latency_s - flown : 1e-12;
  return 1;
}

int icsim_launch_env(struct icsim_launch *l, const char *fmt, ...)
{
  int i = 0;
  while (i < ICSIM_LAUNCH_MAX_ENV && l->env[i])
    i++;
  if (i == ICSIM_LAUNCH_MAX_ENV)
    return -1;
  va_list ap;
  va_start(ap, fmt);
  int n = vasprintf(&l->env[i], fmt, ap);
  va_end(ap);
  if (n < 0)
    l->env[i] = NULL;
  return n < 0 ? -1 : 0;
}

void icsim_launch_clear(struct icsim_launch *l)
{
  for (int i = 0; i < ICSIM_LAUNCH_MAX_ENV; i++)
    free(l->env[i]);
  free(l->preload);
  free(l->note);
  const char *libdir = l->libdir;
  int nranks = l->nranks;
  memset(l, 0, sizeof *l);
  l->libdir = libdir;
  l->nranks = nranks;
}

void icsim_place_plan_clear(struct icsim_place_plan *pl)
{
  for (int i = 0; i < pl->n && i < ICSIM_PLACE_MAX_CANDIDATES; i++)
    free(pl->cand[i].node_of);
  free(pl->legend);
  free(pl->cost_heads);
  pl->legend = pl->cost_heads = NULL;
  pl->node_word = NULL;
  pl->write_best = NULL;
  pl->n = 0;
  memset(pl->cand, 0, sizeof pl->cand);
}
