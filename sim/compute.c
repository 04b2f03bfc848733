/* The compute model: the time a declared compute phase (workloads/include/icsim_phase.h) takes on a
 * simulated core: the core's issue rate or its dependency chain at the FP latencies, against the
 * cache level or memory that holds the working set, plus random accesses at that level's latency
 * (runtime.h, struct icsim_work, says what a phase declares). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime.h"

/* The level of the memory hierarchy that holds a working set of WS bytes for one of SHARERS ranks
 * on a socket: 0..2 the caches (the L3 is split among the socket's ranks), 3 memory. An undeclared
 * working set (0: a phase declared without one) is in memory, as before caches were modelled. */
static int holding_level(const struct icsim_platform_params *p, double ws, int sharers)
{
  if (ws <= 0)
    return 3;
  for (int l = 0; l < 3; l++) {
    double room = l == 2 ? p->cache_size_B[l] / sharers : p->cache_size_B[l];
    if (p->cache_size_B[l] > 0 && ws <= room)
      return l;
  }
  return 3;
}

static double gcd_d(double a, double b)
{
  while (b >= 1) {
    double r = fmod(a, b);
    a = b, b = r;
  }
  return a;
}

/* Lines a pattern STRIDE bytes apart can keep in cache level L: a set-associative cache maps
 * addresses a multiple of size / ways apart to one set, so the stride visits only
 * sets / gcd(stride in lines, sets) of its sets, each holding `ways` lines. A stride that is not a
 * whole number of lines (or an undescribed associativity) meets no such limit. */
static double strided_capacity_lines(const struct icsim_platform_params *p, int l, double stride)
{
  double line = p->cache_line_B > 0 ? p->cache_line_B : 64;
  double all = p->cache_size_B[l] / line;
  if (p->cache_ways[l] <= 0 || stride < line || fmod(stride, line) != 0)
    return all;
  double sets = floor(all / p->cache_ways[l]);
  if (sets < 1)
    return all;
  double step = fmod(stride / line, sets);
  double visited = step == 0 ? 1 : sets / gcd_d(sets, step);
  return visited * p->cache_ways[l];
}

/* Mean latency of a random access spread uniformly over SET bytes (one rank of SHARERS on the
 * socket): a level of C bytes holds C / SET of the set, so that share of the accesses hits it and
 * the rest go further out. SET 0 (undeclared) is in memory. */
static double random_latency(const struct icsim_platform_params *p, double set, int sharers)
{
  if (set <= 0)
    return p->memory_lat_s;
  double held = 0, lat = 0;
  for (int l = 0; l < 3 && held < 1; l++) {
    if (p->cache_size_B[l] <= 0)
      continue;
    double f = (l == 2 ? p->cache_size_B[l] / sharers : p->cache_size_B[l]) / set;
    if (f > 1)
      f = 1;
    if (f > held) {
      lat += (f - held) * p->cache_lat_s[l];
      held = f;
    }
  }
  return lat + (1 - held) * p->memory_lat_s;
}

/* The level holding N_LINES lines STRIDE bytes apart (one rank of SHARERS on the socket). */
static int strided_level(const struct icsim_platform_params *p, double set_bytes, double stride, int sharers)
{
  double line = p->cache_line_B > 0 ? p->cache_line_B : 64;
  double n_lines = stride >= line ? set_bytes / stride : set_bytes / line;
  for (int l = 0; l < 3; l++) {
    if (p->cache_size_B[l] <= 0)
      continue;
    double cap = strided_capacity_lines(p, l, stride);
    if (l == 2)
      cap /= sharers;
    /* the lines, not the span between them, must fit; strictly fewer: the loop's other data (its
     * buffer, its indices) takes a way too */
    if (n_lines < cap)
      return l;
  }
  return 3;
}

const char *const icsim_compute_bound_name[ICSIM_BOUNDS] = {"issue", "chain", "stalls", "stream", "access"};

double icsim_runtime_compute_time(const struct icsim_runtime *rt, int rank, const struct icsim_work *w)
{
  return icsim_runtime_compute_terms(rt, rank, w, NULL);
}

