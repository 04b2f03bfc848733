/* Where each rank's simulated time went: the accounting the MPI layer feeds (icsim_runtime_charged,
 * icsim_runtime_in_mpi), each rank's entries (icsim_runtime_breakdown, also for --stats), and the
 * table of icsim run --breakdown: one row per rank and the total,
 * one column per entry that is not zero somewhere (icsim_runtime_breakdown: program, compute,
 * blocked, polls, each layer's CPU by kind). A rank's entries sum to its time: from 0 to its
 * leaving MPI_Finalize, or to the end of the run. */
#include <stdio.h>
#include <string.h>

#include "breakdown.h"

/* ---- the accounting, as the MPI layer reports charges and calls (runtime.h) ---- */

const char *const icsim_cpu_kind_name[ICSIM_CPU_KINDS] = {"call", "send", "recv", "shm-send", "shm-recv"};

void icsim_runtime_charged(struct icsim_runtime *rt, int rank, enum icsim_cpu_kind kind, double seconds,
                           const double *parts, int shm)
{
  if (!rt->rank_time || rank < 0 || rank >= rt->nranks || seconds <= 0)
    return;
  struct icsim_rank_time *t = &rt->rank_time[rank];
  if (t->enter_t < 0) { /* not inside a program's MPI call */
    t->cpu_outside_s += seconds;
    return;
  }
  double sum = 0;
  for (int i = 0; i < rt->pf.nlayers; i++)
    sum += parts[i];
  double f = sum > 0 ? seconds / sum : 0; /* SECONDS: what the charge took, shared as its parts */
  for (int i = 0; i < rt->pf.nlayers; i++) {
    enum icsim_cpu_kind k = kind;
    if (shm && i == rt->pf.network && (kind == ICSIM_CPU_SEND || kind == ICSIM_CPU_RECV))
      k = kind == ICSIM_CPU_SEND ? ICSIM_CPU_SHM_SEND : ICSIM_CPU_SHM_RECV;
    t->cpu_s[i][k] += parts[i] * f;
  }
}

void icsim_runtime_polled(struct icsim_runtime *rt, int rank, double seconds)
{
  if (!rt->rank_time || rank < 0 || rank >= rt->nranks || seconds <= 0)
    return;
  struct icsim_rank_time *t = &rt->rank_time[rank];
  if (t->enter_t < 0) /* a call layer's own interface polling (SkifCh's channels): not in MPI */
    t->cpu_outside_s += seconds;
  else
    t->poll_s += seconds;
}

void icsim_runtime_in_mpi(struct icsim_runtime *rt, int rank, int enter, double now, int final)
{
  if (!rt->rank_time || rank < 0 || rank >= rt->nranks)
    return;
  struct icsim_rank_time *t = &rt->rank_time[rank];
  if (enter) {
    t->enter_t = now;
    return;
  }
  if (t->enter_t >= 0)
    t->in_mpi_s += now - t->enter_t;
  t->enter_t = -1;
  if (final)
    t->end_t = now;
}

static int entry(struct icsim_time_entry *out, int n, int max, const char *name, double s)
{
  if (n < max) {
    snprintf(out[n].name, sizeof out[n].name, "%s", name);
    out[n].s = s;
  }
  return n + 1;
}

int icsim_runtime_breakdown(const struct icsim_runtime *rt, int rank, double end_s, struct icsim_time_entry *out,
                            int max)
{
  if (!rt->rank_time || rank < 0 || rank >= rt->nranks)
    return 0;
  const struct icsim_rank_time *t = &rt->rank_time[rank];
  double end = t->end_t >= 0 ? t->end_t : end_s;
  double in_mpi = t->in_mpi_s + (t->enter_t >= 0 ? end - t->enter_t : 0), cpu = t->poll_s;
  for (int i = 0; i < rt->pf.nlayers; i++)
    for (int k = 0; k < ICSIM_CPU_KINDS; k++)
      cpu += t->cpu_s[i][k];
  double compute = t->compute_s;
  int n = 0;
  n = entry(out, n, max, "program", end - in_mpi - compute - t->cpu_outside_s);
  n = entry(out, n, max, "compute", compute);
  n = entry(out, n, max, "blocked", in_mpi - cpu);
  n = entry(out, n, max, "mpi/poll", t->poll_s);
  n = entry(out, n, max, "outside/cpu", t->cpu_outside_s);
  for (int i = 0; i < rt->pf.nlayers; i++)
    for (int k = 0; k < ICSIM_CPU_KINDS; k++) {
      char name[48];
      snprintf(name, sizeof name, "%s/%s", rt->pf.layer[i]->name, icsim_cpu_kind_name[k]);
      n = entry(out, n, max, name, t->cpu_s[i][k]);
    }
  return n < max ? n : max;
}

