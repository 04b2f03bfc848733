/* User-defined reduction operations. SMPI calls an op's function with its own datatype handle; the
 * program's function expects its ABI's. MPI_Op_create hands SMPI one of a fixed set of trampolines,
 * each bound to one user function: it converts the datatype handle and calls the user's function.
 * Compiled once per ABI (ABI_HEADER). A slot is reused once its op is freed. */
#include <stdio.h>

#include ABI_HEADER

#define NTRAMP 64

typedef void user_fn(void *in, void *inout, int *len, A_Datatype *type);

static struct {
  user_fn *fn;
  const void *caller; /* the program's code: pointer ABIs hand it its own predefined objects */
  void *op;           /* SMPI's op, once made */
} tramp[NTRAMP];

static void call(int k, void *in, void *inout, int *len, void **type)
{
  const void *abi_caller_ = tramp[k].caller;
  (void)abi_caller_;
  A_Datatype a = abi_h_out(AK_DATATYPE, *type);
  tramp[k].fn(in, inout, len, &a);
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
  for (int k = 0; k < NTRAMP; k++)
    if (!tramp[k].fn) {
      tramp[k].fn = (user_fn *)fn;
      tramp[k].caller = caller;
      tramp[k].op = NULL;
      return (void *)tramp_fn[k];
    }
  abi_fail("%s: more than %d user-defined ops alive at once (the adaptor's trampolines); free some with MPI_Op_free",
           abi_fn_name(fid), NTRAMP);
}

/* After MPI_Op_create: remember which SMPI op the trampoline serves (to release it on MPI_Op_free),
 * or release the trampoline if the creation failed. */
void abi_op_created(void *trampoline, void *op)
{
  for (int k = 0; k < NTRAMP; k++)
    if ((void *)tramp_fn[k] == trampoline && !tramp[k].op) {
      if (op)
        tramp[k].op = op;
      else
        tramp[k].fn = NULL;
      return;
    }
}

void abi_op_freed(void *op)
{
  for (int k = 0; k < NTRAMP; k++)
    if (op && tramp[k].op == op) {
      tramp[k].fn = NULL;
      tramp[k].op = NULL;
    }
}
