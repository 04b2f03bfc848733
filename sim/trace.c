/* The timeline of a run (icsim run --trace): per rank, nested states on simulated time, streamed
 * to a file as they happen (the simulation clock only moves forward, so the events come in time
 * order and nothing is kept but each rank's open states).
 *
 * Paje: the format SimGrid writes (its trace header, one container per rank under one for the
 * run, one state type whose values are defined on first use); pj_dump (Debian's pajeng) and ViTE
 * read it. Chrome: Trace Event JSON ("B"/"E" events, microseconds; one thread per rank), which
 * Perfetto and chrome://tracing open. */
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct icsim_trace {
  FILE *f;
  enum icsim_trace_format format;
  int nranks;
  int *depth;      /* open states per rank */
  char **values;   /* Paje: the state names defined so far (alias = index) */
  int nvalues, capvalues;
  int first_event; /* Chrome: no comma before the first event */
  char *buf;       /* the stream's buffer */
};

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
    "%EndEventDef\n";

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
  struct icsim_trace *t = calloc(1, sizeof *t);
  FILE *f = t ? fopen(path, "w") : NULL;
  if (!f) {
    snprintf(err, errlen, "cannot write the trace %s", path);
    free(t);
    return NULL;
  }
  t->f = f;
  t->buf = malloc(1 << 20);
  if (t->buf)
    setvbuf(f, t->buf, _IOFBF, 1 << 20);
  t->format = format;
  t->nranks = nranks;
  t->depth = calloc((size_t)(nranks > 0 ? nranks : 1), sizeof *t->depth);
  t->first_event = 1;
  if (format == ICSIM_TRACE_PAJE) {
    fputs(paje_header, f);
    fputs("0 CT_run 0 \"run\"\n0 CT_rank CT_run \"rank\"\n3 ST_rank CT_rank \"state\"\n", f);
    fputs("7 0 C_run CT_run 0 \"icsim\"\n", f);
    for (int r = 0; r < nranks; r++)
      fprintf(f, "7 0 C_rank%d CT_rank C_run \"rank %d\"\n", r, r);
  } else {
    fputs("[\n", f);
    for (int r = 0; r < nranks; r++) {
      fprintf(f, "%s{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": %d, \"args\": {\"name\": \"rank %d\"}}",
              t->first_event ? "" : ",\n", r, r);
      t->first_event = 0;
    }
  }
  /* every rank runs its own code from the start until its first MPI call (MPI_Init) */
  for (int r = 0; r < nranks; r++)
    icsim_trace_push(t, r, 0, "program");
  return t;
}

/* Paje: the alias of state NAME, defined now if new. */
static int paje_value(struct icsim_trace *t, const char *name)
{
  for (int i = 0; i < t->nvalues; i++)
    if (!strcmp(t->values[i], name))
      return i;
  if (t->nvalues == t->capvalues) {
    t->capvalues = t->capvalues ? 2 * t->capvalues : 64;
    t->values = realloc(t->values, (size_t)t->capvalues * sizeof *t->values);
  }
  t->values[t->nvalues] = strdup(name);
  /* a colour from the name, stable across runs */
  unsigned h = 5381;
  for (const char *c = name; *c; c++)
    h = h * 33 + (unsigned char)*c;
  fprintf(t->f, "6 V%d ST_rank \"%s\" \"%.2f %.2f %.2f\"\n", t->nvalues, name, (h & 255) / 255.0,
          ((h >> 8) & 255) / 255.0, ((h >> 16) & 255) / 255.0);
  return t->nvalues++;
}

void icsim_trace_push(struct icsim_trace *t, int rank, double time, const char *state)
{
  if (!t || rank < 0 || rank >= t->nranks)
    return;
  t->depth[rank]++;
  if (t->format == ICSIM_TRACE_PAJE) {
    int v = paje_value(t, state);
    fprintf(t->f, "11 %.9f ST_rank C_rank%d V%d\n", time, rank, v);
  } else {
    fprintf(t->f, "%s{\"name\": \"%s\", \"ph\": \"B\", \"ts\": %.3f, \"pid\": 0, \"tid\": %d}", t->first_event ? "" : ",\n",
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
    fprintf(t->f, "12 %.9f ST_rank C_rank%d\n", time, rank);
  else {
    fprintf(t->f, "%s{\"ph\": \"E\", \"ts\": %.3f, \"pid\": 0, \"tid\": %d}", t->first_event ? "" : ",\n", time * 1e6,
            rank);
    t->first_event = 0;
  }
}

int icsim_trace_close(struct icsim_trace *t, double end_time)
{
  if (!t)
    return 0;
  for (int r = 0; r < t->nranks; r++)
    while (t->depth[r] > 0)
      icsim_trace_pop(t, r, end_time);
  if (t->format == ICSIM_TRACE_PAJE) {
    for (int r = 0; r < t->nranks; r++)
      fprintf(t->f, "8 %.9f CT_rank C_rank%d\n", end_time, r);
    fprintf(t->f, "8 %.9f CT_run C_run\n", end_time);
  } else {
    fputs("\n]\n", t->f);
  }
  int rc = ferror(t->f) ? -1 : 0;
  if (fclose(t->f) != 0)
    rc = -1;
  for (int i = 0; i < t->nvalues; i++)
    free(t->values[i]);
  free(t->values);
  free(t->depth);
  free(t->buf);
  free(t);
  return rc;
}
