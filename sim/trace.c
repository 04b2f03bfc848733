/* The timeline of a run (icsim run --trace): per rank, nested states on simulated time, streamed
 * to a file as they happen (the simulation clock only moves forward, so the events come in time
 * order and nothing is kept but each rank's open states).
 *
 * Paje: the format SimGrid writes (its trace header, one container per rank under one for the
 * run, one state type whose values are defined on first use); pj_dump (Debian's pajeng) and ViTE
 * read it. Chrome: Trace Event JSON ("B"/"E" events, microseconds; one thread per rank), which
 * Perfetto and chrome://tracing open.
 *
 * A transfer's phases are drawn when it ends: only then is its duration known (SimGrid shares the
 * links out as transfers come and go), and so where its flow and the phases after it lie. Chrome
 * takes events in any order. Paje readers want each container's events in time order (pj_dump
 * refuses a container whose events go back in time, and accepts containers interleaved at
 * different times: checked with pajeng 1.3.6), so in Paje each transfer goes, whole, into a
 * "transfers" lane of its sending rank that is free from the transfer's start: lanes are taken
 * greedily, a new one opened when every lane still holds a transfer that ended later. Per lane,
 * transfers then never overlap and the events go forward in time; the file as a whole is in time
 * order except for the lanes, whose transfers are written at their ends.
 *
 * Nothing here touches the C library's heap (no malloc, no stdio FILE): the memory is mapped
 * apart and the file written with write(). Simulated figures may depend on where the program's
 * and the layer's buffers land (a registration cache keyed on addresses), and a trace must not
 * move them: the same run gives the same figures with and without one. */
#include "trace.h"

#include "stack.h" /* struct icsim_wire_phase */

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* A message whose arrow has started and not ended. */
struct open_msg {
  uint64_t id; /* 0: an empty slot */
  int src, dst;
  double t0;
  int nph; /* its transfer's phases as the stacks priced them, and one its end tells (after == 2) */
  struct icsim_wire_phase ph[ICSIM_WIRE_MAX_PHASES + 1];
  const char *flow_layer, *flow_name; /* what its flow is, when a layer named it */
};

/* A rank's transfer lanes (Paje): when each lane's last transfer ended. */
struct lanes {
  double *busy;
  int n, cap;
};

/* A link or node channel as the trace follows it. */
struct tlink {
  int load;                 /* transfers crossing it now; -1: no container yet */
  int active;               /* in the list of links sampled at each step of the clock */
  double use_up, use_down;  /* utilisation last written (-1: nothing yet) */
  const void *h_up, *h_down;/* the simulator's links for each direction (the same when shared) */
  double nominal_Bps;
};

struct icsim_trace {
  int fd;
  char *out; /* the stream's buffer: OUTCAP bytes, OUTLEN of them not yet written */
  size_t outlen;
  int werr;  /* a write failed (disk full): reported at the close */
  enum icsim_trace_format format;
  int nranks;
  int *depth;      /* open states per rank */
  char (*values)[128]; /* Paje: the state names defined so far (alias = index) */
  int nvalues, capvalues;
  int first_event; /* Chrome: no comma before the first event */
  /* messages whose arrow has started and not ended, by id (open addressing), ended at the close
   * if the transfer never reported its end */
  struct open_msg *open;
  size_t open_cap, open_n;
  /* links and node channels: how many transfers cross each now, how much of it is used */
  struct tlink *link;
  int nlinks;
  int *active, nactive; /* links whose utilisation may change: sampled as the clock moves */
  struct lanes *lanes;  /* [nranks] (Paje) */
};

#define OUTCAP ((size_t)1 << 20)

