/* icsim validate: run validation cases (validate/cases/NAME.yaml) and compare with published
 * tables (validate/data/NAME.csv). Writes DIR/summary.csv, DIR/report.md and one gnuplot PNG per
 * metric, all atomically (built in a temporary folder, then renamed into place).
 *
 * A case names a platform and, per metric, the workload run that measures it:
 *   metrics:
 *     - name: rtt_us            # metric name in summary.csv
 *       workload: osu_latency   # program under build/workloads (or a path)
 *       args: "-m 0:0"          # its arguments
 *       ranks: 2
 *       place: 2x1
 *       column: 2               # value column of the workload's "size value..." rows
 *       scale: 2                # multiply (one-way latency x 2 = round trip)
 *       published: validate/data/sumimoto-rtt.csv
 *       tolerance: 0.02         # relative
 *       calibrates: {parameters: [...], points: [0]}
 * Published CSV rows: metric,x,published (empty published = held back: status blind). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "params.h"
#include "yaml_flat.h"

/* Schema of a case file: '#' stands for a list index. */
static const char *const case_keys[] = {
    "case", "title", "source", "platform", "sets/#", "acceptance/pass-fraction", "acceptance/max-excluded-fraction",
    "excluded/#/metric", "excluded/#/x", "excluded/#/reason",
    "metrics/#/name", "metrics/#/unit", "metrics/#/workload", "metrics/#/args", "metrics/#/ranks",
    "metrics/#/place", "metrics/#/column", "metrics/#/scale", "metrics/#/published", "metrics/#/tolerance",
    "aggregates/#/name", "aggregates/#/unit", "aggregates/#/of/#", "aggregates/#/x", "aggregates/#/published",
    "aggregates/#/tolerance", "aggregates/#/note",
    "metrics/#/note", "metrics/#/x-format", "metrics/#/field", "metrics/#/breakdown/#", "metrics/#/derive", "metrics/#/platform", "metrics/#/calibrates/parameters/#", "metrics/#/calibrates/points/#",
    NULL};
static const char *const case_required[] = {"case", "title", "platform", "metrics/0/name", NULL};
static const char *const metric_required[] = {"name", "workload", "ranks", "published", "tolerance", NULL};

struct row {
  char case_name[64], metric[64], x[64];
  double published, simulated, rel_error, tolerance;
  int has_published, has_simulated;
  const char *status; /* pass fail blind excluded */
  char note[256];
};

struct rows {
  struct row *r;
  size_t n, cap;
};

static struct row *add_row(struct rows *rs)
{
  if (rs->n == rs->cap) {
    rs->cap = rs->cap ? 2 * rs->cap : 64;
    rs->r = realloc(rs->r, rs->cap * sizeof *rs->r);
  }
  memset(&rs->r[rs->n], 0, sizeof rs->r[0]);
  return &rs->r[rs->n++];
}

/* "metrics/3/name" matches "metrics/#/name". */
static int key_matches(const char *key, const char *pattern)
{
  while (*key && *pattern) {
    if (*pattern == '#') {
      if (!(*key >= '0' && *key <= '9'))
        return 0;
      while (*key >= '0' && *key <= '9')
        key++;
      pattern++;
    } else if (*key++ != *pattern++) {
      return 0;
    }
  }
  return *key == '\0' && *pattern == '\0';
}

static int check_case_schema(const struct icsim_yfile *y, char *err, size_t errlen)
{
  for (size_t i = 0; i < y->n; i++) {
    int ok = 0;
    for (const char *const *k = case_keys; *k && !ok; k++)
      ok = key_matches(y->e[i].key, *k);
    if (!ok) {
      const char *best = NULL;
      size_t bd = (size_t)-1;
      for (const char *const *k = case_keys; *k; k++) {
        size_t d = icsim_edit_distance(y->e[i].key, *k);
        if (d < bd)
          bd = d, best = *k;
      }
      snprintf(err, errlen, "%s:%d:%d: unknown key '%s'; did you mean '%s' ('#' = list index)?", y->path,
               y->e[i].key_line, y->e[i].key_column, y->e[i].key, best);
      return -1;
    }
  }
  for (const char *const *k = case_required; *k; k++)
    if (!icsim_yaml_get(y, *k)) {
      snprintf(err, errlen, "%s: missing required key '%s'", y->path, *k);
      return -1;
    }
  return 0;
}

static const char *get(const struct icsim_yfile *y, const char *fmt, int i)
{
  char key[256];
  snprintf(key, sizeof key, fmt, i);
  const struct icsim_yentry *e = icsim_yaml_get(y, key);
  return e ? e->value : NULL;
}

/* Item K of a list inside list item I ("metrics/%d/breakdown/%d"), or NULL past its end. */
static const char *get_item(const struct icsim_yfile *y, const char *fmt, int i, int k)
{
  char key[256];
  snprintf(key, sizeof key, fmt, i, k);
  const struct icsim_yentry *e = icsim_yaml_get(y, key);
  return e ? e->value : NULL;
}

static int number_of(const struct icsim_yfile *y, const char *fmt, int i, double *out, char *err, size_t errlen)
{
  char key[256];
  snprintf(key, sizeof key, fmt, i);
  const struct icsim_yentry *e = icsim_yaml_get(y, key);
  char *end;
  *out = strtod(e->value, &end);
  if (end == e->value || *end) {
    snprintf(err, errlen, "%s:%d:%d: %s: '%s' is not a number", y->path, e->line, e->column, key, e->value);
    return -1;
  }
  return 0;
}

