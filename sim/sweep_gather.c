/* Gathering a sweep: the figures of every finished point (read from its stored output and
 * counters), one row per point in results.csv, and the plots (gnuplot). Everything here is
 * recomputed from DIR/points, so adding a figure or a plot to the sweep file needs no new run. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stats_json.h"
#include "paths.h"
#include "outfile.h"
#include "sweep.h"
#include "units.h"

/* A growing string. */
struct buf {
  char *s;
  size_t len, cap;
};

static void bprintf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bprintf(struct buf *b, const char *fmt, ...)
{
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
    va_end(ap);
    if (b->s && b->len + (size_t)n < b->cap) {
      b->len += (size_t)n;
      return;
    }
    b->cap = 2 * (b->len + (size_t)n + 64);
    b->s = realloc(b->s, b->cap);
  }
}

/* A CSV cell: quoted when it holds a comma, a quote or a line break. */
static void csv_cell(struct buf *b, const char *text, int first)
{
  if (!first)
    bprintf(b, ",");
  if (!strpbrk(text, ",\"\n")) {
    bprintf(b, "%s", text);
    return;
  }
  bprintf(b, "\"");
  for (const char *c = text; *c; c++)
    bprintf(b, *c == '"' ? "\"\"" : "%c", *c);
  bprintf(b, "\"");
}

