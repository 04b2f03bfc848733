/* Packets: a message cut into pieces no longer than the channel's hardware buffer, each with the
 * routing header, the header's message part and its packet part, written out as the bytes the
 * adapter would carry, so that the checksums are computed over something real. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "smpo.h"

double smpo_header_bytes(const struct smpo_params *p) { return SMPO_FIELDS * p->header_field_B; }

double smpo_packet_data_bytes(const struct smpo_params *p) { return p->hardware_buffer_B - smpo_header_bytes(p); }

double smpo_packets(const struct smpo_params *p, double b)
{
  return b > 0 ? ceil(b / smpo_packet_data_bytes(p)) : 1;
}

double smpo_wire_bytes(const struct smpo_params *p, double b) { return b + smpo_packets(p, b) * smpo_header_bytes(p); }

/* A field is FW bytes, little-endian; values are 32-bit (wider fields are zero-padded). */
static uint8_t *put(uint8_t *at, size_t fw, uint32_t v)
{
  memset(at, 0, fw);
  for (int i = 0; i < 4; i++)
    at[i] = (uint8_t)(v >> (8 * i));
  return at + fw;
}

static uint32_t get(const uint8_t *at) { return (uint32_t)at[0] | (uint32_t)at[1] << 8 | (uint32_t)at[2] << 16 | (uint32_t)at[3] << 24; }

int smpo_packetise(const struct smpo_params *p, struct smpo_header h, const void *data, size_t len,
                   struct smpo_wire_msg *out)
{
  size_t fw = (size_t)p->header_field_B, hdr = fw * SMPO_HEADER_FIELDS;
  size_t d = (size_t)smpo_packet_data_bytes(p);
  if (len > UINT32_MAX || d == 0)
    return -1;
  size_t np = (size_t)smpo_packets(p, (double)len);
  h.length = (uint32_t)len;
  h.npackets = (uint32_t)np;
  h.msg_checksum = data ? smpo_crc32(0, data, len) : 0;
  if (!data && len) { /* no bytes to carry (a get's target side): the checksum of zeros */
    uint8_t zero[4096] = {0};
    uint32_t c = 0;
    for (size_t left = len; left; left -= left < sizeof zero ? left : sizeof zero)
      c = smpo_crc32(c, zero, left < sizeof zero ? left : sizeof zero);
    h.msg_checksum = c;
  }
  out->h = h;
  out->nbytes = len + np * (hdr + fw);
  out->bytes = malloc(out->nbytes ? out->nbytes : 1);
  out->offset = malloc(np * sizeof *out->offset);
  uint8_t *at = out->bytes;
  const uint8_t *src = data;
  for (size_t k = 0; k < np; k++) {
    size_t n = k + 1 < np ? d : len - k * d;
    out->offset[k] = (size_t)(at - out->bytes);
    uint8_t *start = at;
    at = put(at, fw, h.dst_module);
    at = put(at, fw, h.transit);
    at = put(at, fw, h.sender);
    at = put(at, fw, h.receiver);
    at = put(at, fw, h.msg_id);
    at = put(at, fw, h.type);
    at = put(at, fw, h.length);
    at = put(at, fw, h.npackets);
    at = put(at, fw, h.msg_checksum);
    at = put(at, fw, (uint32_t)k);
    at = put(at, fw, (uint32_t)n);
    if (src)
      memcpy(at, src + k * d, n);
    else
      memset(at, 0, n);
    at += n;
    at = put(at, fw, smpo_crc32(0, start, (size_t)(at - start)));
  }
  if (np) {
    out->h.seq = 0;
    out->h.pkt_length = (uint32_t)(np > 1 ? d : len);
  }
  return 0;
}

uint8_t *smpo_packet(const struct smpo_wire_msg *m, uint32_t k, size_t *len)
{
  size_t end = k + 1 < m->h.npackets ? m->offset[k + 1] : m->nbytes;
  *len = end - m->offset[k];
  return m->bytes + m->offset[k];
}

void smpo_header_read(const struct smpo_params *p, const uint8_t *pkt, struct smpo_header *h)
{
  size_t fw = (size_t)p->header_field_B;
  uint32_t v[SMPO_HEADER_FIELDS];
  for (int i = 0; i < SMPO_HEADER_FIELDS; i++)
    v[i] = get(pkt + i * fw);
  *h = (struct smpo_header){v[SMPO_F_DST_MODULE], v[SMPO_F_TRANSIT], v[SMPO_F_SENDER], v[SMPO_F_RECEIVER],
                            v[SMPO_F_MSG_ID],     v[SMPO_F_TYPE],    v[SMPO_F_LENGTH], v[SMPO_F_NPACKETS],
                            v[SMPO_F_MSG_CHECKSUM], v[SMPO_F_SEQ],   v[SMPO_F_PKT_LENGTH]};
}

void smpo_wire_msg_free(struct smpo_wire_msg *m)
{
  free(m->bytes);
  free(m->offset);
  m->bytes = NULL;
  m->offset = NULL;
}