/* The acceptance values are fractions in [0, 1]. */
static int check_acceptance(const struct icsim_yfile *y, char *err, size_t errlen)
{
  static const char *const keys[] = {"acceptance/pass-fraction", "acceptance/max-excluded-fraction"};
  for (int k = 0; k < 2; k++) {
    const struct icsim_yentry *e = icsim_yaml_get(y, keys[k]);
    double v;
    if (!e)
      continue;
    if (number_of(y, keys[k], 0, &v, err, errlen))
      return -1;
    if (v < 0 || v > 1) {
      snprintf(err, errlen, "%s:%d:%d: %s: %g is out of range; give a fraction between 0 and 1 (0.9 for 90%%)",
               y->path, e->line, e->column, keys[k], v);
      return -1;
    }
  }
  return 0;
}

/* A case's verdict. By default every compared cell must pass. A case may instead accept a
 * share of failures (acceptance/pass-fraction of the cells it does not exclude) and bound how
 * many published cells it may exclude (acceptance/max-excluded-fraction of all of them). Prints
 * one line per case; returns the number of cases not accepted. */
static int print_verdicts(FILE *f, const struct rows *rs, const struct icsim_yfile *files, int nfiles, int markdown)
{
  int rejected = 0;
  for (int i = 0; i < nfiles; i++) {
    const char *name = get(&files[i], "case", 0);
    const char *pf = get(&files[i], "acceptance/pass-fraction", 0);
    const char *xf = get(&files[i], "acceptance/max-excluded-fraction", 0);
    double need = pf ? atof(pf) : 1, max_ex = xf ? atof(xf) : 1;
    int pass = 0, fail = 0, excl = 0, blind = 0;
    for (size_t k = 0; k < rs->n; k++) {
      if (strcmp(rs->r[k].case_name, name))
        continue;
      blind += !strcmp(rs->r[k].status, "blind");
      pass += !strcmp(rs->r[k].status, "pass");
      fail += !strcmp(rs->r[k].status, "fail");
      excl += !strcmp(rs->r[k].status, "excluded");
    }
    int compared = pass + fail, published = compared + excl;
    if (published == 0) {
      if (blind)
        fprintf(f, "%s%s: predictions only (%d blind points, nothing to accept)\n", markdown ? "- " : "", name, blind);
      continue;
    }
    double pass_share = compared ? (double)pass / compared : 1, excl_share = (double)excl / published;
    int ok = pass_share >= need - 1e-12 && excl_share <= max_ex + 1e-12;
    rejected += !ok;
    fprintf(f, "%s%s: %s: %d of %d compared points pass (%.1f%%, needs %.0f%%)", markdown ? "- " : "", name,
            ok ? "ACCEPTED" : "NOT ACCEPTED", pass, compared, 100 * pass_share, 100 * need);
    if (xf)
      fprintf(f, "; %d of %d published points excluded (%.1f%%, at most %.0f%%)", excl, published, 100 * excl_share,
              100 * max_ex);
    fprintf(f, "\n");
  }
  return rejected;
}

/* Published values of METRIC from a CSV "metric,x,published" (comments with #). */
struct pubrow {
  char x[64];
  double value;
  int has_value;
  char note[192]; /* simulated rows: the run's breakdown fields, for the report */
};

/* "a,b,c" or "a,\"b,with,commas\",c" into three fields of 64 bytes; returns the field count. */
static int split_csv3(const char *line, char f0[64], char f1[64], char f2[64])
{
  char *f[3] = {f0, f1, f2};
  int n = 0;
  const char *p = line;
  while (n < 3) {
    size_t k = 0;
    if (*p == '"') {
      for (p++; *p && *p != '"'; p++)
        if (k < 63)
          f[n][k++] = *p;
      if (*p == '"')
        p++;
    } else {
      for (; *p && *p != ','; p++)
        if (k < 63)
          f[n][k++] = *p;
    }
    f[n][k] = '\0';
    n++;
    if (*p != ',')
      break;
    p++;
  }
  return n;
}

static int load_published(const char *path, const char *metric, struct pubrow **out, size_t *n, char *err,
                          size_t errlen)
{
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, errlen, "%s: cannot open (%s)", path, strerror(errno));
    return -1;
  }
  char line[512];
  int lineno = 0, header = 0;
  *out = NULL;
  *n = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '#' || line[0] == '\0')
      continue;
    if (!header) {
      if (strcmp(line, "metric,x,published")) {
        snprintf(err, errlen, "%s:%d: header must be 'metric,x,published'", path, lineno);
        fclose(f);
        return -1;
      }
      header = 1;
      continue;
    }
    char m[64], x[64], v[64] = "";
    if (split_csv3(line, m, x, v) < 2) {
      snprintf(err, errlen, "%s:%d: expected metric,x,published", path, lineno);
      fclose(f);
      return -1;
    }
    if (strcmp(m, metric))
      continue;
    *out = realloc(*out, (*n + 1) * sizeof **out);
    struct pubrow *p = &(*out)[(*n)++];
    snprintf(p->x, sizeof p->x, "%s", x);
    p->has_value = v[0] != '\0';
    if (p->has_value) {
      char *end;
      p->value = strtod(v, &end);
      if (*end) {
        snprintf(err, errlen, "%s:%d: published value '%s' is not a number", path, lineno, v);
        fclose(f);
        return -1;
      }
    }
  }
  fclose(f);
  if (*n == 0) {
    snprintf(err, errlen, "%s: no rows for metric '%s'", path, metric);
    return -1;
  }
  return 0;
}

/* Parse the workload's "x v1 v2 ..." rows: value of COLUMN (1-based) per x. x is column 1, or
 * XFMT with {k} replaced by column k ("m={1},cf={2}"). Values are multiplied by SCALE. */
