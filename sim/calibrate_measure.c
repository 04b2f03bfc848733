/* Measurements for icsim calibrate: the set file that names them, and the output tables.
 *
 * A measurement set is a small YAML (its keys: `icsim calibrate --keys`):
 *   source: "our cluster, OSU 7.3, 2024-05-02"
 *   measurements:
 *     - file: osu_latency.txt        # the program's own output, beside this file
 *       workload: osu_latency        # the icsim workload that reproduces it, and its arguments
 *       args: "-m 1:4194304"
 *       ranks: 2
 *       place: 2x1                   # as icsim run --place: one rank per node here
 *       sizes: [1, 64, 4KiB]         # optional: only these rows
 * The tables are read strictly: a line that is neither a comment nor a row is an error naming
 * its line, so that a launcher's warning or a truncated file is never taken for a point. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibrate.h"
#include "paths.h"
#include "yaml_schema.h"

#define REQUIRED NULL
#define ABSENT ""
static const struct icsim_param_desc set_table[] = {
    {"source", ICSIM_P_STRING, 0, 0, 0, ABSENT, NULL,
     "where the measurements come from (machine, benchmark version, date): quoted in the fitted values' ref", NULL,
     ICSIM_NO_FIELD},
    {"measurements/#/file", ICSIM_P_STRING, 0, 0, 0, REQUIRED, NULL,
     "the program's output as it printed it (OSU 5.x-7.x osu_latency, osu_bw, osu_bibw, osu_mbw_mr; NetPIPE's "
     "np.out); a relative path is beside this file", NULL, ICSIM_NO_FIELD},
    {"measurements/#/format", ICSIM_P_ENUM, 0, 0, 0, ABSENT, NULL,
     "osu or netpipe (default: an OSU table has a `# Size ...` header, anything else is read as np.out)", "osu|netpipe",
     ICSIM_NO_FIELD},
    {"measurements/#/workload", ICSIM_P_STRING, 0, 0, 0, REQUIRED, NULL,
     "the icsim workload that reproduces it (build/workloads: osu_latency, osu_bw, osu_bibw, osu_mbw_mr) or a "
     "program's path (/usr/bin/NPmpich2)", NULL, ICSIM_NO_FIELD},
    {"measurements/#/args", ICSIM_P_STRING, 0, 0, 0, ABSENT, NULL,
     "its arguments, separated by spaces: the sizes it prints must include the measured ones", NULL, ICSIM_NO_FIELD},
    {"measurements/#/ranks", ICSIM_P_INT, 0, 1, 1 << 20, REQUIRED, NULL, "MPI ranks of the measured run", NULL,
     ICSIM_NO_FIELD},
    {"measurements/#/place", ICSIM_P_STRING, 0, 0, 0, "block", NULL,
     "where the ranks ran, as `icsim run --place` (2x1: two nodes, one rank each)", NULL, ICSIM_NO_FIELD},
    {"measurements/#/column", ICSIM_P_INT, 0, 2, 32, ABSENT, NULL,
     "the OSU table's value column (default 2: the average latency, or MB/s)", NULL, ICSIM_NO_FIELD},
    {"measurements/#/sizes/#", ICSIM_P_STRING, 0, 0, 0, ABSENT, NULL,
     "only these rows of the file (bytes, units accepted: 4KiB); default: every row", NULL, ICSIM_NO_FIELD},
};
static const struct icsim_schema set_schema = {set_table, sizeof set_table / sizeof set_table[0]};

void cal_set_keys_markdown(FILE *f) { icsim_schema_markdown(&set_schema, f); }

const char *cal_quantity_name(enum cal_quantity q) { return q == CAL_LATENCY_US ? "latency (us)" : "bandwidth (MB/s)"; }

/* Half the last printed digit of the number TOKEN: what a printed 0.00 can hide. */
static double half_step_of(const char *token)
{
  const char *dot = strchr(token, '.');
  int d = 0;
  if (dot)
    for (const char *c = dot + 1; isdigit((unsigned char)*c); c++)
      d++;
  if (strpbrk(token, "eE")) /* 1.5e-05: the mantissa's digits are relative */
    return 0.5 * pow(10, floor(log10(fabs(strtod(token, NULL)) + 1e-300)) - d);
  return 0.5 * pow(10, -d);
}

