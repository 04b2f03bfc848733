/* icsim: run MPI programs on simulated interconnect stacks, describe platforms, validate
 * against published tables. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *f)
{
  fprintf(f, "usage: icsim COMMAND [options]\n"
             "  run       run an MPI program on a simulated platform\n"
             "  describe  print every resolved parameter of a platform (value, unit, origin)\n"
             "  validate  run validation cases against published tables\n"
             "  place     rank the subsystem shapes of P cores for an exchange pattern\n"
             "  sweep     run a what-if study (a sweep file) locally or on Slurm, resumable\n"
             "  calibrate-host  measure this machine's speed (used by run --host-timing on)\n"
             "`icsim COMMAND --help` for each command's options.\n");
}

int main(int argc, char **argv)
{
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