static void parse_output(const char *text, int column, const char *xfmt, double scale, struct pubrow **out,
                         size_t *n)
{
  const char *line = text;
  while (line && *line) {
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    if (len && line[0] != '#' && len < 1024) {
      char buf[1024], *tok[32] = {0}, *save;
      int ntok = 0;
      memcpy(buf, line, len);
      buf[len] = '\0';
      for (char *t = strtok_r(buf, " \t", &save); t && ntok < 32; t = strtok_r(NULL, " \t", &save))
        tok[ntok++] = t;
      char *end = NULL;
      double v = column <= ntok ? strtod(tok[column - 1], &end) : 0;
      if (ntok >= 1 && column <= ntok && end != tok[column - 1]) {
        char x[64] = "";
        if (!xfmt) {
          snprintf(x, sizeof x, "%s", tok[0]);
        } else {
          size_t k = 0;
          for (const char *f = xfmt; *f && k + 1 < sizeof x; f++) {
            int c;
            if (*f == '{' && sscanf(f, "{%d}", &c) == 1 && c >= 1 && c <= ntok) {
              k += (size_t)snprintf(x + k, sizeof x - k, "%s", tok[c - 1]);
              f = strchr(f, '}');
            } else {
              x[k++] = *f;
              x[k] = '\0';
            }
          }
        }
        *out = realloc(*out, (*n + 1) * sizeof **out);
        snprintf((*out)[*n].x, sizeof(*out)[*n].x, "%s", x);
        (*out)[*n].value = v * scale;
        (*out)[*n].has_value = 1;
        (*out)[*n].note[0] = '\0';
        (*n)++;
      }
    }
    line = nl ? nl + 1 : NULL;
  }
}

/* Value of a "  Name   =   value" line (the NPB report block), or NAN. */
static double field_value(const char *text, const char *name)
{
  size_t len = strlen(name);
  for (const char *line = text; line && *line;) {
    const char *p = line;
    while (*p == ' ' || *p == '\t')
      p++;
    if (!strncmp(p, name, len)) {
      p += len;
      while (*p == ' ' || *p == '\t')
        p++;
      if (*p == '=') {
        char *end;
        double v = strtod(p + 1, &end);
        if (end != p + 1)
          return v;
      }
    }
    line = strchr(line, '\n');
    line = line ? line + 1 : NULL;
  }
  return NAN;
}

/* One row from a report-block workload: x is X (the entry's x-format), the value the FIELD line
 * times SCALE; the BREAKDOWN fields of the entry go into the row's note. */
static int parse_field(const struct icsim_yfile *y, int mi, const char *text, const char *x, double scale,
                       struct pubrow **out, size_t *n, char *err, size_t errlen)
{
  const char *field = get(y, "metrics/%d/field", mi);
  double v = field_value(text, field);
  if (isnan(v)) {
    snprintf(err, errlen, "%s: metric %d: the workload printed no '%s = number' line", y->path, mi, field);
    return -1;
  }
  *out = realloc(*out, (*n + 1) * sizeof **out);
  struct pubrow *r = &(*out)[*n];
  memset(r, 0, sizeof *r);
  snprintf(r->x, sizeof r->x, "%s", x);
  r->value = v * scale;
  r->has_value = 1;
  const char *part;
  for (int k = 0; (part = get_item(y, "metrics/%d/breakdown/%d", mi, k)); k++) {
    double b = field_value(text, part);
    size_t used = strlen(r->note);
    snprintf(r->note + used, sizeof r->note - used, "%s%s %.4g", used ? ", " : "", part, b);
  }
  (*n)++;
  return 0;
}

static char *read_all(int fd)
{
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  lseek(fd, 0, SEEK_SET);
  ssize_t r;
  while ((r = read(fd, buf + len, cap - len - 1)) > 0) {
    len += (size_t)r;
    if (cap - len < 2)
      buf = realloc(buf, cap *= 2);
  }
  buf[len] = '\0';
  return buf;
}

static char **split_args(const char *workload, const char *args)
{
  char **v = calloc(2, sizeof *v);
  int n = 0;
  v[n++] = strdup(workload);
  char *copy = strdup(args ? args : "");
  for (char *t = strtok(copy, " \t"); t; t = strtok(NULL, " \t")) {
    v = realloc(v, (size_t)(n + 2) * sizeof *v);
    v[n++] = strdup(t);
  }
  v[n] = NULL;
  free(copy);
  return v;
}

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct plot {
  char file[128];
  char title[256];
  char unit[32];
  char metric[64];
  char case_name[64];
};

