/* What icsim calibrate writes: the fitted platform and the report (calibrate.h).
 *
 * The platform is the input file with only the fitted keys' entries rewritten (a key absent from
 * the file is added to its section), so that comments, order and every other value stay as the
 * user wrote them and the change reviews as a few lines:
 *   completion-latency: {value: 112.3us, origin: calibrated, ref: "...", range: [108us, 117us],
 *                        range-ref: "fit curvature: ..."}        (on one line) */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "paths.h"
#include "yaml_flat.h"

struct sbuf {
  char *b;
  size_t len, cap;
};

static void put(struct sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct sbuf *s, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (s->len + (size_t)n + 1 > s->cap) {
    s->cap = 2 * (s->len + (size_t)n + 1);
    s->b = realloc(s->b, s->cap);
  }
  va_start(ap, fmt);
  vsnprintf(s->b + s->len, s->cap - s->len, fmt, ap);
  va_end(ap);
  s->len += (size_t)n;
}

/* A size as a table shows it: 512, 2K, 4M (binary prefixes when exact). */
static void size_text(double b, char *buf, size_t len)
{
  if (b >= 1048576 && fmod(b, 1048576) == 0)
    snprintf(buf, len, "%.0fM", b / 1048576);
  else if (b >= 1024 && fmod(b, 1024) == 0)
    snprintf(buf, len, "%.0fK", b / 1024);
  else
    snprintf(buf, len, "%.0f", b);
}

static double rms_percent(const struct cal_set *s, const struct cal_fit *fit, bool held, double *worst,
                          const struct cal_meas **wm, const struct cal_row **wr, int *n)
{
  double sum = 0;
  *n = 0;
  *worst = 0;
  for (int i = 0; i < s->n; i++)
    if (s->m[i].held == held)
      for (int k = 0; k < s->m[i].t.n; k++) {
        double r = fit->r[i][k].residual;
        sum += r * r;
        (*n)++;
        if (fabs(expm1(r)) >= fabs(*worst)) {
          *worst = expm1(r);
          *wm = &s->m[i];
          *wr = &s->m[i].t.rows[k];
        }
      }
  return *n ? 100 * sqrt(sum / *n) : 0;
}

char *cal_ref(const struct cal_set *s, const struct cal_fit *fit, const char *report)
{
  struct sbuf b = {0};
  put(&b, "icsim calibrate");
  if (fit->nf > 1) {
    put(&b, " (fitted together:");
    for (int k = 0; k < fit->nf; k++)
      put(&b, " %s", fit->f[k].key);
    put(&b, ")");
  }
  put(&b, " on %d points:", fit->nfit);
  int first = 1;
  for (int i = 0; i < s->n; i++) {
    if (s->m[i].held || s->m[i].t.n == 0)
      continue;
    put(&b, "%s %s (%s%s%s, sizes", first ? "" : ";", s->m[i].path, s->m[i].program, s->m[i].args[0] ? " " : "",
        s->m[i].args);
    first = 0;
    const struct cal_row *r = s->m[i].t.rows;
    for (int k = 0, n = s->m[i].t.n; k < n;) { /* a run of doublings as FIRST..LAST */
      int e = k;
      while (e + 1 < n && r[e + 1].size == 2 * r[e].size)
        e++;
      char t[32], t2[32];
      size_text(r[k].size, t, sizeof t);
      size_text(r[e].size, t2, sizeof t2);
      if (e - k >= 2)
        put(&b, "%s%s..%s", k ? "," : " ", t, t2);
      else
        put(&b, "%s%s", k ? "," : " ", t);
      k = e - k >= 2 ? e + 1 : k + 1;
    }
    put(&b, ")");
  }
  double worst;
  const struct cal_meas *wm = NULL;
  const struct cal_row *wr = NULL;
  int n;
  double rms = rms_percent(s, fit, false, &worst, &wm, &wr, &n);
  put(&b, "; RMS log error %.1f%%, worst %+.1f%%", rms, 100 * worst);
  if (report)
    put(&b, "; residual per point in %s", report);
  return b.b;
}

