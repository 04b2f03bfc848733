/* icsim uncertainty: how far a prediction can move when its ranged parameters move (issue 36).
 *
 * uq_design.c  the ranged parameters of a platform, how each is sampled (uniform, or log-uniform
 *              over a range wider than a decade), Morris trajectories, the Saltelli design over
 *              Sobol' quasi-random points (GSL's gsl_qrng_sobol) and the one-at-a-time swings
 * uq_stats.c   quantiles, Morris elementary effects (mu*, sigma), Sobol' indices (first order:
 *              Saltelli 2010; total: Jansen 1999)
 * uq_report.c  uncertainty.csv, effects.csv, the tornado plots (gnuplot), summary.md
 * cmd_uncertainty.c  the command: a run or a validation case, its points through the sweep
 *              engine (sweep.h: resumable, -j N locally, --slurm), the figures of each point
 *
 * Everything here is pure and deterministic for a given seed: the same inputs give the same
 * bytes in every output. */
#ifndef ICSIM_UQ_H
#define ICSIM_UQ_H

#include <stddef.h>

#include "params.h"

/* Above this HI/LO a range spans more than a decade: it is sampled log-uniformly, so that each
 * decade gets its share (uniform sampling would put 90% of the points in the top decade). */
#define UQ_LOG_RATIO 10.0

struct uq_param {
  const char *key; /* points into the platform's descriptor table */
  enum icsim_ptype type;
  enum icsim_dim dim;
  double nominal, lo, hi; /* SI base units */
  int log;                /* sampled log-uniformly */
  const char *range_text, *range_ref;
  int plat; /* which platform of the study it belongs to */
};

/* The parameters of PS that are sampled (a range that applies: icsim_param_sampled), in table
 * order. Returns the count; *OUT is malloc'ed. */
int uq_params_from(const struct icsim_params *ps, struct uq_param **out);
/* The value at unit coordinate U in [0, 1] of P's range (uniform or log-uniform; whole numbers
 * rounded for INT). */
double uq_value_at(const struct uq_param *p, double u);
/* "KEY=VALUE" for --set, the value exact in SI base units ("network/link-latency=2.5e-07s"). */
void uq_set_text(const struct uq_param *p, double v, char *buf, size_t len);

/* One design: NRUNS rows of K unit coordinates (or a value held at the nominal: NAN). */
struct uq_design {
  int nruns, k;
  double *u; /* nruns x k, row-major; NAN = the parameter's nominal value */
};
void uq_design_free(struct uq_design *d);

/* Morris screening: R trajectories of K+1 points each on a LEVELS-level grid (levels even,
 * jumps of levels/(2(levels-1))), one parameter moved per step, in random order and direction;
 * the random choices from SEED. */
int uq_morris_design(int k, int r, int levels, unsigned long seed, struct uq_design *d);
/* Elementary effects of trajectory design D (uq_morris_design) on outputs Y (one per row, NAN
 * = missing): per parameter mu* (mean |EE|) and sigma (standard deviation of EE), EE scaled by
 * the output per whole range (so that effects of parameters with different units compare). */
void uq_morris_effects(const struct uq_design *d, const double *y, double *mu_star, double *sigma);

/* Saltelli's design for first-order and total Sobol' indices of M parameters (SEL: their
 * indices among K): N rows of A, N rows of B, then for each selected i N rows of A with column
 * i from B. A and B are the Sobol' sequence in 2M dimensions (M <= UQ_SOBOL_MAX_M), shifted by
 * a random vector from SEED (Cranley-Patterson rotation), the first point (all zeros) skipped.
 * Parameters not selected stay at their nominal value (NAN). */
#define UQ_SOBOL_MAX_M 20 /* gsl_qrng_sobol goes to 40 dimensions: A and B take two each */
int uq_saltelli_design(int k, const int *sel, int m, int n, unsigned long seed, struct uq_design *d);
/* N quasi-random points over all K parameters, shifted by a random vector from SEED: Sobol'
 * (gsl_qrng_sobol) up to 40 parameters, reverse Halton (gsl_qrng_reversehalton, up to 1229)
 * beyond. Returns 0, or -1 when K is beyond both. */
int uq_sample_design(int k, int n, unsigned long seed, struct uq_design *d);
/* From the outputs Y of a Saltelli design: first-order S1 and total ST per selected parameter
 * (Saltelli et al. 2010, eq. (b) of table 2, and Jansen 1999), the variance from A and B. */
void uq_sobol_indices(const double *y, int n, int m, double *s1, double *st);

