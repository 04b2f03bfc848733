/* icsim validate: run the cases of validate/cases (or the ones named) and compare them with the
 * published tables; options, case listing and the runs of the workloads are here, the engine in
 * the files next to this one (validate.h). */
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

#include "stats_json.h"
#include "cli.h"
#include "scratch.h"
#include "uq.h"
#include "validate.h"

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

/* What every run of one case shares. */
struct case_run {
  const struct icsim_yfile *y;
  const char *name, *root, *platform, *tmpdir;
  char **sets;
  int nsets;
  int *progress, total;
};

/* Every message of every run must be joined to its transfer (sim/transfer.h): the counts of all
 * runs, printed at the end. */
static double runs_total, announced_total, unmatched_total;

/* A counter of the MPI layer's section of a --stats text (0 when absent: a run that wrote none). */
static double stats_value(const char *json, const char *name)
{
  char what[128];
  snprintf(what, sizeof what, "mpi/%s", name);
  double v = icsim_stats_get(json, what);
  return isnan(v) ? 0 : v;
}

static void count_transfers(const char *statspath, const char *case_name, const char *metric)
{
  int fd = open(statspath, O_RDONLY);
  if (fd < 0)
    return;
  char *json = read_all(fd);
  close(fd);
  double unmatched = stats_value(json, "unmatched_transfers");
  runs_total++;
  announced_total += stats_value(json, "announced_transfers");
  unmatched_total += unmatched;
  if (unmatched > 0)
    fprintf(stderr, "icsim validate: %s %s: %.0f transfers not joined to an MPI message (unmatched_transfers)\n",
            case_name, metric, unmatched);
  free(json);
}

/* The run's --stats counters as "stats:SECTION/NAME = value" lines after the workload's output, so
 * that a case's `field` can name a model's own accounting (e.g. stats:smpo/library_share). */
static char *append_stats_fields(char *text, const char *statspath)
{
  int fd = open(statspath, O_RDONLY);
  if (fd < 0)
    return text;
  char *json = read_all(fd);
  close(fd);
  char *lines = icsim_stats_lines(json);
  free(json);
  if (!lines)
    return text;
  size_t len = strlen(text), cap = len + 2 * strlen(lines) + 2;
  text = realloc(text, cap);
  for (char *line = strtok(lines, "\n"); line; line = strtok(NULL, "\n"))
    len += (size_t)snprintf(text + len, cap - len, "stats:%s\n", line);
  free(lines);
  return text;
}

void validate_print_transfer_counts(FILE *f)
{
  if (runs_total > 0)
    fprintf(f, "Transfers joined to their MPI messages: %.0f in %.0f runs, %.0f unmatched.\n", announced_total,
            runs_total, unmatched_total);
}

