/* Shared pieces of the icsim command's subcommands. */
#ifndef ICSIM_CLI_H
#define ICSIM_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "units.h"

int cmd_run(int argc, char **argv);
int cmd_describe(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_place(int argc, char **argv);
/* icsim place --pattern-file (cmd_place_pattern.c). */
int cmd_place_pattern(const char *platform, int nranks, const char *pattern_file, const char *write_best,
                      unsigned seed, char **sets, int nsets);
int cmd_sweep(int argc, char **argv);
int cmd_uncertainty(int argc, char **argv);
int cmd_calibrate_host(int argc, char **argv);
/* icsim calibrate: a platform fitted to measured benchmark outputs (calibrate.h). */
int cmd_calibrate(int argc, char **argv);
/* icsim calibrate-host --memory (calibrate_memory.c): prints this machine's measured memory
 * hierarchy as platform lines. */
int calibrate_memory(FILE *out);
/* --placement A B: the round trip of a cache line between cores A and B, in ns; --chase BYTES: the
 * load-to-use latency through BYTES now, in ns (validate/host/host-npb-compute prints both beside
 * its native runs). */
int calibrate_placement(FILE *out, int a, int b);
int calibrate_chase(FILE *out, size_t bytes);
/* Scalar operations per second of this machine: ICSIM_HOST_OPS, else the stored calibration
 * (measured once if missing). */
double icsim_host_ops_per_s(void);

/* What `icsim run` needs to launch one simulation; shared with validate. */
struct run_request {
  const char *platform;
  int nranks;
  const char *place;     /* block, cyclic, NxC, list */
  char **sets;           /* key=value */
  int nsets;
  const char *stats;     /* JSON path or NULL */
  const char *trace;     /* --trace: the timeline's path or NULL */
  const char *trace_format; /* paje (default) or chrome */
  bool breakdown;        /* --breakdown: print where each rank's time went */
  bool host_timing;      /* SMPI benchmarking of the program's own computation */
  bool every_poll;       /* simulate each empty poll of a spinning wait (no skipping) */
  double progress_s;     /* print progress to stderr every so many wall seconds; 0 = never */
  char **program;        /* argv of the program, NULL-terminated */
};

/* Build the smpirun argv (NULL-terminated, malloc'ed strings) and the environment assignments
 * (NAME=value strings). Writes the hostfile to HOSTFILE. NOTE_OUT (may be NULL) gets what the layer
 * that took the program says of it ("# " lines, malloc'ed) or NULL. Returns 0 or -1 with ERR. */
int build_smpirun(const struct run_request *rq, const char *hostfile, char ***argv_out, char ***env_out,
                  char **note_out, char *err, size_t errlen);
/* Run it; the program's stdout goes to OUT_FD (1 for the terminal), stderr is filtered and
 * deadlocks/crashes are explained. Returns the program's exit status. */
int launch_smpirun(const struct run_request *rq, int out_fd, char *err, size_t errlen);
/* Locate a program by path, PATH or the build's workloads folder. Returns malloc'ed path or NULL
 * (program.c). */
char *find_program(const char *name);
/* Check that PATH can run under this icsim as an icsimcc build (SimGrid's MPI plus the icsim MPI
 * layer). Returns 0, or -1 with ERR saying what it is and how to rebuild it (program.c). Programs a
 * layer takes through its launch hook (stack.h: an ABI adaptor's) are not asked. */
int check_program(const char *path, char *err, size_t errlen);

void free_strv(char **v);

/* One number a command takes (an option's value): the descriptor it is checked against before it
 * reaches SimGrid, a workload's allocation or a loop (cli_number.c). */
struct icsim_cli_num {
  const char *option;  /* "--msg", "-n" */
  enum icsim_dim dim;  /* units accepted (ICSIM_DIM_NONE: a plain number) */
  double min, max;     /* in base units, both included */
  bool whole;          /* a whole number (counts, bytes) */
  const char *example; /* a valid value, shown in the fix ("1MiB") */
  const char *why;     /* what the bounds come from, or NULL */
  bool bare;           /* digits alone are taken in the base unit (--chase BYTES, for scripts) */
};
/* Parse TEXT against D into *OUT; -1 with ERR naming the option, the value, the range and an
 * example. */
int icsim_cli_number(const struct icsim_cli_num *d, const char *text, double *out, char *err, size_t errlen);
/* V of dimension DIM as a message shows it ("1GiB", "11.77GiB", "8"), into BUF. */
const char *icsim_cli_show(double v, enum icsim_dim dim, char *buf, size_t len);
/* This machine's memory in bytes (0 when unknown): the bound of what a workload may allocate. */
double icsim_physical_memory(void);

#endif
