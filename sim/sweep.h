/* icsim sweep: what-if studies as parameter sweeps (issue 17).
 *
 * sweep_file.c   the sweep file: schema (descriptor rows), axes, their points, every point checked
 * sweep_store.c  the results folder: one folder per finished point, moved into place whole, so a
 *                sweep killed at any moment loses nothing finished and repeats nothing
 * sweep_run.c    running points: local workers with a progress line, or one Slurm task's share
 * sweep_gather.c figures from each point's output and counters, results.csv, gnuplot plots
 * sweep_slurm.c  the Slurm job array: script, list of the missing points, sbatch
 * cmd_sweep.c    the command's options
 *
 * A point is identified by what decides its run (the platform file's content, program, arguments,
 * ranks, placement, timing mode, --set values), hashed: editing the sweep file (another axis value,
 * a new figure) keeps every result that still applies. Figures are extracted when gathering, from
 * the stored output, so adding a figure needs no new run. */
#ifndef ICSIM_SWEEP_H
#define ICSIM_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "yaml_flat.h"

enum sweep_axis_kind {
  SWEEP_AXIS_SET,      /* values of a parameter, passed as --set KEY=VALUE */
  SWEEP_AXIS_VAR,      /* values of a variable, written {NAME} in platform, program, args, ranks, place */
  SWEEP_AXIS_VARIANTS, /* labelled bundles of --set values and extra arguments */
};

struct sweep_axis {
  enum sweep_axis_kind kind;
  int yi;            /* index in the file's axes list */
  const char *name;  /* parameter key, variable name or variants name */
  char header[160];  /* its results.csv column: name, with [unit] when its values have one */
  int n;             /* values */
  char **text;       /* each value as passed on: --set value, substituted text, variant label */
  char **cell;       /* each value in results.csv: a number in base units where it has a unit */
  int dim;           /* enum icsim_dim of the values (ICSIM_DIM_NONE: plain numbers or words) */
  int line, column;  /* of the axis entry, for messages */
};

struct sweep {
  struct icsim_yfile y;
  char *path;     /* the sweep file as given */
  char *abs_path; /* and absolute (for Slurm scripts) */
  char *dir;      /* its folder, absolute: relative paths are looked up there first */
  const char *name;
  bool zip;        /* combine: zip (else cross) */
  bool host_timing;
  struct sweep_axis *axes;
  int naxes;
  int nfigures, nplots;
};

struct sweep_point {
  int index;     /* in the sweep's order: the first axis varies slowest (cross) */
  int *vi;       /* value index on each axis */
  char id[17];   /* 16 hex digits: the hash of what decides the run; its results folder */
  char *platform; /* resolved path */
  char *program;
  char **args;    /* program arguments, NULL-terminated */
  int ranks;
  char *place;
  char **sets;    /* KEY=VALUE, NULL-terminated */
  int nsets;
};

/* Load and check PATH. Returns 0, or -1 with "file:line:column: problem; fix" in ERR. */
int sweep_load(const char *path, struct sweep *s, char *err, size_t errlen);
void sweep_free(struct sweep *s);
/* Every point of S, each checked (platform and --set values load, placement fits). Returns the
 * count, or -1 with ERR naming the file, the point and the fix. */
int sweep_points(const struct sweep *s, struct sweep_point **out, char *err, size_t errlen);
void sweep_points_free(struct sweep_point *p, int n);
/* Value of key FMT with list indices (as case_get), or NULL when absent. */
const char *sweep_get(const struct sweep *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const struct icsim_yentry *sweep_entry(const struct sweep *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* TEMPLATE with each {VAR} replaced by point P's value (malloc'ed). */
char *sweep_subst(const struct sweep *s, const struct sweep_point *p, const char *tmpl);
/* Point P has the values the `where` list FMT (one index I, then the item's) asks for
 * ("plots/%d/where/%d"); an empty list keeps every point. */
int sweep_where(const struct sweep *s, const struct sweep_point *p, const char *fmt, int i);
/* "axis=value, axis=value" of point P, for messages. */
void sweep_point_label(const struct sweep *s, const struct sweep_point *p, char *buf, size_t len);
/* The schema as the Markdown key table of the README (`icsim sweep --keys`). */
void sweep_keys_markdown(FILE *f);

/* ---- sweep_store.c: DIR/points/ID (finished), DIR/tmp (in flight), DIR/failed/ID.txt ---- */

/* Create DIR and its folders; remove what runners of this host that no longer exist left in
 * DIR/tmp. Returns 0 or -1 with ERR. */
int store_open(const char *dir, char *err, size_t errlen);
/* Point ID has its results in DIR. */
bool store_done(const char *dir, const char *id);
/* CONTENT into PATH through a temporary file of the same folder and a rename: readers see the
 * old file or the new one, never a part (one place for it; to be unified with the tree's
 * interruption-safe output helpers). */
int store_write_atomic(const char *path, const char *content, size_t len, char *err, size_t errlen);
/* Whole file as a string (malloc'ed), NULL if absent. */
char *store_read(const char *path);
/* Remove a folder and its files (one level of files, as the store writes them). */
void store_remove_tree(const char *path);

/* ---- sweep_run.c ---- */

/* Run the points of P (N of them) not done yet, WORKERS at a time, with a progress line on
 * stderr. Returns the number of points that failed, or -1 (interrupted or cannot start). */
/* No progress line nor counts on stderr (a caller that prints its own; failures are still reported). */
void sweep_run_quiet(bool on);
int sweep_run_local(const struct sweep *s, const struct sweep_point *p, int n, const char *dir, int workers);
/* Run the points listed at positions [FIRST, FIRST + COUNT) of the list file LIST (one id per
 * line), one after the other: one Slurm task's share. Returns the number that failed, or -1. */
int sweep_run_task(const struct sweep *s, const struct sweep_point *p, int n, const char *dir, const char *list,
                   int task, char *err, size_t errlen);

/* ---- sweep_gather.c ---- */

/* results.csv and the plots into DIR from the points done. Returns the number of points
 * missing (0 = complete), or -1 with ERR. */
int sweep_gather(const struct sweep *s, const struct sweep_point *p, int n, const char *dir, char *err,
                 size_t errlen);

/* ---- sweep_slurm.c ---- */

struct slurm_opts {
  const char *partition, *time, *account;
  char **extra; /* further sbatch arguments */
  int nextra;
  int chunk;    /* points per array task */
  int throttle; /* tasks at a time (%N), 0: no limit */
  bool wait;    /* sbatch --wait, then gather */
  bool dry_run; /* write the script, print the sbatch command, submit nothing */
};

/* Write the job array for the points not done and submit it. Returns 0 (nothing to do
 * included), or -1 with ERR. */
int sweep_slurm_submit(const struct sweep *s, const struct sweep_point *p, int n, const char *dir,
                       const struct slurm_opts *o, char *err, size_t errlen);

#endif