/* Run metric entry MI of case Y; its rows (x, value) are appended to *SIM. Returns 0 or -1. */
static int run_entry(const struct icsim_yfile *y, int mi, const char *case_name, const char *root,
                     const char *platform, char **sets, int nsets, const char *tmpdir, struct pubrow **sim,
                     size_t *nsim, int *progress, int total, char *err, size_t errlen)
{
  for (const char *const *k = metric_required; *k; k++) {
    char fmt[64];
    snprintf(fmt, sizeof fmt, "metrics/%%d/%s", *k);
    if (!get(y, fmt, mi)) {
      snprintf(err, errlen, "%s: metric %d: missing required key '%s'", y->path, mi, *k);
      return -1;
    }
  }
  const char *metric = get(y, "metrics/%d/name", mi);
  const char *workload = get(y, "metrics/%d/workload", mi);
  const char *place = get(y, "metrics/%d/place", mi);
  double ranks, column = 2, scale = 1, tol;
  if (number_of(y, "metrics/%d/ranks", mi, &ranks, err, errlen) ||
      number_of(y, "metrics/%d/tolerance", mi, &tol, err, errlen) ||
      (get(y, "metrics/%d/column", mi) && number_of(y, "metrics/%d/column", mi, &column, err, errlen)) ||
      (get(y, "metrics/%d/scale", mi) && number_of(y, "metrics/%d/scale", mi, &scale, err, errlen)))
    return -1;
  char workload_path[PATH_MAX];
  if (strchr(workload, '/'))
    snprintf(workload_path, sizeof workload_path, "%s/%s", root, workload);
  else
    snprintf(workload_path, sizeof workload_path, "%s", workload);
  char **prog = split_args(workload_path, get(y, "metrics/%d/args", mi));
  char own_platform[PATH_MAX];
  if (get(y, "metrics/%d/platform", mi)) { /* an entry may run on another machine of the case */
    snprintf(own_platform, sizeof own_platform, "%s/%s", root, get(y, "metrics/%d/platform", mi));
    platform = own_platform;
  }
  struct run_request rq = {.platform = platform, .nranks = (int)ranks, .place = place ? place : "block",
                           .sets = sets, .nsets = nsets, .host_timing = false, .program = prog};
  char outpath[PATH_MAX];
  snprintf(outpath, sizeof outpath, "%s/%s-%s-%d.out", tmpdir, case_name, metric, mi);
  int fd = open(outpath, O_RDWR | O_CREAT | O_TRUNC, 0644);
  (*progress)++;
  fprintf(stderr, "[%d/%d] %s %s: %s %s on %d ranks%s%s ...", *progress, total, case_name, metric, workload,
          get(y, "metrics/%d/args", mi) ? get(y, "metrics/%d/args", mi) : "", (int)ranks, place ? ", " : "",
          place ? place : "");
  fflush(stderr);
  double t0 = now_s();
  int code = launch_smpirun(&rq, fd, err, errlen);
  fprintf(stderr, " %.1f s\n", now_s() - t0);
  free_strv(prog);
  if (code != 0) {
    if (code > 0)
      snprintf(err, errlen, "%s %s: workload %s failed with status %d (output in %s)", case_name, metric, workload,
               code, outpath);
    close(fd);
    return -1;
  }
  char *text = read_all(fd);
  close(fd);
  int bad = 0;
  if (get(y, "metrics/%d/field", mi)) {
    const char *x = get(y, "metrics/%d/x-format", mi);
    if (!x) {
      snprintf(err, errlen, "%s: metric %d: 'field' needs 'x-format' (the x of the run's one row)", y->path, mi);
      bad = -1;
    } else {
      bad = parse_field(y, mi, text, x, scale, sim, nsim, err, errlen);
    }
  } else {
    parse_output(text, (int)column, get(y, "metrics/%d/x-format", mi), scale, sim, nsim);
  }
  free(text);
  return bad;
}

/* Compare the simulated rows SIM of the metric defined by entry MI (its published file,
 * tolerance, calibration points) and append one row per published point. */
static int compare_metric(const struct icsim_yfile *y, int mi, const char *case_name, const char *root,
                          const struct pubrow *sim, size_t nsim, struct rows *rs, struct plot *plot, char *err,
                          size_t errlen)
{
  const char *metric = get(y, "metrics/%d/name", mi);
  const char *unit = get(y, "metrics/%d/unit", mi);
  double tol;
  if (number_of(y, "metrics/%d/tolerance", mi, &tol, err, errlen))
    return -1;
  char pubpath[PATH_MAX];
  snprintf(pubpath, sizeof pubpath, "%s/%s", root, get(y, "metrics/%d/published", mi));
  struct pubrow *pub;
  size_t npub;
  if (load_published(pubpath, metric, &pub, &npub, err, errlen))
    return -1;
  /* calibration points of this metric, for the report */
  char cal[512] = "";
  const char *point;
  for (int k = 0; (point = get_item(y, "metrics/%d/calibrates/points/%d", mi, k)); k++)
    snprintf(cal + strlen(cal), sizeof cal - strlen(cal), ",%s,", point);
  /* derive: efficiency turns times t(x) into parallel efficiency t(x0) x0 / (x t(x)) against
   * the smallest x run (x = processes or nodes) */
  struct pubrow *derived = NULL;
  const char *derive = get(y, "metrics/%d/derive", mi);
  if (derive) {
    if (strcmp(derive, "efficiency")) {
      snprintf(err, errlen, "%s: metric %d: derive '%s' is unknown; the one known is 'efficiency'", y->path, mi,
               derive);
      free(pub);
      return -1;
    }
    derived = calloc(nsim ? nsim : 1, sizeof *derived);
    memcpy(derived, sim, nsim * sizeof *sim);
    size_t base = 0;
    for (size_t j = 1; j < nsim; j++)
      if (atof(sim[j].x) < atof(sim[base].x))
        base = j;
    for (size_t j = 0; j < nsim; j++) {
      double x = atof(sim[j].x), x0 = atof(sim[base].x);
      derived[j].value = sim[base].value * x0 / (x * sim[j].value);
      size_t used = strlen(derived[j].note);
      snprintf(derived[j].note + used, sizeof derived[j].note - used, "%stime %.4g s", used ? ", " : "",
               sim[j].value);
    }
    sim = derived;
  }
  for (size_t i = 0; i < npub; i++) {
    struct row *r = add_row(rs);
    snprintf(r->case_name, sizeof r->case_name, "%s", case_name);
    snprintf(r->metric, sizeof r->metric, "%s", metric);
    snprintf(r->x, sizeof r->x, "%s", pub[i].x);
    r->tolerance = tol;
    r->has_published = pub[i].has_value;
    r->published = pub[i].value;
    for (size_t j = 0; j < nsim; j++)
      if (strcmp(sim[j].x, pub[i].x) == 0) {
        r->has_simulated = 1;
        r->simulated = sim[j].value;
        snprintf(r->note, sizeof r->note, "%s", sim[j].note);
      }
    char probe[80];
    snprintf(probe, sizeof probe, ",%s,", r->x);
    if (strstr(cal, probe))
      snprintf(r->note, sizeof r->note, "calibration point");
    else if (!r->has_published && get(y, "metrics/%d/note", mi) && !r->note[0])
      snprintf(r->note, sizeof r->note, "%s", get(y, "metrics/%d/note", mi));
    for (int k = 0; get(y, "excluded/%d/metric", k); k++)
      if (!strcmp(get(y, "excluded/%d/metric", k), metric) && get(y, "excluded/%d/x", k) &&
          !strcmp(get(y, "excluded/%d/x", k), r->x)) {
        r->status = "excluded";
        snprintf(r->note, sizeof r->note, "%s", get(y, "excluded/%d/reason", k) ? get(y, "excluded/%d/reason", k) : "");
      }
    if (r->status)
      ;
    else if (!r->has_simulated) {
      r->status = "fail";
      snprintf(r->note, sizeof r->note, "the workload printed no row for x = %s", r->x);
    } else if (!r->has_published) {
      r->status = "blind";
    } else {
      r->rel_error = r->published != 0 ? (r->simulated - r->published) / r->published : (r->simulated == 0 ? 0 : INFINITY);
      r->status = fabs(r->rel_error) <= tol ? "pass" : "fail";
    }
  }
  free(pub);
  free(derived);
  snprintf(plot->file, sizeof plot->file, "%s-%s.png", case_name, metric);
  snprintf(plot->title, sizeof plot->title, "%s: %s", case_name, metric);
  snprintf(plot->unit, sizeof plot->unit, "%s", unit ? unit : "");
  snprintf(plot->metric, sizeof plot->metric, "%s", metric);
  snprintf(plot->case_name, sizeof plot->case_name, "%s", case_name);
  return 0;
}

