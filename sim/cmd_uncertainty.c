/* icsim uncertainty: how far a run's or a validation case's figures can move within the ranges
 * of the platform's parameters, and which parameters move them (uq.h). */
#define _GNU_SOURCE
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "uq.h"
#include "validate.h"

static void usage(FILE *f)
{
  fprintf(f,
          "usage: icsim uncertainty -p PLATFORM.yaml -n N [options] PROGRAM [ARGS...]\n"
          "       icsim uncertainty --case validate/cases/CASE.yaml [options]\n"
          "Samples the platform's ranged parameters (range: [LO, HI] in the platform file; `icsim describe`)\n"
          "and reports, per figure the program prints (its rows 'x value ...', column --column; or --field\n"
          "'NAME = value' lines; a case: its metrics), the point prediction, the median, the 90%% interval\n"
          "(p05 .. p95) and the parameters that move it most, with a tornado plot per figure.\n"
          "Phases: Morris screening (--trajectories R of K+1 points, K ranged parameters), then Sobol'\n"
          "quasi-random sampling (GSL) of the parameters that matter, with first-order (Saltelli 2010)\n"
          "and total (Jansen 1999) indices when the budget allows, then one-at-a-time swings for the tornado.\n"
          "  -p PLATFORM        platform file          -n N       MPI ranks\n"
          "      --place P      placement (as icsim run; default block)\n"
          "      --set K=V      hold a value fixed (its range no longer applies)\n"
          "      --column C     the figure column of the program's rows (default 2)\n"
          "      --field NAME   take 'NAME = value' lines instead of rows (repeatable)\n"
          "      --case FILE    a validation case: every metric of it, each program with its arguments\n"
          "      --budget B     points at most (default %d; a case's point runs each of its programs)\n"
          "      --seed S       seed of the random choices (default 1): the same seed gives the same outputs\n"
          "      --trajectories R  Morris trajectories (default 4; fewer when the budget is small)\n"
          "  -j, --jobs J       local workers (default: this machine's cores)\n"
          "      --slurm [--partition P] [--time T] [--account A] [--dry-run]\n"
          "                     run the points as Slurm job arrays (one per program), waiting for each\n"
          "  -o, --out DIR      output folder (default ./uncertainty); the runs are kept in DIR/runs, so a\n"
          "                     study interrupted or run again repeats nothing done\n"
          "Outputs: DIR/uncertainty.csv (metric, x, point, median, p05, p95, samples, top_parameters),\n"
          "DIR/effects.csv, DIR/parameters.csv, DIR/summary.md, DIR/tornado/*.png.\n"
          "Exit status 0 when complete, 1 when some points failed, 2 on bad input, 130 when interrupted.\n",
          UQ_DEFAULT_BUDGET);
}

static char *dupf(const char *fmt, const char *a, const char *b)
{
  char *s = NULL;
  return asprintf(&s, fmt, a, b) < 0 ? NULL : s;
}

int uq_entries_from_case(const struct icsim_yfile *y, const char *root, char **user_sets, int nuser,
                         struct uq_entry **out, char *err, size_t errlen)
{
  int n = 0;
  while (case_get(y, "metrics/%d/name", n))
    n++;
  struct uq_entry *e = calloc((size_t)n + 1, sizeof *e);
  for (int mi = 0; mi < n; mi++) {
    struct uq_entry *x = &e[mi];
    const char *workload = case_get(y, "metrics/%d/workload", mi), *plat = case_get(y, "metrics/%d/platform", mi);
    x->platform = dupf("%s/%s", root, plat ? plat : case_get(y, "platform", 0));
    x->program = strchr(workload, '/') ? dupf("%s/%s", root, workload) : strdup(workload);
    x->args = strdup(case_get(y, "metrics/%d/args", mi) ? case_get(y, "metrics/%d/args", mi) : "");
    x->place = strdup(case_get(y, "metrics/%d/place", mi) ? case_get(y, "metrics/%d/place", mi) : "block");
    x->ranks = (int)case_num(y, "metrics/%d/ranks", mi, 0);
    x->metric = strdup(case_get(y, "metrics/%d/name", mi));
    x->column = (int)case_num(y, "metrics/%d/column", mi, 2);
    x->scale = case_num(y, "metrics/%d/scale", mi, 1);
    x->xfmt = case_get(y, "metrics/%d/x-format", mi) ? strdup(case_get(y, "metrics/%d/x-format", mi)) : NULL;
    x->field = case_get(y, "metrics/%d/field", mi) ? strdup(case_get(y, "metrics/%d/field", mi)) : NULL;
    /* the case's sets, the entry's, then the user's (as validate passes them, the user's last) */
    x->sets = calloc(160, sizeof *x->sets);
    for (int k = 0; x->nsets < 64 && case_get(y, "sets/%d", k); k++)
      x->sets[x->nsets++] = strdup(case_get(y, "sets/%d", k));
    for (int k = 0; x->nsets < 128 && case_item(y, "metrics/%d/sets/%d", mi, k); k++)
      x->sets[x->nsets++] = strdup(case_item(y, "metrics/%d/sets/%d", mi, k));
    for (int k = 0; k < nuser && x->nsets < 159; k++)
      x->sets[x->nsets++] = strdup(user_sets[k]);
  }
  (void)err;
  (void)errlen;
  *out = e;
  return n;
}

