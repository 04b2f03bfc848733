/* Parameter descriptor tables: the one source of truth for every model and platform value.
 *
 * A model declares a table of icsim_param_desc rows; YAML files, `--set key=value`,
 * `icsim describe` and the README tables are all driven from it. Each row says the key,
 * type, unit (through the dimension), bounds, default, where the default comes from and a
 * help line, and optionally the field of the model's own struct that receives the value. */
#ifndef ICSIM_PARAMS_H
#define ICSIM_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#include "units.h"

enum icsim_ptype {
  ICSIM_P_QUANTITY, /* double, dimension + unit; field: double */
  ICSIM_P_INT,      /* integer number; field: int */
  ICSIM_P_BOOL,     /* true/false; field: bool */
  ICSIM_P_ENUM,     /* one word of `choices` ("a|b|c"); field: int index */
  ICSIM_P_STRING,   /* free text; field: const char * (owned by the set) */
};

#define ICSIM_NO_FIELD ((size_t)-1)

struct icsim_param_desc {
  const char *key; /* hierarchical kebab-case: "network/link-bandwidth" */
  enum icsim_ptype type;
  enum icsim_dim dim; /* for QUANTITY */
  double min, max;    /* inclusive bounds for QUANTITY and INT, in SI base units */
  const char *def;    /* default as written in YAML; NULL = required */
  const char *origin; /* of the default: paper, spec, calibrated, measured, assumed */
  const char *help;   /* one line, says what the value means physically */
  const char *choices;/* ENUM only: "star|full|ring" */
  size_t field;       /* offsetof() into the model's struct, or ICSIM_NO_FIELD */
};

struct icsim_pval {
  const struct icsim_param_desc *d;
  double num;  /* QUANTITY, INT, BOOL (0/1), ENUM (index) */
  char *text;  /* the value as written */
  char origin[16];
  char *where; /* "default", "file.yaml:12:5", "--set" */
  char *ref;   /* free text reference, may be NULL */
  bool given;  /* not from the default */
  bool inapplicable; /* this platform does not use it (a key of another topology) */
  const struct icsim_param_rule *rule; /* what else decides its range need, or NULL */
  bool switched_off; /* its rule's unused_when holds: the mechanism reading it is off here */
  /* How far the value can plausibly lie (QUANTITY and INT only), in SI base units like num,
   * with what bounds it; the uncertainty sampler draws from it. A --set value replaces the
   * file's and the range no longer applies: range_held says so (the sampler holds it fixed). */
  bool has_range;
  bool range_held;
  double lo, hi;
  char *range_text; /* "[20ns, 200ns]" as written */
  char *range_ref;
};

struct icsim_params {
  struct icsim_pval *v;
  size_t n;
};

/* What decides whether a value needs a range besides its origin, written beside a descriptor
 * table (the positional tables stay as they are): one row per key that has such a property.
 *  - ICSIM_PARAM_CAPACITY: a capacity limit (how many of something a library allows). It moves
 *    no time, only where an error is raised, so the uncertainty analysis has nothing to vary:
 *    it needs no range (one may still be given).
 *  - unused_when: "KEY=VALUE" conditions joined by ", ", all holding at the resolved values: the
 *    mechanism that reads this key is switched off on the platform (no cache level described, one
 *    socket, corruption off), so the value is unused and needs no range. VALUE is written as
 *    KEY's values are (0, 0B, false). */
#define ICSIM_PARAM_CAPACITY 1u
struct icsim_param_rule {
  const char *key;
  unsigned flags;
  const char *unused_when;
};

/* Add every row of TABLE (N rows), each with its default if it has one. */
void icsim_params_add_table(struct icsim_params *ps, const struct icsim_param_desc *table, size_t n);
void icsim_params_free(struct icsim_params *ps);