/* An aggregate row: the mean of the simulated values of metrics OF at X (a published
 * statement about a whole suite, e.g. "about 80% efficiency for NPB class A"). */
static int aggregate(const struct icsim_yfile *y, int a, const char *case_name, const char *root, struct rows *rs,
                     char *err, size_t errlen)
{
  const char *name = get(y, "aggregates/%d/name", a), *x = get(y, "aggregates/%d/x", a);
  const char *pubfile = get(y, "aggregates/%d/published", a);
  double tol;
  if (!x || !pubfile) {
    snprintf(err, errlen, "%s: aggregate %d (%s): needs 'x' and 'published'", y->path, a, name);
    return -1;
  }
  if (number_of(y, "aggregates/%d/tolerance", a, &tol, err, errlen))
    return -1;
  double sum = 0;
  int n = 0, wanted = 0;
  char parts[192] = "";
  const char *of;
  for (int k = 0; (of = get_item(y, "aggregates/%d/of/%d", a, k)); k++) {
    wanted++;
    for (size_t i = 0; i < rs->n; i++)
      if (!strcmp(rs->r[i].case_name, case_name) && !strcmp(rs->r[i].metric, of) && !strcmp(rs->r[i].x, x) &&
          rs->r[i].has_simulated) {
        sum += rs->r[i].simulated;
        n++;
        size_t used = strlen(parts);
        snprintf(parts + used, sizeof parts - used, "%s%.3g", used ? " " : "mean of ", rs->r[i].simulated);
      }
  }
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", root, pubfile);
  struct pubrow *pub;
  size_t npub;
  if (load_published(path, name, &pub, &npub, err, errlen))
    return -1;
  struct row *r = add_row(rs);
  snprintf(r->case_name, sizeof r->case_name, "%s", case_name);
  snprintf(r->metric, sizeof r->metric, "%s", name);
  snprintf(r->x, sizeof r->x, "%s", x);
  r->tolerance = tol;
  for (size_t i = 0; i < npub; i++)
    if (!strcmp(pub[i].x, x)) {
      r->has_published = pub[i].has_value;
      r->published = pub[i].value;
    }
  free(pub);
  snprintf(r->note, sizeof r->note, "%s", parts);
  if (n != wanted || !wanted) {
    r->status = "fail";
    snprintf(r->note, sizeof r->note, "%d of the %d metrics have a value at x = %s", n, wanted, x);
  } else {
    r->has_simulated = 1;
    r->simulated = sum / n;
    if (!r->has_published) {
      r->status = "blind";
    } else {
      r->rel_error = (r->simulated - r->published) / r->published;
      r->status = fabs(r->rel_error) <= tol ? "pass" : "fail";
    }
  }
  return 0;
}

static void fmt_num(char *buf, size_t len, int has, double v)
{
  if (has)
    snprintf(buf, len, "%.6g", v);
  else
    buf[0] = '\0';
}

/* gnuplot: published vs simulated on log axes, x numeric. Points with x <= 0 are left out of
 * the log plot (they stay in the tables). */
