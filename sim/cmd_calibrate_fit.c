/* icsim calibrate: fit a platform's free parameters to measured benchmark outputs (calibrate.h). */
#define _GNU_SOURCE
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibrate.h"
#include "cli.h"
#include "outfile.h"
#include "paths.h"
#include "platform.h"

static void usage(FILE *f)
{
  fprintf(f,
          "usage: icsim calibrate -p PLATFORM.yaml --free KEY[=LO..HI][,KEY...] [options] SET.yaml...\n"
          "  SET.yaml            measurement sets: each names output files (OSU osu_latency, osu_bw, osu_bibw,\n"
          "                      osu_mbw_mr; NetPIPE np.out) and the workload, args, ranks and placement that\n"
          "                      reproduce them (`icsim calibrate --keys` lists the keys)\n"
          "  --free KEY[=LO..HI] the parameters to fit, within LO..HI (default: the value's range in the platform,\n"
          "                      else the parameter's own bounds); `paper`, `spec` and `measured` values are fixed\n"
          "  --start KEY=V       where the search starts (a value, `low` or `high`; default: the platform's value)\n"
          "  --hold-out SET.yaml measurements left out of the fit and predicted after it (the same file's same\n"
          "                      sizes leave the fit); repeatable\n"
          "  -o, --out FILE      write the fitted platform there (each fitted value: origin calibrated, a ref\n"
          "                      naming its points, a range from the fit's curvature)\n"
          "      --in-place      rewrite PLATFORM.yaml itself, the old one kept as PLATFORM.yaml.bak\n"
          "      --report FILE   the report: every point's residual, held-out errors, correlations (default:\n"
          "                      WORK/report.txt; also printed)\n"
          "      --work DIR      the runs' store (default calibrate-work): a calibration started again reuses every\n"
          "                      run it finds there\n"
          "  -j, --jobs N        simulations at a time (default: this machine's cores)\n"
          "      --slurm [--partition P] [--time T] [--account A]   each batch of runs as a Slurm job array\n"
          "      --no-scan       start the local search at the start, without first evaluating 8 points per free\n"
          "                      parameter spread over the search box (in one batch)\n"
          "      --max-evals N   objective evaluations at most (default 400)\n"
          "      --ridge-correlation R   report two parameters whose estimates correlate above R (default 0.99)\n"
          "                      as a ridge, and write no platform\n"
          "Exit status: 0 fitted, 1 the points cannot tell some free parameters apart (a ridge: named), 2 bad input\n"
          "or a failed run, 130 interrupted (start again: finished runs are kept).\n");
}

struct free_arg {
  char *key, *bounds, *start;
};

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "icsim calibrate: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  return 2;
}

/* --free's keys checked against the platform; bounds and start resolved. */
static int resolve_free(const struct icsim_platform *pf, struct free_arg *fa, int nfa, struct cal_fit *fit)
{
  fit->f = calloc((size_t)nfa, sizeof *fit->f);
  fit->nf = nfa;
  for (int k = 0; k < nfa; k++) {
    struct cal_free *f = &fit->f[k];
    struct icsim_pval *pv = icsim_params_find(&pf->params, fa[k].key);
    char why[512];
    if (!pv) {
      const char *near = icsim_params_closest(&pf->params, fa[k].key);
      return fail("--free %s: unknown parameter%s%s%s (`icsim describe -p %s` lists them)", fa[k].key,
                  near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "", pf->path);
    }
    for (int j = 0; j < k; j++)
      if (!strcmp(fit->f[j].key, pv->d->key))
        return fail("--free %s: given twice", fa[k].key);
    f->d = pv->d;
    f->key = pv->d->key;
    if (pv->d->type != ICSIM_P_QUANTITY && pv->d->type != ICSIM_P_INT)
      return fail("--free %s: not a number (a switch or a choice): a fit moves numbers; compare its settings with "
                  "icsim sweep", f->key);
    if (!strcmp(pv->origin, "paper") || !strcmp(pv->origin, "spec") || !strcmp(pv->origin, "measured"))
      return fail("--free %s: its value is `%s` (%s): a source fixes it, not a fit. Calibrate assumed or calibrated "
                  "values; to question this one, give it another origin in the platform first", f->key, pv->origin,
                  !strcmp(pv->where, "default") ? "the parameter's default" : pv->where);
    if (fa[k].bounds) {
      char *dots = strstr(fa[k].bounds, "..");
      if (!dots)
        return fail("--free %s=%s: write the bounds as LO..HI (e.g. %s=10us..1ms)", f->key, fa[k].bounds, f->key);
      *dots = '\0';
      if (icsim_param_parse(f->d, fa[k].bounds, &f->lo, why, sizeof why) ||
          icsim_param_parse(f->d, dots + 2, &f->hi, why, sizeof why))
        return fail("--free %s: bounds %s..%s: %s", f->key, fa[k].bounds, dots + 2, why);
      *dots = '.';
    } else if (pv->has_range && !pv->range_held) {
      f->lo = pv->lo;
      f->hi = pv->hi;
    } else {
      f->lo = f->d->min;
      f->hi = f->d->max;
    }
    if (!(f->lo > 0) || !(f->hi > f->lo)) {
      char lo[64], hi[64];
      cal_format_value(f->d, f->lo, 4, 0, lo, sizeof lo);
      cal_format_value(f->d, f->hi, 4, 0, hi, sizeof hi);
      return fail("--free %s: bounds %s..%s: a fit in log space needs 0 < LO < HI; give them: --free %s=LO..HI", f->key,
                  lo, hi, f->key);
    }
    f->start = pv->num < f->lo ? f->lo : pv->num > f->hi ? f->hi : pv->num;
    f->sigma_log = -1;
  }
  return 0;
}