double icsim_runtime_compute_terms(const struct icsim_runtime *rt, int rank, const struct icsim_work *w,
                                   struct icsim_compute_terms *T)
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
  int level = holding_level(p, w->working_set, sharers);
  double aset = w->access_set > 0 ? w->access_set : w->working_set;
  int alevel = w->stride > 0 && aset > 0 ? strided_level(p, aset, w->stride, sharers)
               : w->access_set > 0   ? holding_level(p, w->access_set, sharers)
                                     : level;
  /* memory: the core's share of the memory controller, and no more than one core keeps in flight;
   * a cache level without a bandwidth of its own streams at that rate too */
  double bw = p->memory_bw_Bps / sharers;
  if (p->core_memory_bw_Bps > 0 && p->core_memory_bw_Bps < bw)
    bw = p->core_memory_bw_Bps;
  if (level < 3 && p->cache_bw_Bps[level] > 0)
    bw = p->cache_bw_Bps[level];
  /* strided accesses pay the latency of the level their lines fit in; scattered ones are spread
   * over their set, the share each level holds hitting it */
  double lat = w->stride > 0 ? (alevel < 3 ? p->cache_lat_s[alevel] : p->memory_lat_s)
                             : random_latency(p, aset, sharers);
  /* the core: independent operations at its issue rate, or the dependency chain at the
   * operations' latency, whichever is longer; mispredicted branches stall it either way */
  double rate = w->integer > 0 && p->int_ops_per_cycle > 0 ? p->int_ops_per_cycle : p->ops_per_cycle;
  /* register copies and zeroing idioms a renamer completes by itself take no issue slot (Agner Fog,
   * The microarchitecture of Intel, AMD and VIA CPUs: move elimination on Zen and since Ivy Bridge) */
  double issued = w->ops - (p->move_elimination && w->moves > 0 ? (w->moves < w->ops ? w->moves : w->ops) : 0);
  double t_issue = issued > 0 ? issued / (p->clock_Hz * rate) : 0;
  /* integer ALU operations take one clock on a chain on every core modelled (Agner Fog's instruction
   * tables: ADD, AND, SHL r64 latency 1); an undescribed integer multiply takes the FP multiply's */
  double imul = p->int_mul_latency_cycles > 0 ? p->int_mul_latency_cycles : p->fp_mul_latency_cycles;
  double t_chain = (w->chain * p->fp_latency_cycles + w->chain_mul * p->fp_mul_latency_cycles +
                    w->chain_divide * p->fp_divide_latency_cycles + w->chain_int + w->chain_int_mul * imul) /
                   p->clock_Hz;
  /* iterations whose paths do not wait for one another overlap in the out-of-order window: the path
   * at its head progresses beside the window / (ops per path) others it holds, each path's latency
   * shared among those in flight. The head's counts: a path longer than the window (a sparse row of
   * CG) still overlaps the next one over the window's length, 1 + window / length in flight; measured
   * on Zen 4 with row sums of 72 to 1024 nonzeros (gcc -O2, 6 macro-ops a nonzero, 320-entry window:
   * 1.46, 1.29, 1.17, 1.05 in flight at 72, 144, 256, 1024; the law gives 1.74, 1.37, 1.21, 1.05:
   * optimistic where the rows are short enough for the issue to interfere) */
  if (w->paths > 1 && p->window_ops > 0 && w->ops > 0) {
    double in_flight = 1 + p->window_ops / (w->ops / w->paths);
    if (in_flight > w->paths)
      in_flight = w->paths;
    if (in_flight > 1)
      t_chain /= in_flight;
  }
  /* the stream: a working set larger than the L3 still finds its share of it there (room / working set,
   * as random_latency has it for random accesses), the rest comes from memory. Under strict LRU a
   * cyclic sweep larger than the cache would find none; an L3 shared with other cores' lines keeps
   * part of it: row sums of CG's shape through 24 MB on this project's Zen 4 VM (32 MiB L3, others'
   * lines in it) took 3.62 clocks a nonzero, between 2.32 with the matrix in the L3 and 4.22 from
   * memory (validate/host/README.md). Measured on that core only; applied to every platform's L3
   * (no reference case's figure moves) */
  double t_stream = 0, t_stream_mem = 0;
  if (w->bytes > 0) {
    double in_l3 = level == 3 && p->cache_size_B[2] > 0 && w->working_set > 0
                       ? p->cache_size_B[2] / sharers / w->working_set
                       : 0; /* an undeclared working set is in memory */
    double bw_l3 = p->cache_bw_Bps[2] > 0 ? p->cache_bw_Bps[2] : bw;
    t_stream_mem = (1 - in_l3) * w->bytes / bw;
    t_stream = in_l3 * w->bytes / bw_l3 + t_stream_mem;
  }
  /* a chain that consumes a stream waits for it where the window cannot reach far enough ahead: the
   * window runs its loads at most SPAN ahead of the chain (window / operations of the chain's time),
   * so a line from a level whose latency exceeds SPAN is late, and the stream's time beyond what the
   * window covers, (1 - span / latency) of it, adds to the chain instead of running beside it.
   * Measured on Zen 4 (validate/host/README.md): row sums of 144 nonzeros (6 macro-ops and a chain of
   * 2.27 clocks a nonzero: a span of 320 / 6 x 2.27 = 121 clocks) took 2.32 clocks a nonzero with the
   * matrix in the L3 (50 clocks: covered) and 4.22 from memory (166 ns, 609 clocks), the chain plus
   * the 1.85 the stream takes alone; the rule gives 2.27 and 2.27 + 0.80 x 1.85 = 3.75. A loop bound
   * by its issue has a short chain (MG and FT: within 1% either way), its window full of
   * independent work, and its stream runs beside it. */
  if (t_chain > 0 && t_stream > 0 && p->window_ops > 0 && w->ops > 0) {
    double span = p->window_ops / w->ops * t_chain;
    double lat_s = level < 3 ? p->cache_lat_s[level] : p->memory_lat_s;
    double late = level < 3 ? t_stream : t_stream_mem;
    if (span < lat_s)
      t_chain += (1 - span / lat_s) * late;
  }
  /* a mispredicted branch is found only when its operands are loaded and computed (the branch
   * resolution time of interval analysis): the core fetches the wrong path meanwhile, then refills */
  double resolve_s = 0;
  if (w->mispredicts > 0) {
    double load_s = level < 3 ? p->cache_lat_s[level] : p->memory_lat_s;
    resolve_s = load_s + w->branch_chain * p->fp_latency_cycles / p->clock_Hz;
  }
  double t_core = (t_issue > t_chain ? t_issue : t_chain) +
                  w->mispredicts * (p->mispredict_cycles / p->clock_Hz + resolve_s);
  /* random accesses whose addresses come from a stream (gathers, histogram updates) are
   * independent: the core keeps memory-parallelism of them in flight, beside its other work, so
   * they are a third limit rather than an added latency (an access that waits for the previous
   * one belongs on the chain) */
  double loads = w->accesses - (w->stride_stores < w->accesses ? w->stride_stores : w->accesses);
  double t_access = loads > 0 ? loads * lat / p->memory_parallelism : 0;
  /* strided stores that miss the L1: x86 stores reach the cache in program order, so each waits
   * for its line (a line of the pattern is far longer than the store queue): added to the core */
  if (w->stride_stores > 0 && alevel > 0)
    t_core += w->stride_stores * lat;
  /* stores into lines fetched on demand that keep their sets to themselves (scattered, not strided
   * into a few sets): their fetches were issued early and overlap one another, but the stores still
   * commit in order, so the core waits for them rather than working beside them */
  if (w->store_fills > 0)
    t_core += w->store_fills * lat / p->memory_parallelism;
  double t = t_core > t_stream ? t_core : t_stream;
  t = t > t_access ? t : t_access;
  if (T) {
    double chain_n = w->chain + w->chain_mul + w->chain_divide + w->chain_int + w->chain_int_mul;
    *T = (struct icsim_compute_terms){.issue_s = t_issue,
                                      .chain_s = t_chain,
                                      .stall_s = t_core - (t_issue > t_chain ? t_issue : t_chain),
                                      .stream_s = t_stream,
                                      .access_s = t_access,
                                      .t = t,
                                      .bound = t != t_core     ? (t == t_stream ? ICSIM_BOUND_STREAM : ICSIM_BOUND_ACCESS)
                                               : t_core > 2 * (t_issue > t_chain ? t_issue : t_chain) ? ICSIM_BOUND_STALLS
                                               : t_issue >= t_chain ? ICSIM_BOUND_ISSUE
                                                                    : ICSIM_BOUND_CHAIN,
                                      .rate = rate,
                                      .issued = issued > 0 ? issued : 0,
                                      .chain_clocks = chain_n > 0 ? t_chain * p->clock_Hz / chain_n : 0,
                                      .bandwidth_Bps = bw,
                                      .access_lat_s = lat};
  }
  /* a debugging aid (validate/host/README.md): which limit each of rank 0's phases met */
  if (rank == 0 && getenv("ICSIM_DEBUG_PHASE_TERMS"))
    fprintf(stderr,
            "icsim phase: ops %.4g core %.4g s stream %.4g s access %.4g s -> %.4g s (latency %.3g ns; working set "
            "in level %d, accesses in level %d; 0-2 = L1-L3, 3 = memory)\n",
            w->ops, t_core, t_stream, t_access, t, lat * 1e9, level, alevel);
  return t;
}