static void make_plot(const struct plot *p, const struct rows *rs, const char *tmpdir)
{
  char dat[PATH_MAX], gp[PATH_MAX];
  snprintf(dat, sizeof dat, "%s/%s-%s.dat", tmpdir, p->case_name, p->metric);
  snprintf(gp, sizeof gp, "%s/%s-%s.gp", tmpdir, p->case_name, p->metric);
  FILE *f = fopen(dat, "w");
  int points = 0, numeric = 1;
  for (size_t i = 0; i < rs->n; i++) {
    const struct row *r = &rs->r[i];
    if (strcmp(r->case_name, p->case_name) || strcmp(r->metric, p->metric))
      continue;
    char *end;
    double x = strtod(r->x, &end);
    if (*end) {
      numeric = 0;
      continue;
    }
    if (x <= 0)
      continue;
    /* NaN leaves a gap: blind points have no published value */
    if (r->has_published && r->published > 0)
      fprintf(f, "%s %.9g ", r->x, r->published);
    else
      fprintf(f, "%s NaN ", r->x);
    if (r->has_simulated && r->simulated > 0)
      fprintf(f, "%.9g\n", r->simulated);
    else
      fprintf(f, "NaN\n");
    points++;
  }
  fclose(f);
  if (!numeric || points == 0) {
    unlink(dat);
    return;
  }
  f = fopen(gp, "w");
  fprintf(f,
          "set terminal pngcairo size 800,520 noenhanced\nset output '%s/%s'\nset title '%s'\nset logscale xy\n"
          "set xlabel 'x (bytes)'\nset ylabel '%s %s'\nset key left top\nset grid\n"
          "plot '%s' using 1:2 with linespoints pt 7 title 'published', '%s' using 1:3 with linespoints pt 5 "
          "title 'icsim'\n",
          tmpdir, p->file, p->title, p->metric, p->unit, dat, dat);
  fclose(f);
  char cmd[PATH_MAX * 2];
  snprintf(cmd, sizeof cmd, "gnuplot '%s' 2>/dev/null", gp);
  if (system(cmd) != 0)
    fprintf(stderr, "icsim validate: gnuplot failed for %s (plot skipped)\n", p->file);
  unlink(gp);
  unlink(dat);
}

/* For metrics whose x are subsystem shapes "NxC", the order of the shapes within each core
 * count N x C, fastest first: what a resource manager would pick (Peryshkova and Kurnosov). */
static void print_shape_orders(FILE *f, const struct rows *rs, int markdown)
{
  for (size_t i = 0; i < rs->n; i++) {
    const struct row *r = &rs->r[i];
    int n, c;
    char tail;
    if (sscanf(r->x, "%dx%d%c", &n, &c, &tail) != 2 || !r->has_simulated)
      continue;
    int first = 1; /* only once per (case, metric, core count): at its first row */
    for (size_t j = 0; j < i; j++) {
      int n2, c2;
      if (!strcmp(rs->r[j].case_name, r->case_name) && !strcmp(rs->r[j].metric, r->metric) &&
          sscanf(rs->r[j].x, "%dx%d%c", &n2, &c2, &tail) == 2 && n2 * c2 == n * c)
        first = 0;
    }
    if (!first)
      continue;
    const struct row *sorted[64];
    int k = 0;
    for (size_t j = i; j < rs->n && k < 64; j++) {
      int n2, c2;
      if (!strcmp(rs->r[j].case_name, r->case_name) && !strcmp(rs->r[j].metric, r->metric) &&
          sscanf(rs->r[j].x, "%dx%d%c", &n2, &c2, &tail) == 2 && n2 * c2 == n * c && rs->r[j].has_simulated)
        sorted[k++] = &rs->r[j];
    }
    for (int a = 1; a < k; a++)
      for (int b = a; b > 0 && sorted[b]->simulated < sorted[b - 1]->simulated; b--) {
        const struct row *t = sorted[b];
        sorted[b] = sorted[b - 1];
        sorted[b - 1] = t;
      }
    fprintf(f, "%s%s %s, %d cores, predicted order:", markdown ? "- " : "", r->case_name, r->metric, n * c);
    for (int a = 0; a < k; a++)
      fprintf(f, " %s%s (%.6g)", a ? "< " : "", sorted[a]->x, sorted[a]->simulated);
    fprintf(f, "\n");
  }
}

