/* Walking one part of a work's path (partition_path() in schedule.cuh): the
 * tiles the part touches and the atoms of each that lie in it. For kernels
 * whose per-tile result is too large to stage in shared memory and join by
 * the layer's segmented scan (SpMM: a row of C), the kernel keeps each part's
 * partial tiles itself and joins them in part order (Merrill and Garland's
 * carry-out fix-up, SC'16, with one carry per part). */
#ifndef TESSERA_LB_PART_CUH
#define TESSERA_LB_PART_CUH

#include "schedule.cuh"
#include "work.cuh"

namespace tessera {
namespace lb {

/* Does the path point `at` lie inside a tile, after some of its atoms? Then
 * the part ending there leaves the tile open and the next one continues it. */
template <class Work>
__device__ inline bool inside_tile(const Work &w, const coordinate<typename Work::index_type> &at) {
  return at.tile < w.tiles && at.atom > w.tile_begin(at.tile);
}

/*
 * For the part from `from` to `to` (consecutive entries of partition_path()'s
 * coordinates), in tile order:
 *   fn(tile, first_atom, end_atom, true, whole)  for every tile the part
 *       closes; whole says the part also holds the tile's first atom (else
 *       the tile began in an earlier part: only the first closed tile can);
 *   fn(tile, first_atom, end_atom, false, whole) last, for the tile left
 *       open at the part's end, when the part holds some of its atoms
 *       (exactly when inside_tile(w, to)).
 * Atoms first_atom .. end_atom - 1 of the tile lie in the part. Tiles
 * without atoms are closed too (first_atom == end_atom).
 */
template <class Work, class Fn>
__device__ void for_each_tile_of_part(const Work &w, coordinate<typename Work::index_type> from,
                                      coordinate<typename Work::index_type> to, const Fn &fn) {
  using Index = typename Work::index_type;
  for (Index t = from.tile; t < to.tile; ++t) {
    const Index begin = w.tile_begin(t);
    const Index first = from.atom > begin ? from.atom : begin;
    fn(t, first, w.tile_end(t), true, first == begin);
  }
  if (inside_tile(w, to)) {
    const Index begin = w.tile_begin(to.tile);
    const Index first = from.atom > begin ? from.atom : begin;
    fn(to.tile, first, to.atom, false, first == begin);
  }
}

/*
 * The parts that share tile coords[q].tile, for the join: when boundary q
 * (0 < q < parts) lies inside a tile and is the first boundary inside it,
 * returns the number n >= 1 of consecutive boundaries q .. q + n - 1 inside
 * that tile: parts q - 1 .. q + n - 2 leave it open (their carries, in
 * order), part q + n - 1 closes it. Returns 0 for any other boundary, so
 * that exactly one thread joins each tile split between parts.
 */
template <class Work>
__device__ long long split_tile_run(const Work &w, const coordinate<typename Work::index_type> *coords, long long parts,
                                    long long q) {
  if (q <= 0 || q >= parts || !inside_tile(w, coords[q]))
    return 0;
  const auto tile = coords[q].tile;
  const coordinate<typename Work::index_type> before = coords[q - 1];
  if (before.tile == tile && inside_tile(w, before))
    return 0; /* an earlier boundary lies inside the same tile */
  long long n = 1;
  while (q + n < parts && coords[q + n].tile == tile && inside_tile(w, coords[q + n]))
    n++;
  return n;
}

} // namespace lb
} // namespace tessera

#endif
