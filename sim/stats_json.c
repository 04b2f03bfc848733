/* --stats as JSON (stats_json.h). */
#include "stats_json.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "stack.h"
#include "transfer.h"

static void counter(json_t *section, const char *name, double value, const char *unit)
{
  json_object_set_new(section, name, json_pack("{s:f, s:s}", "value", value, "unit", unit));
}

static json_t *sets_object(const char *sets)
{
  json_t *o = json_object();
  int n = 0;
  char **v = icsim_split_sets(sets, &n);
  for (int i = 0; i < n; i++) {
    char *eq = strchr(v[i], '=');
    if (!eq)
      continue;
    *eq = '\0';
    json_object_set_new(o, v[i], json_string(eq + 1));
    *eq = '=';
  }
  if (v) {
    free(v[0]);
    free(v);
  }
  return o;
}

/* "A_B_s" from A and B (B may be NULL), '/', '-' and ' ' as '_': a counter's name in seconds. */
static const char *plain_key(char *key, size_t len, const char *a, const char *b)
{
  snprintf(key, len, "%s%s%s_s", a, b ? "_" : "", b ? b : "");
  for (char *c = key; *c; c++)
    if (*c == '/' || *c == '-' || *c == ' ')
      *c = '_';
  return key;
}

char *icsim_stats_json(struct icsim_runtime *rt, double simulated_s)
{
  json_t *root = json_object();
  json_object_set_new(root, "platform", json_string(rt->pf.p.name));
  json_t *layers = json_array();
  for (int i = 0; i < rt->pf.nlayers; i++)
    json_array_append_new(layers, json_string(rt->pf.layer[i]->name));
  json_object_set_new(root, "layers", layers);
  json_object_set_new(root, "stack", json_string(rt->pf.stack->name));
  json_object_set_new(root, "sets", sets_object(rt->sets));
  json_object_set_new(root, "simulated_time_s", json_real(simulated_s));

  struct icsim_transfer_counts tc;
  icsim_transfers_counts(rt->transfers, &tc);
  json_t *mpi = json_object();
  counter(mpi, "messages", rt->messages, "messages");
  counter(mpi, "payload_bytes", rt->payload_bytes, "bytes");
  counter(mpi, "send_cpu", rt->send_cpu_s, "s");
  counter(mpi, "recv_cpu", rt->recv_cpu_s, "s");
  counter(mpi, "call_cpu", rt->call_cpu_s, "s");
  counter(mpi, "calls", rt->mpi_calls, "calls");
  counter(mpi, "intra_node_messages", rt->intra_node_messages, "messages");
  counter(mpi, "transfers", rt->transfers_started, "transfers");
  counter(mpi, "intra_node_transfers", rt->intra_node_transfers, "transfers");
  counter(mpi, "announced_transfers", tc.announced, "transfers");
  counter(mpi, "completed_transfers", tc.done, "transfers");
  counter(mpi, "unmatched_transfers", tc.unannounced + tc.pending, "transfers");
  counter(mpi, "unannounced_transfers", tc.unannounced, "transfers");
  counter(mpi, "never_started_transfers", tc.pending, "transfers");
  counter(mpi, "smpi_internal_transfers", tc.internal, "transfers");
  counter(mpi, "requests_left_open", rt->engine_requests, "requests");
  json_object_set_new(root, "mpi", mpi);

  double csum = 0, cmax = 0;
  for (int r = 0; rt->compute_s && r < rt->nranks; r++) {
    csum += rt->compute_s[r];
    cmax = rt->compute_s[r] > cmax ? rt->compute_s[r] : cmax;
  }
  json_t *compute = json_object();
  counter(compute, "phases", rt->phases, "phases");
  counter(compute, "operations", rt->phase_ops, "ops");
  counter(compute, "memory_bytes", rt->phase_bytes, "bytes");
  counter(compute, "random_accesses", rt->phase_accesses, "accesses");
  counter(compute, "time_mean", rt->nranks ? csum / rt->nranks : 0, "s");
  counter(compute, "time_max", cmax, "s");
  json_object_set_new(root, "compute", compute);
  /* where the ranks' time went, summed over ranks (--breakdown shows each rank's) */
  json_t *bd = json_object();
  struct icsim_time_entry row[64], sum[64];
  int ne = icsim_runtime_breakdown(rt, 0, simulated_s, sum, 64);
  for (int i = 0; i < ne; i++)
    sum[i].s = 0;
  for (int r = 0; r < rt->nranks; r++) {
    icsim_runtime_breakdown(rt, r, simulated_s, row, 64);
    for (int i = 0; i < ne; i++)
      sum[i].s += row[i].s;
  }
  for (int i = 0; i < ne; i++) {
    char key[96];
    counter(bd, plain_key(key, sizeof key, sum[i].name, NULL), sum[i].s, "s");
  }
  json_object_set_new(root, "breakdown", bd);
  /* the transfers' time by phase as the stacks priced it, and the rest (flow); it overlaps the
   * ranks' time */
  json_t *wp = json_object();
  for (int k = 0; k < rt->nwire_phases; k++) {
    char key[96];
    counter(wp, plain_key(key, sizeof key, rt->wire_phase[k].layer, rt->wire_phase[k].name), rt->wire_phase[k].s, "s");
  }
  counter(wp, "flow_s", rt->wire_flow_s, "s");
  counter(wp, "transfers", rt->wire_transfers_done, "transfers");
  json_object_set_new(root, "wire_phases", wp);

  for (int i = 0; i < rt->pf.nlayers; i++) {
    const struct icsim_stack_ops *ops = rt->pf.layer[i];
    struct icsim_counter c[64];
    size_t n = ops->counters ? ops->counters(rt->state[i], c, 64) : 0;
    json_t *section = json_object();
    for (size_t k = 0; k < n; k++)
      counter(section, c[k].name, c[k].value, c[k].unit);
    json_object_set_new(root, ops->name, section);
  }
  char *text = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
  json_decref(root);
  if (text) { /* a final newline, as a text file has */
    size_t len = strlen(text);
    char *grown = realloc(text, len + 2);
    if (grown) {
      grown[len] = '\n';
      grown[len + 1] = '\0';
      text = grown;
    }
  }
  return text;
}

