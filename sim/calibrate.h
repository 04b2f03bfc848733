/* icsim calibrate: a platform's free parameters fitted to the user's own measurements (issue 38).
 *
 * calibrate_measure.c  measurement sets (a small YAML naming output files, the icsim workload and
 *                      run shape that reproduce each) and the output files themselves: OSU 5.x-7.x
 *                      latency and bandwidth tables, NetPIPE's np.out; the same readers take the
 *                      simulated programs' output
 * calibrate_fit.c      the fit: every candidate's runs go through the sweep engine (sweep.h: its
 *                      store makes a calibration resumable, its runner gives -j N and --slurm),
 *                      NLopt's BOBYQA in log space within bounds, the Jacobian at the optimum
 *                      (ranges from the curvature, ridges between parameters), held-out points
 * calibrate_write.c    the fitted platform file (each fitted value rewritten in place, origin
 *                      calibrated, a ref naming the points, a range) and the report
 * cmd_calibrate_fit.c  the command's options
 *
 * Everything is deterministic: the same inputs give the same candidates in the same order, so a
 * calibration started again finds every run it did in its store and repeats none. */
#ifndef ICSIM_CALIBRATE_H
#define ICSIM_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "params.h"

/* What a table gives per size: a one-way latency in microseconds (osu_latency; NetPIPE's time
 * column) or a bandwidth in MB/s (10^6 B/s: osu_bw, osu_bibw, osu_mbw_mr). */
enum cal_quantity { CAL_LATENCY_US, CAL_BANDWIDTH_MBPS };
enum cal_format { CAL_FORMAT_DETECT, CAL_FORMAT_OSU, CAL_FORMAT_NETPIPE };

struct cal_row {
  double size;  /* bytes */
  double value; /* in the quantity's unit */
  double half_step; /* half the last printed digit: a printed 0.00 means below this */
  int line;     /* in the output file */
};

/* One output table. */
struct cal_table {
  enum cal_quantity q;
  enum cal_format format;
  struct cal_row *rows;
  int n;
};

/* Read the output file PATH (a measurement) or TEXT (a simulated program's output, PATH then
 * only names it in messages). FORMAT may be CAL_FORMAT_DETECT; COLUMN (1-based, 0: the format's
 * own) picks the value column of an OSU table. Returns 0, or -1 with "PATH:LINE: problem; fix". */
int cal_table_read(const char *path, const char *text, enum cal_format format, int column, struct cal_table *t,
                   char *err, size_t errlen);
void cal_table_free(struct cal_table *t);
const char *cal_quantity_name(enum cal_quantity q); /* "latency (us)" */

/* One measured output file and what reproduces it. */
struct cal_meas {
  char *set;        /* the measurement set (YAML) that lists it, as given */
  int set_line;     /* the line of its entry there */
  char *file;       /* the output file, as written in the set */
  char *path;       /* ... resolved beside the set */
  char *program;    /* icsim workload (a name, or an absolute path) */
  char *args;       /* its arguments, "" for none */
  int ranks;
  char *place;
  int column;
  enum cal_format format;
  struct cal_table t; /* the rows kept (`sizes` selects some) */
  bool held;          /* a --hold-out set's: predicted after the fit, never fitted */
  int run;            /* index of its run shape (struct cal_run) */
};

struct cal_run {
  const char *program, *args, *place; /* the first measurement's strings */
  int ranks;
  bool fitted; /* some fitted point needs it (else only the held-out prediction) */
};

struct cal_set {
  struct cal_meas *m;
  int n;
  struct cal_run *run;
  int nrun;
};

/* Add the measurements of the set file PATH (HELD: a --hold-out set) to S. Returns 0 or -1 with
 * "PATH:LINE:COLUMN: problem; fix". */
int cal_set_load(struct cal_set *s, const char *path, bool held, char *err, size_t errlen);
/* After every set is loaded: the fit's rows that a held-out set names (same file, same size) are
 * taken out of the fit; run shapes are numbered. Returns the number of fitted points, or -1. */
int cal_set_finish(struct cal_set *s, char *err, size_t errlen);
void cal_set_free(struct cal_set *s);
/* The measurement set's keys as the README's Markdown table (`icsim calibrate --keys`). */
void cal_set_keys_markdown(FILE *f);

/* A free parameter. */
struct cal_free {
  const struct icsim_param_desc *d;
  const char *key;
  double lo, hi;    /* search bounds, base units, > 0 */
  double start;     /* base units */
  double value;     /* fitted */
  double sigma_log; /* standard error of log(value), from the curvature; < 0 when not known */
  double range_lo, range_hi;
};

struct cal_point_result {
  double sim;       /* simulated value, same unit as the measurement; NAN when missing */
  double residual;  /* log(sim / measured), or the censored form for a printed zero */
};

struct cal_options {
  const char *platform;   /* as given */
  const char *work;       /* the runs' store (sweep_store.c layout) and the batch files */
  int workers;
  bool slurm;
  const char *partition, *time, *account;
  int max_evals;
  double ridge_correlation; /* |correlation| above which two parameters are reported as a ridge */
  bool quiet;
  bool no_scan; /* start the local search at the start, without the look over the box */
};

struct cal_fit {
  struct cal_free *f;
  int nf;
  int evals;          /* objective evaluations */
  int runs_done;      /* simulations run by this invocation (not found in the store) */
  int runs_reused;    /* found in the store */
  double cost;        /* mean squared log residual over the fitted points at the optimum */
  int nfit;           /* fitted points */
  struct cal_point_result **r; /* [meas][row] at the optimum */
  double *corr;       /* nf x nf correlation of the estimates, NULL when singular */
  char ridge[1024];   /* empty, or what trades off with what */
  const char *stop;   /* why the optimiser stopped */
};

/* Fit F (NF parameters, lo/hi/start set) on S. Returns 0; 1 when the points cannot tell some
 * parameters apart (FIT->ridge says which); -1 with ERR (bad input met while running: a size the
 * workload does not print, a run that fails, interrupted). */
int cal_fit(const struct cal_options *o, struct cal_set *s, struct cal_fit *fit, char *err, size_t errlen);
void cal_fit_free(struct cal_fit *fit, const struct cal_set *s);

/* The value text a fitted V of parameter D is written with (4 significant digits, D's unit). */
void cal_format_value(const struct icsim_param_desc *d, double v, int digits, int direction, char *buf, size_t len);

/* The report: every point (fitted and held out) with its residual, the parameters, the ridge. */
char *cal_report(const struct cal_options *o, const struct cal_set *s, const struct cal_fit *fit,
                 const char *command);
/* The platform text with each fitted value rewritten (origin calibrated, REF, range from the
 * curvature). Returns malloc'ed text or NULL with ERR. */
char *cal_platform_text(const char *platform, const struct cal_fit *fit, const char *ref, char *err, size_t errlen);
/* The ref a fitted value carries: the measurement files and the points it was fitted on. */
char *cal_ref(const struct cal_set *s, const struct cal_fit *fit, const char *report);

#endif