static int number(const char *tok, double *v)
{
  char *end;
  errno = 0;
  *v = strtod(tok, &end);
  return end != tok && !*end && !errno && isfinite(*v) ? 0 : -1;
}

enum { CAL_MAX_ROWS = 4096 };

static int push_row(struct cal_table *t, double size, double value, double half, int line, bool keep_first,
                    const char *path, char *err, size_t errlen)
{
  for (int i = 0; i < t->n; i++)
    if (t->rows[i].size == size) {
      if (keep_first) /* NetPIPE may meet a size twice through its perturbations */
        return 0;
      snprintf(err, errlen, "%s:%d: size %.0f appears twice (first on line %d); keep one of the rows",
               icsim_path_shown(path), line, size, t->rows[i].line);
      return -1;
    }
  /* every row is checked against every other: a table of a benchmark's sizes has tens of rows
   * (NetPIPE's perturbations some hundreds), so a bound keeps a hostile file from taking hours */
  if (t->n >= CAL_MAX_ROWS) {
    snprintf(err, errlen, "%s:%d: more than %d rows: not one benchmark's table (give each run's output in a file "
             "of its own)", icsim_path_shown(path), line, CAL_MAX_ROWS);
    return -1;
  }
  t->rows = realloc(t->rows, (size_t)(t->n + 1) * sizeof *t->rows);
  t->rows[t->n++] = (struct cal_row){size, value, half, line};
  return 0;
}

/* A NetPIPE progress line: "  5:       8 bytes     20 times -->      2.82 Mbps in      21.67 usec". */
static int netpipe_stdout_row(const char *line, double *size, double *usec, char *tok, size_t toklen)
{
  int idx, n = 0;
  double sz;
  if (sscanf(line, " %d: %lf bytes %*d times --> %*f %*s in %n", &idx, &sz, &n) < 2 || n == 0)
    return -1;
  if (sscanf(line + n, "%63s", tok) != 1 || strstr(line + n, "usec") == NULL || toklen < 64)
    return -1;
  if (number(tok, usec))
    return -1;
  *size = sz;
  return 0;
}