/* The JSON value at WHAT: a top-level key, or SECTION/NAME. */
static json_t *lookup(json_t *root, const char *what)
{
  const char *slash = strchr(what, '/');
  if (!slash)
    return json_object_get(root, what);
  char section[256];
  size_t n = (size_t)(slash - what);
  if (n >= sizeof section)
    return NULL;
  memcpy(section, what, n);
  section[n] = '\0';
  return json_object_get(json_object_get(root, section), slash + 1);
}

double icsim_stats_get(const char *json_text, const char *what)
{
  if (!json_text)
    return NAN;
  json_t *root = json_loads(json_text, 0, NULL);
  json_t *v = lookup(root, what);
  if (!v && !strchr(what, '/')) { /* a counter's bare name: the first section that has it */
    const char *key;
    json_t *section;
    json_object_foreach(root, key, section) {
      if (json_is_object(section) && (v = json_object_get(section, what)))
        break;
    }
  }
  if (json_is_object(v))
    v = json_object_get(v, "value");
  double out = json_is_number(v) ? json_number_value(v) : NAN;
  json_decref(root);
  return out;
}

char *icsim_stats_string(const char *json_text, const char *what)
{
  if (!json_text)
    return NULL;
  json_t *root = json_loads(json_text, 0, NULL);
  json_t *v = lookup(root, what);
  char *out = json_is_string(v) ? strdup(json_string_value(v)) : NULL;
  json_decref(root);
  return out;
}

char *icsim_stats_lines(const char *json_text)
{
  json_t *root = json_text ? json_loads(json_text, 0, NULL) : NULL;
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);
  if (!f) {
    json_decref(root);
    return NULL;
  }
  const char *skey, *ckey;
  json_t *section, *c;
  json_object_foreach(root, skey, section) {
    if (!json_is_object(section))
      continue;
    json_object_foreach(section, ckey, c) {
      json_t *v = json_object_get(c, "value");
      if (json_is_number(v))
        fprintf(f, "%s/%s = %.17g\n", skey, ckey, json_number_value(v));
    }
  }
  fclose(f);
  json_decref(root);
  return out;
}