char *cal_report(const struct cal_options *o, const struct cal_set *s, const struct cal_fit *fit, const char *command)
{
  struct sbuf b = {0};
  put(&b, "# icsim calibrate report\n# %s\n\nplatform: %s\nruns: %s (%d simulations run now, %d found done)\n", command,
      o->platform, o->work, fit->runs_done, fit->runs_reused);
  put(&b, "optimiser: NLopt %s in log space, %d evaluations; stopped: %s\n\n", fit->nf >= 2 ? "BOBYQA" : "Sbplx",
      fit->evals, fit->stop ? fit->stop : "-");
  put(&b, "%-40s %-24s %-12s %-12s %s\n", "parameter", "search bounds", "start", "fitted", "range (2 standard errors)");
  for (int k = 0; k < fit->nf; k++) {
    const struct cal_free *f = &fit->f[k];
    char lo[64], hi[64], st[64], v[64], rlo[64], rhi[64], bounds[160], range[160];
    cal_format_value(f->d, f->lo, 4, 0, lo, sizeof lo);
    cal_format_value(f->d, f->hi, 4, 0, hi, sizeof hi);
    cal_format_value(f->d, f->start, 4, 0, st, sizeof st);
    cal_format_value(f->d, f->value, 4, 0, v, sizeof v);
    cal_format_value(f->d, f->range_lo, 4, -1, rlo, sizeof rlo);
    cal_format_value(f->d, f->range_hi, 4, +1, rhi, sizeof rhi);
    snprintf(bounds, sizeof bounds, "%s..%s", lo, hi);
    if (fit->ridge[0] || f->sigma_log < 0)
      snprintf(range, sizeof range, "-");
    else
      snprintf(range, sizeof range, "[%s, %s] (x/ %.4f)", rlo, rhi, exp(2 * f->sigma_log));
    put(&b, "%-40s %-24s %-12s %-12s %s\n", f->key, bounds, st, v, range);
  }
  for (int k = 0; k < fit->nf; k++) { /* a value the box stopped: the best may lie beyond it */
    const struct cal_free *f = &fit->f[k];
    if (f->value <= f->lo * 1.001 || f->value >= f->hi / 1.001)
      put(&b, "NOTE: %s ended at its %s search bound: the best value may lie beyond it (widen --free %s=LO..HI if "
              "the parameter's meaning allows)\n", f->key, f->value <= f->lo * 1.001 ? "low" : "high", f->key);
  }
  if (fit->corr && fit->nf > 1) {
    put(&b, "\ncorrelation of the estimates:\n");
    for (int a = 0; a < fit->nf; a++) {
      put(&b, "  %-40s", fit->f[a].key);
      for (int c = 0; c < fit->nf; c++)
        put(&b, " %+6.3f", fit->corr[a * fit->nf + c]);
      put(&b, "\n");
    }
  }
  if (fit->ridge[0])
    put(&b, "\nRIDGE: %s.\nNo platform is written: a value on a ridge is one arbitrary point of it. Hold one of them "
            "fixed (leave it out of --free), or add measurements that move them differently.\n", fit->ridge);
  double worst;
  const struct cal_meas *wm = NULL;
  const struct cal_row *wr = NULL;
  int n;
  double rms = rms_percent(s, fit, false, &worst, &wm, &wr, &n);
  put(&b, "\nfitted: %d points, RMS log error %.2f%%, worst %+.2f%% (%s size %.0f)\n", n, rms, 100 * worst,
      wm ? wm->path : "-", wr ? wr->size : 0);
  rms = rms_percent(s, fit, true, &worst, &wm, &wr, &n);
  if (n)
    put(&b, "held out: %d points predicted, RMS log error %.2f%%, worst %+.2f%% (%s size %.0f)\n", n, rms, 100 * worst,
        wm ? wm->path : "-", wr ? wr->size : 0);
  put(&b, "\n%-8s %-44s %6s %10s %14s %14s %9s\n", "role", "file:line", "", "size", "measured", "simulated", "error");
  for (int held = 0; held <= 1; held++)
    for (int i = 0; i < s->n; i++) {
      const struct cal_meas *m = &s->m[i];
      if (m->held != held)
        continue;
      for (int k = 0; k < m->t.n; k++) {
        const struct cal_row *r = &m->t.rows[k];
        char where[PATH_MAX + 16], err[32];
        snprintf(where, sizeof where, "%s:%d", icsim_path_shown(m->path), r->line);
        if (r->value <= 0)
          snprintf(err, sizeof err, "%s", fit->r[i][k].residual > 0 ? "above" : "below");
        else
          snprintf(err, sizeof err, "%+.2f%%", 100 * expm1(fit->r[i][k].residual));
        put(&b, "%-8s %-44s %6s %10.0f %14.6g %14.6g %9s\n", held ? "held-out" : "fitted", where,
            m->t.q == CAL_LATENCY_US ? "us" : "MB/s", r->size, r->value, fit->r[i][k].sim, err);
      }
    }
  return b.b;
}

/* TEXT for a YAML double-quoted scalar (into B). */
static void quoted(struct sbuf *b, const char *text)
{
  put(b, "\"");
  for (const char *c = text; *c; c++)
    put(b, "%s%c", *c == '"' || *c == '\\' ? "\\" : "", *c);
  put(b, "\"");
}

struct edit {
  int after;   /* insert after this line (1-based; lines [from, to] are removed first when from > 0) */
  int from, to;
  char *text;  /* the new line, with its newline */
};

static int indent_of(const char *line)
{
  int n = 0;
  while (line[n] == ' ')
    n++;
  return n;
}

