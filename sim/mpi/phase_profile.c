/* The phase profile under icsim (ICSIM_PHASE_PROFILE, workloads/include/icsim_phase.h): per call site
 * of rank 0's declared phases, the seconds the compute model charged and which of its terms each
 * call's time came from. A native build with -DICSIM_PHASE_TIMING prints the same lines with the
 * seconds measured, so validate/host/host-npb-compute can say, for a kernel that misses, which
 * phase and which term of the model (runtime.h, icsim_runtime_compute_terms) the difference is in. */
#include <stdio.h>
#include <string.h>

#include "layer.h"

#define MAX_SITES 64

static struct site {
  const char *file;
  int line;
  double calls, seconds, ops, issued, bytes, accesses, chain, chain_divide, mispredicts, working_set;
  double term_s[ICSIM_BOUNDS]; /* seconds of the calls each term bound, summed */
  double issue_s, chain_s, stall_s, stream_s, access_s; /* each term's own seconds, summed over calls */
  double rate, chain_clocks, bandwidth_Bps, access_lat_s; /* the last call's rates */
} sites[MAX_SITES];
static int nsites;
static const char *pending_file; /* the site rank 0 named for the phase it is ending */
static int pending_line;

/* Rank 0 ends the phase at FILE:LINE next (called by ICSIM_PHASE_END_WORK just before it ends it). */
void icsim_phase_site(const char *file, int line)
{
  if (icsim_runtime_get() && icsim_my_rank() == 0)
    pending_file = file, pending_line = line;
}

void icsim_phase_profile_add(int me, const struct icsim_work *w, const struct icsim_compute_terms *T)
{
  if (me != 0)
    return;
  const char *file = pending_file ? pending_file : "(unnamed)";
  int line = pending_file ? pending_line : 0;
  pending_file = NULL;
  struct site *s = NULL;
  for (int i = 0; i < nsites && !s; i++)
    if (sites[i].line == line && strcmp(sites[i].file, file) == 0)
      s = &sites[i];
  if (!s) {
    if (nsites == MAX_SITES)
      s = &sites[MAX_SITES - 1]; /* a program with more sites than this: the rest share the last row */
    else
      s = &sites[nsites++], s->file = file, s->line = line;
  }
  s->calls++, s->seconds += T->t, s->ops += w->ops, s->issued += T->issued, s->bytes += w->bytes, s->accesses += w->accesses;
  s->chain += w->chain + w->chain_mul + w->chain_int + w->chain_int_mul, s->chain_divide += w->chain_divide, s->mispredicts += w->mispredicts;
  s->working_set = w->working_set;
  s->term_s[T->bound] += T->t;
  s->issue_s += T->issue_s, s->chain_s += T->chain_s, s->stall_s += T->stall_s, s->stream_s += T->stream_s,
      s->access_s += T->access_s;
  s->rate = T->rate, s->chain_clocks = T->chain_clocks, s->bandwidth_Bps = T->bandwidth_Bps,
  s->access_lat_s = T->access_lat_s;
}

/* Start the sums again (the NPB kernels do at the start of their timed region). */
void icsim_phase_profile_clear(void)
{
  for (int i = 0; i < nsites; i++) {
    const char *file = sites[i].file;
    int line = sites[i].line;
    sites[i] = (struct site){.file = file, .line = line};
  }
}

/* One line per site, in the native profile's fields and then the model's: the term that bound most
 * of its seconds, each term's seconds, and the rates they were charged at. */
void icsim_phase_profile_print(FILE *f)
{
  for (int i = 0; i < nsites; i++) {
    const struct site *s = &sites[i];
    if (!s->calls)
      continue;
    int b = 0;
    for (int k = 1; k < ICSIM_BOUNDS; k++)
      if (s->term_s[k] > s->term_s[b])
        b = k;
    fprintf(f,
            "phase %s:%d calls %.0f seconds %.6f ops %.6g bytes %.6g accesses %.6g working_set %.6g chain %.6g "
            "chain_divide %.6g mispredicts %.6g bound %s issue_s %.6g chain_s %.6g stalls_s %.6g stream_s %.6g "
            "access_s %.6g ops_per_clock %.4g chain_clocks %.4g bandwidth_Bps %.6g access_lat_s %.6g issued %.6g\n",
            s->file, s->line, s->calls, s->seconds, s->ops, s->bytes, s->accesses, s->working_set, s->chain,
            s->chain_divide, s->mispredicts, icsim_compute_bound_name[b], s->issue_s, s->chain_s, s->stall_s,
            s->stream_s, s->access_s, s->rate, s->chain_clocks, s->bandwidth_Bps, s->access_lat_s, s->issued);
  }
}
