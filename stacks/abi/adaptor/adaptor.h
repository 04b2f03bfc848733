/* The MPI-Adaptor (Sumimoto et al.): what its parts share. A program built against another MPI
 * (MPICH's libmpich.so.12, Open MPI's libmpi.so.40) finds this library under that name; each MPI
 * call converts its arguments from the program's ABI to SMPI's, calls the icsim MPI layer through a
 * function table filled with dlopen/dlsym at the first call (bind.c), and converts the results back.
 *
 * Its files, bottom first: each calls (or names the data of) only files listed before it, never
 * one after (tests abi_call_circles_* check the objects with tests/call_circles.py):
 *   tables_ABI.c, target_tables.c  generated data: the ABI's predefined handles, constants, error
 *                   codes, function names and table; SMPI's side of them
 *   bind.c          loading the layer, filling the function table, the per-call bracket, failure
 *                   reports, call names, the calling actor; `main` and the libc functions a
 *                   program reaches here (clocks, exit, getopt)
 *   handles.c       handles created at run time (translation tables, slots reused on free) and
 *                   the predefined handles' SMPI counterparts
 *   values.c        ranks, tags, statuses' fields, error codes, buffers
 *   mpich.c, ompi.c how each ABI spells a handle and a status (abi_mpich.h, abi_ompi.h)
 *   ops.c, fint_ABI.c  user-defined ops' trampolines; MPI_<Kind>_c2f and _f2c
 *   wrappers_ABI.c  generated from spec/functions.spec by gen_adaptor.py: the MPI_* entry points
 * libmpichfort.so.12 lies above all of libmpich.so.12: fortran.c, then fortran_mpich.c (generated).
 * loader.c is a library of its own and calls none of them.
 * Headers: abi_consts.h (generated) < adaptor.h < abi_mpich.h, abi_ompi.h < fortran.h.
 * This file never includes an mpi.h: the program's and SMPI's would clash. */
#ifndef ICSIM_ABI_ADAPTOR_H
#define ICSIM_ABI_ADAPTOR_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "abi_consts.h"

/* Scalar types are the same in every x86-64 ABI the adaptor serves and in SMPI. */
typedef ptrdiff_t MPI_Aint;
typedef long long MPI_Count;
typedef long long MPI_Offset;

enum abi_kind { AK_COMM, AK_DATATYPE, AK_GROUP, AK_OP, AK_REQUEST, AK_ERRHANDLER, AK_INFO, AK_WIN, AK_MESSAGE, AK_NKINDS };

/* SMPI 3.32's MPI_Status (smpi.h): count is in bytes. */
typedef struct {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int count;
  int cancelled;
} t_status;

#define T_SUCCESS 0
#define ABI_NO_TARGET ((void *)(intptr_t)-7) /* a predefined handle SMPI does not have */
#define ABI_NO_CONST INT_MIN                 /* a constant SMPI does not have */

/* A predefined handle of the program's ABI: its kind, name and value (integer or object address). */
struct abi_predef {
  int kind;
  const char *name;
  intptr_t value;
  const char *object; /* pointer ABIs: the data object the value is the address of */
};

/* The declarations below follow the files' order, bottom first. */

/* tables_ABI.c, generated per ABI: data. */
extern const struct abi_predef abi_predefs[];
extern const int abi_npredefs;
extern const int abi_a_const[ABI_NCONST];
extern const intptr_t abi_a_in_place, abi_a_bottom, abi_a_status_ignore;
extern const int abi_a_lastcode; /* the ABI's MPI_ERR_LASTCODE */
extern const int abi_err_out[];
extern const int abi_nerr;
extern const char *const abi_fn_names[];
extern const int abi_nfn;
extern void *abi_fn[]; /* filled by bind.c */

/* target_tables.c, generated once: SMPI's side. */
void *abi_target_predef(const char *name);
extern const int abi_t_const[ABI_NCONST];
extern const int *const abi_t_unweighted, *const abi_t_weights_empty;
extern const char *const abi_err_names[];
extern const int abi_t_nerr;