static int write_outputs(const struct rows *rs, const struct plot *plots, int nplots, const struct icsim_yfile *files,
                         int nfiles, const char *tmpdir, const char *outdir, char *err, size_t errlen)
{
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/summary.csv", tmpdir);
  FILE *f = fopen(path, "w");
  fprintf(f, "case,metric,x,published,simulated,rel_error,tolerance,status\n");
  for (size_t i = 0; i < rs->n; i++) {
    const struct row *r = &rs->r[i];
    char pub[32], sim[32], rel[32];
    fmt_num(pub, sizeof pub, r->has_published, r->published);
    fmt_num(sim, sizeof sim, r->has_simulated, r->simulated);
    fmt_num(rel, sizeof rel, r->has_published && r->has_simulated, r->rel_error);
    const char *q = strchr(r->x, ',') ? "\"" : ""; /* x like m=4,cf=2 needs quoting */
    fprintf(f, "%s,%s,%s%s%s,%s,%s,%s,%g,%s\n", r->case_name, r->metric, q, r->x, q, pub, sim, rel, r->tolerance,
            r->status);
  }
  fclose(f);
  snprintf(path, sizeof path, "%s/report.md", tmpdir);
  f = fopen(path, "w");
  fprintf(f, "# icsim validation report\n\nGenerated by `icsim validate`. Status: pass/fail against the "
             "tolerance; blind = published value held back, the simulated value is a prediction; excluded = a "
             "published cell the model does not claim (reason given).\n");
  const char *last_case = "";
  const char *last_metric = "";
  for (size_t i = 0; i < rs->n; i++) {
    const struct row *r = &rs->r[i];
    if (strcmp(r->case_name, last_case) || strcmp(r->metric, last_metric)) {
      if (strcmp(r->case_name, last_case))
        fprintf(f, "\n## %s\n", r->case_name);
      fprintf(f, "\n### %s\n\n", r->metric);
      for (int p = 0; p < nplots; p++)
        if (!strcmp(plots[p].case_name, r->case_name) && !strcmp(plots[p].metric, r->metric)) {
          char png[PATH_MAX];
          snprintf(png, sizeof png, "%s/%s", tmpdir, plots[p].file);
          if (access(png, F_OK) == 0)
            fprintf(f, "![%s](%s)\n\n", plots[p].title, plots[p].file);
        }
      fprintf(f, "| x | published | simulated | error | tolerance | status | note |\n|---:|---:|---:|---:|---:|---|---|\n");
      last_case = r->case_name;
      last_metric = r->metric;
    }
    char pub[32], sim[32], rel[32] = "";
    fmt_num(pub, sizeof pub, r->has_published, r->published);
    fmt_num(sim, sizeof sim, r->has_simulated, r->simulated);
    if (r->has_published && r->has_simulated)
      snprintf(rel, sizeof rel, "%+.2f%%", 100 * r->rel_error);
    fprintf(f, "| %s | %s | %s | %s | %g%% | %s | %s |\n", r->x, r->has_published ? pub : "(held back)", sim, rel,
            100 * r->tolerance, r->status, r->note);
  }
  fprintf(f, "\n");
  print_shape_orders(f, rs, 1);
  fprintf(f, "\n## Verdict\n\n");
  print_verdicts(f, rs, files, nfiles, 1);
  fclose(f);
  /* move into place: plots and report first, the summary last */
  if (mkdir(outdir, 0755) && errno != EEXIST) {
    snprintf(err, errlen, "--out %s: cannot create (%s)", outdir, strerror(errno));
    return -1;
  }
  DIR *d = opendir(tmpdir);
  struct dirent *de;
  while ((d && (de = readdir(d)))) {
    if (de->d_name[0] == '.' || !strcmp(de->d_name, "summary.csv") || strstr(de->d_name, ".out"))
      continue;
    char from[PATH_MAX], to[PATH_MAX];
    snprintf(from, sizeof from, "%s/%s", tmpdir, de->d_name);
    snprintf(to, sizeof to, "%s/%s", outdir, de->d_name);
    if (rename(from, to)) {
      snprintf(err, errlen, "cannot move %s to %s: %s", from, to, strerror(errno));
      closedir(d);
      return -1;
    }
  }
  if (d)
    closedir(d);
  char from[PATH_MAX], to[PATH_MAX];
  snprintf(from, sizeof from, "%s/summary.csv", tmpdir);
  snprintf(to, sizeof to, "%s/summary.csv", outdir);
  if (rename(from, to)) {
    snprintf(err, errlen, "cannot move %s to %s: %s", from, to, strerror(errno));
    return -1;
  }
  return 0;
}

static void remove_tree(const char *dir)
{
  DIR *d = opendir(dir);
  struct dirent *de;
  while (d && (de = readdir(d))) {
    if (de->d_name[0] == '.')
      continue;
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
    unlink(p);
  }
  if (d)
    closedir(d);
  rmdir(dir);
}

static int list_cases(const char *dir, char ***names)
{
  DIR *d = opendir(dir);
  struct dirent *de;
  int n = 0;
  *names = NULL;
  while (d && (de = readdir(d))) {
    size_t len = strlen(de->d_name);
    if (len > 5 && !strcmp(de->d_name + len - 5, ".yaml")) {
      *names = realloc(*names, (size_t)(n + 1) * sizeof **names);
      (*names)[n++] = strndup(de->d_name, len - 5);
    }
  }
  if (d)
    closedir(d);
  for (int i = 1; i < n; i++) /* sorted, so runs and outputs keep one order */
    for (int j = i; j > 0 && strcmp((*names)[j - 1], (*names)[j]) > 0; j--) {
      char *t = (*names)[j];
      (*names)[j] = (*names)[j - 1];
      (*names)[j - 1] = t;
    }
  return n;
}

static void usage(FILE *f)
{
  fprintf(f, "usage: icsim validate [CASE...] [--out DIR] [--list]\n"
             "Runs validation cases (validate/cases/CASE.yaml; all when none named) and writes\n"
             "DIR/summary.csv, DIR/report.md and plots (default DIR: validate/out).\n"
             "Exit status 1 if any row fails, 2 on bad input.\n");
}

