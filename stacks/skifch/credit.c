/* What a sending adapter knows of a receiving channel's ring: the bytes it has sent there and has
 * not yet seen freed. Freed space travels back as credit packets, so the sender sees it one credit
 * latency after the receiver's RecvComp; until then its Sends are cut or refused. */
#include <stdlib.h>

#include "skifch_model.h"

void skifch_credits_init(struct skifch_credits *c, size_t limit) { *c = (struct skifch_credits){.limit = limit}; }

size_t skifch_credits_available(struct skifch_credits *c, double now)
{
  while (c->first < c->nret && c->ret[c->first].at <= now)
    c->committed -= c->ret[c->first++].bytes;
  if (c->first == c->nret)
    c->first = c->nret = 0;
  return c->committed < c->limit ? c->limit - c->committed : 0;
}

void skifch_credits_take(struct skifch_credits *c, size_t bytes) { c->committed += bytes; }

void skifch_credits_return(struct skifch_credits *c, size_t bytes, double now, double latency)
{
  if (c->nret == c->capret) {
    c->capret = c->capret ? 2 * c->capret : 16;
    c->ret = realloc(c->ret, c->capret * sizeof *c->ret);
    if (!c->ret)
      abort();
  }
  c->ret[c->nret++] = (struct skifch_credit_return){now + latency, bytes};
}

void skifch_credits_free(struct skifch_credits *c) { free(c->ret); }

size_t skifch_send_size(size_t wanted, size_t max_message, size_t credits, int free_slots)
{
  if (free_slots <= 0)
    return 0;
  size_t n = wanted < max_message ? wanted : max_message;
  return n < credits ? n : credits;
}
