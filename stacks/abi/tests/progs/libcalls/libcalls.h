/* The two libraries of the "MPI through a library" test (test_abi_libs): the program calls only
 * outer_run; every MPI call is in the libraries. */
#ifndef LIBCALLS_H
#define LIBCALLS_H
int inner_setup(void);
long inner_ring(long value);
int inner_rank(void);
int inner_calls(void);
int inner_tuning(void);
int libcalls_tuning(void);
void inner_done(void);
int outer_run(int *argc, char ***argv, int rounds);
#endif