/* Run metric entry MI of the case; its points (x, value) are appended to *SIM. Returns 0 or -1. */
static int run_entry(const struct case_run *c, int mi, struct point **sim, size_t *nsim, char *err, size_t errlen)
{
  const struct icsim_yfile *y = c->y;
  const char *metric = case_get(y, "metrics/%d/name", mi), *workload = case_get(y, "metrics/%d/workload", mi);
  const char *place = case_get(y, "metrics/%d/place", mi), *args = case_get(y, "metrics/%d/args", mi);
  int ranks = (int)case_num(y, "metrics/%d/ranks", mi, 0), column = (int)case_num(y, "metrics/%d/column", mi, 2);
  double scale = case_num(y, "metrics/%d/scale", mi, 1);
  char workload_path[PATH_MAX], own_platform[PATH_MAX], outpath[PATH_MAX];
  if (strchr(workload, '/'))
    snprintf(workload_path, sizeof workload_path, "%s/%s", c->root, workload);
  else
    snprintf(workload_path, sizeof workload_path, "%s", workload);
  char **prog = split_args(workload_path, args);
  const char *platform = c->platform;
  if (case_get(y, "metrics/%d/platform", mi)) { /* an entry may run on another machine of the case */
    snprintf(own_platform, sizeof own_platform, "%s/%s", c->root, case_get(y, "metrics/%d/platform", mi));
    platform = own_platform;
  }
  char statspath[PATH_MAX];
  snprintf(statspath, sizeof statspath, "%s/%s-%s-%d.json", c->tmpdir, c->name, metric, mi);
  char *sets[128]; /* the case's overrides, then this entry's */
  int nsets = 0;
  for (int k = 0; k < c->nsets && nsets < 128; k++)
    sets[nsets++] = c->sets[k];
  for (int k = 0; nsets < 128 && case_item(y, "metrics/%d/sets/%d", mi, k); k++)
    sets[nsets++] = (char *)case_item(y, "metrics/%d/sets/%d", mi, k);
  struct run_request rq = {.platform = platform, .nranks = ranks, .place = place ? place : "block",
                           .sets = sets, .nsets = nsets, .host_timing = false, .program = prog,
                           .stats = statspath};
  snprintf(outpath, sizeof outpath, "%s/%s-%s-%d.out", c->tmpdir, c->name, metric, mi);
  int fd = open(outpath, O_RDWR | O_CREAT | O_TRUNC, 0644);
  (*c->progress)++;
  fprintf(stderr, "[%d/%d] %s %s: %s %s on %d ranks%s%s ...", *c->progress, c->total, c->name, metric, workload,
          args ? args : "", ranks, place ? ", " : "", place ? place : "");
  fflush(stderr);
  double t0 = now_s();
  int code = launch_smpirun(&rq, fd, err, errlen);
  fprintf(stderr, " %.1f s\n", now_s() - t0);
  free_strv(prog);
  if (code != 0) {
    if (code > 0)
      snprintf(err, errlen, "%s %s: workload %s failed with status %d (output in %s)", c->name, metric, workload,
               code, outpath);
    close(fd);
    return -1;
  }
  char *text = read_all(fd);
  close(fd);
  count_transfers(statspath, c->name, metric);
  int sfd = open(statspath, O_RDONLY); /* where this run's time went, for the case's stacked bars */
  if (sfd >= 0) {
    char *json = read_all(sfd), label[96];
    close(sfd);
    snprintf(label, sizeof label, "%s%s%.16s, %d ranks", metric, args ? " " : "", args ? args : "", ranks);
    split_add(c->name, label, json);
    free(json);
  }
  text = append_stats_fields(text, statspath);
  int bad = 0;
  const char *xfmt = case_get(y, "metrics/%d/x-format", mi);
  if (case_get(y, "metrics/%d/field", mi)) /* the schema has checked x-format is there */
    bad = extract_field(y, mi, text, xfmt, scale, sim, nsim, err, errlen);
  else
    extract_columns(text, column, xfmt, scale, sim, nsim);
  free(text);
  return bad;
}

/* Run every metric entry of case C, then compare them and its aggregates into RS. Entries with
 * the same metric name are runs of one table (e.g. one per cf): their points are pooled, and
 * the first entry's published file, tolerance and calibration apply. */
static int run_case(const struct case_run *c, struct rows *rs, struct plot *plots, int *nplots, char *err,
                    size_t errlen)
{
  const struct icsim_yfile *y = c->y;
  int nentries = 0, failed = 0;
  while (case_get(y, "metrics/%d/name", nentries))
    nentries++;
  struct point **sims = calloc((size_t)nentries, sizeof *sims);
  size_t *nsims = calloc((size_t)nentries, sizeof *nsims);
  int *owner = calloc((size_t)nentries, sizeof *owner);
  for (int m = 0; m < nentries && !failed; m++) {
    owner[m] = m;
    for (int k = 0; k < m; k++)
      if (!strcmp(case_get(y, "metrics/%d/name", k), case_get(y, "metrics/%d/name", m))) {
        owner[m] = owner[k];
        break;
      }
    failed = run_entry(c, m, &sims[owner[m]], &nsims[owner[m]], err, errlen);
  }
  for (int m = 0; m < nentries && !failed; m++) {
    if (owner[m] != m)
      continue;
    failed = compare_metric(y, m, c->name, c->root, sims[m], nsims[m], rs, err, errlen);
    if (!failed)
      plot_init(&plots[(*nplots)++], c->name, case_get(y, "metrics/%d/name", m), case_get(y, "metrics/%d/unit", m));
  }
  for (int m = 0; m < nentries; m++)
    free(sims[m]);
  free(sims);
  free(nsims);
  free(owner);
  for (int a = 0; !failed && case_get(y, "aggregates/%d/name", a); a++)
    failed = compare_aggregate(y, a, c->name, c->root, rs, err, errlen);
  for (int k = 0; !failed && case_get(y, "claims/%d/name", k); k++)
    failed = compare_claim(y, k, c->name, rs, err, errlen);
  return failed ? -1 : 0;
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
  fprintf(f, "usage: icsim validate [CASE...] [--out DIR] [--list] [--keys]\n"
             "       icsim validate [CASE...] --uncertainty [--budget B] [--seed S] [-j J] [--slurm ...]\n"
             "Runs validation cases (validate/cases/CASE.yaml; all when none named) and writes\n"
             "DIR/summary.csv, DIR/report.md and plots (default DIR: validate/out).\n"
             "--uncertainty adds each case's uncertainty study (icsim uncertainty --case; kept in\n"
             "DIR/uncertainty/CASE, resumable): summary.csv gains p05, median, p95, top_parameters, the report\n"
             "intervals and tornado plots, and a published value outside its interval is flagged as a missing\n"
             "mechanism. --budget: points per case (default %d; a point runs every program of the case).\n"
             "--keys prints the keys of a case file as a Markdown table (validate/README.md).\n"
             "Exit status 1 if any case is not accepted, 2 on bad input.\n", UQ_VALIDATE_BUDGET);
}

