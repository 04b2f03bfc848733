/* Runtime: one platform + its stacks for the life of an smpirun process. */
#include "runtime.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct icsim_runtime *current;

char **icsim_split_sets(const char *sets, int *n)
{
  *n = 0;
  if (!sets || !*sets)
    return NULL;
  char *copy = strdup(sets);
  int cap = 1;
  for (const char *s = sets; *s; s++)
    cap += *s == ';';
  char **out = calloc((size_t)cap + 1, sizeof *out);
  for (char *tok = strtok(copy, ";"); tok; tok = strtok(NULL, ";"))
    out[(*n)++] = tok;
  if (*n == 0) {
    free(copy);
    free(out);
    return NULL;
  }
  return out;
}

struct icsim_runtime *icsim_runtime_create(const char *platform, const char *sets, char *err, size_t errlen)
{
  struct icsim_runtime *rt = calloc(1, sizeof *rt);
  int nsets;
  char **setv = icsim_split_sets(sets, &nsets);
  int rc = icsim_platform_load(&rt->pf, platform, setv, nsets, err, errlen);
  if (setv) {
    free(setv[0]);
    free(setv);
  }
  if (rc) {
    free(rt);
    return NULL;
  }
  if (rt->pf.stack->create(&rt->stack_state, &rt->pf.params, &rt->pf, err, errlen) ||
      (rt->pf.compose && rt->pf.compose->create(&rt->compose_state, &rt->pf.params, &rt->pf, err, errlen))) {
    icsim_runtime_destroy(rt);
    return NULL;
  }
  return rt;
}

int icsim_runtime_init_from_env(char *err, size_t errlen)
{
  const char *platform = getenv(ICSIM_ENV_PLATFORM);
  if (!platform) {
    snprintf(err, errlen, "%s is not set; run programs with `icsim run` (or paste `icsim run --dry-run`)",
             ICSIM_ENV_PLATFORM);
    return -1;
  }
  const char *nranks = getenv(ICSIM_ENV_NRANKS), *place = getenv(ICSIM_ENV_PLACE);
  if (!nranks || atoi(nranks) < 1 || !place) {
    snprintf(err, errlen, "%s and %s must be set (the rank count and placement given to `icsim run`)",
             ICSIM_ENV_NRANKS, ICSIM_ENV_PLACE);
    return -1;
  }
  struct icsim_runtime *rt = icsim_runtime_create(platform, getenv(ICSIM_ENV_SET), err, errlen);
  if (!rt)
    return -1;
  rt->nranks = atoi(nranks);
  const char *ht = getenv(ICSIM_ENV_HOST_TIMING);
  rt->host_timing = !ht || strcmp(ht, "off") != 0;
  rt->rank_host = malloc((size_t)rt->nranks * sizeof *rt->rank_host);
  if (icsim_place(&rt->pf, rt->nranks, place, rt->rank_host, err, errlen)) {
    icsim_runtime_destroy(rt);
    return -1;
  }
  rt->compute_s = calloc((size_t)rt->nranks, sizeof *rt->compute_s);
  current = rt;
  return 0;
}

double icsim_runtime_compute_time(const struct icsim_runtime *rt, int rank, double ops, double bytes)
{
  const struct icsim_platform_params *p = &rt->pf.p;
  int sharers = 0;
  if (rt->rank_host && rank >= 0 && rank < rt->nranks)
    for (int r = 0; r < rt->nranks; r++)
      sharers += rt->rank_host[r] == rt->rank_host[rank];
  if (sharers < 1)
    sharers = 1;
  if (sharers > p->cores_per_socket)
    sharers = p->cores_per_socket; /* oversubscribed cores take turns: they do not all stream at once */
  double t_core = ops > 0 ? ops / (p->clock_Hz * p->ops_per_cycle) : 0;
  double t_mem = bytes > 0 ? bytes / (p->memory_bw_Bps / sharers) : 0;
  return t_core > t_mem ? t_core : t_mem;
}

struct icsim_runtime *icsim_runtime_get(void) { return current; }

