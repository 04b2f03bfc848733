/* icsim sweep: run a what-if study (a sweep file, sweep.h) locally or as a Slurm job array,
 * resumable, and gather its figures into one CSV and plots. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "sweep.h"

static void usage(FILE *f)
{
  fprintf(f,
          "usage: icsim sweep FILE --out DIR [-j N]       run the points not done yet here, then gather\n"
          "       icsim sweep FILE --out DIR --slurm [--partition P] [--time T] [--account A]\n"
          "                        [--chunk K] [--throttle N] [--sbatch-arg ARG]... [--wait] [--dry-run]\n"
          "                                               submit the points not done yet as a job array\n"
          "       icsim sweep FILE --out DIR --gather     results.csv and plots from the points done\n"
          "       icsim sweep FILE --list                 check the file and print its points\n"
          "       icsim sweep --keys                      the sweep file's keys (Markdown table)\n"
          "  -j, --jobs N         local workers (default: this machine's cores)\n"
          "      --chunk K        points per array task (default 1)\n"
          "      --throttle N     array tasks running at a time (sbatch --array=...%%N)\n"
          "      --wait           wait for the array to finish (sbatch --wait), then gather\n"
          "      --dry-run        write the job script and print the sbatch command, submit nothing\n"
          "A sweep is resumable: interrupt it at any moment and start it again; finished points are kept\n"
          "(DIR/points) and not run again. Exit status: 0 when every point is done and gathered, 1 when\n"
          "some failed or are missing, 2 on bad input, 130 when interrupted.\n");
}

int cmd_sweep(int argc, char **argv)
{
  enum { O_OUT = 1000, O_SLURM, O_GATHER, O_LIST, O_KEYS, O_PARTITION, O_TIME, O_ACCOUNT, O_CHUNK, O_THROTTLE,
         O_SBATCH, O_WAIT, O_DRY, O_TASK_LIST, O_TASK };
  static const struct option opts[] = {
      {"out", required_argument, 0, O_OUT},         {"jobs", required_argument, 0, 'j'},
      {"slurm", no_argument, 0, O_SLURM},           {"gather", no_argument, 0, O_GATHER},
      {"list", no_argument, 0, O_LIST},             {"keys", no_argument, 0, O_KEYS},
      {"partition", required_argument, 0, O_PARTITION}, {"time", required_argument, 0, O_TIME},
      {"account", required_argument, 0, O_ACCOUNT}, {"chunk", required_argument, 0, O_CHUNK},
      {"throttle", required_argument, 0, O_THROTTLE}, {"sbatch-arg", required_argument, 0, O_SBATCH},
      {"wait", no_argument, 0, O_WAIT},             {"dry-run", no_argument, 0, O_DRY},
      {"task-list", required_argument, 0, O_TASK_LIST}, {"task", required_argument, 0, O_TASK},
      {"help", no_argument, 0, 'h'},                {0, 0, 0, 0}};
  const char *out = NULL, *task_list = NULL, *task_arg = NULL;
  int workers = (int)sysconf(_SC_NPROCESSORS_ONLN), slurm = 0, gather_only = 0, list = 0, c;
  struct slurm_opts so = {.chunk = 1};
  optind = 1;
  while ((c = getopt_long(argc, argv, "j:h", opts, NULL)) != -1) {
    char *end;
    switch (c) {
    case O_OUT: out = optarg; break;
    case 'j':
    case O_CHUNK:
    case O_THROTTLE: {
      long v = strtol(optarg, &end, 10);
      if (*end || v < 1 || v > 1000000) {
        fprintf(stderr, "icsim sweep: %s %s: out of range: give a whole number from 1 to 1000000 (e.g. -j 2)\n",
                c == 'j' ? "-j" : c == O_CHUNK ? "--chunk" : "--throttle", optarg);
        return 2;
      }
      if (c == 'j')
        workers = (int)v;
      else if (c == O_CHUNK)
        so.chunk = (int)v;
      else
        so.throttle = (int)v;
      break;
    }
    case O_SLURM: slurm = 1; break;
    case O_GATHER: gather_only = 1; break;
    case O_LIST: list = 1; break;
    case O_KEYS: sweep_keys_markdown(stdout); return 0;
    case O_PARTITION: so.partition = optarg; break;
    case O_TIME: so.time = optarg; break;
    case O_ACCOUNT: so.account = optarg; break;
    case O_SBATCH:
      so.extra = realloc(so.extra, (size_t)(so.nextra + 1) * sizeof *so.extra);
      so.extra[so.nextra++] = optarg;
      break;
    case O_WAIT: so.wait = true; break;
    case O_DRY: so.dry_run = true; break;
    case O_TASK_LIST: task_list = optarg; break;
    case O_TASK: task_arg = optarg; break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (optind != argc - 1) {
    fprintf(stderr, "icsim sweep: give one sweep file\n");
    usage(stderr);
    free(so.extra);
    return 2;
  }
  if (!out && !list) {
    fprintf(stderr, "icsim sweep: --out DIR is required (the folder that keeps the points' results)\n");
    free(so.extra);
    return 2;
  }
  if (slurm + gather_only + list + (task_list != NULL) > 1) {
    fprintf(stderr, "icsim sweep: --slurm, --gather, --list and --task-list exclude one another\n");
    free(so.extra);
    return 2;
  }
  char err[4096] = "";
  struct sweep s;
  struct sweep_point *p = NULL;
  int n = -1, code = 2;
  if (sweep_load(argv[optind], &s, err, sizeof err)) {
    fprintf(stderr, "icsim sweep: %s\n", err);
    free(so.extra);
    return 2;
  }
  n = sweep_points(&s, &p, err, sizeof err);
  if (n < 0) {
    fprintf(stderr, "icsim sweep: %s\n", err);
    goto out;
  }
  if (list) {
    printf("# %s: %d points (%s)\n# point id", s.name, n, s.zip ? "zip" : "cross");
    for (int a = 0; a < s.naxes; a++)
      printf(" %s", s.axes[a].header);
    printf("\n");
    for (int i = 0; i < n; i++) {
      printf("%d %s", i, p[i].id);
      for (int a = 0; a < s.naxes; a++)
        printf(" %s", s.axes[a].text[p[i].vi[a]]);
      printf("\n");
    }
    code = 0;
    goto out;
  }
  if (store_open(out, err, sizeof err)) {
    fprintf(stderr, "icsim sweep: %s\n", err);
    goto out;
  }
  if (task_list) { /* one Slurm array task */
    const char *t = task_arg ? task_arg : getenv("SLURM_ARRAY_TASK_ID");
    if (!t) {
      fprintf(stderr, "icsim sweep: --task-list needs --task I (or SLURM_ARRAY_TASK_ID)\n");
      goto out;
    }
    static const struct icsim_cli_num d = {"--task", ICSIM_DIM_NONE, 0, 1000000, true, "0",
                                           "a task of the array (a point or a chunk of points)", false};
    double task;
    if (icsim_cli_number(&d, t, &task, err, sizeof err)) {
      fprintf(stderr, "icsim sweep: %s\n", err);
      goto out;
    }
    int failed = sweep_run_task(&s, p, n, out, task_list, (int)task, err, sizeof err);
    if (failed < 0 && err[0])
      fprintf(stderr, "icsim sweep: %s\n", err);
    code = failed < 0 ? (err[0] ? 2 : 130) : failed > 0;
    goto out;
  }
  if (slurm) {
    if (sweep_slurm_submit(&s, p, n, out, &so, err, sizeof err)) {
      fprintf(stderr, "icsim sweep: %s\n", err);
      goto out;
    }
    if (!so.wait || so.dry_run) {
      code = 0;
      goto out;
    }
  } else if (!gather_only) {
    int failed = sweep_run_local(&s, p, n, out, workers);
    if (failed < 0) {
      code = 130;
      goto out;
    }
  }
  int missing = sweep_gather(&s, p, n, out, err, sizeof err);
  if (missing < 0)
    fprintf(stderr, "icsim sweep: %s\n", err);
  code = missing < 0 ? 2 : missing > 0;
out:
  sweep_points_free(p, n);
  sweep_free(&s);
  free(so.extra);
  return code;
}