int cmd_validate(int argc, char **argv)
{
  char outdir[PATH_MAX];
  snprintf(outdir, sizeof outdir, "%s/validate/out", ICSIM_SRCDIR);
  int list = 0, c;
  static const struct option opts[] = {{"out", required_argument, 0, 'o'}, {"list", no_argument, 0, 'l'},
                                       {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
    switch (c) {
    case 'o': snprintf(outdir, sizeof outdir, "%s", optarg); break;
    case 'l': list = 1; break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  const char *root = ICSIM_SRCDIR;
  char casedir[PATH_MAX];
  snprintf(casedir, sizeof casedir, "%s/validate/cases", root);
  char **all;
  int nall = list_cases(casedir, &all);
  if (list) {
    for (int i = 0; i < nall; i++)
      printf("%s\n", all[i]);
    return 0;
  }
  char **chosen = argv + optind;
  int nchosen = argc - optind;
  if (nchosen == 0) {
    chosen = all;
    nchosen = nall;
  }
  char err[4096];
  /* Load and check every case before running anything. */
  struct icsim_yfile *files = calloc((size_t)nchosen, sizeof *files);
  int total = 0, rc = 2;
  for (int i = 0; i < nchosen; i++) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.yaml", casedir, chosen[i]);
    if (access(path, F_OK)) {
      fprintf(stderr, "icsim validate: no case '%s' (known:", chosen[i]);
      for (int k = 0; k < nall; k++)
        fprintf(stderr, " %s", all[k]);
      fprintf(stderr, ")\n");
      goto out;
    }
    if (icsim_yaml_load(path, &files[i], err, sizeof err) || check_case_schema(&files[i], err, sizeof err) ||
        check_acceptance(&files[i], err, sizeof err)) {
      fprintf(stderr, "icsim validate: %s\n", err);
      goto out;
    }
    for (int m = 0; get(&files[i], "metrics/%d/name", m); m++)
      total++;
  }
  char tmpdir[PATH_MAX];
  snprintf(tmpdir, sizeof tmpdir, "%s.tmp-XXXXXX", outdir);
  {
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", outdir);
    char *slash = strrchr(parent, '/');
    if (slash) {
      *slash = '\0';
      mkdir(parent, 0755);
    }
  }
  if (!mkdtemp(tmpdir)) {
    fprintf(stderr, "icsim validate: cannot create %s: %s\n", tmpdir, strerror(errno));
    goto out;
  }
  struct rows rs = {0};
  struct plot *plots = calloc((size_t)total + 1, sizeof *plots);
  int nplots = 0, progress = 0, failed_run = 0;
  for (int i = 0; i < nchosen && !failed_run; i++) {
    const struct icsim_yfile *y = &files[i];
    char platform[PATH_MAX];
    snprintf(platform, sizeof platform, "%s/%s", root, icsim_yaml_get(y, "platform")->value);
    char *sets[64];
    int nsets = 0;
    while (nsets < 64 && get(y, "sets/%d", nsets)) {
      sets[nsets] = (char *)get(y, "sets/%d", nsets);
      nsets++;
    }
    /* Entries with the same metric name are runs of one table (e.g. one per cf): their rows
     * are pooled, and the first entry's published file, tolerance and calibration apply. */
    int nentries = 0;
    while (get(y, "metrics/%d/name", nentries))
      nentries++;
    struct pubrow **sims = calloc((size_t)nentries, sizeof *sims);
    size_t *nsims = calloc((size_t)nentries, sizeof *nsims);
    int *owner = calloc((size_t)nentries, sizeof *owner);
    const char *case_name = icsim_yaml_get(y, "case")->value;
    for (int m = 0; m < nentries && !failed_run; m++) {
      owner[m] = m;
      for (int k = 0; k < m; k++)
        if (!strcmp(get(y, "metrics/%d/name", k), get(y, "metrics/%d/name", m))) {
          owner[m] = owner[k];
          break;
        }
      if (run_entry(y, m, case_name, root, platform, sets, nsets, tmpdir, &sims[owner[m]], &nsims[owner[m]],
                    &progress, total, err, sizeof err)) {
        fprintf(stderr, "icsim validate: %s\n", err);
        failed_run = 1;
      }
    }
    for (int m = 0; m < nentries && !failed_run; m++) {
      if (owner[m] != m)
        continue;
      if (compare_metric(y, m, case_name, root, sims[m], nsims[m], &rs, &plots[nplots], err, sizeof err)) {
        fprintf(stderr, "icsim validate: %s\n", err);
        failed_run = 1;
      }
      nplots++;
    }
    for (int m = 0; m < nentries; m++)
      free(sims[m]);
    free(sims);
    free(nsims);
    free(owner);
    for (int a = 0; !failed_run && get(y, "aggregates/%d/name", a); a++)
      if (aggregate(y, a, case_name, root, &rs, err, sizeof err)) {
        fprintf(stderr, "icsim validate: %s\n", err);
        failed_run = 1;
      }
  }
  if (failed_run) {
    remove_tree(tmpdir);
    free(rs.r);
    free(plots);
    goto out;
  }
  for (int p = 0; p < nplots; p++)
    make_plot(&plots[p], &rs, tmpdir);
  if (write_outputs(&rs, plots, nplots, files, nchosen, tmpdir, outdir, err, sizeof err)) {
    fprintf(stderr, "icsim validate: %s\n", err);
    remove_tree(tmpdir);
    goto out;
  }
  remove_tree(tmpdir);
  int counts[4] = {0};
  printf("%-22s %-16s %12s %12s %12s %9s  %s\n", "case", "metric", "x", "published", "simulated", "error",
         "status");
  for (size_t i = 0; i < rs.n; i++) {
    const struct row *r = &rs.r[i];
    char pub[32], sim[32], rel[32] = "";
    fmt_num(pub, sizeof pub, r->has_published, r->published);
    fmt_num(sim, sizeof sim, r->has_simulated, r->simulated);
    if (r->has_published && r->has_simulated)
      snprintf(rel, sizeof rel, "%+.2f%%", 100 * r->rel_error);
    printf("%-22s %-16s %12s %12s %12s %9s  %s%s%s\n", r->case_name, r->metric, r->x, r->has_published ? pub : "-",
           sim, rel, r->status, r->note[0] ? "  # " : "", r->note);
    counts[!strcmp(r->status, "pass") ? 0 : !strcmp(r->status, "fail") ? 1 : !strcmp(r->status, "blind") ? 2 : 3]++;
  }
  printf("\n");
  print_shape_orders(stdout, &rs, 0);
  printf("\n");
  int rejected = print_verdicts(stdout, &rs, files, nchosen, 0);
  printf("\n%d pass, %d fail, %d blind, %d excluded. Report: %s/report.md\n", counts[0], counts[1], counts[2],
         counts[3], outdir);
  free(rs.r);
  free(plots);
  rc = rejected ? 1 : 0;
out:
  for (int i = 0; i < nchosen; i++)
    icsim_yaml_free(&files[i]);
  free(files);
  for (int i = 0; i < nall; i++)
    free(all[i]);
  free(all);
  return rc;
}