void icsim_runtime_destroy(struct icsim_runtime *rt)
{
  if (!rt)
    return;
  if (rt->stack_state && rt->pf.stack->destroy)
    rt->pf.stack->destroy(rt->stack_state);
  if (rt->compose_state && rt->pf.compose->destroy)
    rt->pf.compose->destroy(rt->compose_state);
  icsim_platform_free(&rt->pf);
  free(rt->rank_host);
  free(rt->compute_s);
  if (rt == current)
    current = NULL;
  free(rt);
}

double icsim_runtime_send_cpu(struct icsim_runtime *rt, const struct icsim_msg *m)
{
  double s = rt->pf.stack->send_cpu ? rt->pf.stack->send_cpu(rt->stack_state, m) : 0;
  if (rt->pf.compose && rt->pf.compose->send_cpu)
    s += rt->pf.compose->send_cpu(rt->compose_state, m);
  rt->messages++;
  rt->payload_bytes += (double)m->bytes;
  rt->send_cpu_s += s;
  return s;
}

double icsim_runtime_recv_cpu(struct icsim_runtime *rt, const struct icsim_msg *m)
{
  double s = rt->pf.stack->recv_cpu ? rt->pf.stack->recv_cpu(rt->stack_state, m) : 0;
  if (rt->pf.compose && rt->pf.compose->recv_cpu)
    s += rt->pf.compose->recv_cpu(rt->compose_state, m);
  rt->recv_cpu_s += s;
  return s;
}

void icsim_runtime_wire(struct icsim_runtime *rt, const struct icsim_wire_query *q, struct icsim_wire_cost *c)
{
  c->latency_s = q->route_latency_s;
  c->bandwidth_Bps = q->route_bandwidth_Bps;
  if (rt->pf.stack->wire)
    rt->pf.stack->wire(rt->stack_state, q, c);
  if (rt->pf.compose && rt->pf.compose->wire)
    rt->pf.compose->wire(rt->compose_state, q, c);
}

static void json_counters(FILE *f, const struct icsim_stack_ops *ops, void *state)
{
  struct icsim_counter c[64];
  size_t n = ops->counters ? ops->counters(state, c, 64) : 0;
  fprintf(f, ",\n  \"%s\": {", ops->name);
  for (size_t i = 0; i < n; i++)
    fprintf(f, "%s\n    \"%s\": {\"value\": %.17g, \"unit\": \"%s\"}", i ? "," : "", c[i].name, c[i].value,
            c[i].unit);
  fprintf(f, "%s}", n ? "\n  " : "");
}

int icsim_runtime_write_stats(struct icsim_runtime *rt, const char *path, double simulated_s, char *err,
                              size_t errlen)
{
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) {
    snprintf(err, errlen, "--stats %s: cannot write (%s)", path, strerror(errno));
    return -1;
  }
  fprintf(f, "{\n  \"platform\": \"%s\",\n  \"stack\": \"%s\",\n  \"simulated_time_s\": %.17g,\n", rt->pf.p.name,
          rt->pf.stack->name, simulated_s);
  fprintf(f,
          "  \"mpi\": {\n    \"messages\": {\"value\": %.17g, \"unit\": \"messages\"},\n"
          "    \"payload_bytes\": {\"value\": %.17g, \"unit\": \"bytes\"},\n"
          "    \"send_cpu\": {\"value\": %.17g, \"unit\": \"s\"},\n"
          "    \"recv_cpu\": {\"value\": %.17g, \"unit\": \"s\"},\n"
          "    \"transfers\": {\"value\": %.17g, \"unit\": \"transfers\"},\n"
          "    \"intra_node_transfers\": {\"value\": %.17g, \"unit\": \"transfers\"}\n  }",
          rt->messages, rt->payload_bytes, rt->send_cpu_s, rt->recv_cpu_s, rt->transfers, rt->intra_node_transfers);
  double csum = 0, cmax = 0;
  for (int r = 0; rt->compute_s && r < rt->nranks; r++) {
    csum += rt->compute_s[r];
    cmax = rt->compute_s[r] > cmax ? rt->compute_s[r] : cmax;
  }
  fprintf(f,
          ",\n  \"compute\": {\n    \"phases\": {\"value\": %.17g, \"unit\": \"phases\"},\n"
          "    \"operations\": {\"value\": %.17g, \"unit\": \"ops\"},\n"
          "    \"memory_bytes\": {\"value\": %.17g, \"unit\": \"bytes\"},\n"
          "    \"time_mean\": {\"value\": %.17g, \"unit\": \"s\"},\n"
          "    \"time_max\": {\"value\": %.17g, \"unit\": \"s\"}\n  }",
          rt->phases, rt->phase_ops, rt->phase_bytes, rt->nranks ? csum / rt->nranks : 0, cmax);
  json_counters(f, rt->pf.stack, rt->stack_state);
  if (rt->pf.compose)
    json_counters(f, rt->pf.compose, rt->compose_state);
  fprintf(f, "\n}\n");
  if (fclose(f) != 0 || rename(tmp, path) != 0) {
    snprintf(err, errlen, "--stats %s: cannot write (%s)", path, strerror(errno));
    unlink(tmp);
    return -1;
  }
  return 0;
}