/* The temporary folder beside OUTDIR where the outputs are built (its parent created). */
static int make_tmpdir(const char *outdir, char *tmpdir, size_t len)
{
  char parent[PATH_MAX];
  snprintf(tmpdir, len, "%s%s.tmp-XXXXXX", strchr(outdir, '/') ? "" : "./", outdir);
  snprintf(parent, sizeof parent, "%s", outdir);
  char *slash = strrchr(parent, '/');
  if (slash) {
    *slash = '\0';
    mkdir(parent, 0755);
  }
  /* registered: removed with everything in it on SIGINT/SIGTERM too (sim/scratch.h) */
  char template[PATH_MAX];
  snprintf(template, sizeof template, "%s", tmpdir);
  if (icsim_scratch_mkdtemp(template, tmpdir, len)) {
    fprintf(stderr, "icsim validate: cannot create %s: %s\n", tmpdir, strerror(errno));
    return -1;
  }
  return 0;
}

/* Run the NFILES loaded cases; returns the exit status. */
static int run_cases(const struct icsim_yfile *files, int nfiles, int total, const char *root, const char *outdir,
                     const struct uq_opts *uq)
{
  char tmpdir[PATH_MAX], err[4096];
  if (make_tmpdir(outdir, tmpdir, sizeof tmpdir))
    return 2;
  struct rows rs = {0};
  struct plot *plots = calloc((size_t)total + 1, sizeof *plots);
  int nplots = 0, progress = 0, failed = 0;
  for (int i = 0; i < nfiles && !failed; i++) {
    const struct icsim_yfile *y = &files[i];
    char platform[PATH_MAX];
    snprintf(platform, sizeof platform, "%s/%s", root, case_get(y, "platform", 0));
    char *sets[64];
    int nsets = 0;
    while (nsets < 64 && case_get(y, "sets/%d", nsets)) {
      sets[nsets] = (char *)case_get(y, "sets/%d", nsets);
      nsets++;
    }
    struct case_run c = {.y = y, .name = case_get(y, "case", 0), .root = root, .platform = platform,
                         .tmpdir = tmpdir, .sets = sets, .nsets = nsets, .progress = &progress, .total = total};
    failed = run_case(&c, &rs, plots, &nplots, err, sizeof err);
  }
  /* --uncertainty: each case's study after every plain run, so that the point predictions and the
   * comparisons are the plain ones; the studies only add intervals */
  int incomplete = 0;
  for (int i = 0; uq && i < nfiles && !failed; i++) {
    int rc = validate_case_uncertainty(&files[i], root, outdir, uq, &rs, err, sizeof err);
    failed = rc < 0;
    incomplete += rc > 0;
  }
  if (incomplete)
    fprintf(stderr, "icsim validate: %d case studies have points that failed or are not done (see "
                    "%s/uncertainty/CASE/runs/failed); their intervals use the points done\n", incomplete, outdir);
  if (!failed) {
    for (int p = 0; p < nplots; p++)
      make_plot(&plots[p], &rs, tmpdir);
    split_plots(tmpdir);
    /* the outputs move in together: an interruption lands before or after, never between */
    sigset_t saved;
    icsim_scratch_hold(&saved);
    failed = write_outputs(&rs, plots, nplots, files, nfiles, tmpdir, outdir, err, sizeof err);
    icsim_scratch_release(&saved);
  }
  icsim_scratch_remove(tmpdir);
  int rc = 2;
  if (failed)
    fprintf(stderr, "icsim validate: %s\n", err);
  else
    rc = print_summary(&rs, files, nfiles, outdir) ? 1 : 0;
  free(rs.r);
  free(plots);
  return rc;
}

