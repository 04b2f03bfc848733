/* MPI's unexpected-message queue as MPI over SkifCh keeps it: SkifCh delivers messages of all
 * senders interleaved and without tags, so MPI appends each arrival and every receive searches
 * from the oldest. The model counts the entries a take examines; their cost is per entry. */
#include <stdlib.h>
#include <string.h>

#include "skifch_model.h"

void skifch_match_push(struct skifch_match_queue *q, int src, int tag)
{
  if (q->n == q->cap) {
    q->cap = q->cap ? 2 * q->cap : 16;
    q->e = realloc(q->e, q->cap * sizeof *q->e);
    if (!q->e)
      abort();
  }
  q->e[q->n++] = (struct skifch_match_entry){src, tag};
}

size_t skifch_match_take(struct skifch_match_queue *q, int src, int tag)
{
  for (size_t i = 0; i < q->n; i++)
    if (q->e[i].src == src && q->e[i].tag == tag) {
      memmove(&q->e[i], &q->e[i + 1], (q->n - i - 1) * sizeof *q->e);
      q->n--;
      return i + 1;
    }
  return q->n;
}
