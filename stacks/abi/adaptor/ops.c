/* Place in the adaptor's order (adaptor.h): above the ABI's file (mpich.c, ompi.c); calls it, handles.c, bind.c;
 * only wrappers_ABI.c calls it. */
/* User-defined reduction operations. SMPI calls an op's function with its own datatype handle; the
 * program's function expects its ABI's. MPI_Op_create hands SMPI one of a fixed set of trampolines,
 * each bound to one user function: it converts the datatype handle and calls the user's function.
 * Compiled once per ABI (ABI_HEADER). A slot is reused once its op is freed.
 *
 * The slots are per rank: trampoline k calls the k-th user op of the rank that applies it (an op is
 * applied in the actor of the rank that made it: the layer's collectives reduce in the calling
 * rank). Each rank has its own copy of the program, so its user functions are its own; with one
 * table for the process, 64 slots held 5 ranks' ops of a program making twelve (abi_checks stopped
 * at 18 ranks). Rows are allocated once per actor and never move (MPI_Op_create yields between
 * taking a slot and knowing its SMPI op). */
#include <stdio.h>
#include <stdlib.h>

#include ABI_HEADER

#define NTRAMP 64

typedef void user_fn(void *in, void *inout, int *len, A_Datatype *type);

struct slot {
  user_fn *fn;
  const void *caller; /* the program's code: pointer ABIs hand it its own predefined objects */
  void *op;           /* SMPI's op, once made */
};

static struct abi_rows rows; /* by actor id */

static struct slot *row(void) { return abi_rank_row(&rows, NTRAMP, sizeof(struct slot)); }

static void call(int k, void *in, void *inout, int *len, void **type)
{
  struct slot *t = &row()[k];
  const void *abi_caller_ = t->caller;
  (void)abi_caller_;
  if (!t->fn)
    abi_fail("a user-defined op was applied in a rank that did not create it (slot %d): the adaptor cannot tell "
             "its function",
             k);
  A_Datatype a = abi_h_out(AK_DATATYPE, *type);
  t->fn(in, inout, len, &a);
  if (abi_predef_of_target(AK_DATATYPE, *type) < 0)
    abi_h_release(AK_DATATYPE, a);
}

/* Trampoline tAB sits at index 8 A + B of tramp_fn (T8 and R8 below count in octal), so it serves
 * slot 0AB, an octal literal: with the decimal AB, every trampoline from the ninth on served another
 * slot (t10, at index 8, called slot 10), and a program with more than eight user ops alive at once
 * called a wrong or empty slot (MPICH's redscat2 through the adaptor: a segmentation fault). */
#define T(k) static void t##k(void *in, void *inout, int *len, void **type) { call(0##k, in, inout, len, type); }
#define T8(k) T(k##0) T(k##1) T(k##2) T(k##3) T(k##4) T(k##5) T(k##6) T(k##7)
T8(0) T8(1) T8(2) T8(3) T8(4) T8(5) T8(6) T8(7)
#define R8(k) t##k##0, t##k##1, t##k##2, t##k##3, t##k##4, t##k##5, t##k##6, t##k##7
static void (*const tramp_fn[NTRAMP])(void *, void *, int *, void **) = {R8(0), R8(1), R8(2), R8(3),
                                                                         R8(4), R8(5), R8(6), R8(7)};

void *abi_op_trampoline(void *fn, const void *caller, int fid)
{
  struct slot *t = row();
  for (int k = 0; k < NTRAMP; k++)
    if (!t[k].fn) {
      t[k].fn = (user_fn *)fn;
      t[k].caller = caller;
      t[k].op = NULL;
      return (void *)tramp_fn[k];
    }
  abi_fail("%s: more than %d user-defined ops alive at once in one rank (the adaptor's trampolines); free some "
           "with MPI_Op_free",
           abi_fn_name(fid), NTRAMP);
}

/* After MPI_Op_create: remember which SMPI op the trampoline serves (to release it on MPI_Op_free),
 * or release the trampoline if the creation failed. */
void abi_op_created(void *trampoline, void *op)
{
  struct slot *t = row();
  for (int k = 0; k < NTRAMP; k++)
    if ((void *)tramp_fn[k] == trampoline && t[k].fn && !t[k].op) {
      if (op)
        t[k].op = op;
      else
        t[k].fn = NULL;
      return;
    }
}

void abi_op_freed(void *op)
{
  struct slot *t = row();
  for (int k = 0; k < NTRAMP; k++)
    if (op && t[k].op == op) {
      t[k].fn = NULL;
      t[k].op = NULL;
    }
}