static bool blank_or_comment(const char *line)
{
  const char *s = line + strspn(line, " \t");
  return !*s || *s == '#' || *s == '\n';
}

char *cal_platform_text(const char *platform, const struct cal_fit *fit, const char *ref, char *err, size_t errlen)
{
  struct icsim_yfile y;
  if (icsim_yaml_load_as("platform", platform, &y, err, errlen))
    return NULL;
  /* the file as lines */
  FILE *f = fopen(platform, "rb");
  char **line = NULL;
  int nl = 0;
  size_t cap = 0;
  char *l = NULL;
  while (f && getline(&l, &cap, f) >= 0) {
    line = realloc(line, (size_t)(nl + 1) * sizeof *line);
    line[nl++] = strdup(l);
  }
  free(l);
  if (f)
    fclose(f);
  struct edit *ed = calloc((size_t)fit->nf, sizeof *ed);
  int rc = 0;
  for (int k = 0; k < fit->nf && rc == 0; k++) {
    const struct cal_free *fr = &fit->f[k];
    const char *name = strrchr(fr->key, '/') ? strrchr(fr->key, '/') + 1 : fr->key;
    char v[64], lo[64], hi[64];
    cal_format_value(fr->d, fr->value, 4, 0, v, sizeof v);
    cal_format_value(fr->d, fr->range_lo, 4, -1, lo, sizeof lo);
    cal_format_value(fr->d, fr->range_hi, 4, +1, hi, sizeof hi);
    const struct icsim_yentry *e = icsim_yaml_get(&y, fr->key);
    int ind, from = 0, to = 0, after;
    if (e) { /* the entry's lines: its key's line and any more indented below it */
      ind = e->key_column - 1;
      from = to = e->key_line;
      while (to < nl && !blank_or_comment(line[to]) && indent_of(line[to]) > ind)
        to++;
      after = from - 1;
    } else { /* absent: after the last entry of its section, indented as they are */
      char parent[256];
      snprintf(parent, sizeof parent, "%.*s/", (int)(name - fr->key - 1), fr->key);
      int last = 0;
      ind = -1;
      for (size_t i = 0; i < y.n; i++)
        if (name > fr->key && !strncmp(y.e[i].key, parent, strlen(parent))) {
          int end = y.e[i].key_line;
          while (end < nl && !blank_or_comment(line[end]) && indent_of(line[end]) > y.e[i].key_column - 1)
            end++;
          last = end > last ? end : last;
          if (!strchr(y.e[i].key + strlen(parent), '/'))
            ind = y.e[i].key_column - 1;
        }
      if (last == 0 || ind < 0) {
        snprintf(err, errlen, "%s: %s is not in the file and neither is any other key of its section: add the section "
                 "(`%.*s:` with one key) to the file first", icsim_path_shown(platform), fr->key,
                 (int)(name - fr->key - 1), fr->key);
        rc = -1;
        break;
      }
      after = last;
    }
    struct sbuf b = {0};
    put(&b, "%*s%s: {value: %s, origin: calibrated, ref: ", ind, "", name, v);
    quoted(&b, ref);
    if (fr->sigma_log >= 0) {
      char rr[512];
      snprintf(rr, sizeof rr, "fit curvature: 2 standard errors of the Gauss-Newton fit in log space (x/ %.4f; %d "
               "points, %d free, RMS log error %.2f%%)", exp(2 * fr->sigma_log), fit->nfit, fit->nf,
               100 * sqrt(fit->cost));
      put(&b, ", range: [%s, %s], range-ref: ", lo, hi);
      quoted(&b, rr);
    }
    put(&b, "}\n");
    ed[k] = (struct edit){after, from, to, b.b};
  }
  char *out = NULL;
  if (rc == 0) {
    struct sbuf o = {0};
    for (int i = 0; i < nl; i++) { /* line i + 1 */
      bool removed = false;
      for (int k = 0; k < fit->nf; k++) {
        removed |= ed[k].from > 0 && i + 1 >= ed[k].from && i + 1 <= ed[k].to;
        if (ed[k].from == i + 1) /* a replaced entry, where it stood */
          put(&o, "%s", ed[k].text);
      }
      if (!removed)
        put(&o, "%s%s", line[i], line[i][strlen(line[i]) - 1] == '\n' ? "" : "\n");
      for (int k = 0; k < fit->nf; k++) /* an added entry */
        if (ed[k].from == 0 && ed[k].after == i + 1)
          put(&o, "%s", ed[k].text);
    }
    out = o.b;
  }
  for (int k = 0; k < fit->nf; k++)
    free(ed[k].text);
  free(ed);
  for (int i = 0; i < nl; i++)
    free(line[i]);
  free(line);
  icsim_yaml_free(&y);
  return out;
}
