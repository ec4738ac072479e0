/**
 * @file tessera/lb/schedule.cuh
 * @brief Schedules (how tiles and atoms are mapped onto threads) and the
 *        launch plan: block size, grid, the partition of merge-path and
 *        work-oriented schedules into chunks (searched once, kept in a
 *        workspace), and the records through which blocks that share a tile
 *        combine it.
 */
#ifndef TESSERA_LB_SCHEDULE_CUH
#define TESSERA_LB_SCHEDULE_CUH

#include "work.cuh"

#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>
#include <type_traits>

namespace tessera {
namespace lb {

/** One thread per tile (grid-stride over tiles). */
struct thread_mapped {};
/** One warp per tile (grid-stride over tiles). */
struct warp_mapped {};
/** One block per tile (grid-stride over tiles). */
struct block_mapped {};
/** A group of Size threads (power of two, 1 to 1024) takes Size consecutive
 * tiles; the group's tile ends sit in shared memory (the prefix sum of the
 * tile sizes) and each thread finds the tile of its atoms there by binary
 * search. A tile is never split between groups. */
template <int Size> struct group_mapped {
  static_assert(Size >= 1 && Size <= 1024 && (Size & (Size - 1)) == 0, "group size: a power of two, 1 to 1024");
  static constexpr int size = Size; /**< Threads of a group. */
};
/** Even share of tiles + atoms per thread (Merrill and Garland, "Merge-based
 * parallel sparse matrix-vector multiplication", SC'16): long tiles are split
 * across threads and blocks and combined deterministically. */
struct merge_path {};
/** Even share of atoms per thread; the tile of the first atom is found by
 * binary search. Runs of empty tiles are walked by one thread. */
struct work_oriented {};

namespace detail {
template <class S> struct traits {
  static constexpr int block = 256;
  static constexpr bool chunked = false;
};
template <int G> struct traits<group_mapped<G>> {
  static constexpr int block = G > 256 ? G : 256;
  static constexpr bool chunked = false;
};
template <> struct traits<merge_path> {
  static constexpr int block = 256;
  static constexpr bool chunked = true;
};
template <> struct traits<work_oriented> {
  static constexpr int block = 256;
  static constexpr bool chunked = true;
};
} // namespace detail

/** Threads per block a kernel using schedule S must be launched with. */
template <class S> constexpr int block_threads = detail::traits<S>::block;

/** Shared bytes per staged item: a tile end or result, and an atom value. */
template <class T, class Index>
constexpr int item_bytes = int((sizeof(T) > sizeof(Index) ? sizeof(T) : sizeof(Index)) + sizeof(T));

/** Items (atoms, or tiles + atoms) each of `Threads` threads stages per chunk:
 * about 24 KB of shared memory per block, at most 8 (8 for 4-byte values and
 * indices, 6 for doubles): eight 256-thread blocks fit on an SM. */
template <int Threads, class T, class Index>
constexpr int items_for = 24576 / (Threads * item_bytes<T, Index>) > 8   ? 8
                          : 24576 / (Threads * item_bytes<T, Index>) < 1 ? 1
                                                                         : 24576 / (Threads * item_bytes<T, Index>);

/** Items per thread of a 256-thread block's chunk (merge-path, work-oriented). */
template <class T, class Index> constexpr int items_per_thread = items_for<256, T, Index>;

/** Items per thread of a group-mapped chunk (groups above 256 threads fill
 * their own block). */
template <int G, class T, class Index> constexpr int group_items_per_thread = items_for<(G > 256 ? G : 256), T, Index>;

/** A point on the path through tiles and atoms: `tile` tiles closed and `atom`
 * atoms consumed. */
template <class Index> struct coordinate {
  /** Tiles closed and atoms consumed. */
  /**@{*/
  Index tile, atom;
  /**@}*/
};

/** A block's share of a tile split across blocks (merge-path, work-oriented). */
template <class T> struct record {
  long long tile; /**< The tile; -1: no record. */
  int closes;     /**< The block holds the tile's end. */
  T value;        /**< The block's combination of the tile's atoms. */
};

/** Most blocks a chunked schedule launches: bounds the records that the last
 * block combines (16 per thread). */
template <class S> constexpr int max_chunked_grid = 8 * block_threads<S>;

/**
 * What a kernel needs besides the work: the grid it must be launched with
 * and, for merge-path and work-oriented, the chunk partition and records in
 * the workspace. Plain data, passed by value to the kernel.
 */
template <class Index> struct plan {
  /** The work's numbers of tiles and atoms. */
  /**@{*/
  Index tiles, atoms;
  /**@}*/
  int grid;                  /**< Blocks to launch (0: nothing to do). */
  int block;                 /**< Threads per block (`block_threads<S>`). */
  long long chunks;          /**< Chunked schedules: pieces of the path of chunk_items items. */
  int chunk_items;           /**< Items per chunk (block * items_per_thread). */
  long long per_block;       /**< Chunks per block, consecutive. */
  coordinate<Index> *coords; /**< chunks + 1 start points. */
  void *records;             /**< 2 * grid `record<T>`. */
  unsigned *counter;         /**< Blocks finished; the last one resets it to 0. */
};

namespace detail {
inline size_t align_up(size_t n) { return (n + 255) / 256 * 256; }

template <class S, class T, class Index> long long chunk_count(Index tiles, Index atoms) {
  long long cap = (long long)block_threads<S> * items_per_thread<T, Index>;
  long long items = std::is_same<S, merge_path>::value ? (long long)tiles + (long long)atoms : (long long)atoms;
  long long n = (items + cap - 1) / cap;
  return n > 0 ? n : 1;
}

template <class S, class T, class Index> long long chunked_grid_bound(Index tiles, Index atoms) {
  long long n = chunk_count<S, T, Index>(tiles, atoms);
  return n < max_chunked_grid<S> ? n : max_chunked_grid<S>;
}

/* Start point of each chunk, one thread per chunk boundary. */
template <class S, class Work>
__global__ void search_chunk_starts(Work work, coordinate<typename Work::index_type> *coords, long long chunks,
                                    int chunk_items) {
  using Index = typename Work::index_type;
  long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (c > chunks)
    return;
  coordinate<Index> p;
  if (c == chunks) {
    p = coordinate<Index>{work.tiles, work.atoms};
  } else if (std::is_same<S, merge_path>::value) {
    /* Diagonal search on the merge of tile ends and atom indices; a tile's
     * end goes before the atom of the same index (ties close the tile). */
    long long diagonal = c * chunk_items;
    long long lo = diagonal - (long long)work.atoms, hi = diagonal < (long long)work.tiles ? diagonal : work.tiles;
    if (lo < 0)
      lo = 0;
    while (lo < hi) {
      long long mid = lo + (hi - lo) / 2;
      if ((long long)work.tile_end(Index(mid)) <= diagonal - 1 - mid)
        lo = mid + 1;
      else
        hi = mid;
    }
    p = coordinate<Index>{Index(lo), Index(diagonal - lo)};
  } else {
    /* Work-oriented: a chunk starts at its first atom, in the first tile that
     * ends after it (tiles ending exactly there belong to the chunk before);
     * chunk 0 starts at tile 0, leading empty tiles included. */
    Index atom = Index(c * chunk_items);
    p = coordinate<Index>{c == 0 ? Index(0) : upper_bound_index<Index>(Index(0), work.tiles, atom, work.ends), atom};
  }
  coords[c] = p;
}
} // namespace detail

/** Workspace bytes schedule S needs for a work of this size with values of
 * type T (0 for the mapped schedules). */
template <class S, class T, class Index> size_t workspace_bytes(Index tiles, Index atoms) {
  if constexpr (!detail::traits<S>::chunked) {
    (void)tiles;
    (void)atoms;
    return 0;
  } else {
    long long chunks = detail::chunk_count<S, T, Index>(tiles, atoms);
    long long grid = detail::chunked_grid_bound<S, T, Index>(tiles, atoms);
    return detail::align_up((size_t)(chunks + 1) * sizeof(coordinate<Index>)) +
           detail::align_up((size_t)(2 * grid) * sizeof(record<T>)) + detail::align_up(sizeof(unsigned));
  }
}

/**
 * The plan for a work of `tiles` tiles and `atoms` atoms with schedule S,
 * values of type T, on a device that holds `resident_blocks` blocks of the
 * kernel at once (multiprocessors times cudaOccupancyMaxActiveBlocksPerMultiprocessor;
 * see resident_blocks()). `workspace` (workspace_bytes() bytes, may be NULL
 * for the mapped schedules) is laid out here; prepare() fills it once.
 */
template <class S, class T, class Index>
plan<Index> make_plan(Index tiles, Index atoms, int resident_blocks, void *workspace) {
  plan<Index> p{};
  p.tiles = tiles;
  p.atoms = atoms;
  p.block = block_threads<S>;
  long long resident = resident_blocks > 0 ? resident_blocks : 1;
  long long want = 0;
  if (tiles <= 0)
    return p;
  if constexpr (detail::traits<S>::chunked) {
    p.chunk_items = block_threads<S> * items_per_thread<T, Index>;
    p.chunks = detail::chunk_count<S, T, Index>(tiles, atoms);
    long long bound = detail::chunked_grid_bound<S, T, Index>(tiles, atoms);
    long long grid = resident < bound ? resident : bound;
    /* Equal numbers of chunks per block: no block waits on a last extra chunk. */
    p.per_block = (p.chunks + grid - 1) / grid;
    p.grid = int((p.chunks + p.per_block - 1) / p.per_block);
    if (workspace) {
      char *base = (char *)workspace;
      size_t coords_bytes = detail::align_up((size_t)(p.chunks + 1) * sizeof(coordinate<Index>));
      size_t records_bytes = detail::align_up((size_t)(2 * bound) * sizeof(record<T>));
      p.coords = (coordinate<Index> *)base;
      p.records = base + coords_bytes;
      p.counter = (unsigned *)(base + coords_bytes + records_bytes);
    }
    return p;
  } else {
    if constexpr (std::is_same<S, thread_mapped>::value)
      want = ((long long)tiles + p.block - 1) / p.block;
    else if constexpr (std::is_same<S, warp_mapped>::value)
      want = ((long long)tiles + p.block / 32 - 1) / (p.block / 32);
    else if constexpr (std::is_same<S, block_mapped>::value)
      want = tiles;
    else {
      constexpr int group = S::size;
      long long sets = ((long long)tiles + group - 1) / group;
      long long sets_per_block = p.block / group;
      want = (sets + sets_per_block - 1) / sets_per_block;
    }
    /* Grid-stride beyond a few waves: fewer, longer-lived blocks; except
     * thread-mapped, whose rows each carry a chain of dependent loads (offsets,
     * then indices and values, then x): one tile per thread lets the hardware
     * keep more independent chains in flight (H200, 2-D Laplacian 4096^2:
     * 0.305 ms with the 4-wave cap, 0.303 without; 3-D 256^3: 0.428 -> 0.393 ms). */
    long long cap = std::is_same<S, thread_mapped>::value ? (long long)INT32_MAX : 4 * resident;
    p.grid = int(want < cap ? want : cap);
    return p;
  }
}

/** Blocks of `kernel` (launched with `block` threads and `dynamic_shared`
 * bytes) the current device holds at once. */
template <class Kernel> inline int resident_blocks(Kernel kernel, int block, size_t dynamic_shared = 0) {
  int device = 0, sms = 0, per_sm = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, dynamic_shared) != cudaSuccess)
    return 1;
  return sms * (per_sm > 0 ? per_sm : 1);
}

/**
 * One-time preparation on `stream`: the chunk start points (a binary search
 * per chunk) and the zeroed block counter. A no-op for the mapped schedules.
 * Run it again only if the work's ends change.
 */
template <class S, class Work>
cudaError_t prepare(const plan<typename Work::index_type> &p, const Work &work, cudaStream_t stream) {
  if constexpr (!detail::traits<S>::chunked) {
    (void)p;
    (void)work;
    (void)stream;
    return cudaSuccess;
  } else {
    if (p.grid == 0)
      return cudaSuccess;
    const int threads = 256;
    unsigned blocks = (unsigned)((p.chunks + 1 + threads - 1) / threads);
    detail::search_chunk_starts<S><<<blocks, threads, 0, stream>>>(work, p.coords, p.chunks, p.chunk_items);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
      return e;
    return cudaMemsetAsync(p.counter, 0, sizeof(unsigned), stream);
  }
}

} // namespace lb
} // namespace tessera

#endif