int cmd_validate(int argc, char **argv)
{
  char outdir[PATH_MAX];
  snprintf(outdir, sizeof outdir, "%s/validate/out", ICSIM_SRCDIR);
  int list = 0, c, uncertainty = 0;
  enum { O_UNC = 1000, O_BUDGET, O_SEED, O_SLURM, O_PARTITION, O_TIME, O_ACCOUNT };
  static const struct option opts[] = {{"out", required_argument, 0, 'o'}, {"list", no_argument, 0, 'l'},
                                       {"keys", no_argument, 0, 'k'},       {"help", no_argument, 0, 'h'},
                                       {"uncertainty", no_argument, 0, O_UNC}, {"budget", required_argument, 0, O_BUDGET},
                                       {"seed", required_argument, 0, O_SEED}, {"jobs", required_argument, 0, 'j'},
                                       {"slurm", no_argument, 0, O_SLURM}, {"partition", required_argument, 0, O_PARTITION},
                                       {"time", required_argument, 0, O_TIME}, {"account", required_argument, 0, O_ACCOUNT},
                                       {0, 0, 0, 0}};
  struct uq_opts uq = {.budget = UQ_VALIDATE_BUDGET, .seed = 1, .trajectories = 4,
                       .jobs = (int)sysconf(_SC_NPROCESSORS_ONLN), .so = {.chunk = 1}};
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:j:h", opts, NULL)) != -1) {
    char *end;
    long v;
    switch (c) {
    case 'o': snprintf(outdir, sizeof outdir, "%s", optarg); break;
    case O_UNC: uncertainty = 1; break;
    case O_BUDGET:
    case O_SEED:
    case 'j':
      v = strtol(optarg, &end, 10);
      if (!*optarg || *end || v < (c == O_SEED ? 0 : c == 'j' ? 1 : 8) || v > 2147483647L) {
        fprintf(stderr, "icsim validate: %s %s: give a whole number (%s)\n",
                c == O_SEED ? "--seed" : c == 'j' ? "-j" : "--budget", optarg,
                c == O_SEED ? "0 or more" : c == 'j' ? "1 or more" : "8 or more");
        return 2;
      }
      if (c == O_BUDGET)
        uq.budget = v;
      else if (c == O_SEED)
        uq.seed = (unsigned long)v;
      else
        uq.jobs = (int)v;
      break;
    case O_SLURM: uq.slurm = true; break;
    case O_PARTITION: uq.so.partition = optarg; break;
    case O_TIME: uq.so.time = optarg; break;
    case O_ACCOUNT: uq.so.account = optarg; break;
    case 'l': list = 1; break;
    case 'k': validate_case_keys_markdown(stdout); return 0;
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
  /* Load and check every case before running anything. */
  struct icsim_yfile *files = calloc((size_t)nchosen, sizeof *files);
  int total = 0, rc = 2, loaded = 0;
  char err[4096];
  for (; loaded < nchosen; loaded++) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.yaml", casedir, chosen[loaded]);
    if (access(path, F_OK)) {
      fprintf(stderr, "icsim validate: no case '%s' (known:", chosen[loaded]);
      for (int k = 0; k < nall; k++)
        fprintf(stderr, " %s", all[k]);
      fprintf(stderr, ")\n");
      break;
    }
    if (validate_case_load(path, &files[loaded], err, sizeof err)) {
      fprintf(stderr, "icsim validate: %s\n", err);
      break;
    }
    for (int m = 0; case_get(&files[loaded], "metrics/%d/name", m); m++)
      total++;
  }
  if (loaded == nchosen) {
    validate_uncertainty = uncertainty;
    rc = run_cases(files, nchosen, total, root, outdir, uncertainty ? &uq : NULL);
    validate_print_transfer_counts(stdout);
  }
  for (int i = 0; i < nchosen; i++) /* zeroed or freed when not loaded */
    icsim_yaml_free(&files[i]);
  free(files);
  for (int i = 0; i < nall; i++)
    free(all[i]);
  free(all);
  return rc;
}