int icsim_runtime_check(struct icsim_runtime *rt, char *err, size_t errlen)
{
  if (rt->pf.stack->check && rt->pf.stack->check(rt->stack_state, err, errlen))
    return -1;
  if (rt->pf.compose && rt->pf.compose->check && rt->pf.compose->check(rt->compose_state, err, errlen))
    return -1;
  return 0;
}

void icsim_runtime_expect_rma(struct icsim_runtime *rt, enum icsim_msg_kind kind, int src_host, int dst_host,
                              double bytes)
{
  if (rt->nrma == (int)(sizeof rt->rma / sizeof rt->rma[0]))
    memmove(rt->rma, rt->rma + 1, sizeof rt->rma - sizeof rt->rma[0]); /* forget the oldest */
  else
    rt->nrma++;
  rt->rma[rt->nrma - 1] = (struct icsim_rma_expect){kind, src_host, dst_host, bytes};
}

enum icsim_msg_kind icsim_runtime_take_kind(struct icsim_runtime *rt, int src_host, int dst_host, double bytes)
{
  for (int i = 0; i < rt->nrma; i++)
    /* SMPI may or may not add its 16-byte envelope to one-sided transfers */
    if (rt->rma[i].src_host == src_host && rt->rma[i].dst_host == dst_host &&
        (rt->rma[i].bytes == bytes || rt->rma[i].bytes == bytes + 16)) {
      enum icsim_msg_kind k = rt->rma[i].kind;
      memmove(rt->rma + i, rt->rma + i + 1, (size_t)(rt->nrma - i - 1) * sizeof rt->rma[0]);
      rt->nrma--;
      return k;
    }
  return ICSIM_MSG_P2P;
}

double icsim_runtime_channel_capacity(struct icsim_runtime *rt, const struct icsim_link *link, double nominal,
                                      int n)
{
  double v = -1;
  if (rt->pf.compose && rt->pf.compose->channel_capacity)
    v = rt->pf.compose->channel_capacity(rt->compose_state, link, nominal, n);
  if (v < 0 && rt->pf.stack->channel_capacity)
    v = rt->pf.stack->channel_capacity(rt->stack_state, link, nominal, n);
  return v;
}

int icsim_runtime_models_channels(const struct icsim_runtime *rt)
{
  return (rt->pf.compose && rt->pf.compose->channel_capacity) || rt->pf.stack->channel_capacity;
}

double icsim_runtime_channel_peak(struct icsim_runtime *rt, const struct icsim_link *link)
{
  double peak = link->bw_Bps;
  if (rt->pf.compose && rt->pf.compose->channel_peak)
    peak = fmax(peak, rt->pf.compose->channel_peak(rt->compose_state, link));
  if (rt->pf.stack->channel_peak)
    peak = fmax(peak, rt->pf.stack->channel_peak(rt->stack_state, link));
  return peak;
}
