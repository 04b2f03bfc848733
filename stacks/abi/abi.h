/* abi: the MPI-Adaptor as a call layer (Sumimoto et al., papers/mpi-adaptor-sumimoto.md).
 *
 * The adaptor (adaptor/, built as libmpich.so.12 and libmpi.so.40) lets a binary built against
 * Debian's MPICH or Open MPI run unchanged; this model charges what the adaptor itself costs per
 * converted call, from its mechanisms and the paper's component costs:
 *
 *   t(call) = [ library-call                       the call through the function table
 *             + n_conv x (local-call + if)         each conversion: a helper call with its check
 *             + n_dtype x (datatype-ifs - 1) x if  finding a predefined datatype among the others ]
 *             x reference-clock / nodes/clock
 *
 * n_conv counts the handles the call converts (arrays once), its statuses and its return code;
 * n_dtype its datatype arguments; both come from the generated table spec/functions.spec makes
 * (abi_calls.c). Omitted: checks of special ranks and tags (MPI_ANY_SOURCE, ...: a few ifs), the
 * per-element cost of handle arrays, translation-table growth. */
#ifndef ICSIM_ABI_H
#define ICSIM_ABI_H

#include <stddef.h>

#include "stack.h"

struct abi_params {
  double library_call_s; /* shared-library function call */
  double local_call_s;   /* local function call */
  double if_s;           /* one if statement */
  int datatype_ifs;      /* comparisons to find a predefined datatype (1 = a table lookup) */
  double reference_clock_Hz; /* clock the component costs were measured at */
};

/* What one translated MPI function converts (generated from spec/functions.spec). */
struct abi_call_cost {
  const char *name;
  int conversions; /* handles (arrays count once), statuses, the return code */
  int datatypes;   /* datatype arguments among them */
};
extern const struct abi_call_cost abi_call_costs[];
extern const size_t abi_ncall_costs;

/* The table's row for NAME, NULL if the adaptor does not translate it. */
const struct abi_call_cost *abi_call_find(const char *name);
/* Seconds one call converting C costs at the reference clock. */
double abi_call_seconds(const struct abi_params *p, const struct abi_call_cost *c);

extern const struct icsim_stack_ops abi_stack;

/* The contract's launch hook (launch.c): a binary built against MPICH or Open MPI, itself or
 * through its libraries, is the adaptor's. */
int abi_launch(const char *program, struct icsim_launch *l, char *err, size_t errlen);

#endif