void uq_entries_free(struct uq_entry *e, int n)
{
  for (int i = 0; i < n; i++) {
    free(e[i].platform);
    free(e[i].program);
    free(e[i].args);
    free(e[i].place);
    free(e[i].metric);
    free(e[i].xfmt);
    free(e[i].field);
    for (int k = 0; k < e[i].nsets; k++)
      free(e[i].sets[k]);
    free(e[i].sets);
  }
  free(e);
}

/* Parse a whole number option into *V (LO..HI). */
static int whole(const char *opt, const char *text, long lo, long hi, long *v)
{
  char *end;
  long x = strtol(text, &end, 10);
  if (!*text || *end || x < lo || x > hi) {
    fprintf(stderr, "icsim uncertainty: %s %s: give a whole number from %ld to %ld\n", opt, text, lo, hi);
    return -1;
  }
  *v = x;
  return 0;
}

int cmd_uncertainty(int argc, char **argv)
{
  enum { O_SET = 1000, O_PLACE, O_COLUMN, O_FIELD, O_CASE, O_BUDGET, O_SEED, O_TRAJ, O_SLURM, O_PARTITION, O_TIME,
         O_ACCOUNT, O_DRY };
  static const struct option opts[] = {
      {"platform", required_argument, 0, 'p'}, {"ranks", required_argument, 0, 'n'},
      {"set", required_argument, 0, O_SET},    {"place", required_argument, 0, O_PLACE},
      {"column", required_argument, 0, O_COLUMN}, {"field", required_argument, 0, O_FIELD},
      {"case", required_argument, 0, O_CASE},  {"budget", required_argument, 0, O_BUDGET},
      {"seed", required_argument, 0, O_SEED},  {"trajectories", required_argument, 0, O_TRAJ},
      {"jobs", required_argument, 0, 'j'},     {"slurm", no_argument, 0, O_SLURM},
      {"partition", required_argument, 0, O_PARTITION}, {"time", required_argument, 0, O_TIME},
      {"account", required_argument, 0, O_ACCOUNT}, {"dry-run", no_argument, 0, O_DRY},
      {"out", required_argument, 0, 'o'},      {"help", no_argument, 0, 'h'},
      {0, 0, 0, 0}};
  const char *platform = NULL, *place = "block", *casefile = NULL;
  char **sets = NULL, **fields = NULL;
  int nsets = 0, nfields = 0, c, code = 2;
  long ranks = 0, column = 2, v;
  struct uq_opts o = {.dir = "uncertainty", .budget = UQ_DEFAULT_BUDGET, .seed = 1, .trajectories = 4,
                      .jobs = (int)sysconf(_SC_NPROCESSORS_ONLN), .so = {.chunk = 1}};
  optind = 1;
  while ((c = getopt_long(argc, argv, "+p:n:j:o:h", opts, NULL)) != -1) {
    switch (c) {
    case 'p': platform = optarg; break;
    case 'n':
      if (whole("-n", optarg, 1, 1 << 20, &ranks))
        goto out;
      break;
    case O_SET:
      sets = realloc(sets, (size_t)(nsets + 1) * sizeof *sets);
      sets[nsets++] = optarg;
      break;
    case O_FIELD:
      fields = realloc(fields, (size_t)(nfields + 1) * sizeof *fields);
      fields[nfields++] = optarg;
      break;
    case O_PLACE: place = optarg; break;
    case O_COLUMN:
      if (whole("--column", optarg, 1, 32, &column))
        goto out;
      break;
    case O_CASE: casefile = optarg; break;
    case O_BUDGET:
      if (whole("--budget", optarg, 8, 10000000, &o.budget))
        goto out;
      break;
    case O_SEED:
      if (whole("--seed", optarg, 0, 2147483647L, &v))
        goto out;
      o.seed = (unsigned long)v;
      break;
    case O_TRAJ:
      if (whole("--trajectories", optarg, 1, 1000, &v))
        goto out;
      o.trajectories = (int)v;
      break;
    case 'j':
      if (whole("-j", optarg, 1, 1000000, &v))
        goto out;
      o.jobs = (int)v;
      break;
    case O_SLURM: o.slurm = true; break;
    case O_PARTITION: o.so.partition = optarg; break;
    case O_TIME: o.so.time = optarg; break;
    case O_ACCOUNT: o.so.account = optarg; break;
    case O_DRY: o.so.dry_run = true; break;
    case 'o': o.dir = optarg; break;
    case 'h': usage(stdout); code = 0; goto out;
    default: usage(stderr); goto out;
    }
  }
  char err[4096] = "";
  struct uq_study st = {0};
  struct icsim_yfile y = {0};
  int have_case = 0;
  if (casefile) {
    if (platform || ranks || optind < argc || nfields) {
      fprintf(stderr, "icsim uncertainty: --case takes its platform, programs and figures from the case; give "
                      "no -p, -n, --field or program\n");
      goto out;
    }
    if (validate_case_load(casefile, &y, err, sizeof err)) {
      fprintf(stderr, "icsim uncertainty: %s\n", err);
      goto out;
    }
    have_case = 1;
    st.ne = uq_entries_from_case(&y, ICSIM_SRCDIR, sets, nsets, &st.e, err, sizeof err);
  } else {
    if (!platform || !ranks || optind >= argc) {
      fprintf(stderr, "icsim uncertainty: give -p PLATFORM.yaml, -n N and the program to run (or --case FILE)\n");
      usage(stderr);
      goto out;
    }
    char abs[PATH_MAX];
    int nent = nfields ? nfields : 1;
    st.e = calloc((size_t)nent, sizeof *st.e);
    st.ne = nent;
    const char *prog = argv[optind], *base = strrchr(prog, '/');
    char args[8192] = "";
    for (int i = optind + 1; i < argc; i++) {
      if (strpbrk(argv[i], " \t{")) {
        fprintf(stderr, "icsim uncertainty: argument '%s' holds a space or '{', which the runs cannot pass on\n",
                argv[i]);
        goto out;
      }
      size_t used = strlen(args);
      snprintf(args + used, sizeof args - used, "%s%s", used ? " " : "", argv[i]);
    }
    for (int i = 0; i < nent; i++) { /* one entry per field; the runs are the same points, done once */
      struct uq_entry *x = &st.e[i];
      x->platform = strdup(realpath(platform, abs) ? abs : platform);
      x->program = strdup(strchr(prog, '/') && realpath(prog, abs) ? abs : prog);
      x->args = strdup(args);
      x->place = strdup(place);
      x->ranks = (int)ranks;
      x->metric = strdup(nfields ? fields[i] : base ? base + 1 : prog);
      x->column = (int)column;
      x->scale = 1;
      x->field = nfields ? strdup(fields[i]) : NULL;
      x->sets = calloc((size_t)nsets + 1, sizeof *x->sets);
      for (int k = 0; k < nsets; k++)
        x->sets[x->nsets++] = strdup(sets[k]);
    }
  }
  int rc = uq_study_run(&st, &o, err, sizeof err);
  if (rc == -3) { /* --slurm --dry-run */
    fprintf(stderr, "icsim uncertainty: %s\n", err);
    code = 0;
  } else if (rc < 0) { /* -2: nothing to sample */
    fprintf(stderr, "icsim uncertainty: %s\n", err);
    code = strstr(err, "interrupted") ? 130 : 2;
  } else if (uq_report_write(&st, &o, err, sizeof err)) {
    fprintf(stderr, "icsim uncertainty: %s\n", err);
  } else {
    for (int f = 0; f < st.nf; f++) {
      const struct uq_figure *g = &st.f[f];
      printf("%-24s %-12s point %-12.6g median %-12.6g 90%% %.6g .. %.6g  top %s\n", g->metric, g->x, g->point,
             g->median, g->p05, g->p95, g->top[0] >= 0 ? st.pname[g->top[0]] : "-");
    }
    fprintf(stderr, "icsim uncertainty: %s/summary.md, uncertainty.csv, effects.csv, tornado/%s\n", o.dir,
            rc ? " (some points failed: see runs/failed; run again to retry them)" : "");
    code = rc ? 1 : 0;
  }
  uq_entries_free(st.e, st.ne);
  st.e = NULL;
  uq_study_free(&st);
  if (have_case)
    icsim_yaml_free(&y);
out:
  free(sets);
  free(fields);
  return code;
}
