/* Place in the adaptor's order (adaptor.h): libmpichfort.so.12, above all of libmpich.so.12; calls its entry
 * points and tables; only fortran_mpich.c calls it. */
/* MPICH's Fortran entry points (libmpichfort.so.12): the generated ones (fortran_mpich.c) call the C
 * adaptor in libmpich.so.12 with the arguments dereferenced; here, the special addresses and the
 * entry points that are not a plain translation. MPICH's mpif.h: COMMON /MPIPRIV1/ MPI_BOTTOM,
 * MPI_IN_PLACE, MPI_STATUS_IGNORE(5); COMMON /MPIPRIV2/ MPI_STATUSES_IGNORE(5,1), MPI_ERRCODES_IGNORE;
 * COMMON /MPIFCMB5/ MPI_UNWEIGHTED, /MPIFCMB9/ MPI_WEIGHTS_EMPTY.
 * A program has its own copy of the common blocks: they are found by name in the program that
 * called. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

#include "fortran.h"

/* The common blocks MPICH's Fortran programs define; this library defines them too, for programs
 * that name none. */
int mpipriv1_[7], mpipriv2_[6], mpiprivc_[2], mpifcmb5_[1], mpifcmb9_[1];

struct blocks {
  const void *base;
  const char *priv1, *priv2, *unweighted, *weights_empty;
};

static const struct blocks *blocks_of(const void *caller)
{
  static struct blocks *b;
  static size_t n;
  Dl_info di;
  if (!caller || !dladdr(caller, &di))
    return NULL;
  for (size_t i = 0; i < n; i++)
    if (b[i].base == di.dli_fbase)
      return &b[i];
  b = realloc(b, (n + 1) * sizeof *b);
  struct blocks *x = &b[n++];
  x->base = di.dli_fbase;
  void *h = dlopen(di.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  x->priv1 = h ? dlsym(h, "mpipriv1_") : NULL;
  x->priv2 = h ? dlsym(h, "mpipriv2_") : NULL;
  x->unweighted = h ? dlsym(h, "mpifcmb5_") : NULL;
  x->weights_empty = h ? dlsym(h, "mpifcmb9_") : NULL;
  if (h)
    dlclose(h);
  if (!x->priv1)
    x->priv1 = (const char *)mpipriv1_;
  if (!x->priv2)
    x->priv2 = (const char *)mpipriv2_;
  if (!x->unweighted)
    x->unweighted = (const char *)mpifcmb5_;
  if (!x->weights_empty)
    x->weights_empty = (const char *)mpifcmb9_;
  return x;
}

void *abi_f_buf(void *p, const void *caller)
{
  const struct blocks *b = blocks_of(caller);
  if (b && p == b->priv1)
    return (void *)abi_a_bottom;
  if (b && p == b->priv1 + sizeof(int))
    return (void *)abi_a_in_place;
  return p;
}

/* MPI_UNWEIGHTED is COMMON /MPIFCMB5/, MPI_WEIGHTS_EMPTY COMMON /MPIFCMB9/ in MPICH's mpif.h: given
 * as the C library's values, which the C entry point translates. */
const int *abi_f_weights(void *p, const void *caller)
{
  extern int *const MPI_UNWEIGHTED, *const MPI_WEIGHTS_EMPTY;
  const struct blocks *b = blocks_of(caller);
  if (b && p == b->unweighted)
    return MPI_UNWEIGHTED;
  if (b && p == b->weights_empty)
    return MPI_WEIGHTS_EMPTY;
  return p;
}

A_Status *abi_f_status(void *p, const void *caller)
{
  const struct blocks *b = blocks_of(caller);
  return b && p == b->priv1 + 2 * sizeof(int) ? (A_Status *)abi_a_status_ignore : (A_Status *)p;
}

A_Status *abi_f_statuses(void *p, const void *caller)
{
  const struct blocks *b = blocks_of(caller);
  return b && p == b->priv2 ? (A_Status *)abi_a_status_ignore : (A_Status *)p;
}

int MPI_Init(int *argc, char ***argv);
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
double MPI_Wtime(void);
double MPI_Wtick(void);

void mpi_init_(int *ierr) { *ierr = MPI_Init(NULL, NULL); }
void mpi_init_thread_(int *required, int *provided, int *ierr) { *ierr = MPI_Init_thread(NULL, NULL, *required, provided); }
double mpi_wtime_(void) { return MPI_Wtime(); }
double mpi_wtick_(void) { return MPI_Wtick(); }