static int resolve_start(struct cal_fit *fit, char **starts, int nstarts)
{
  for (int i = 0; i < nstarts; i++) {
    char *eq = strchr(starts[i], '=');
    int k = 0;
    if (eq)
      while (k < fit->nf && (strlen(fit->f[k].key) != (size_t)(eq - starts[i]) ||
                             strncmp(fit->f[k].key, starts[i], (size_t)(eq - starts[i]))))
        k++;
    if (!eq || k == fit->nf)
      return fail("--start %s: give KEY=VALUE for a --free key (VALUE: a number with its unit, low or high)", starts[i]);
    struct cal_free *f = &fit->f[k];
    char why[512];
    if (!strcmp(eq + 1, "low"))
      f->start = f->lo;
    else if (!strcmp(eq + 1, "high"))
      f->start = f->hi;
    else if (icsim_param_parse(f->d, eq + 1, &f->start, why, sizeof why))
      return fail("--start %s: %s", starts[i], why);
    else if (f->start < f->lo || f->start > f->hi)
      return fail("--start %s: outside the search bounds of %s", starts[i], f->key);
  }
  return 0;
}

int cmd_calibrate(int argc, char **argv)
{
  enum { O_FREE = 1000, O_START, O_HOLD, O_INPLACE, O_REPORT, O_WORK, O_SLURM, O_PART, O_TIME, O_ACCOUNT, O_MAXEV,
         O_RIDGE, O_KEYS, O_NOSCAN };
  static const struct option opts[] = {{"platform", required_argument, 0, 'p'}, {"free", required_argument, 0, O_FREE},
                                       {"start", required_argument, 0, O_START}, {"hold-out", required_argument, 0, O_HOLD},
                                       {"out", required_argument, 0, 'o'},      {"in-place", no_argument, 0, O_INPLACE},
                                       {"report", required_argument, 0, O_REPORT}, {"work", required_argument, 0, O_WORK},
                                       {"jobs", required_argument, 0, 'j'},     {"slurm", no_argument, 0, O_SLURM},
                                       {"partition", required_argument, 0, O_PART}, {"time", required_argument, 0, O_TIME},
                                       {"account", required_argument, 0, O_ACCOUNT},
                                       {"max-evals", required_argument, 0, O_MAXEV},
                                       {"ridge-correlation", required_argument, 0, O_RIDGE},
                                       {"keys", no_argument, 0, O_KEYS},        {"no-scan", no_argument, 0, O_NOSCAN},        {"quiet", no_argument, 0, 'q'},
                                       {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
  struct cal_options o = {.work = "calibrate-work", .workers = (int)sysconf(_SC_NPROCESSORS_ONLN), .max_evals = 400,
                          .ridge_correlation = 0.99};
  const char *out = NULL, *report = NULL;
  bool in_place = false;
  struct free_arg *fa = NULL;
  int nfa = 0, nstarts = 0, nheld = 0, c;
  char **starts = NULL, **held = NULL;
  /* the command line for the report, before getopt reorders it and --free is cut up */
  char command[4096] = "icsim";
  size_t cl = strlen(command);
  for (int i = 0; i < argc && cl < sizeof command - 2; i++)
    cl += (size_t)snprintf(command + cl, sizeof command - cl, " %s", argv[i]);
  optind = 1;
  while ((c = getopt_long(argc, argv, "p:o:j:qh", opts, NULL)) != -1) {
    switch (c) {
    case 'p': o.platform = optarg; break;
    case O_FREE:
      for (char *save, *t = strtok_r(optarg, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        fa = realloc(fa, (size_t)(nfa + 1) * sizeof *fa);
        char *eq = strchr(t, '=');
        if (eq)
          *eq = '\0';
        fa[nfa++] = (struct free_arg){t, eq ? eq + 1 : NULL, NULL};
      }
      break;
    case O_START:
      starts = realloc(starts, (size_t)(nstarts + 1) * sizeof *starts);
      starts[nstarts++] = optarg;
      break;
    case O_HOLD:
      held = realloc(held, (size_t)(nheld + 1) * sizeof *held);
      held[nheld++] = optarg;
      break;
    case 'o': out = optarg; break;
    case O_INPLACE: in_place = true; break;
    case O_REPORT: report = optarg; break;
    case O_WORK: o.work = optarg; break;
    case O_SLURM: o.slurm = true; break;
    case O_PART: o.partition = optarg; break;
    case O_TIME: o.time = optarg; break;
    case O_ACCOUNT: o.account = optarg; break;
    case 'q': o.quiet = true; break;
    case O_NOSCAN: o.no_scan = true; break;
    case 'j':
    case O_MAXEV:
    case O_RIDGE: {
      static const struct icsim_cli_num jobs = {"-j", ICSIM_DIM_NONE, 1, 1024, true, "2", NULL, false},
                                        maxev = {"--max-evals", ICSIM_DIM_NONE, 10, 100000, true, "400", NULL, false},
                                        ridge = {"--ridge-correlation", ICSIM_DIM_NONE, 0.5, 0.999999, false, "0.99",
                                                 "a correlation between 0.5 and 1", false};
      double v;
      char why[512];
      if (icsim_cli_number(c == 'j' ? &jobs : c == O_MAXEV ? &maxev : &ridge, optarg, &v, why, sizeof why)) {
        free(fa);
        free(starts);
        free(held);
        return fail("%s", why);
      }
      if (c == 'j')
        o.workers = (int)v;
      else if (c == O_MAXEV)
        o.max_evals = (int)v;
      else
        o.ridge_correlation = v;
      break;
    }
    case O_KEYS: cal_set_keys_markdown(stdout); return 0;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  int rc = 2;
  struct cal_set s = {0};
  struct cal_fit fit = {0};
  struct icsim_platform pf;
  bool pf_loaded = false;
  char err[8192] = "";
  if (!o.platform) {
    rc = fail("give the platform to calibrate: -p PLATFORM.yaml");
    goto done;
  }
  if (nfa == 0) {
    rc = fail("give the parameters to fit: --free KEY[,KEY...] (`icsim describe -p %s` lists them)", o.platform);
    goto done;
  }
  if (optind >= argc) {
    rc = fail("give at least one measurement set (SET.yaml; `icsim calibrate --keys` lists its keys)");
    goto done;
  }
  if (out && in_place) {
    rc = fail("--out and --in-place exclude one another");
    goto done;
  }
  if (icsim_platform_load(&pf, o.platform, NULL, 0, err, sizeof err)) {
    rc = fail("%s", err);
    goto done;
  }
  pf_loaded = true;
  if ((rc = resolve_free(&pf, fa, nfa, &fit)) || (rc = resolve_start(&fit, starts, nstarts)))
    goto done;
  rc = 2;
  for (int i = optind; i < argc; i++)
    if (cal_set_load(&s, argv[i], false, err, sizeof err)) {
      fail("%s", err);
      goto done;
    }
  for (int i = 0; i < nheld; i++)
    if (cal_set_load(&s, held[i], true, err, sizeof err)) {
      fail("%s", err);
      goto done;
    }
  if (cal_set_finish(&s, err, sizeof err) < 0) {
    fail("%s", err);
    goto done;
  }
  for (int i = 0; i < s.n; i++) { /* each run can start: its program exists, its ranks fit the machine */
    struct cal_meas *m = &s.m[i];
    char *prog = find_program(m->program);
    if (!prog) {
      fail("%s:%d: workload '%s' not found (a path, a program on PATH, or one of build/workloads: osu_latency, "
           "osu_bw, osu_bibw, osu_mbw_mr ...)", icsim_path_shown(m->set), m->set_line, m->program);
      goto done;
    }
    free(prog);
    int *rank_host = malloc((size_t)m->ranks * sizeof *rank_host);
    int bad = icsim_place(&pf, m->ranks, m->place, rank_host, err, sizeof err);
    free(rank_host);
    if (bad) {
      fail("%s:%d: %d ranks, place %s on %s: %s", icsim_path_shown(m->set), m->set_line, m->ranks, m->place,
           icsim_path_shown(o.platform), err);
      goto done;
    }
  }
  char reportbuf[PATH_MAX];
  const char *target = in_place ? o.platform : out;
  /* outputs checked before any run (the default report's folder is the work folder, made by the fit) */
  if ((target && !in_place && icsim_output_check("--out", target, err, sizeof err)) ||
      (report && icsim_output_check("--report", report, err, sizeof err))) {
    fail("%s", err);
    goto done;
  }
  if (!report) {
    snprintf(reportbuf, sizeof reportbuf, "%s/report.txt", o.work);
    report = reportbuf;
  }
  int fr = cal_fit(&o, &s, &fit, err, sizeof err);
  if (fr < 0) {
    rc = strstr(err, "interrupted") ? 130 : 2;
    fail("%s", err);
    goto done;
  }
  char *text = cal_report(&o, &s, &fit, command);
  fputs(text, stdout);
  if (icsim_output_write("--report", report, text, strlen(text), err, sizeof err)) {
    free(text);
    fail("%s", err);
    goto done;
  }
  free(text);
  if (fr == 1) {
    fprintf(stderr, "icsim calibrate: RIDGE: %s; no platform written (report: %s)\n", fit.ridge, report);
    rc = 1;
    goto done;
  }
  rc = 0;
  if (target) {
    char *ref = cal_ref(&s, &fit, report);
    char *ptext = cal_platform_text(o.platform, &fit, ref, err, sizeof err);
    free(ref);
    char check[PATH_MAX + 32];
    snprintf(check, sizeof check, "%s/fitted.yaml", o.work);
    struct icsim_platform again;
    if (!ptext || icsim_output_write("--work", check, ptext, strlen(ptext), err, sizeof err) ||
        icsim_platform_load(&again, check, NULL, 0, err, sizeof err)) {
      rc = fail("the fitted platform does not load (%s); nothing written", err);
      free(ptext);
      goto done;
    }
    icsim_platform_free(&again);
    if (in_place) {
      char bak[PATH_MAX + 8], *old = NULL;
      snprintf(bak, sizeof bak, "%s.bak", o.platform);
      FILE *f = fopen(o.platform, "rb");
      size_t len = 0;
      if (f) {
        fseek(f, 0, SEEK_END);
        len = (size_t)ftell(f);
        rewind(f);
        old = malloc(len + 1);
        len = fread(old, 1, len, f);
        fclose(f);
      }
      if (!old || icsim_output_write("--in-place (backup)", bak, old, len, err, sizeof err)) {
        rc = fail("%s", old ? err : "cannot read the platform again for its backup");
        free(old);
        free(ptext);
        goto done;
      }
      free(old);
      icsim_inputs_forget(); /* the platform is an input, and --in-place means to replace it */
    }
    if (icsim_output_write(in_place ? "--in-place" : "--out", target, ptext, strlen(ptext), err, sizeof err))
      rc = fail("%s", err);
    else
      fprintf(stderr, "icsim calibrate: wrote %s%s%s%s (report: %s)\n", target, in_place ? ", the old one kept as " : "",
              in_place ? target : "", in_place ? ".bak" : "", report);
    free(ptext);
  }
done:
  if (pf_loaded)
    icsim_platform_free(&pf);
  cal_fit_free(&fit, &s);
  cal_set_free(&s);
  free(fa);
  free(starts);
  free(held);
  return rc;
}
