/* The queue system of one process, as the paper describes it: a local pool of received packets
 * (the main queue) with its control functions, the auxiliary ready queue of message ids whose
 * last packet has arrived (it exists because messages have a variable number of packets), the
 * ready-message counter, receive and a non-blocking poll. Data may wait in the pool until it is
 * asked for; the pool's bytes are counted. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "smpo.h"

static struct smpo_qmsg *find(const struct smpo_queue *q, uint32_t sender, uint32_t id, struct smpo_qmsg ***link)
{
  struct smpo_qmsg **l = (struct smpo_qmsg **)&q->pool;
  for (; *l; l = &(*l)->next)
    if ((*l)->sender == sender && (*l)->msg_id == id) {
      if (link)
        *link = l;
      return *l;
    }
  return NULL;
}

int smpo_queue_add_packet(struct smpo_queue *q, const struct smpo_params *p, const uint8_t *pkt, size_t len, int tag,
                          uint32_t *stored, uint32_t *computed)
{
  if (!smpo_packet_checksum_ok(p, pkt, len, stored, computed))
    return SMPO_EPACKET; /* recomputed and compared before anything is stored */
  struct smpo_header h;
  smpo_header_read(p, pkt, &h);
  struct smpo_qmsg *m = find(q, h.sender, h.msg_id, NULL);
  if (!m) {
    m = calloc(1, sizeof *m);
    m->sender = h.sender;
    m->msg_id = h.msg_id;
    m->type = h.type;
    m->length = h.length;
    m->npackets = h.npackets;
    m->tag = tag;
    m->slot = calloc(h.npackets ? h.npackets : 1, sizeof *m->slot);
    m->slot_len = calloc(h.npackets ? h.npackets : 1, sizeof *m->slot_len);
    m->next = q->pool;
    q->pool = m;
  }
  if (h.seq >= m->npackets || m->slot[h.seq]) /* a packet the message has no room for */
    return SMPO_EPACKET;
  m->slot[h.seq] = malloc(len);
  memcpy(m->slot[h.seq], pkt, len);
  m->slot_len[h.seq] = len;
  q->bytes += (double)len;
  if (q->bytes > q->max_bytes)
    q->max_bytes = q->bytes;
  q->packets_added++;
  if (++m->arrived == m->npackets) { /* the last packet: its message id goes to the ready queue */
    if (q->nready == q->ready_cap) {
      q->ready_cap = q->ready_cap ? 2 * q->ready_cap : 16;
      q->ready = realloc(q->ready, (size_t)q->ready_cap * sizeof *q->ready);
    }
    q->ready[q->nready++] = (struct smpo_ready){m->sender, m->msg_id};
    q->ready_count++;
    if (q->nready > q->max_ready)
      q->max_ready = q->nready;
  }
  return SMPO_OK;
}

const struct smpo_qmsg *smpo_queue_lookup(const struct smpo_queue *q, long sender, double length, int tag)
{
  for (int i = 0; i < q->nready; i++) {
    const struct smpo_qmsg *m = find(q, q->ready[i].sender, q->ready[i].msg_id, NULL);
    if (m && (sender < 0 || m->sender == (uint32_t)sender) && (length < 0 || m->length == length) &&
        (tag == INT_MIN || m->tag == tag))
      return m;
  }
  return NULL;
}

int smpo_queue_poll(const struct smpo_queue *q, long sender, double length, int tag)
{
  return smpo_queue_lookup(q, sender, length, tag) != NULL;
}

static void free_msg(struct smpo_queue *q, struct smpo_qmsg *m)
{
  for (uint32_t k = 0; k < m->npackets; k++) {
    q->bytes -= (double)m->slot_len[k];
    free(m->slot[k]);
  }
  free(m->slot);
  free(m->slot_len);
  free(m);
}

int smpo_queue_receive(struct smpo_queue *q, const struct smpo_params *p, uint32_t sender, uint32_t msg_id, void *out,
                       uint32_t *stored, uint32_t *computed)
{
  int r = 0;
  while (r < q->nready && !(q->ready[r].sender == sender && q->ready[r].msg_id == msg_id))
    r++;
  struct smpo_qmsg **link, *m = find(q, sender, msg_id, &link);
  if (r == q->nready || !m)
    return SMPO_ENOTREADY;
  memmove(&q->ready[r], &q->ready[r + 1], (size_t)(q->nready - r - 1) * sizeof *q->ready);
  q->nready--;
  q->ready_count--;
  *link = m->next;
  /* extract: the whole message's checksum over its packets' data in sequence, then (only if it
   * holds) the data handed up */
  size_t fw = (size_t)p->header_field_B, hdr = fw * SMPO_HEADER_FIELDS;
  uint32_t crc = 0;
  struct smpo_header h = {0};
  for (uint32_t k = 0; k < m->npackets; k++) {
    smpo_header_read(p, m->slot[k], &h);
    crc = smpo_crc32(crc, m->slot[k] + hdr, m->slot_len[k] - hdr - fw);
  }
  *stored = h.msg_checksum;
  *computed = crc;
  uint8_t *to = out;
  for (uint32_t k = 0; to && *stored == *computed && k < m->npackets; k++) {
    size_t n = m->slot_len[k] - hdr - fw;
    memcpy(to, m->slot[k] + hdr, n);
    to += n;
  }
  free_msg(q, m);
  q->messages_received++;
  return *stored == *computed ? SMPO_OK : SMPO_EMESSAGE;
}

int smpo_queue_held(const struct smpo_queue *q)
{
  int n = 0;
  for (const struct smpo_qmsg *m = q->pool; m; m = m->next)
    n++;
  return n;
}

void smpo_queue_free(struct smpo_queue *q)
{
  while (q->pool) {
    struct smpo_qmsg *m = q->pool;
    q->pool = m->next;
    free_msg(q, m);
  }
  free(q->ready);
  memset(q, 0, sizeof *q);
}