/* Value of a "  Name   =   value" line of TEXT, or NAN. */
static double field_value(const char *text, const char *name)
{
  size_t len = strlen(name);
  for (const char *line = text; line && *line;) {
    const char *p = line + strspn(line, " \t");
    if (!strncmp(p, name, len)) {
      p += len;
      p += strspn(p, " \t");
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

/* Column COLUMN of the row whose first token is X (as text, or the same number), or of the last
 * row holding that column when X is NULL; NAN when there is none. Rows starting '#' are headers. */
static double row_value(const char *text, const char *x, int column)
{
  double found = NAN, xnum = NAN;
  char *xend = NULL;
  if (x) {
    xnum = strtod(x, &xend);
    if (xend == x || *xend)
      xnum = NAN;
  }
  for (const char *line = text; line && *line;) {
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    if (len && len < 1024 && line[0] != '#') {
      char copy[1024], *tok[33], *save;
      int ntok = 0;
      memcpy(copy, line, len);
      copy[len] = '\0';
      for (char *t = strtok_r(copy, " \t\r", &save); t && ntok < 33; t = strtok_r(NULL, " \t\r", &save))
        tok[ntok++] = t;
      char *end;
      double v = column <= ntok ? strtod(tok[column - 1], &end) : NAN;
      int is_num = column <= ntok && end != tok[column - 1] && *end == '\0';
      if (is_num && ntok > 0) {
        double t0 = strtod(tok[0], &end);
        int same_x = !x || !strcmp(tok[0], x) || (!isnan(xnum) && *end == '\0' && t0 == xnum);
        if (same_x) {
          found = v;
          if (x)
            return v;
        }
      }
    }
    line = nl ? nl + 1 : NULL;
  }
  return found;
}

/* Figure F of point P from its stored output: 0 with *V, or -1 with ERR saying what is missing. */
static int figure_value(const struct sweep *s, const struct sweep_point *p, int f, const char *out, const char *stats,
                        const char *pdir, double *v, char *err, size_t errlen)
{
  const struct icsim_yentry *name = sweep_entry(s, "figures/%d/name", f);
  const char *field = sweep_get(s, "figures/%d/field", f), *st = sweep_get(s, "figures/%d/stats", f),
             *row = sweep_get(s, "figures/%d/row", f), *col = sweep_get(s, "figures/%d/column", f),
             *scale = sweep_get(s, "figures/%d/scale", f);
  int column = col ? atoi(col) : 2;
  if (!sweep_where(s, p, "figures/%d/where/%d", f)) { /* not a figure of this point: an empty cell */
    *v = NAN;
    return 0;
  }
  char *x = row ? sweep_subst(s, p, row) : NULL, what[512], label[1024];
  if (st) {
    *v = icsim_stats_get(stats, st); /* "simulated_time_s" or "SECTION/NAME" */
    snprintf(what, sizeof what, "no counter %s in %s/stats.json", st, pdir);
  } else if (field) {
    *v = field_value(out, field);
    snprintf(what, sizeof what, "no '%s = number' line in %s/out.txt", field, pdir);
  } else {
    *v = row_value(out, x, column);
    snprintf(what, sizeof what, "no row %s with a number in column %d in %s/out.txt", x ? x : "at all", column, pdir);
  }
  free(x);
  if (isnan(*v)) {
    sweep_point_label(s, p, label, sizeof label);
    snprintf(err, errlen, "%s:%d:%d: figure '%s' of point %d (%s): %s", icsim_path_shown(s->path), name->key_line, name->key_column,
             name->value, p->index, label, what);
    return -1;
  }
  *v *= scale ? strtod(scale, NULL) : 1;
  return 0;
}

static int figure_index(const struct sweep *s, const char *name)
{
  for (int f = 0; f < s->nfigures; f++)
    if (!strcmp(sweep_get(s, "figures/%d/name", f), name))
      return f;
  return -1;
}

static int axis_index(const struct sweep *s, const char *name)
{
  for (int a = 0; a < s->naxes; a++)
    if (!strcmp(s->axes[a].name, name))
      return a;
  return -1;
}

static int is_number(const char *t)
{
  char *end;
  strtod(t, &end);
  return end != t && *end == '\0';
}

/* A gnuplot single-quoted string: '' stands for a quote. */
static void gp_string(struct buf *b, const char *text)
{
  bprintf(b, "'");
  for (const char *c = text; *c; c++)
    bprintf(b, *c == '\'' ? "''" : "%c", *c);
  bprintf(b, "'");
}

/* The x axis of a plot: scales, and a numeric axis' own values as tics (with their units: 25us,
 * 64KiB), the range fitted to them. */
static void x_axis(struct buf *gp, const struct sweep *s, int xa, int numeric_x, const char *log)
{
  if (log && strchr(log, 'x') && numeric_x)
    bprintf(gp, "set logscale x\n");
  if (numeric_x) { /* the axis' own values as tics, the range fitted to them */
    bprintf(gp, "set autoscale xfix\nset offsets graph 0.03, graph 0.03, 0, 0\n");
    if (s->axes[xa].n <= 16) {
      bprintf(gp, "set xtics (");
      for (int v = 0; v < s->axes[xa].n; v++) { /* labelled with their units: 25us, 64KiB */
        char label[64];
        if (s->axes[xa].dim != ICSIM_DIM_NONE)
          icsim_format_quantity(strtod(s->axes[xa].cell[v], NULL), s->axes[xa].dim, label, sizeof label);
        else
          snprintf(label, sizeof label, "%s", s->axes[xa].text[v]);
        bprintf(gp, "%s", v ? ", " : "");
        gp_string(gp, label);
        bprintf(gp, " %s", s->axes[xa].cell[v]);
      }
      bprintf(gp, ")%s\n", s->axes[xa].n > 8 ? " rotate by -30" : "");
    }
  }
  if (log && strchr(log, 'y'))
    bprintf(gp, "set logscale y\n");
  if (!numeric_x)
    bprintf(gp, "set xrange [-0.5:%d.5]\n", s->axes[xa].n - 1);
}

/* Write plot NAME's data and script into DIR/plots and draw DIR/NAME.png with gnuplot (the
 * picture replaced whole; a gnuplot failure is said and skipped). */
static int draw(const char *dir, const char *name, struct buf *data, struct buf *gp, char *err, size_t errlen)
{
  char dat[PATH_MAX], script[PATH_MAX], png[PATH_MAX], pngtmp[PATH_MAX + 16];
  snprintf(dat, sizeof dat, "%s/plots/%s.dat", dir, name);
  snprintf(script, sizeof script, "%s/plots/%s.gp", dir, name);
  snprintf(png, sizeof png, "%s/%s.png", dir, name);
  snprintf(pngtmp, sizeof pngtmp, "%s.tmp.%d", png, (int)getpid());
  int rc = 0;
  if (store_write_atomic(dat, data->s, data->len, err, errlen) || store_write_atomic(script, gp->s, gp->len, err, errlen)) {
    rc = -1;
  } else {
    pid_t pid = fork();
    if (pid == 0) {
      int nul = open("/dev/null", 1);
      if (nul >= 0)
        dup2(nul, 1);
      char *set_output = NULL;
      if (asprintf(&set_output, "set output '%s'", pngtmp) < 0)
        _exit(126);
      execlp("gnuplot", "gnuplot", "-e", set_output, script, (char *)NULL);
      _exit(127);
    }
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
      ;
    char merr[1024];
    if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
      fprintf(stderr, "icsim sweep: gnuplot failed for %s (plot skipped; script %s)\n", png, script);
      unlink(pngtmp);
    } else if (icsim_output_copy("--out", png, pngtmp, merr, sizeof merr)) {
      fprintf(stderr, "icsim sweep: %s (plot skipped)\n", merr);
      unlink(pngtmp);
    }
  }
  return rc;
}

/* Plot K with `stack`: its figures piled up along the x axis, the first at the bottom, at the
 * points `where` keeps (one per x: the other axes must be fixed). */
static int plot_stack(const struct sweep *s, const struct sweep_point *p, int n, const double *val, const char *done,
                      const char *dir, int k, char *err, size_t errlen)
{
  const char *name = sweep_get(s, "plots/%d/name", k), *title = sweep_get(s, "plots/%d/title", k),
             *log = sweep_get(s, "plots/%d/log", k), *f;
  int xa = axis_index(s, sweep_get(s, "plots/%d/x", k)), fig[32], nf = 0;
  for (int j = 0; nf < 32 && (f = sweep_get(s, "plots/%d/stack/%d", k, j)); j++)
    fig[nf++] = figure_index(s, f);
  int numeric_x = 1;
  for (int v = 0; v < s->axes[xa].n; v++)
    numeric_x &= is_number(s->axes[xa].cell[v]);
  struct buf data = {0}, gp = {0};
  int rows = 0, rc = 0;
  for (int v = 0; v < s->axes[xa].n && !rc; v++) {
    int at = -1;
    for (int i = 0; i < n; i++) {
      if (!done[i] || p[i].vi[xa] != v || !sweep_where(s, &p[i], "plots/%d/where/%d", k))
        continue;
      int have = 1;
      for (int j = 0; j < nf; j++)
        have &= !isnan(val[(size_t)i * s->nfigures + fig[j]]);
      if (!have)
        continue;
      for (int a = 0; at >= 0 && a < s->naxes; a++)
        if (a != xa && p[at].vi[a] != p[i].vi[a]) {
          fprintf(stderr, "icsim sweep: plot %s: several points at %s = %s (axis %s varies); fix the other axes with "
                          "where (plot skipped)\n", name, s->axes[xa].name, s->axes[xa].text[v], s->axes[a].name);
          rc = 1;
          break;
        }
      at = at < 0 ? i : at;
    }
    if (at < 0 || rc)
      continue;
    double sum = 0;
    if (numeric_x)
      bprintf(&data, "%s", s->axes[xa].cell[v]);
    else
      bprintf(&data, "%d", v);
    for (int j = 0; j < nf; j++)
      bprintf(&data, " %.10g", sum += val[(size_t)at * s->nfigures + fig[j]]);
    if (!numeric_x)
      bprintf(&data, " \"%s\"", s->axes[xa].text[v]);
    bprintf(&data, "\n");
    rows++;
  }
  if (rc || !rows) {
    if (!rc)
      fprintf(stderr, "icsim sweep: plot %s has no points yet (skipped)\n", name);
    free(data.s);
    return 0;
  }
  char dat[PATH_MAX], t[512];
  snprintf(dat, sizeof dat, "%s/plots/%s.dat", dir, name);
  const char *yunit = sweep_get(s, "figures/%d/unit", fig[0]);
  bprintf(&gp, "# gnuplot -e \"set output '%s.png'\" %s.gp   (written by icsim sweep --gather)\n", name, name);
  bprintf(&gp, "set terminal pngcairo size 900,%d noenhanced\nset title ", 520 + 10 * nf);
  gp_string(&gp, title ? title : sweep_get(s, "title") ? sweep_get(s, "title") : s->name);
  bprintf(&gp, "\nset xlabel ");
  gp_string(&gp, s->axes[xa].header);
  snprintf(t, sizeof t, "stacked%s%s%s", yunit ? " (" : "", yunit ? yunit : "", yunit ? ")" : "");
  bprintf(&gp, "\nset ylabel ");
  gp_string(&gp, t);
  bprintf(&gp, "\nset grid\nset key outside below\nset style fill solid 0.8 border -1\nset yrange [0:*]\n");
  x_axis(&gp, s, xa, numeric_x, log);
  bprintf(&gp, "plot");
  for (int j = nf - 1; j >= 0; j--) { /* the total first, each lower pile drawn over it */
    bprintf(&gp, "%s ", j < nf - 1 ? ", \\\n    " : "");
    gp_string(&gp, dat);
    if (numeric_x)
      bprintf(&gp, " using 1:%d with filledcurves x1 title ", j + 2);
    else
      bprintf(&gp, " using 1:%d:xtic(%d) with filledcurves x1 title ", j + 2, nf + 2);
    gp_string(&gp, sweep_get(s, "figures/%d/name", fig[j]));
  }
  bprintf(&gp, "\n");
  rc = draw(dir, name, &data, &gp, err, errlen);
  free(data.s);
  free(gp.s);
  return rc;
}

/* Plot K: y against the x axis, one line per combination of the other axes' values among the
 * points kept by `where`. Data and script in DIR/plots, the picture DIR/NAME.png. */
static int plot(const struct sweep *s, const struct sweep_point *p, int n, const double *val, const char *done,
                const char *dir, int k, char *err, size_t errlen)
{
  const char *name = sweep_get(s, "plots/%d/name", k), *title = sweep_get(s, "plots/%d/title", k),
             *log = sweep_get(s, "plots/%d/log", k);
  int xa = axis_index(s, sweep_get(s, "plots/%d/x", k)), fy = figure_index(s, sweep_get(s, "plots/%d/y", k));
  int *fixed = calloc((size_t)s->naxes, sizeof *fixed), *keep = calloc((size_t)n, sizeof *keep);
  const char *w;
  for (int i = 0; i < n; i++)
    keep[i] = done[i];
  for (int j = 0; (w = sweep_get(s, "plots/%d/where/%d", k, j)); j++) {
    char an[256];
    snprintf(an, sizeof an, "%.*s", (int)(strchr(w, '=') - w), w);
    fixed[axis_index(s, an)] = 1;
  }
  for (int i = 0; i < n; i++) /* and only where the figure exists */
    keep[i] &= sweep_where(s, &p[i], "plots/%d/where/%d", k) && !isnan(val[(size_t)i * s->nfigures + fy]);
  int numeric_x = 1;
  for (int v = 0; v < s->axes[xa].n; v++)
    numeric_x &= is_number(s->axes[xa].cell[v]);
  /* series: the other axes not fixed by `where` that take several values */
  int *varies = calloc((size_t)s->naxes, sizeof *varies);
  for (int a = 0; a < s->naxes; a++)
    for (int i = 0; i < n && a != xa && !fixed[a]; i++)
      for (int j = 0; j < i && keep[i] && !varies[a]; j++)
        varies[a] |= keep[j] && p[j].vi[a] != p[i].vi[a];
  int nvary = 0, one = -1; /* one axis varying: its name titles the key, its values label the lines */
  for (int a = 0; a < s->naxes; a++)
    if (varies[a])
      nvary++, one = a;
  struct buf data = {0}, gp = {0};
  char (*series)[512] = calloc((size_t)n, sizeof *series);
  int nseries = 0;
  for (int i = 0; i < n; i++) {
    if (!keep[i])
      continue;
    char key[512] = "";
    size_t kl = 0;
    for (int a = 0; a < s->naxes; a++)
      if (varies[a])
        kl += (size_t)snprintf(key + kl, sizeof key - kl, "%s%s%s%s", kl ? ", " : "", nvary > 1 ? s->axes[a].name : "",
                               nvary > 1 ? "=" : "", s->axes[a].text[p[i].vi[a]]);
    int found = 0;
    for (int q = 0; q < nseries && !found; q++)
      found = !strcmp(series[q], key);
    if (!found)
      snprintf(series[nseries++], sizeof series[0], "%s", key);
  }
  for (int q = 0; q < nseries; q++) {
    bprintf(&data, "%s# %s\n", q ? "\n\n" : "", series[q][0] ? series[q] : sweep_get(s, "plots/%d/y", k));
    for (int v = 0; v < s->axes[xa].n; v++) /* points along the axis' own order */
      for (int i = 0; i < n; i++) {
        if (!keep[i] || p[i].vi[xa] != v)
          continue;
        char key[512] = "";
        size_t kl = 0;
        for (int a = 0; a < s->naxes; a++)
          if (varies[a])
            kl += (size_t)snprintf(key + kl, sizeof key - kl, "%s%s%s%s", kl ? ", " : "",
                                   nvary > 1 ? s->axes[a].name : "", nvary > 1 ? "=" : "", s->axes[a].text[p[i].vi[a]]);
        if (strcmp(key, series[q]))
          continue;
        if (numeric_x)
          bprintf(&data, "%s %.10g\n", s->axes[xa].cell[v], val[(size_t)i * s->nfigures + fy]);
        else
          bprintf(&data, "%d %.10g \"%s\"\n", v, val[(size_t)i * s->nfigures + fy], s->axes[xa].text[v]);
        break; /* one point per x in a series (duplicates are the same run) */
      }
  }
  char dat[PATH_MAX];
  snprintf(dat, sizeof dat, "%s/plots/%s.dat", dir, name);
  const char *yunit = sweep_get(s, "figures/%d/unit", fy);
  bprintf(&gp, "# gnuplot -e \"set output '%s.png'\" %s.gp   (written by icsim sweep --gather)\n", name, name);
  bprintf(&gp, "set terminal pngcairo size 900,%d noenhanced\nset title ", 520 + 10 * nseries); /* key below */
  char t[512];
  snprintf(t, sizeof t, "%s%s%s", title ? title : sweep_get(s, "title") ? sweep_get(s, "title") : s->name,
           title ? "" : ": ", title ? "" : sweep_get(s, "plots/%d/y", k));
  gp_string(&gp, t);
  bprintf(&gp, "\nset xlabel ");
  gp_string(&gp, s->axes[xa].header);
  snprintf(t, sizeof t, "%s%s%s%s", sweep_get(s, "plots/%d/y", k), yunit ? " (" : "", yunit ? yunit : "", yunit ? ")" : "");
  bprintf(&gp, "\nset ylabel ");
  gp_string(&gp, t);
  bprintf(&gp, "\nset grid\nset key outside below\n");
  if (nvary == 1) {
    bprintf(&gp, "set key title ");
    gp_string(&gp, s->axes[one].name);
    bprintf(&gp, "\n");
  }
  x_axis(&gp, s, xa, numeric_x, log);
  bprintf(&gp, "plot");
  for (int q = 0; q < nseries; q++) {
    bprintf(&gp, "%s ", q ? ", \\\n    " : "");
    gp_string(&gp, dat);
    bprintf(&gp, " index %d using 1:2%s with linespoints title ", q, numeric_x ? "" : ":xtic(3)");
    gp_string(&gp, series[q][0] ? series[q] : sweep_get(s, "plots/%d/y", k));
  }
  bprintf(&gp, "\n");
  int rc = 0;
  if (!nseries)
    fprintf(stderr, "icsim sweep: plot %s has no points yet (skipped)\n", name);
  else
    rc = draw(dir, name, &data, &gp, err, errlen);
  free(data.s);
  free(gp.s);
  free(series);
  free(fixed);
  free(keep);
  free(varies);
  return rc;
}

int sweep_gather(const struct sweep *s, const struct sweep_point *p, int n, const char *outdir, char *err,
                 size_t errlen)
{
  char dir[PATH_MAX]; /* absolute: the plot scripts name their data file */
  if (!realpath(outdir, dir)) {
    snprintf(err, errlen, "%s: %s", icsim_path_shown(outdir), strerror(errno));
    return -1;
  }
  double *val = calloc((size_t)n * (size_t)s->nfigures + 1, sizeof *val);
  char *done = calloc((size_t)n + 1, 1);
  struct buf csv = {0};
  int missing = 0, rc = 0;
  for (int a = 0; a < s->naxes; a++)
    csv_cell(&csv, s->axes[a].header, a == 0);
  for (int f = 0; f < s->nfigures; f++) {
    char h[256];
    const char *unit = sweep_get(s, "figures/%d/unit", f);
    snprintf(h, sizeof h, "%s%s%s%s", sweep_get(s, "figures/%d/name", f), unit ? "[" : "", unit ? unit : "", unit ? "]" : "");
    csv_cell(&csv, h, 0);
  }
  bprintf(&csv, "\n");
  for (int i = 0; i < n && !rc; i++) {
    char pdir[PATH_MAX], path[PATH_MAX + 16];
    snprintf(pdir, sizeof pdir, "%s/points/%s", dir, p[i].id);
    if (!store_done(dir, p[i].id)) {
      missing++;
      continue;
    }
    snprintf(path, sizeof path, "%s/out.txt", pdir);
    char *out = store_read(path);
    snprintf(path, sizeof path, "%s/stats.json", pdir);
    char *stats = store_read(path);
    for (int f = 0; f < s->nfigures && !rc; f++)
      rc = figure_value(s, &p[i], f, out ? out : "", stats, pdir, &val[(size_t)i * s->nfigures + f], err, errlen);
    free(out);
    free(stats);
    if (rc)
      break;
    done[i] = 1;
    for (int a = 0; a < s->naxes; a++)
      csv_cell(&csv, s->axes[a].cell[p[i].vi[a]], a == 0);
    for (int f = 0; f < s->nfigures; f++)
      if (isnan(val[(size_t)i * s->nfigures + f]))
        bprintf(&csv, ",");
      else
        bprintf(&csv, ",%.10g", val[(size_t)i * s->nfigures + f]);
    bprintf(&csv, "\n");
  }
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/plots", dir);
  if (!rc && mkdir(path, 0755) && errno != EEXIST) {
    snprintf(err, errlen, "cannot create %s: %s", icsim_path_shown(path), strerror(errno));
    rc = -1;
  }
  snprintf(path, sizeof path, "%s/results.csv", dir);
  if (!rc)
    rc = store_write_atomic(path, csv.s, csv.len, err, errlen);
  for (int k = 0; k < s->nplots && !rc; k++)
    rc = sweep_get(s, "plots/%d/stack/0", k) ? plot_stack(s, p, n, val, done, dir, k, err, errlen)
                                             : plot(s, p, n, val, done, dir, k, err, errlen);
  if (!rc)
    fprintf(stderr, "icsim sweep: %s/results.csv: %d of %d points%s%s\n", outdir, n - missing, n,
            missing ? "; the others are not done (run the sweep again; failures in " : "", missing ? "failed/)" : "");
  free(csv.s);
  free(val);
  free(done);
  return rc ? -1 : missing;
}
