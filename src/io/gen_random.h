/* Counter-based random numbers for the matrix generators: every draw is a
 * pure function of (seed, stream, counter), so each row or edge is generated
 * on its own, by any thread, and the matrix does not depend on the number of
 * threads. */
#ifndef TESSERA_GEN_RANDOM_H
#define TESSERA_GEN_RANDOM_H

#include "tessera/core.h"

#include <stdint.h>

/* The splitmix64 output function (Steele, Lea and Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014): a bijective 64-bit mixer. */
static inline uint64_t tsi_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

#define TSI_GOLDEN_GAMMA 0x9e3779b97f4a7c15ULL

/* Key of one independent sequence: (seed, stream) picks the purpose (row
 * lengths, columns, values...), `index` the row or edge. */
static inline uint64_t tsi_random_key(uint64_t seed, uint64_t stream, uint64_t index) {
  uint64_t h = tsi_mix64(seed + TSI_GOLDEN_GAMMA * (stream + 1));
  return tsi_mix64(h ^ tsi_mix64(index + 0x632be59bd9b4e019ULL));
}

/* Draw number k of the sequence `key`: splitmix64 started at `key`. */
static inline uint64_t tsi_random_draw(uint64_t key, uint64_t k) { return tsi_mix64(key + TSI_GOLDEN_GAMMA * (k + 1)); }

/* Uniform in [0, 1) from the top 53 bits. */
static inline double tsi_uniform01(uint64_t x) { return (double)(x >> 11) * (1.0 / 9007199254740992.0); }

/* Uniform in (0, 1]. */
static inline double tsi_uniform_open0(uint64_t x) { return (double)((x >> 11) + 1) * (1.0 / 9007199254740992.0); }

/* Uniform in [-1, 1). */
static inline double tsi_uniform_signed(uint64_t x) { return (double)(x >> 11) * (2.0 / 9007199254740992.0) - 1.0; }

/* Integer in [0, n) for n <= 2^32 by a multiply-shift of the top 32 bits
 * (Lemire 2019, without rejection: the bias n / 2^32 is below the
 * generators' needs). */
static inline uint64_t tsi_uniform_below(uint64_t x, uint64_t n) { return ((x >> 32) * n) >> 32; }

/* A seeded bijection of [0, n): a 4-round Feistel network on the smallest
 * even number of bits covering n, with cycle walking (Black and Rogaway,
 * "Ciphers with arbitrary finite domains", 2002) to stay inside [0, n).
 * Random permutations of rows or vertices then cost O(1) per element, with no
 * sort and no shared state. */
typedef struct tsi_permutation {
  uint64_t n;
  int half_bits;
  uint64_t half_mask;
  uint64_t round_keys[4];
} tsi_permutation;

static inline void tsi_permutation_init(tsi_permutation *p, uint64_t n, uint64_t seed, uint64_t stream) {
  int bits = 2;
  while (bits < 64 && (1ULL << bits) < n)
    bits += 2;
  p->n = n;
  p->half_bits = bits / 2;
  p->half_mask = (1ULL << p->half_bits) - 1;
  for (int r = 0; r < 4; r++)
    p->round_keys[r] = tsi_random_key(seed, stream, (uint64_t)r);
}

static inline uint64_t tsi_permutation_apply(const tsi_permutation *p, uint64_t x) {
  do {
    uint64_t left = x >> p->half_bits, right = x & p->half_mask;
    for (int r = 0; r < 4; r++) {
      uint64_t next = left ^ (tsi_mix64(right ^ p->round_keys[r]) & p->half_mask);
      left = right;
      right = next;
    }
    x = (left << p->half_bits) | right;
  } while (x >= p->n);
  return x;
}

/* Store v as the dtype's value k of `values`. */
static inline void tsi_store_value(void *values, ts_dtype dtype, int64_t k, double v) {
  if (dtype == TS_FLOAT32)
    ((float *)values)[k] = (float)v;
  else
    ((double *)values)[k] = v;
}

#endif /* TESSERA_GEN_RANDOM_H */