/* Q-th quantile (0..1) of the N finite values of X, linear between order statistics
 * (Hyndman and Fan's type 7); NAN when there are none. X is not modified. */
double uq_quantile(const double *x, int n, double q);

/* ---- the study (uq_study.c): runs through the sweep engine, figures from each run's output ---- */

#include <stdbool.h>

#include "sweep.h"

/* One program run of the study (a run has one, a validation case one per metric entry). */
struct uq_entry {
  char *platform; /* absolute path */
  char *program;  /* a workload's name or an absolute path */
  char *args;     /* separated by spaces, may be "" */
  char *place;
  int ranks;
  char **sets; /* fixed KEY=VALUE (the user's, the case's, the entry's), held at their values */
  int nsets;
  /* how its figures come out of its output (validate/engine/extract.c) */
  char *metric;    /* figures are METRIC at each x */
  int column;      /* rows "x v1 v2 ...": this column */
  char *xfmt;      /* x from columns ("m={1},cf={2}"), or NULL: column 1 */
  char *field;     /* a "Name = value" line instead of rows (x is xfmt), or NULL */
  double scale;
  int plat;        /* index of its platform in the study's list */
};

/* One output figure: a metric at one x. */
struct uq_figure {
  int entry;
  char metric[64], x[64];
  double point;               /* the run at every file value */
  double median, p05, p95;    /* over the sample */
  int nsamples;
  double *mu_star, *sigma;    /* per parameter (Morris), scaled per whole range */
  double *s1, *st;            /* per parameter, NAN when not estimated */
  double *swing_lo, *swing_hi; /* the figure with the parameter at its low / high end, NAN if not run */
  double *corr;               /* Spearman's rank correlation with the sample (unscreened studies) */
  int top[3];                 /* parameters that move it most, -1 past the last */
};

struct uq_opts {
  const char *dir;        /* output folder; the runs are kept in DIR/runs */
  long budget;            /* sample points at most (a point runs every entry once) */
  unsigned long seed;
  int trajectories;       /* Morris r */
  int jobs;
  bool slurm;
  struct slurm_opts so;
  bool quiet;             /* no phase lines (validate prints its own) */
};

struct uq_study {
  struct uq_entry *e;
  int ne;
  char **platforms; /* distinct platform files of the entries */
  int nplat;
  struct uq_param *p;
  int k;
  char (*pname)[160]; /* display names: the key, with @platform when the study has several */
  int *selected, m;   /* the parameters the Sobol' phase varies, most important first */
  struct uq_figure *f;
  int nf;
  /* what the budget bought, for the summary */
  int runs_nominal, runs_morris, runs_sobol, runs_swing, sobol_n;
  bool indices; /* Sobol' indices estimated (else the sample is for the interval only) */
  bool dry_run;  /* --slurm --dry-run stopped the study after writing its first job scripts */
  bool screened; /* the Morris phase ran (else one sample over every parameter, ranked by correlation) */
  char note[512];
};

/* Points of a study unless --budget says otherwise. */
#define UQ_DEFAULT_BUDGET 200
/* ... and of each case's study in `validate --uncertainty` (validate/README.md: what it buys, and
 * why every case then fits in an hour on a 2-core machine). */
#define UQ_VALIDATE_BUDGET 24

/* The entries of validation case Y (one per metric entry, as validate runs them), the user's
 * sets last. Returns the count; free with uq_entries_free. */
int uq_entries_from_case(const struct icsim_yfile *y, const char *root, char **user_sets, int nuser,
                         struct uq_entry **out, char *err, size_t errlen);
void uq_entries_free(struct uq_entry *e, int n);

/* Load the ranged parameters of every entry's platform (with the entry's fixed sets), then run
 * the study: nominal, Morris, Sobol', swings. Returns 0, 1 when some points are not done (failed,
 * or submitted to Slurm without waiting), -1 with ERR, -2 with ERR when no parameter has a range
 * that applies (nothing to sample), -3 with ERR saying what --slurm --dry-run wrote. */
int uq_study_run(struct uq_study *st, const struct uq_opts *o, char *err, size_t errlen);
void uq_study_free(struct uq_study *st);
/* uq_report.c: DIR/uncertainty.csv, effects.csv, parameters.csv, summary.md and the tornado plots. */
int uq_report_write(const struct uq_study *st, const struct uq_opts *o, char *err, size_t errlen);
/* A figure's file-safe name for its tornado plot ("osu_bw_MBps-4096"). */
void uq_figure_slug(const struct uq_figure *f, char *buf, size_t len);

#endif