/* Memory mapped apart from the heap (see the top), zeroed. */
static void *tmem(size_t n)
{
  void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

static void tfree(void *p, size_t n)
{
  if (p)
    munmap(p, n ? n : 1);
}

/* P (N bytes) as M bytes, its contents kept. */
static void *tgrow(void *p, size_t n, size_t m)
{
  void *q = tmem(m);
  if (q && p)
    memcpy(q, p, n < m ? n : m);
  tfree(p, n);
  return q;
}

static void flush_out(struct icsim_trace *t)
{
  size_t done = 0;
  while (done < t->outlen && !t->werr) {
    ssize_t n = write(t->fd, t->out + done, t->outlen - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      t->werr = n < 0 ? errno : EIO;
    else
      done += (size_t)n;
  }
  t->outlen = 0;
}

static void emit(struct icsim_trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(struct icsim_trace *t, const char *fmt, ...)
{
  for (int pass = 0; pass < 2; pass++) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->out + t->outlen, OUTCAP - t->outlen, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < OUTCAP - t->outlen) {
      t->outlen += (size_t)n;
      if (t->outlen > OUTCAP / 2)
        flush_out(t);
      return;
    }
    flush_out(t); /* no room: write out and try once more with the whole buffer */
  }
}

static const char paje_header[] =
    "%EventDef PajeDefineContainerType 0\n%       Alias string\n%       Type string\n%       Name string\n"
    "%EndEventDef\n"
    "%EventDef PajeDefineStateType 3\n%       Alias string\n%       Type string\n%       Name string\n"
    "%EndEventDef\n"
    "%EventDef PajeDefineEntityValue 6\n%       Alias string\n%       Type string\n%       Name string\n"
    "%       Color color\n%EndEventDef\n"
    "%EventDef PajeCreateContainer 7\n%       Time date\n%       Alias string\n%       Type string\n"
    "%       Container string\n%       Name string\n%EndEventDef\n"
    "%EventDef PajeDestroyContainer 8\n%       Time date\n%       Type string\n%       Name string\n"
    "%EndEventDef\n"
    "%EventDef PajePushState 11\n%       Time date\n%       Type string\n%       Container string\n"
    "%       Value string\n%EndEventDef\n"
    "%EventDef PajePopState 12\n%       Time date\n%       Type string\n%       Container string\n"
    "%EndEventDef\n"
    "%EventDef PajeDefineLinkType 4\n%       Alias string\n%       Type string\n"
    "%       StartContainerType string\n%       EndContainerType string\n%       Name string\n%EndEventDef\n"
    "%EventDef PajeStartLink 14\n%       Time date\n%       Type string\n%       Container string\n"
    "%       Value string\n%       StartContainer string\n%       Key string\n%EndEventDef\n"
    "%EventDef PajeEndLink 15\n%       Time date\n%       Type string\n%       Container string\n"
    "%       Value string\n%       EndContainer string\n%       Key string\n%EndEventDef\n"
    "%EventDef PajeDefineVariableType 1\n%       Alias string\n%       Type string\n%       Name string\n"
    "%       Color color\n%EndEventDef\n"
    "%EventDef PajeSetVariable 9\n%       Time date\n%       Type string\n%       Container string\n"
    "%       Value double\n%EndEventDef\n";

int icsim_trace_format_parse(const char *s, enum icsim_trace_format *out)
{
  if (!strcmp(s, "paje"))
    *out = ICSIM_TRACE_PAJE;
  else if (!strcmp(s, "chrome"))
    *out = ICSIM_TRACE_CHROME;
  else
    return -1;
  return 0;
}

struct icsim_trace *icsim_trace_open(const char *path, enum icsim_trace_format format, int nranks, char *err,
                                     size_t errlen)
{
  struct icsim_trace *t = tmem(sizeof *t);
  int fd = t ? open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
  if (fd < 0 || !(t->out = tmem(OUTCAP)) || !(t->depth = tmem((size_t)(nranks > 0 ? nranks : 1) * sizeof *t->depth)) ||
      !(t->lanes = tmem((size_t)(nranks > 0 ? nranks : 1) * sizeof *t->lanes))) {
    snprintf(err, errlen, "cannot write the trace %s", path);
    if (fd >= 0)
      close(fd);
    if (t) {
      tfree(t->out, OUTCAP);
      tfree(t->depth, (size_t)(nranks > 0 ? nranks : 1) * sizeof *t->depth);
      tfree(t, sizeof *t);
    }
    return NULL;
  }
  t->fd = fd;
  t->format = format;
  t->nranks = nranks;
  t->first_event = 1;
  if (format == ICSIM_TRACE_PAJE) {
    emit(t, "%s", paje_header);
    emit(t, "0 CT_run 0 \"run\"\n0 CT_rank CT_run \"rank\"\n3 ST_rank CT_rank \"state\"\n");
    emit(t, "4 LT_msg CT_run CT_rank CT_rank \"message\"\n6 VL_msg LT_msg \"message\" \"1 1 1\"\n");
    emit(t, "0 CT_link CT_run \"link\"\n1 VT_load CT_link \"transfers\" \"1 0 0\"\n");
    /* utilisation: the bandwidth in use over the link's nominal bandwidth, of a shared link or of
     * each direction of a split-duplex one */
    emit(t, "1 VT_use CT_link \"utilisation\" \"0 0 1\"\n1 VT_up CT_link \"utilisation up\" \"0 0 1\"\n"
            "1 VT_down CT_link \"utilisation down\" \"0 1 0\"\n");
    emit(t, "0 CT_xfer CT_rank \"transfers\"\n3 ST_xfer CT_xfer \"transfer\"\n");
    emit(t, "7 0 C_run CT_run 0 \"icsim\"\n");
    for (int r = 0; r < nranks; r++)
      emit(t, "7 0 C_rank%d CT_rank C_run \"rank %d\"\n", r, r);
  } else {
    emit(t, "[\n");
    for (int r = 0; r < nranks; r++) {
      emit(t, "%s{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": %d, \"args\": {\"name\": \"rank %d\"}}",
           t->first_event ? "" : ",\n", r, r);
      t->first_event = 0;
    }
  }
  /* every rank runs its own code from the start until its first MPI call (MPI_Init) */
  for (int r = 0; r < nranks; r++)
    icsim_trace_push(t, r, 0, "program");
  return t;
}

/* Paje: the alias of state NAME of state type TYPE ("ST_rank", "ST_xfer"), defined now if new. */
static int paje_value(struct icsim_trace *t, const char *type, const char *name)
{
  char key[sizeof t->values[0]];
  snprintf(key, sizeof key, "%s %s", type, name);
  for (int i = 0; i < t->nvalues; i++)
    if (!strcmp(t->values[i], key))
      return i;
  if (t->nvalues == t->capvalues) {
    int cap = t->capvalues ? 2 * t->capvalues : 64;
    t->values = tgrow(t->values, (size_t)t->capvalues * sizeof *t->values, (size_t)cap * sizeof *t->values);
    t->capvalues = t->values ? cap : 0;
    if (!t->values)
      return 0;
  }
  memcpy(t->values[t->nvalues], key, sizeof key);
  /* a colour from the name, stable across runs */
  unsigned h = 5381;
  for (const char *c = name; *c; c++)
    h = h * 33 + (unsigned char)*c;
  emit(t, "6 V%d %s \"%s\" \"%.2f %.2f %.2f\"\n", t->nvalues, type, name, (h & 255) / 255.0,
       ((h >> 8) & 255) / 255.0, ((h >> 16) & 255) / 255.0);
  return t->nvalues++;
}

void icsim_trace_push(struct icsim_trace *t, int rank, double time, const char *state)
{
  if (!t || rank < 0 || rank >= t->nranks)
    return;
  t->depth[rank]++;
  if (t->format == ICSIM_TRACE_PAJE) {
    int v = paje_value(t, "ST_rank", state);
    emit(t, "11 %.9f ST_rank C_rank%d V%d\n", time, rank, v);
  } else {
    emit(t, "%s{\"name\": \"%s\", \"ph\": \"B\", \"ts\": %.3f, \"pid\": 0, \"tid\": %d}", t->first_event ? "" : ",\n",
            state, time * 1e6, rank);
    t->first_event = 0;
  }
}

void icsim_trace_pop(struct icsim_trace *t, int rank, double time)
{
  if (!t || rank < 0 || rank >= t->nranks || t->depth[rank] == 0)
    return;
  t->depth[rank]--;
  if (t->format == ICSIM_TRACE_PAJE)
    emit(t, "12 %.9f ST_rank C_rank%d\n", time, rank);
  else {
    emit(t, "%s{\"ph\": \"E\", \"ts\": %.3f, \"pid\": 0, \"tid\": %d}", t->first_event ? "" : ",\n", time * 1e6,
            rank);
    t->first_event = 0;
  }
}

static size_t slot_of(const struct icsim_trace *t, uint64_t id)
{
  size_t i = (size_t)(id * 0x9E3779B97F4A7C15ull) & (t->open_cap - 1);
  while (t->open[i].id && t->open[i].id != id)
    i = (i + 1) & (t->open_cap - 1);
  return i;
}

static struct open_msg *open_put(struct icsim_trace *t, uint64_t id)
{
  if (2 * (t->open_n + 1) > t->open_cap) { /* grow, keeping at most half full */
    size_t old = t->open_cap;
    struct open_msg *o = t->open;
    t->open_cap = old ? 2 * old : 1024;
    t->open = tmem(t->open_cap * sizeof *t->open);
    for (size_t i = 0; i < old; i++)
      if (o[i].id)
        t->open[slot_of(t, o[i].id)] = o[i];
    tfree(o, old * sizeof *o);
  }
  size_t i = slot_of(t, id);
  if (!t->open[i].id)
    t->open_n++;
  t->open[i] = (struct open_msg){.id = id};
  return &t->open[i];
}

static struct open_msg *open_find(struct icsim_trace *t, uint64_t id)
{
  if (!t->open_cap)
    return NULL;
  size_t i = slot_of(t, id);
  return t->open[i].id ? &t->open[i] : NULL;
}

/* Remove the entry at E (backward-shift deletion keeps every probe chain whole). */
static void open_drop(struct icsim_trace *t, struct open_msg *e)
{
  size_t i = (size_t)(e - t->open);
  t->open[i] = (struct open_msg){0};
  t->open_n--;
  for (size_t j = (i + 1) & (t->open_cap - 1); t->open[j].id; j = (j + 1) & (t->open_cap - 1)) {
    struct open_msg m = t->open[j];
    t->open[j] = (struct open_msg){0};
    t->open[slot_of(t, m.id)] = m;
  }
}

void icsim_trace_message_start(struct icsim_trace *t, double time, uint64_t id, int src, int dst)
{
  if (!t || !id || src < 0 || src >= t->nranks || dst < 0 || dst >= t->nranks)
    return;
  struct open_msg *e = open_put(t, id);
  e->src = src;
  e->dst = dst;
  e->t0 = time;
  if (t->format == ICSIM_TRACE_PAJE)
    emit(t, "14 %.9f LT_msg C_run VL_msg C_rank%d m%llu\n", time, src, (unsigned long long)id);
  else {
    emit(t, "%s{\"name\": \"message\", \"cat\": \"message\", \"ph\": \"s\", \"id\": %llu, \"ts\": %.3f, "
                  "\"pid\": 0, \"tid\": %d}",
            t->first_event ? "" : ",\n", (unsigned long long)id, time * 1e6, src);
    t->first_event = 0;
  }
}

void icsim_trace_message_phases(struct icsim_trace *t, uint64_t id, const struct icsim_wire_phase *ph, int n,
                                const char *flow_layer, const char *flow_name)
{
  struct open_msg *e = t ? open_find(t, id) : NULL;
  if (!e)
    return;
  e->nph = n < 0 ? 0 : n < ICSIM_WIRE_MAX_PHASES ? n : ICSIM_WIRE_MAX_PHASES;
  memcpy(e->ph, ph, (size_t)e->nph * sizeof *ph);
  e->flow_layer = flow_layer;
  e->flow_name = flow_name;
}

void icsim_trace_message_late_phase(struct icsim_trace *t, uint64_t id, const char *layer, const char *name, double s)
{
  struct open_msg *e = t ? open_find(t, id) : NULL;
  if (!e || s <= 0 || e->nph > ICSIM_WIRE_MAX_PHASES)
    return;
  e->ph[e->nph++] = (struct icsim_wire_phase){name, s, layer, 2};
}

/* One piece of a transfer's time: a phase or its flow, from A to B. */
struct seg {
  char name[128];
  double a, b;
};

/* E's time, from its start to END, as pieces one after the other: the phases priced at its start
 * (after == 0), the flow, the part of the flow a layer said was lost sharing the route (after == 2,
 * told at the end), and the phases that follow the bytes (after == 1, a FIN). Phases priced longer
 * than the transfer turned out to be are shrunk to fit it. Returns how many pieces (at most
 * ICSIM_WIRE_MAX_PHASES + 2). */
static int segments(const struct open_msg *e, double end, struct seg *out)
{
  double dur = end - e->t0, sum = 0, tail = 0;
  for (int k = 0; k < e->nph; k++)
    sum += e->ph[k].s;
  double f = sum > dur && sum > 0 ? dur / sum : 1, at = e->t0;
  for (int k = 0; k < e->nph; k++)
    tail += e->ph[k].after ? e->ph[k].s * f : 0;
  int n = 0;
  static const int order[] = {0, -1, 2, 1}; /* -1: the flow */
  for (int o = 0; o < 4; o++) {
    if (order[o] < 0) {
      double flow_end = end - tail;
      if (flow_end > at) {
        if (e->flow_name)
          snprintf(out[n].name, sizeof out[n].name, "%s %s", e->flow_layer ? e->flow_layer : "", e->flow_name);
        else
          snprintf(out[n].name, sizeof out[n].name, "flow");
        out[n].a = at;
        out[n++].b = at = flow_end;
      }
      continue;
    }
    for (int k = 0; k < e->nph; k++) {
      if (e->ph[k].after != order[o])
        continue;
      snprintf(out[n].name, sizeof out[n].name, "%s %s", e->ph[k].layer ? e->ph[k].layer : "", e->ph[k].name);
      out[n].a = at;
      /* the last piece ends where the transfer does, whatever the rounding of the sums */
      at = fmin(end, at + e->ph[k].s * f);
      out[n++].b = at;
    }
  }
  if (n > 0)
    out[n - 1].b = end;
  return n;
}

/* Chrome: one async event PH ("b" or "e") on the transfers' track of the sending rank SRC. */
static void async(struct icsim_trace *t, const char *ph, uint64_t id, double time, int src, const char *name)
{
  emit(t, "%s{\"name\": \"%s\", \"cat\": \"transfer\", \"ph\": \"%s\", \"id\": %llu, \"ts\": %.3f, "
                "\"pid\": 1, \"tid\": %d}",
          t->first_event ? "" : ",\n", name, ph, (unsigned long long)id, time * 1e6, src);
  t->first_event = 0;
}

/* Paje: a lane of rank R free from T0 on (opened if none is), now busy until T1; its index. */
static int lane_take(struct icsim_trace *t, int r, double t0, double t1)
{
  struct lanes *l = &t->lanes[r];
  int k = 0;
  while (k < l->n && l->busy[k] > t0)
    k++;
  if (k == l->n) {
    if (l->n == l->cap) {
      int cap = l->cap ? 2 * l->cap : 8;
      l->busy = tgrow(l->busy, (size_t)l->cap * sizeof *l->busy, (size_t)cap * sizeof *l->busy);
      if (!l->busy) {
        l->n = l->cap = 0;
        return -1;
      }
      l->cap = cap;
    }
    l->n++;
    emit(t, "7 %.9f C_x%d_%d CT_xfer C_rank%d \"rank %d transfers %d\"\n", t0, r, k, r, r, k);
  }
  l->busy[k] = t1;
  return k;
}

void icsim_trace_message_end(struct icsim_trace *t, double time, uint64_t id)
{
  struct open_msg *e = t ? open_find(t, id) : NULL;
  if (!e)
    return;
  struct seg seg[ICSIM_WIRE_MAX_PHASES + 2];
  int nseg = segments(e, time, seg);
  if (t->format == ICSIM_TRACE_PAJE) {
    emit(t, "15 %.9f LT_msg C_run VL_msg C_rank%d m%llu\n", time, e->dst, (unsigned long long)id);
    /* the transfer in a lane of its sender: one state over its time, its pieces nested in it */
    int k = lane_take(t, e->src, e->t0, time);
    if (k >= 0) {
      emit(t, "11 %.9f ST_xfer C_x%d_%d V%d\n", e->t0, e->src, k, paje_value(t, "ST_xfer", "transfer"));
      for (int i = 0; i < nseg; i++) {
        int v = paje_value(t, "ST_xfer", seg[i].name);
        emit(t, "11 %.9f ST_xfer C_x%d_%d V%d\n12 %.9f ST_xfer C_x%d_%d\n", seg[i].a, e->src, k, v, seg[i].b, e->src,
             k);
      }
      emit(t, "12 %.9f ST_xfer C_x%d_%d\n", time, e->src, k);
    }
  } else {
    emit(t, "%s{\"name\": \"message\", \"cat\": \"message\", \"ph\": \"f\", \"bp\": \"e\", \"id\": %llu, "
                  "\"ts\": %.3f, \"pid\": 0, \"tid\": %d}",
            t->first_event ? "" : ",\n", (unsigned long long)id, time * 1e6, e->dst);
    t->first_event = 0;
    /* the transfer on its sender's track: its pieces one after the other */
    async(t, "b", id, e->t0, e->src, "transfer");
    for (int i = 0; i < nseg; i++) {
      async(t, "b", id, seg[i].a, e->src, seg[i].name);
      async(t, "e", id, seg[i].b, e->src, seg[i].name);
    }
    async(t, "e", id, time, e->src, "transfer");
  }
  open_drop(t, e);
}

/* Link LINK's record, the table grown to hold it; NULL when out of memory. */
static struct tlink *link_at(struct icsim_trace *t, int link)
{
  if (link < 0)
    return NULL;
  if (link >= t->nlinks) {
    int n = link + 64;
    t->link = tgrow(t->link, (size_t)t->nlinks * sizeof *t->link, (size_t)n * sizeof *t->link);
    t->active = tgrow(t->active, (size_t)t->nlinks * sizeof *t->active, (size_t)n * sizeof *t->active);
    if (!t->link || !t->active) {
      t->nlinks = t->nactive = 0;
      return NULL;
    }
    for (int i = t->nlinks; i < n; i++)
      t->link[i] = (struct tlink){.load = -1, .use_up = -1, .use_down = -1};
    t->nlinks = n;
  }
  return &t->link[link];
}

void icsim_trace_link_handles(struct icsim_trace *t, int link, const void *up, const void *down, double nominal_Bps)
{
  struct tlink *l = t ? link_at(t, link) : NULL;
  if (!l)
    return;
  l->h_up = up;
  l->h_down = down;
  l->nominal_Bps = nominal_Bps;
}

void icsim_trace_link_load(struct icsim_trace *t, double time, int link, const char *name, int delta)
{
  struct tlink *l = t ? link_at(t, link) : NULL;
  if (!l)
    return;
  if (l->load < 0) { /* first use: its container (Paje), from now on */
    l->load = 0;
    if (t->format == ICSIM_TRACE_PAJE)
      emit(t, "7 %.9f C_link%d CT_link C_run \"%s\"\n", time, link, name);
  }
  l->load += delta;
  if (l->load < 0)
    l->load = 0;
  if (l->load > 0 && !l->active && l->h_up) { /* sampled from now until it is idle again */
    l->active = 1;
    t->active[t->nactive++] = link;
  }
  if (t->format == ICSIM_TRACE_PAJE)
    emit(t, "9 %.9f VT_load C_link%d %d\n", time, link, l->load);
  else {
    emit(t, "%s{\"name\": \"%s\", \"cat\": \"link\", \"ph\": \"C\", \"ts\": %.3f, \"pid\": 2, "
                  "\"args\": {\"transfers\": %d}}",
            t->first_event ? "" : ",\n", name, time * 1e6, l->load);
    t->first_event = 0;
  }
}

void icsim_trace_sample_links(struct icsim_trace *t, double time, double (*usage_Bps)(const void *h),
                              const char *(*name_of)(int link))
{
  if (!t)
    return;
  for (int i = 0; i < t->nactive;) {
    int li = t->active[i];
    struct tlink *l = &t->link[li];
    int split = l->h_down != l->h_up;
    /* 6 significant digits: what a plot can show, and a rate that only wobbles at the solver's
     * precision is not written again */
    double up = l->nominal_Bps > 0 ? usage_Bps(l->h_up) / l->nominal_Bps : 0;
    double down = split && l->nominal_Bps > 0 ? usage_Bps(l->h_down) / l->nominal_Bps : 0;
    char su[32], sd[32], ou[32], od[32];
    snprintf(su, sizeof su, "%.6g", up);
    snprintf(sd, sizeof sd, "%.6g", down);
    snprintf(ou, sizeof ou, "%.6g", l->use_up);
    snprintf(od, sizeof od, "%.6g", l->use_down);
    int cu = strcmp(su, ou) != 0, cd = split && strcmp(sd, od) != 0;
    if (cu || cd) {
      if (t->format == ICSIM_TRACE_PAJE) {
        if (cu)
          emit(t, "9 %.9f %s C_link%d %s\n", time, split ? "VT_up" : "VT_use", li, su);
        if (cd)
          emit(t, "9 %.9f VT_down C_link%d %s\n", time, li, sd);
      } else {
        if (split)
          emit(t, "%s{\"name\": \"%s utilisation\", \"cat\": \"link\", \"ph\": \"C\", \"ts\": %.3f, \"pid\": 2, "
                  "\"args\": {\"up\": %s, \"down\": %s}}",
               t->first_event ? "" : ",\n", name_of(li), time * 1e6, su, sd);
        else
          emit(t, "%s{\"name\": \"%s utilisation\", \"cat\": \"link\", \"ph\": \"C\", \"ts\": %.3f, \"pid\": 2, "
                  "\"args\": {\"utilisation\": %s}}",
               t->first_event ? "" : ",\n", name_of(li), time * 1e6, su);
        t->first_event = 0;
      }
      l->use_up = atof(su);
      l->use_down = atof(sd);
    }
    if (l->load == 0 && l->use_up == 0 && l->use_down <= 0) { /* idle: out of the list */
      l->active = 0;
      t->active[i] = t->active[--t->nactive];
    } else
      i++;
  }
}

int icsim_trace_close(struct icsim_trace *t, double end_time)
{
  if (!t)
    return 0;
  /* transfers that never reported their end (collected first: each end reorders the table) */
  size_t nleft = 0, leftsz = (t->open_n ? t->open_n : 1) * sizeof(uint64_t);
  uint64_t *left = tmem(leftsz);
  for (size_t i = 0; left && i < t->open_cap; i++)
    if (t->open[i].id)
      left[nleft++] = t->open[i].id;
  for (size_t i = 0; i < nleft; i++)
    icsim_trace_message_end(t, end_time, left[i]);
  tfree(left, leftsz);
  for (int r = 0; r < t->nranks; r++)
    while (t->depth[r] > 0)
      icsim_trace_pop(t, r, end_time);
  if (t->format == ICSIM_TRACE_PAJE) {
    for (int l = 0; l < t->nlinks; l++)
      if (t->link[l].load >= 0)
        emit(t, "8 %.9f CT_link C_link%d\n", end_time, l);
    for (int r = 0; r < t->nranks; r++) {
      for (int k = 0; k < t->lanes[r].n; k++)
        emit(t, "8 %.9f CT_xfer C_x%d_%d\n", end_time, r, k);
      emit(t, "8 %.9f CT_rank C_rank%d\n", end_time, r);
    }
    emit(t, "8 %.9f CT_run C_run\n", end_time);
  } else {
    emit(t, "\n]\n");
  }
  flush_out(t);
  int rc = t->werr ? -1 : 0;
  if (close(t->fd) != 0)
    rc = -1;
  tfree(t->values, (size_t)t->capvalues * sizeof *t->values);
  tfree(t->depth, (size_t)(t->nranks > 0 ? t->nranks : 1) * sizeof *t->depth);
  tfree(t->open, t->open_cap * sizeof *t->open);
  tfree(t->link, (size_t)t->nlinks * sizeof *t->link);
  tfree(t->active, (size_t)t->nlinks * sizeof *t->active);
  for (int r = 0; r < t->nranks; r++)
    tfree(t->lanes[r].busy, (size_t)t->lanes[r].cap * sizeof *t->lanes[r].busy);
  tfree(t->lanes, (size_t)(t->nranks > 0 ? t->nranks : 1) * sizeof *t->lanes);
  tfree(t->out, OUTCAP);
  tfree(t, sizeof *t);
  return rc;
}
