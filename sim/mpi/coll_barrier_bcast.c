/* Barrier (dissemination) and broadcast (binomial tree), as MPICH does them. The message
 * sequences are the ones the validation figures were produced with: keep them. */
#include "coll.h"

/* Round k: send to me + 2^k, receive from me - 2^k; ceil(log2 n) rounds of zero-byte messages. */
int icsim_barrier(const struct icsim_coll *c)
{
  int n = c->n, me = c->me;
  for (int k = 1; k < n; k <<= 1)
    icsim_coll_sendrecv(c, NULL, 0, MPI_BYTE, (me + k) % n, NULL, 0, MPI_BYTE, (me - k + n) % n);
  return MPI_SUCCESS;
}

/* Binomial tree rooted at ROOT: receive from the parent (relative rank minus its lowest set
 * bit), then send to the children from the highest bit down. n - 1 messages. */
int icsim_bcast(const struct icsim_coll *c, void *buf, int count, MPI_Datatype t, int root)
{
  int n = c->n, me = c->me;
  char *b = icsim_coll_addr(buf);
  int rel = (me - root + n) % n, mask = 1;
  while (mask < n) {
    if (rel & mask) {
      icsim_coll_recv(c, b, count, t, (me - mask + n) % n);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (rel + mask < n)
      icsim_coll_send(c, b, count, t, (me + mask) % n);
  return MPI_SUCCESS;
}

int MPI_Barrier(MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Barrier", comm, 0, &c))
    return PMPI_Barrier(comm);
  return icsim_barrier(&c);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Bcast", comm, 0, &c))
    return PMPI_Bcast(buf, count, type, root, comm);
  return icsim_bcast(&c, buf, count, type, root);
}
