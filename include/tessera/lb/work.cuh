/**
 * @file tessera/lb/work.cuh
 * @brief Work descriptions for the load-balancing layer: atoms (units of
 *        work), tiles (groups of consecutive atoms) and the end of each tile.
 *
 * As in Osama, Porumbescu and Owens, "A Programming Model for GPU Load
 * Balancing" (PPoPP 2023, section 4.1). Atoms are numbered 0 .. atoms-1 and
 * tiles 0 .. tiles-1 (the counting iterators of the paper); a description
 * supplies the third iterator, the running count of atoms at the end of each
 * tile.
 */
#ifndef TESSERA_LB_WORK_CUH
#define TESSERA_LB_WORK_CUH

#include <cstdint>

namespace tessera {
namespace lb {

/** First i in [lo, hi) with at(i) > key, hi if none (at nondecreasing). */
template <class Index, class At>
__host__ __device__ inline Index upper_bound_index(Index lo, Index hi, Index key, const At &at) {
  while (lo < hi) {
    Index mid = lo + (hi - lo) / 2;
    if (at(mid) <= key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/** First i in [lo, hi) with at(i) >= key, hi if none (at nondecreasing). */
template <class Index, class At>
__host__ __device__ inline Index lower_bound_index(Index lo, Index hi, Index key, const At &at) {
  while (lo < hi) {
    Index mid = lo + (hi - lo) / 2;
    if (at(mid) < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/**
 * A set of tiles over atoms. Ends is any copyable callable with
 * `Index operator()(Index tile) const` on the device: one past the last atom
 * of the tile. Requirements: ends nondecreasing, ends(tiles - 1) == atoms,
 * and the first tile starts at atom 0. The object is passed by value into
 * kernels, so keep it small (pointers and counts).
 */
template <class Index, class Ends> struct work {
  using index_type = Index; /**< The index type of tiles and atoms. */
  Index tiles;              /**< Number of tiles (rows of a CSR matrix). */
  Index atoms;              /**< Number of atoms (nonzeros). */
  Ends ends;                /**< One past the last atom of each tile. */

  /** One past the tile's last atom. */
  __device__ Index tile_end(Index tile) const { return ends(tile); }
  /** The tile's first atom. */
  __device__ Index tile_begin(Index tile) const { return tile > 0 ? ends(tile - 1) : Index(0); }
  /** The tile's number of atoms. */
  __device__ Index tile_size(Index tile) const { return tile_end(tile) - tile_begin(tile); }
  /** The tile holding an atom (0 <= atom < atoms): binary search over the ends. */
  __device__ Index tile_of(Index atom) const { return upper_bound_index<Index>(Index(0), tiles, atom, ends); }
};

/** A work of `tiles` tiles over `atoms` atoms with the given ends. */
template <class Index, class Ends>
__host__ __device__ inline work<Index, Ends> make_work(Index tiles, Index atoms, Ends ends) {
  return work<Index, Ends>{tiles, atoms, ends};
}

/** Ends read from an offsets array (CSR row offsets, CSC column offsets):
 * tile t holds atoms offsets[t] .. offsets[t + 1] - 1; offsets[0] must be 0. */
template <class Index> struct offsets_ends {
  const Index *offsets; /**< tiles + 1 offsets in GPU memory. */
  /** offsets[tile + 1]. */
  __device__ Index operator()(Index tile) const { return __ldg(offsets + tile + 1); }
};

/** Ends found from a sorted array holding each atom's tile (COO row indices):
 * a binary search per call, O(log atoms). */
template <class Index, class TileIndex> struct sorted_tile_ends {
  const TileIndex *tile_of_atom; /**< Each atom's tile, nondecreasing, in GPU memory. */
  Index atoms;                   /**< Number of atoms. */
  /** One past the last atom whose tile is at most `tile`. */
  __device__ Index operator()(Index tile) const {
    const TileIndex *t = tile_of_atom;
    return upper_bound_index<Index>(Index(0), atoms, tile, [t](Index k) { return Index(__ldg(t + k)); });
  }
};

/** Rows of a CSR matrix as tiles, its nonzeros as atoms. */
template <class Index> using csr_work = work<Index, offsets_ends<Index>>;
/** Columns of a CSC matrix as tiles, its nonzeros as atoms. */
template <class Index> using csc_work = work<Index, offsets_ends<Index>>;
/** Rows of a row-sorted COO matrix as tiles, its entries as atoms. */
template <class Index, class TileIndex = int32_t> using coo_work = work<Index, sorted_tile_ends<Index, TileIndex>>;

/** Rows as tiles, nonzeros as atoms; offsets has rows + 1 entries in GPU memory. */
template <class Index>
__host__ __device__ inline csr_work<Index> make_csr_work(Index rows, Index nnz, const Index *offsets) {
  return csr_work<Index>{rows, nnz, offsets_ends<Index>{offsets}};
}

/** Columns as tiles, nonzeros as atoms (the CSR description of the transpose). */
template <class Index>
__host__ __device__ inline csc_work<Index> make_csc_work(Index cols, Index nnz, const Index *offsets) {
  return csc_work<Index>{cols, nnz, offsets_ends<Index>{offsets}};
}

/** COO entries sorted by row: the row of each entry gives the tiles. */
template <class Index, class TileIndex>
__host__ __device__ inline coo_work<Index, TileIndex> make_coo_work(Index rows, Index nnz,
                                                                    const TileIndex *row_of_entry) {
  return coo_work<Index, TileIndex>{rows, nnz, sorted_tile_ends<Index, TileIndex>{row_of_entry, nnz}};
}

} // namespace lb
} // namespace tessera

#endif
