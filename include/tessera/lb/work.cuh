/**
 * @file
 * @brief Work descriptions for the load-balancing layer.
 *
 * Atoms (units of work), tiles (groups of consecutive atoms) and the end of
 * each tile, as in Osama, Porumbescu and Owens, "A Programming Model for GPU
 * Load Balancing" (PPoPP 2023, section 4.1). Atoms are numbered 0 ..
 * atoms-1 and tiles 0 .. tiles-1 (the counting iterators of the paper); a
 * description supplies the third iterator, the running count of atoms at
 * the end of each tile.
 */
#ifndef TESSERA_LB_WORK_CUH
#define TESSERA_LB_WORK_CUH

#include <cstdint>

namespace tessera {
namespace lb {

/**
 * @brief First i in [lo, hi) with at(i) > key, hi if none (binary search).
 * @tparam Index an integer type.
 * @tparam At a callable `Index at(Index i)`, nondecreasing in i.
 * @param lo first position searched.
 * @param hi one past the last position searched.
 * @param key the value compared.
 * @param at the sequence searched.
 */
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

/**
 * @brief First i in [lo, hi) with at(i) >= key, hi if none (binary search).
 * @tparam Index an integer type.
 * @tparam At a callable `Index at(Index i)`, nondecreasing in i.
 * @param lo first position searched.
 * @param hi one past the last position searched.
 * @param key the value compared.
 * @param at the sequence searched.
 */
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
 * @brief A set of tiles over atoms.
 *
 * Requirements: ends nondecreasing, ends(tiles - 1) == atoms, and the first
 * tile starts at atom 0. The object is passed by value into kernels, so keep
 * it small (pointers and counts).
 * @tparam Index the integer type of tile and atom numbers.
 * @tparam Ends any copyable callable with `Index operator()(Index tile) const`
 * on the device: one past the last atom of the tile.
 */
template <class Index, class Ends> struct work {
  using index_type = Index; /**< The integer type of tile and atom numbers. */
  Index tiles;              /**< Number of tiles (rows of a CSR matrix). */
  Index atoms;              /**< Number of atoms (nonzeros). */
  Ends ends;                /**< One past the last atom of each tile. */

  /**
   * @brief One past the last atom of a tile.
   * @param tile the tile, 0 <= tile < tiles.
   */
  __device__ Index tile_end(Index tile) const { return ends(tile); }
  /**
   * @brief The first atom of a tile.
   * @param tile the tile, 0 <= tile < tiles.
   */
  __device__ Index tile_begin(Index tile) const { return tile > 0 ? ends(tile - 1) : Index(0); }
  /**
   * @brief Atoms of a tile.
   * @param tile the tile, 0 <= tile < tiles.
   */
  __device__ Index tile_size(Index tile) const { return tile_end(tile) - tile_begin(tile); }
  /**
   * @brief The tile holding an atom: binary search over the ends.
   * @param atom the atom, 0 <= atom < atoms.
   */
  __device__ Index tile_of(Index atom) const { return upper_bound_index<Index>(Index(0), tiles, atom, ends); }
};

/**
 * @brief A work description of any format from its tile ends.
 * @tparam Index the integer type of tile and atom numbers.
 * @tparam Ends the callable giving one past the last atom of a tile.
 * @param tiles number of tiles.
 * @param atoms number of atoms.
 * @param ends one past the last atom of each tile (see work).
 */
template <class Index, class Ends>
__host__ __device__ inline work<Index, Ends> make_work(Index tiles, Index atoms, Ends ends) {
  return work<Index, Ends>{tiles, atoms, ends};
}

/**
 * @brief Tile ends read from an offsets array (CSR row offsets, CSC column
 * offsets): tile t holds atoms offsets[t] .. offsets[t + 1] - 1.
 * @tparam Index the integer type of the offsets.
 */
template <class Index> struct offsets_ends {
  const Index *offsets; /**< tiles + 1 offsets in GPU memory, offsets[0] == 0. */
  /**
   * @brief One past the last atom of a tile.
   * @param tile the tile.
   */
  __device__ Index operator()(Index tile) const { return __ldg(offsets + tile + 1); }
};

/**
 * @brief Tile ends found from a sorted array holding each atom's tile (COO
 * row indices): a binary search per call, O(log atoms).
 * @tparam Index the integer type of tile and atom numbers.
 * @tparam TileIndex the integer type of the stored tile numbers.
 */
template <class Index, class TileIndex> struct sorted_tile_ends {
  const TileIndex *tile_of_atom; /**< The tile of each atom, nondecreasing, in GPU memory. */
  Index atoms;                   /**< Number of atoms. */
  /**
   * @brief One past the last atom of a tile.
   * @param tile the tile.
   */
  __device__ Index operator()(Index tile) const {
    const TileIndex *t = tile_of_atom;
    return upper_bound_index<Index>(Index(0), atoms, tile, [t](Index k) { return Index(__ldg(t + k)); });
  }
};

/**
 * @brief Rows of a CSR matrix as tiles, its nonzeros as atoms.
 * @tparam Index the integer type of the row offsets.
 */
template <class Index> using csr_work = work<Index, offsets_ends<Index>>;
/**
 * @brief Columns of a CSC matrix as tiles, its nonzeros as atoms.
 * @tparam Index the integer type of the column offsets.
 */
template <class Index> using csc_work = work<Index, offsets_ends<Index>>;
/**
 * @brief Rows of a row-sorted COO matrix as tiles, its entries as atoms.
 * @tparam Index the integer type of tile and atom numbers.
 * @tparam TileIndex the integer type of the stored row indices.
 */
template <class Index, class TileIndex = int32_t> using coo_work = work<Index, sorted_tile_ends<Index, TileIndex>>;

/**
 * @brief Rows as tiles, nonzeros as atoms.
 * @tparam Index the integer type of the offsets.
 * @param rows number of rows.
 * @param nnz number of nonzeros.
 * @param offsets rows + 1 row offsets in GPU memory.
 */
template <class Index>
__host__ __device__ inline csr_work<Index> make_csr_work(Index rows, Index nnz, const Index *offsets) {
  return csr_work<Index>{rows, nnz, offsets_ends<Index>{offsets}};
}

/**
 * @brief Columns as tiles, nonzeros as atoms (the CSR description of the
 * transpose).
 * @tparam Index the integer type of the offsets.
 * @param cols number of columns.
 * @param nnz number of nonzeros.
 * @param offsets cols + 1 column offsets in GPU memory.
 */
template <class Index>
__host__ __device__ inline csc_work<Index> make_csc_work(Index cols, Index nnz, const Index *offsets) {
  return csc_work<Index>{cols, nnz, offsets_ends<Index>{offsets}};
}

/**
 * @brief COO entries sorted by row: the row of each entry gives the tiles.
 * @tparam Index the integer type of tile and atom numbers.
 * @tparam TileIndex the integer type of the row indices.
 * @param rows number of rows.
 * @param nnz number of entries.
 * @param row_of_entry the row of each entry, nondecreasing, in GPU memory.
 */
template <class Index, class TileIndex>
__host__ __device__ inline coo_work<Index, TileIndex> make_coo_work(Index rows, Index nnz,
                                                                    const TileIndex *row_of_entry) {
  return coo_work<Index, TileIndex>{rows, nnz, sorted_tile_ends<Index, TileIndex>{row_of_entry, nnz}};
}

} // namespace lb
} // namespace tessera

#endif
