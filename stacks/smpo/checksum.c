/* Checksums for real: the paper's packet and message checksums, computed over the simulated
 * packets' bytes (the model's copy of the user's data), and the corruption injection that tests
 * them. The paper does not name the checksum function: CRC-32 (IEEE 802.3 polynomial, reflected)
 * is assumed, because its error-detection guarantees are known: with the checksum as the packet's
 * trailer, every error of up to 3 bits in a packet of up to 11,450 bytes is detected (Hamming
 * distance 4, Koopman 2002), which is why smpo/hardware-buffer stops at 8 KiB and
 * smpo/corrupt-bits at 3. */
#include <math.h>
#include <string.h>

#include "smpo.h"

/* Slicing-by-8 tables: table[0] is the classic byte table, table[k] advances k more zero bytes. */
static uint32_t table[8][256];

__attribute__((constructor)) static void crc_tables(void)
{
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++)
      c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; i++)
    for (int k = 1; k < 8; k++)
      table[k][i] = (table[k - 1][i] >> 8) ^ table[0][table[k - 1][i] & 0xff];
}

/* CRC-32 of LEN bytes continuing from CRC (start with 0): the same value as zlib's crc32(). */
uint32_t smpo_crc32(uint32_t crc, const void *data, size_t len)
{
  const uint8_t *b = data;
  crc = ~crc;
  while (len >= 8) {
    uint32_t lo = crc ^ ((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
    uint32_t hi = (uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;
    crc = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^ table[5][(lo >> 16) & 0xff] ^ table[4][lo >> 24] ^
          table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^ table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
    b += 8;
    len -= 8;
  }
  while (len--)
    crc = table[0][(crc ^ *b++) & 0xff] ^ (crc >> 8);
  return ~crc;
}

/* The trailer is one header field: the CRC little-endian in its first 4 bytes, zeros after. */
int smpo_packet_checksum_ok(const struct smpo_params *p, const uint8_t *pkt, size_t len, uint32_t *stored,
                            uint32_t *computed)
{
  size_t fw = (size_t)p->header_field_B;
  if (len < fw * SMPO_FIELDS) {
    *stored = *computed = 0;
    return 0;
  }
  const uint8_t *t = pkt + len - fw;
  *stored = (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24;
  *computed = smpo_crc32(0, pkt, len - fw);
  int pad_clean = 1;
  for (size_t i = 4; i < fw; i++)
    pad_clean &= t[i] == 0;
  return *stored == *computed && pad_clean;
}

double smpo_checksum_s(const struct smpo_params *p, double clock_Hz, double b)
{
  return b * p->checksum_cycles_per_B / clock_Hz;
}

/* splitmix64: a well-mixed hash of the packet's identity, so that the choice of damaged packets
 * does not depend on the order in which the simulation delivers them. */
static uint64_t mix(uint64_t x)
{
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

static uint64_t packet_hash(const struct smpo_params *p, uint32_t sender, uint32_t id, uint32_t seq)
{
  return mix(mix(mix((uint64_t)(uint32_t)p->corrupt_seed) ^ sender) ^ ((uint64_t)id << 32 | seq));
}

int smpo_corrupt_decide(const struct smpo_params *p, uint32_t sender, uint32_t id, uint32_t seq)
{
  if (p->corrupt_packet_rate <= 0)
    return 0;
  double u = (double)(packet_hash(p, sender, id, seq) >> 11) * 0x1.0p-53; /* uniform in [0, 1) */
  return u < p->corrupt_packet_rate;
}

void smpo_corrupt_flip(const struct smpo_params *p, uint32_t sender, uint32_t id, uint32_t seq, uint8_t *pkt,
                       size_t len)
{
  uint64_t h = packet_hash(p, sender, id, seq), bits = (uint64_t)len * 8, chosen[3];
  int n = 0;
  while (n < p->corrupt_bits && (uint64_t)n < bits) {
    h = mix(h);
    uint64_t bit = h % bits;
    int dup = 0;
    for (int i = 0; i < n; i++)
      dup |= chosen[i] == bit;
    if (dup)
      continue; /* flipping one bit twice would undo it */
    chosen[n++] = bit;
    pkt[bit / 8] ^= (uint8_t)(1u << (bit % 8));
  }
}
