/* The abi call layer: the adaptor's cost per converted call (abi.h gives the model). */
#include "abi.h"

#include <stdlib.h>
#include <string.h>

#include "platform.h"

#define F(field) offsetof(struct abi_params, field)

static const struct icsim_param_desc abi_params_table[] = {
    {"abi/library-call", ICSIM_P_QUANTITY, ICSIM_DIM_TIME, 0, 1e-6, "4.1ns", "paper",
     "one shared-library function call: the adaptor's call into the target MPI through its function table "
     "(Sumimoto et al., component costs)", NULL, F(library_call_s)},
    {"abi/local-call", ICSIM_P_QUANTITY, ICSIM_DIM_TIME, 0, 1e-6, "3.1ns", "paper",
     "one local function call: each conversion (a handle, a status, the return code) is a helper call "
     "(Sumimoto et al., component costs)", NULL, F(local_call_s)},
    {"abi/if", ICSIM_P_QUANTITY, ICSIM_DIM_TIME, 0, 1e-6, "0.27ns", "paper",
     "one if statement: (17.3 - 4.6) ns / 47 between the paper's 1-if and 48-if conversions", NULL, F(if_s)},
    {"abi/datatype-ifs", ICSIM_P_INT, ICSIM_DIM_NONE, 1, 1000, "48", "assumed",
     "comparisons to find a predefined datatype: the paper's 48 predefined datatypes compared in turn, "
     "its 17.3 ns case; 1 = a table lookup (this adaptor's own design)", NULL, F(datatype_ifs)},
    {"abi/reference-clock", ICSIM_P_QUANTITY, ICSIM_DIM_FREQUENCY, 1e6, 1e11, "3.8GHz", "paper",
     "clock of the Xeon the component costs were measured on; costs scale by this / nodes/clock", NULL,
     F(reference_clock_Hz)},
};

struct abi_state {
  struct abi_params p;
  double scale; /* reference clock / the platform's core clock */
  double calls, untabled_calls, cpu_s;
};

static int by_name(const void *key, const void *row)
{
  return strcmp(key, ((const struct abi_call_cost *)row)->name);
}

const struct abi_call_cost *abi_call_find(const char *name)
{
  return bsearch(name, abi_call_costs, abi_ncall_costs, sizeof abi_call_costs[0], by_name);
}

double abi_call_seconds(const struct abi_params *p, const struct abi_call_cost *c)
{
  return p->library_call_s + c->conversions * (p->local_call_s + p->if_s) +
         c->datatypes * (p->datatype_ifs - 1) * p->if_s;
}

static int abi_create(void **state, const struct icsim_params *ps, const struct icsim_platform *pf, char *err,
                      size_t errlen)
{
  (void)err;
  (void)errlen;
  struct abi_state *s = calloc(1, sizeof *s);
  icsim_params_fill(ps, abi_params_table, sizeof abi_params_table / sizeof abi_params_table[0], &s->p);
  s->scale = s->p.reference_clock_Hz / pf->p.clock_Hz;
  *state = s;
  return 0;
}

static void abi_destroy(void *state) { free(state); }

/* A call the adaptor does not translate never reaches here (it stops the run); a layer call of a
 * program built with icsimcc on a platform that lists `abi` (a what-if) may: it is charged as a call
 * converting its return code only. */
static double abi_call_cpu(void *state, const char *name)
{
  struct abi_state *s = state;
  const struct abi_call_cost *c = abi_call_find(name);
  struct abi_call_cost plain = {name, 1, 0};
  if (!c) {
    c = &plain;
    s->untabled_calls++;
  }
  double t = abi_call_seconds(&s->p, c) * s->scale;
  s->calls++;
  s->cpu_s += t;
  return t;
}

static size_t abi_counters(void *state, struct icsim_counter *out, size_t max)
{
  struct abi_state *s = state;
  struct icsim_counter c[] = {{"converted_calls", "calls", s->calls},
                              {"untabled_calls", "calls", s->untabled_calls},
                              {"adaptor_cpu", "s", s->cpu_s}};
  return icsim_counters_out(out, max, c, sizeof c / sizeof c[0]);
}

const struct icsim_stack_ops abi_stack = {
    .name = "abi",
    .summary = "MPI-Adaptor: binaries built against MPICH or Open MPI run unchanged; its cost per converted call",
    .params = abi_params_table,
    .nparams = sizeof abi_params_table / sizeof abi_params_table[0],
    .role = ICSIM_ROLE_CALLS,
    .wire_mode = ICSIM_WIRE_NONE,
    .create = abi_create,
    .destroy = abi_destroy,
    .call_cpu = abi_call_cpu,
    .counters = abi_counters,
    .launch = abi_launch,
};
ICSIM_REGISTER_STACK(abi_stack)