/* bind.c */
void abi_enter(int fid);
void abi_leave(void);
void abi_untranslated(const char *name) __attribute__((noreturn));
void abi_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
const char *abi_fn_name(int fid);
void *abi_target_world(void);
void *abi_target_self(void);
/* The function table's index of NAME (a translated function), -1 if none. */
int abi_fn_index(const char *name);
/* The size of an SMPI-side communicator; the calling rank's neighbours in its topology. */
int abi_t_comm_size(void *tcomm);
int abi_t_neighbours(void *tcomm, int out);
/* The calling actor's SimGrid id (a rank's): per-rank state of the adaptor is kept by it. */
long abi_actor(void);
/* Per-rank tables (bind.c): this rank's row of N slots of SIZE bytes (ops.c, errhandlers.c). */
struct abi_rows {
  void **row;
  size_t n;
};
void *abi_rank_row(struct abi_rows *rows, size_t n, size_t size);

/* handles.c: tables of handles created at run time, one per kind, slots reused on free. */
int abi_dyn_new(int kind, void *target);
void *abi_dyn_get(int kind, int slot, int fid, intptr_t shown);
void abi_dyn_free(int kind, int slot);
/* Predefined handles: SMPI's counterpart of abi_predefs[i] (NULL handles included), and the
 * predefined index whose SMPI counterpart is T (or -1). */
void *abi_predef_target(int i, int fid);
int abi_predef_of_target(int kind, void *t);
const char *abi_kind_name(int kind);

/* values.c */
int abi_rank_in(int r);
int abi_rank_out(int r);
int abi_tag_in(int t);
int abi_undef_in(int v);
int abi_undef_out(int v);
int abi_keyval_in(int k);
int abi_keyval_out(int k);
void abi_win_attr_out(int key, void *val);
int abi_assert_in(int a);
int abi_lock_in(int l);
int abi_typeclass_in(int c);
int abi_topo_out(int t);
int abi_order_in(int o);
int abi_compare_out(int c);
int abi_rc_out(int rc);
int abi_err_in(int e);
/* MPI_LASTUSEDCODE's value (VAL: where the pointer to it was stored) in the program's numbering. */
void *abi_lastused_out(void *val);
void *abi_buf_in(const void *buf);
t_status *abi_t_status_ignore(void);
t_status *abi_scratch_status(int n);
void **abi_scratch_ptrs(int n);
void abi_scratch_free(void *p);
/* A copy of N ranks with the ABI's MPI_PROC_NULL translated (for abi_scratch_free). */
int *abi_rank_arr_in(const int *r, int n);

/* mpich.c / ompi.c (abi_mpich.h, abi_ompi.h declare the rest): a weight array of a graph call, or
 * the ABI's MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY (SMPI's instead); MPICH's are addresses it exports,
 * Open MPI's small integers. */
const int *abi_weights_in(const int *w);

/* ops.c: user-defined ops (SMPI calls a trampoline that converts the datatype). */
void *abi_op_trampoline(void *fn, const void *caller, int fid);
void abi_op_created(void *trampoline, void *op);
void abi_op_freed(void *op);

/* errhandlers.c: the program's error handlers (SMPI calls a trampoline that converts the
 * communicator or window and the code); KIND: AK_COMM or AK_WIN. */
void *abi_errh_trampoline(void *fn, const void *caller, int kind, int fid);

/* attrs.c: the program's attribute callbacks. SMPI is given one function per kind of object and
 * of callback (or its own null and dup functions for the ABI's), which finds the program's function
 * by the key it is called with; abi_attr_key_made records it once SMPI has made the key. */
void *abi_attr_fn_in(void *fn, int kind, int copy);
void abi_attr_key_made(int key, void *copy_fn, void *delete_fn, int kind, const void *caller);

#endif