/* Find a value by exact key, NULL if unknown. */
struct icsim_pval *icsim_params_find(const struct icsim_params *ps, const char *key);
/* Closest known key to KEY (edit distance), for "did you mean" hints. */
const char *icsim_params_closest(const struct icsim_params *ps, const char *key);

/* Attach each of RULES (N rows) to its key's value; a key not in the set is a programming error
 * (abort with its name). Call after the tables are added. */
void icsim_params_add_rules(struct icsim_params *ps, const struct icsim_param_rule *rules, size_t n);
/* Evaluate every attached rule's unused_when at the values as resolved, setting switched_off. A
 * condition that names an unknown key or does not parse is a programming error (abort). */
void icsim_params_mark_switched_off(struct icsim_params *ps);

/* 1 if HELP gives 0 a meaning of its own: a "0" standing alone (not part of 10, 1.0 or l0)
 * followed by "=", ":" or "means" ("0 = not described", "(0: fair sharing)", "0 means off").
 * A default of 0 with such a help line is a sentinel: structure, not a value to vary. */
int icsim_help_gives_zero_meaning(const char *help);

/* Parse TEXT for KEY and store it. ORIGIN may be NULL (then "assumed"), WHERE says where it
 * was written. Returns 0, or -1 with a message (without location) in ERR. */
int icsim_params_set(struct icsim_params *ps, const char *key, const char *text, const char *origin,
                     const char *where, const char *ref, char *err, size_t errlen);
/* Parse TEXT against one descriptor without storing: *NUM gets the value. */
int icsim_param_parse(const struct icsim_param_desc *d, const char *text, double *num, char *err, size_t errlen);

/* Give KEY's value the range [LO_TEXT, HI_TEXT] (written like the value) bounded by RANGE_REF.
 * Refused (-1, message without location in ERR): a type that takes no range (bool, enum,
 * string), an end that does not parse or lies outside the descriptor's bounds, LO > HI, the
 * value outside its own range, no RANGE_REF. */
int icsim_params_set_range(struct icsim_params *ps, const char *key, const char *lo_text, const char *hi_text,
                           const char *range_ref, char *err, size_t errlen);

/* What the uncertainty analysis makes of one value. */
enum icsim_range_need {
  ICSIM_RANGE_NOT_NEEDED, /* paper, spec or measured: a source fixes it (a range is welcome) */
  ICSIM_RANGE_NEEDED,     /* assumed, calibrated or left at the default: it needs a range */
  ICSIM_RANGE_STRUCTURE,  /* bool, enum, text, or a "0 = not described" sentinel: structure, not a value */
  ICSIM_RANGE_HELD,       /* set on the command line: held fixed, whatever its range */
  ICSIM_RANGE_UNUSED,     /* the platform does not use it (a key of another topology, or its rule's
                           * unused_when holds: the mechanism reading it is switched off) */
  ICSIM_RANGE_CAPACITY,   /* a capacity limit (rule flag ICSIM_PARAM_CAPACITY): moves no time */
};
enum icsim_range_need icsim_param_range_need(const struct icsim_pval *pv);
/* 1 if PV takes part in sampling: it has a range that applies (not held by --set). */
int icsim_param_sampled(const struct icsim_pval *pv);

/* First key (in table order) that has no default and was not given, or NULL. */
const char *icsim_params_missing(const struct icsim_params *ps);

/* Accessors (abort with a programming error if KEY is not in the set). */
double icsim_param_num(const struct icsim_params *ps, const char *key);
const char *icsim_param_text(const struct icsim_params *ps, const char *key);

/* Copy every value whose descriptor is one of TABLE's rows into the struct at BASE. */
void icsim_params_fill(const struct icsim_params *ps, const struct icsim_param_desc *table, size_t n, void *base);

/* Edit distance, exported for the tests and other "did you mean" users. */
size_t icsim_edit_distance(const char *a, const char *b);

/* Split a "k=v;k=v" list into a NULL-terminated array (free with free() on [0] and the array). */
char **icsim_split_sets(const char *sets, int *n);

#endif