int cal_table_read(const char *path, const char *text, enum cal_format format, int column, struct cal_table *t,
                   char *err, size_t errlen)
{
  memset(t, 0, sizeof *t);
  char *owned = NULL;
  if (!text) {
    FILE *f = icsim_input_fopen("measurement", path, err, errlen);
    if (!f)
      return -1;
    size_t cap = 1 << 14, len = 0, got;
    owned = malloc(cap);
    while ((got = fread(owned + len, 1, cap - len - 1, f)) > 0)
      if ((len += got) + 1 >= cap) {
        if (cap >= (size_t)64 << 20) {
          fclose(f);
          free(owned);
          snprintf(err, errlen, "%s: larger than 64 MiB: not a benchmark's output table", icsim_path_shown(path));
          return -1;
        }
        owned = realloc(owned, cap *= 2);
      }
    owned[len] = '\0';
    fclose(f);
    if (memchr(owned, '\0', len)) {
      snprintf(err, errlen, "%s: holds NUL bytes: not a text table (give the program's printed output)",
               icsim_path_shown(path));
      free(owned);
      return -1;
    }
    text = owned;
  }
  bool measured = owned != NULL, have_header = false;
  if (format == CAL_FORMAT_DETECT) { /* an OSU table says what it is in its `# Size ...` header */
    format = CAL_FORMAT_NETPIPE;
    for (const char *l = text; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
      if (l[0] == '#' && strstr(l, "Size")) {
        format = CAL_FORMAT_OSU;
        break;
      }
  }
  t->format = format;
  t->q = format == CAL_FORMAT_NETPIPE ? CAL_LATENCY_US : CAL_BANDWIDTH_MBPS;
  int lineno = 0, rc = 0;
  for (const char *l = text; *l && rc == 0;) {
    const char *nl = strchr(l, '\n');
    size_t len = nl ? (size_t)(nl - l) : strlen(l);
    char line[1024];
    lineno++;
    if (len >= sizeof line) {
      snprintf(err, errlen, "%s:%d: a line of %zu characters: not a row of a benchmark's table",
               icsim_path_shown(path), lineno, len);
      rc = -1;
      break;
    }
    memcpy(line, l, len);
    line[len] = '\0';
    l = nl ? nl + 1 : l + len;
    while (len && (line[len - 1] == '\r' || isspace((unsigned char)line[len - 1])))
      line[--len] = '\0';
    const char *s = line + strspn(line, " \t");
    if (!*s)
      continue;
    if (*s == '#') {
      if (format == CAL_FORMAT_OSU && strstr(s, "Size")) { /* `# Size  Latency (us)`, `# Size  MB/s  Messages/s` */
        have_header = true;
        t->q = strstr(s, "Latency") ? CAL_LATENCY_US : CAL_BANDWIDTH_MBPS;
        if (!strstr(s, "Latency") && !strstr(s, "MB/s")) {
          snprintf(err, errlen, "%s:%d: an OSU header with neither Latency nor MB/s ('%s'): calibrate reads "
                   "osu_latency, osu_bw, osu_bibw and osu_mbw_mr tables", icsim_path_shown(path), lineno, s);
          rc = -1;
        }
      }
      continue;
    }
    char tok[32][64];
    int ntok = 0;
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", s);
    for (char *save, *w = strtok_r(copy, " \t", &save); w && ntok < 32; w = strtok_r(NULL, " \t", &save))
      snprintf(tok[ntok++], sizeof tok[0], "%s", w);
    double size, v;
    if (format == CAL_FORMAT_OSU) {
      int col = column ? column : 2;
      if (!have_header) {
        snprintf(err, errlen, "%s:%d: a row before the OSU header (`# Size  Latency (us)` or `# Size  "
                 "Bandwidth (MB/s)`): give the file as the benchmark printed it", icsim_path_shown(path), lineno);
        rc = -1;
      } else if (ntok < col || number(tok[0], &size) || size < 0 || size != floor(size) || number(tok[col - 1], &v) ||
                 v < 0) {
        snprintf(err, errlen, "%s:%d: cannot read '%.80s': an OSU row is SIZE VALUE ... with value column %d; remove "
                 "the line or make it a # comment", icsim_path_shown(path), lineno, s, col);
        rc = -1;
      } else {
        rc = push_row(t, size, v, half_step_of(tok[col - 1]), lineno, false, path, err, errlen);
      }
    } else {
      char ut[64];
      if (ntok >= 3 && !number(tok[0], &size) && size >= 0 && size == floor(size) && !number(tok[1], &v) &&
          !number(tok[2], &v) && v > 0) { /* np.out: bytes, Mbps, one-way time in seconds */
        rc = push_row(t, size, v * 1e6, half_step_of(tok[2]) * 1e6, lineno, true, path, err, errlen);
      } else if (!netpipe_stdout_row(s, &size, &v, ut, sizeof ut)) { /* NetPIPE's own printout */
        rc = push_row(t, size, v, half_step_of(ut), lineno, true, path, err, errlen);
      } else if (measured) {
        snprintf(err, errlen, "%s:%d: cannot read '%.80s': a NetPIPE np.out row is BYTES MBPS SECONDS (an OSU table "
                 "needs its `# Size ...` header); remove the line", icsim_path_shown(path), lineno, s);
        rc = -1;
      } /* the simulated NetPIPE's other lines (its banner) are not rows */
    }
  }
  if (rc == 0 && t->n == 0) {
    snprintf(err, errlen, "%s: no rows%s", icsim_path_shown(path),
             format == CAL_FORMAT_OSU ? " under the OSU header" : " (an OSU table needs its `# Size ...` header)");
    rc = -1;
  }
  free(owned);
  if (rc)
    cal_table_free(t);
  return rc;
}

void cal_table_free(struct cal_table *t)
{
  free(t->rows);
  memset(t, 0, sizeof *t);
}

/* REL beside the file SET (malloc'ed). */
static char *beside(const char *set, const char *rel)
{
  char *out;
  if (rel[0] == '/')
    return strdup(rel);
  const char *slash = strrchr(set, '/');
  if (!slash)
    return strdup(rel);
  if (asprintf(&out, "%.*s/%s", (int)(slash - set), set, rel) < 0)
    abort();
  return out;
}

static const char *get(const struct icsim_yfile *y, const char *fmt, int i, int k)
{
  char key[128];
  snprintf(key, sizeof key, fmt, i, k);
  const struct icsim_yentry *e = icsim_yaml_get(y, key);
  return e ? e->value : NULL;
}

static const struct icsim_yentry *entry(const struct icsim_yfile *y, const char *fmt, int i, int k)
{
  char key[128];
  snprintf(key, sizeof key, fmt, i, k);
  return icsim_yaml_get(y, key);
}

int cal_set_load(struct cal_set *s, const char *path, bool held, char *err, size_t errlen)
{
  struct icsim_yfile y;
  if (icsim_yaml_load_as("measurement set", path, &y, err, errlen))
    return -1;
  if (icsim_schema_check(&set_schema, &y, err, errlen)) {
    icsim_yaml_free(&y);
    return -1;
  }
  int rc = 0;
  for (int i = 0; rc == 0 && get(&y, "measurements/%d/file", i, 0); i++) {
    const struct icsim_yentry *fe = entry(&y, "measurements/%d/file", i, 0);
    struct cal_meas m = {0};
    m.set = strdup(path);
    m.set_line = fe->key_line;
    m.file = strdup(fe->value);
    m.path = beside(path, fe->value);
    const char *w = get(&y, "measurements/%d/workload", i, 0), *a = get(&y, "measurements/%d/args", i, 0),
               *fmt = get(&y, "measurements/%d/format", i, 0), *col = get(&y, "measurements/%d/column", i, 0);
    char real[PATH_MAX];
    if (strchr(w, '/')) { /* a program's path: beside the set, as the output files */
      char *p = beside(path, w);
      m.program = strdup(realpath(p, real) ? real : p);
      free(p);
    } else {
      m.program = strdup(w);
    }
    m.args = strdup(a ? a : "");
    m.ranks = atoi(get(&y, "measurements/%d/ranks", i, 0));
    m.place = strdup(get(&y, "measurements/%d/place", i, 0) ? get(&y, "measurements/%d/place", i, 0) : "block");
    m.column = col ? atoi(col) : 0;
    m.format = !fmt ? CAL_FORMAT_DETECT : !strcmp(fmt, "osu") ? CAL_FORMAT_OSU : CAL_FORMAT_NETPIPE;
    m.held = held;
    if (strpbrk(m.args, "\"\\{}")) {
      const struct icsim_yentry *ae = entry(&y, "measurements/%d/args", i, 0);
      snprintf(err, errlen, "%s:%d:%d: args hold a quote, backslash or brace: give the program's words plainly",
               icsim_path_shown(path), ae->line, ae->column);
      rc = -1;
    }
    if (rc == 0 && cal_table_read(m.path, NULL, m.format, m.column, &m.t, err, errlen))
      rc = -1;
    if (rc == 0 && m.t.format == CAL_FORMAT_NETPIPE) {
      /* the simulated NetPIPE is read from what it prints; its np.out would land in the folder
       * calibrate runs in (over the user's own, and the parallel runs' over one another) */
      m.format = CAL_FORMAT_NETPIPE;
      if (!strstr(m.args, "-o ")) {
        char *more;
        if (asprintf(&more, "%s%s-o /dev/null", m.args, m.args[0] ? " " : "") < 0)
          abort();
        free(m.args);
        m.args = more;
      }
    }
    /* `sizes`: keep only those rows, each of which must be in the file */
    if (rc == 0 && get(&y, "measurements/%d/sizes/%d", i, 0)) {
      struct cal_row *keep = calloc((size_t)m.t.n, sizeof *keep);
      int nk = 0;
      for (int k = 0; rc == 0 && get(&y, "measurements/%d/sizes/%d", i, k); k++) {
        const struct icsim_yentry *se = entry(&y, "measurements/%d/sizes/%d", i, k);
        double size;
        char why[256];
        if (icsim_parse_quantity(se->value, ICSIM_DIM_SIZE, &size, why, sizeof why) &&
            icsim_parse_quantity(se->value, ICSIM_DIM_NONE, &size, why, sizeof why)) {
          snprintf(err, errlen, "%s:%d:%d: size '%s': %s", icsim_path_shown(path), se->line, se->column, se->value, why);
          rc = -1;
          break;
        }
        int found = -1;
        for (int r = 0; r < m.t.n && found < 0; r++)
          if (m.t.rows[r].size == size)
            found = r;
        if (found < 0) {
          snprintf(err, errlen, "%s:%d:%d: size %.0f is not a row of %s (its rows: %.0f to %.0f bytes); give a size the "
                   "file has", icsim_path_shown(path), se->line, se->column, size, icsim_path_shown(m.path),
                   m.t.rows[0].size, m.t.rows[m.t.n - 1].size);
          rc = -1;
        } else {
          keep[nk++] = m.t.rows[found];
        }
      }
      free(m.t.rows);
      m.t.rows = keep;
      m.t.n = nk;
    }
    if (rc) {
      free(m.set);
      free(m.file);
      free(m.path);
      free(m.program);
      free(m.args);
      free(m.place);
      cal_table_free(&m.t);
      break;
    }
    s->m = realloc(s->m, (size_t)(s->n + 1) * sizeof *s->m);
    s->m[s->n++] = m;
  }
  icsim_yaml_free(&y);
  return rc;
}

static bool same_file(const char *a, const char *b)
{
  char ra[PATH_MAX], rb[PATH_MAX];
  return realpath(a, ra) && realpath(b, rb) && !strcmp(ra, rb);
}

int cal_set_finish(struct cal_set *s, char *err, size_t errlen)
{
  int nfit = 0;
  /* a held-out row is no fitted row: the same file's same size leaves the fit */
  for (int i = 0; i < s->n; i++) {
    struct cal_meas *m = &s->m[i];
    if (m->held)
      continue;
    for (int j = 0; j < s->n; j++) {
      if (!s->m[j].held || !same_file(m->path, s->m[j].path))
        continue;
      int k = 0;
      for (int r = 0; r < m->t.n; r++) {
        bool out = false;
        for (int h = 0; h < s->m[j].t.n && !out; h++)
          out = s->m[j].t.rows[h].size == m->t.rows[r].size;
        if (!out)
          m->t.rows[k++] = m->t.rows[r];
      }
      m->t.n = k;
    }
  }
  for (int i = 0; i < s->n; i++) {
    struct cal_meas *m = &s->m[i];
    int r = 0;
    while (r < s->nrun && !(!strcmp(s->run[r].program, m->program) && !strcmp(s->run[r].args, m->args) &&
                            s->run[r].ranks == m->ranks && !strcmp(s->run[r].place, m->place)))
      r++;
    if (r == s->nrun) {
      s->run = realloc(s->run, (size_t)(s->nrun + 1) * sizeof *s->run);
      s->run[s->nrun++] = (struct cal_run){m->program, m->args, m->place, m->ranks, false};
    }
    m->run = r;
    if (!m->held && m->t.n > 0) {
      s->run[r].fitted = true;
      nfit += m->t.n;
    }
  }
  if (nfit == 0) {
    snprintf(err, errlen, "no point is left to fit (%s): give measurement sets beside the --hold-out ones",
             s->n ? "the held-out sets name every row" : "no measurement set was given");
    return -1;
  }
  return nfit;
}

void cal_set_free(struct cal_set *s)
{
  for (int i = 0; i < s->n; i++) {
    free(s->m[i].set);
    free(s->m[i].file);
    free(s->m[i].path);
    free(s->m[i].program);
    free(s->m[i].args);
    free(s->m[i].place);
    cal_table_free(&s->m[i].t);
  }
  free(s->m);
  free(s->run);
  memset(s, 0, sizeof *s);
}
