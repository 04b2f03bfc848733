/* Attributes of MPI_COMM_SELF are deleted at the start of MPI_Finalize, last set first, while MPI
 * still works (MPI 3.1, 8.7.1): the at-exit hook of tools and libraries. Each rank sets NKEYS
 * attributes on MPI_COMM_SELF (one deleted again before the end, one set twice), frees the keyvals
 * at once (the attributes keep them), and calls MPI_Finalize. Each delete function checks that every
 * later-set attribute was deleted before it and no earlier one, and that MPI is not finalized; the
 * last one to run (the first set) adds up every rank's failures with an MPI_Allreduce, a collective
 * inside MPI_Finalize, and rank 0 prints the verdict. No verdict at all means the callbacks never
 * ran. */
#include <mpi.h>
#include <stdio.h>

#define NKEYS 24
#define DROPPED 5 /* deleted by the program before the end: its callback runs then, once */

static int called[NKEYS], order_errors, rank, at_end;

static int at_exit(MPI_Comm comm, int key, void *value, void *extra)
{
  (void)key, (void)extra;
  int me = (int)(long)value, finalized = 1;
  called[me]++;
  if (!at_end)
    return MPI_SUCCESS; /* a value replaced or deleted by the program, checked in main */
  MPI_Finalized(&finalized);
  if (finalized || comm != MPI_COMM_SELF || called[me] != 1)
    order_errors++;
  for (int i = 0; i < NKEYS; i++)
    if (i != DROPPED && (i > me) != (called[i] == 1) && i != me)
      order_errors++; /* later ones done, earlier ones not yet */
  if (me == 0) {
    int total = -1; /* stays so if MPI no longer works here */
    int rc = MPI_Allreduce(&order_errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
      if (rc == MPI_SUCCESS && total == 0)
        printf("No Errors\n");
      else
        printf("Found %d errors (delete callbacks out of order, repeated, or after finalize; MPI_Allreduce "
               "returned %d)\n", total, rc);
      fflush(stdout);
    }
  }
  return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int keys[NKEYS];
  for (int i = 0; i < NKEYS; i++)
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_exit, &keys[i], NULL);
  /* set in another order than the keyvals were made: the order of setting is what counts. Attribute
   * I (its value) goes on keyval (7 I) mod NKEYS; keys[] is renumbered by attribute. */
  int by_attr[NKEYS];
  for (int i = 0; i < NKEYS; i++) {
    by_attr[i] = keys[(7 * i) % NKEYS];
    MPI_Comm_set_attr(MPI_COMM_SELF, by_attr[i], (void *)(long)i);
  }
  for (int i = 0; i < NKEYS; i++)
    keys[i] = by_attr[i];
  MPI_Comm_set_attr(MPI_COMM_SELF, keys[3], (void *)(long)3); /* again: replaces, keeps its place */
  /* replacing a value calls the delete function on the old one */
  if (called[3] != 1)
    order_errors++;
  called[3] = 0;
  MPI_Comm_delete_attr(MPI_COMM_SELF, keys[DROPPED]);
  if (called[DROPPED] != 1)
    order_errors++;
  for (int i = 0; i < NKEYS; i++)
    MPI_Comm_free_keyval(&keys[i]);
  at_end = 1;
  MPI_Finalize();
  return 0;
}