/* ---- the table ---- */

#define MAXE 64

static void print_ranks(const struct icsim_runtime *rt, double end_s, FILE *f, int n, struct icsim_time_entry *total,
                        const int *shown);

void icsim_breakdown_print(const struct icsim_runtime *rt, double end_s, FILE *f)
{
  struct icsim_time_entry row[MAXE], total[MAXE];
  int n = icsim_runtime_breakdown(rt, 0, end_s, total, MAXE);
  if (n <= 0)
    return;
  for (int i = 0; i < n; i++)
    total[i].s = 0;
  int shown[MAXE] = {0};
  for (int r = 0; r < rt->nranks; r++) {
    icsim_runtime_breakdown(rt, r, end_s, row, MAXE);
    for (int i = 0; i < n; i++) {
      total[i].s += row[i].s;
      shown[i] |= row[i].s > 1e-15 || row[i].s < -1e-15 || i < 3; /* program, compute, blocked always */
    }
  }
  fprintf(f, "icsim: where each rank's time went (simulated seconds; rows sum to the rank's time)\n");
  print_ranks(rt, end_s, f, n, total, shown);
  if (rt->wire_transfers_done > 0) { /* the transfers, apart: their time overlaps the ranks' */
    double all = rt->wire_flow_s;
    for (int k = 0; k < rt->nwire_phases; k++)
      all += rt->wire_phase[k].s;
    fprintf(f, "icsim: the %.0f transfers' time by phase, as the stacks priced them (overlaps the ranks' time)\n",
            rt->wire_transfers_done);
    for (int k = 0; k < rt->nwire_phases; k++) {
      char name[96];
      snprintf(name, sizeof name, "%s/%s", rt->wire_phase[k].layer, rt->wire_phase[k].name);
      fprintf(f, "  %-32s %14.9f s %6.1f%%  (%.0f transfers)\n", name, rt->wire_phase[k].s,
              all > 0 ? 100 * rt->wire_phase[k].s / all : 0, rt->wire_phase[k].n);
    }
    fprintf(f, "  %-32s %14.9f s %6.1f%%  (the route's latency and the bytes at the shared rate)\n", "flow",
            rt->wire_flow_s, all > 0 ? 100 * rt->wire_flow_s / all : 0);
  }
}

static void print_ranks(const struct icsim_runtime *rt, double end_s, FILE *f, int n, struct icsim_time_entry *total,
                        const int *shown)
{
  struct icsim_time_entry row[MAXE];
  fprintf(f, "%-6s %14s", "rank", "time");
  for (int i = 0; i < n; i++)
    if (shown[i])
      fprintf(f, " %16s", total[i].name);
  fputc('\n', f);
  double all = 0;
  for (int r = 0; r <= rt->nranks; r++) {
    const struct icsim_time_entry *e = row;
    if (r < rt->nranks)
      icsim_runtime_breakdown(rt, r, end_s, row, MAXE);
    else
      e = total;
    double sum = 0;
    for (int i = 0; i < n; i++)
      sum += e[i].s;
    if (r < rt->nranks)
      all += sum;
    if (r < rt->nranks)
      fprintf(f, "%-6d %14.9f", r, sum);
    else
      fprintf(f, "%-6s %14.9f", "total", all);
    for (int i = 0; i < n; i++)
      if (shown[i])
        fprintf(f, " %16.9f", e[i].s);
    fputc('\n', f);
  }
}
