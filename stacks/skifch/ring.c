/* A channel's receive ring: SIZE bytes made of separately mapped pages of PAGE bytes. Messages are
 * written at the tail in arrival order and freed from the head in the same order (RecvComp), so
 * the space held is one contiguous run modulo SIZE; a message is returned as the pieces it
 * occupies in each page it touches (zero-copy), at most 3 when it is at most 2 pages long. */
#include "skifch_model.h"

int skifch_ring_place(struct skifch_ring *r, size_t len, struct skifch_piece out[SKIFCH_MAX_PIECES])
{
  size_t at = (r->head + r->used) % r->size;
  int n = 0;
  r->used += len;
  while (len > 0 && n < SKIFCH_MAX_PIECES) {
    size_t off = at % r->page, take = r->page - off;
    if (take > len)
      take = len;
    out[n++] = (struct skifch_piece){at / r->page, off, take};
    len -= take;
    at = (at + take) % r->size;
  }
  return len == 0 ? n : -1;
}

void skifch_ring_release(struct skifch_ring *r, size_t len)
{
  r->head = (r->head + len) % r->size;
  r->used -= len;
}
