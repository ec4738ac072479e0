/**
 * @file
 * @brief Walking one part of a work's path, and finding the tiles cut
 *        between parts.
 *
 * For kernels whose per-tile result is too large to stage in shared memory
 * and join by the layer's segmented scan (SpMM: a row of C): the path is cut
 * by partition_path() (schedule.cuh), each part walked by
 * for_each_tile_of_part(), and the kernel keeps each part's partial tiles
 * itself and joins them in part order (Merrill and Garland's carry-out
 * fix-up, SC'16, with one carry per part), split_tile_run() naming the parts
 * of each cut tile.
 */
#ifndef TESSERA_LB_PART_CUH
#define TESSERA_LB_PART_CUH

#include "schedule.cuh"
#include "work.cuh"

namespace tessera {
namespace lb {

/**
 * @brief Does the path point @p at lie inside a tile, after some of its
 *        atoms? Then the part ending there leaves the tile open and the next
 *        one continues it.
 * @param w the work.
 * @param at a point of its path.
 */
template <class Work>
__device__ inline bool inside_tile(const Work &w, const coordinate<typename Work::index_type> &at) {
  return at.tile < w.tiles && at.atom > w.tile_begin(at.tile);
}

/**
 * @brief The tiles one part touches, in tile order, with the atoms of each
 *        that lie in the part.
 *
 * fn(tile, first_atom, end_atom, closes, whole) for every tile the part
 * closes (closes true; whole says the part also holds the tile's first atom,
 * else the tile began in an earlier part: only the first closed tile can),
 * then for the tile left open at the part's end (closes false) when the part
 * holds some of its atoms, exactly when inside_tile(w, to). Atoms first_atom
 * .. end_atom - 1 lie in the part; tiles without atoms are closed too.
 * @param w the work.
 * @param from the part's start (an entry of partition_path()'s coordinates).
 * @param to the part's end (the next entry).
 * @param fn the callable, as above.
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

/**
 * @brief The parts that share the tile of boundary @p q, for its join.
 *
 * When boundary q (0 < q < parts) lies inside a tile and is the first
 * boundary inside it, the number n >= 1 of consecutive boundaries q .. q + n
 * - 1 inside that tile: parts q - 1 .. q + n - 2 leave it open (their
 * carries, in order) and part q + n - 1 closes it. 0 for any other boundary,
 * so that exactly one thread joins each tile cut between parts.
 * @param w the work.
 * @param coords partition_path()'s parts + 1 coordinates.
 * @param parts the parts.
 * @param q the boundary.
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
