/* icsim: run MPI programs on simulated interconnect stacks, describe platforms, validate
 * against published tables. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "cli.h"
#include "runtime.h"

static void usage(FILE *f)
{
  fprintf(f, "usage: icsim COMMAND [options]\n"
             "  run       run an MPI program on a simulated platform\n"
             "  describe  print every resolved parameter of a platform (value, unit, origin)\n"
             "  validate  run validation cases against published tables\n"
             "  place     rank the subsystem shapes of P cores for an exchange pattern\n"
             "  sweep     run a what-if study (a sweep file) locally or on Slurm, resumable\n"
             "  calibrate fit a platform's free parameters to measured OSU/NetPIPE outputs\n"
             "  uncertainty  intervals and sensitivities of a run's or a case's figures from the parameters' ranges\n"
             "  calibrate-host  measure this machine's speed (used by run --host-timing on)\n"
             "`icsim COMMAND --help` for each command's options.\n");
}

/* `icsim exec-fds PROGRAM ARGS...`: icsim run's smpirun wrapper (cmd_run.c). The simulation gets
 * the descriptors named by ICSIM_FDS as its stdout and stderr, so that what the program prints
 * travels apart from what smpirun's shell says, and is passed on byte for byte. */
static int exec_fds(char **argv)
{
  const char *v = getenv(ICSIM_ENV_FDS);
  int out = -1, err = -1;
  if (v && sscanf(v, "%d,%d", &out, &err) == 2 && out > 2 && err > 2) {
    dup2(out, 1);
    dup2(err, 2);
    close(out);
    close(err);
  }
  unsetenv(ICSIM_ENV_FDS);
  execvp(argv[0], argv);
  fprintf(stderr, "icsim: cannot start %s: %s\n", argv[0], strerror(errno));
  return 127;
}

int main(int argc, char **argv)
{
  if (argc > 2 && !strcmp(argv[1], "exec-fds"))
    return exec_fds(argv + 2);
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (!strcmp(argv[1], "run"))
    return cmd_run(argc - 1, argv + 1);
  if (!strcmp(argv[1], "describe"))
    return cmd_describe(argc - 1, argv + 1);
  if (!strcmp(argv[1], "validate"))
    return cmd_validate(argc - 1, argv + 1);
  if (!strcmp(argv[1], "place"))
    return cmd_place(argc - 1, argv + 1);
  if (!strcmp(argv[1], "sweep"))
    return cmd_sweep(argc - 1, argv + 1);
  if (!strcmp(argv[1], "calibrate"))
    return cmd_calibrate(argc - 1, argv + 1);
  if (!strcmp(argv[1], "uncertainty"))
    return cmd_uncertainty(argc - 1, argv + 1);
  if (!strcmp(argv[1], "calibrate-host"))
    return cmd_calibrate_host(argc - 1, argv + 1);
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    usage(stdout);
    return 0;
  }
  fprintf(stderr, "icsim: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}
