/* Place in the adaptor's order (adaptor.h): beside ops.c, above the ABI's file (mpich.c, ompi.c);
 * calls handles.c, values.c, bind.c; only wrappers_ABI.c calls it. */
/* The program's own error handlers (MPI_Comm_create_errhandler, MPI_Win_create_errhandler). SMPI
 * calls a handler with its own communicator or window handle and its own error code; the
 * program's function expects its ABI's, so SMPI is given one of a fixed set of trampolines, each
 * bound to one of the program's functions: it converts the handle and the code, then calls it.
 * Compiled once per ABI (ABI_HEADER).
 *
 * As for ops (ops.c), the slots are per rank: each rank has its own copy of the program, so its
 * functions are its own. A slot is never reused: MPI lets a handler outlive MPI_Errhandler_free
 * while a communicator still holds it, so a reused slot could call another function. */
#include <stdio.h>
#include <stdlib.h>

#include ABI_HEADER

#define NTRAMP 32

typedef void user_eh(void *handle, int *code, ...);

struct slot {
  user_eh *fn;
  const void *caller; /* the program's code: pointer ABIs hand it its own predefined objects */
  int kind;           /* AK_COMM or AK_WIN */
};

static struct abi_rows rows; /* by actor id */

static struct slot *row(void) { return abi_rank_row(&rows, NTRAMP, sizeof(struct slot)); }

static void call(int k, void **handle, int *code)
{
  struct slot *t = &row()[k];
  const void *abi_caller_ = t->caller;
  (void)abi_caller_;
  if (!t->fn)
    abi_fail("an error handler was called in a rank that did not create it (slot %d): the adaptor cannot tell its "
             "function",
             k);
  int c = abi_rc_out(*code);
  if (t->kind == AK_WIN) {
    A_Win w = abi_h_out(AK_WIN, *handle);
    t->fn(&w, &c);
    if (abi_predef_of_target(AK_WIN, *handle) < 0)
      abi_h_release(AK_WIN, w);
  } else {
    A_Comm m = abi_h_out(AK_COMM, *handle);
    t->fn(&m, &c);
    if (abi_predef_of_target(AK_COMM, *handle) < 0)
      abi_h_release(AK_COMM, m);
  }
}

/* Trampoline eAB serves slot 0AB (an octal literal, as in ops.c). */
#define E(k) static void e##k(void **h, int *code, ...) { call(0##k, h, code); }
#define E8(k) E(k##0) E(k##1) E(k##2) E(k##3) E(k##4) E(k##5) E(k##6) E(k##7)
E8(0) E8(1) E8(2) E8(3)
#define R8(k) e##k##0, e##k##1, e##k##2, e##k##3, e##k##4, e##k##5, e##k##6, e##k##7
static void (*const tramp_eh[NTRAMP])(void **, int *, ...) = {R8(0), R8(1), R8(2), R8(3)};

void *abi_errh_trampoline(void *fn, const void *caller, int kind, int fid)
{
  struct slot *t = row();
  for (int k = 0; k < NTRAMP; k++)
    if (!t[k].fn) {
      t[k] = (struct slot){(user_eh *)fn, caller, kind};
      return (void *)tramp_eh[k];
    }
  abi_fail("%s: more than %d error handlers made in one rank (the adaptor's trampolines)", abi_fn_name(fid), NTRAMP);
}
