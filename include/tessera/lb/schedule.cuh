/**
 * @file
 * @brief Schedules and the launch plan of the load-balancing layer.
 *
 * Schedules say how tiles and atoms are mapped onto threads; the plan holds
 * the block size, the grid, the partition of merge-path and work-oriented
 * schedules into chunks (searched once, kept in a workspace), and the
 * records through which blocks that share a tile combine it.
 */
#ifndef TESSERA_LB_SCHEDULE_CUH
#define TESSERA_LB_SCHEDULE_CUH

#include "work.cuh"

#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>
#include <type_traits>

/** @brief tessera's device-side libraries. */
namespace tessera {
/** @brief The load-balancing layer (see tessera/lb.cuh). */
namespace lb {

/** @brief Schedule: one thread per tile (grid-stride over tiles). */
struct thread_mapped {};
/** @brief Schedule: one warp per tile (grid-stride over tiles). */
struct warp_mapped {};
/** @brief Schedule: one block per tile (grid-stride over tiles). */
struct block_mapped {};
/**
 * @brief Schedule: a group of Size threads takes Size consecutive tiles.
 *
 * The group's tile ends sit in shared memory (the prefix sum of the tile
 * sizes) and each thread finds the tile of its atoms there by binary search.
 * A tile is never split between groups.
 * @tparam Size threads of a group: a power of two, 1 to 1024.
 */
template <int Size> struct group_mapped {
  static_assert(Size >= 1 && Size <= 1024 && (Size & (Size - 1)) == 0, "group size: a power of two, 1 to 1024");
  static constexpr int size = Size; /**< Threads of a group. */
};
/**
 * @brief Schedule: an even share of tiles + atoms per thread.
 *
 * After Merrill and Garland, "Merge-based parallel sparse matrix-vector
 * multiplication" (SC'16): long tiles are split across threads and blocks
 * and combined deterministically.
 */
struct merge_path {};
/**
 * @brief Schedule: an even share of atoms per thread; the tile of the first
 * atom is found by binary search. Runs of empty tiles are walked by one
 * thread.
 */
struct work_oriented {};

namespace detail {
/* The layer's launch constants, in one place. They were set on compute
 * capability 9.0; the results file behind a choice is named beside it. */
/* Threads of a block of every schedule (group-mapped groups above it fill a
 * block of their own): 8 warps. */
constexpr int default_block = 256;
/* Shared bytes a block of a split schedule stages per chunk: with the rest
 * of its storage, eight blocks of 256 threads fit on an SM. */
constexpr int stage_bytes = 24576;
/* Most items a thread stages per chunk (8 for 4-byte values and indices; 6
 * for doubles fill stage_bytes first). */
constexpr int max_items = 8;
/* Records each thread of the last block of a chunked schedule combines at
 * most (two a block): bounds the grid. */
constexpr int max_records_per_thread = 16;
/* Grid-stride schedules launch at most this many waves of resident blocks:
 * fewer, longer-lived blocks. Thread-mapped is not capped: one tile a thread
 * keeps more independent load chains in flight
 * (spmv-schedules-regular-h200.csv). */
constexpr int grid_waves = 4;
/* Thread-mapped loads a tile of at most this many atoms at once, predicated,
 * in one round trip (pred8 in spmv-thread-ab-h200.txt). */
constexpr int short_tile = 8;
/* Threads of a block of the chunk-start search. */
constexpr int search_threads = 256;

template <class S> struct traits {
  static constexpr int block = default_block;
  static constexpr bool chunked = false;
};
template <int G> struct traits<group_mapped<G>> {
  static constexpr int block = G > default_block ? G : default_block;
  static constexpr bool chunked = false;
};
template <> struct traits<merge_path> {
  static constexpr int block = default_block;
  static constexpr bool chunked = true;
};
template <> struct traits<work_oriented> {
  static constexpr int block = default_block;
  static constexpr bool chunked = true;
};
} // namespace detail

/**
 * @brief Threads per block a kernel using schedule S must be launched with.
 * @tparam S the schedule.
 */
template <class S> constexpr int block_threads = detail::traits<S>::block;

/**
 * @brief Shared bytes per staged item: a tile end or result, and an atom value.
 * @tparam T the value type.
 * @tparam Index the integer type of tile and atom numbers.
 */
template <class T, class Index>
constexpr int item_bytes = int((sizeof(T) > sizeof(Index) ? sizeof(T) : sizeof(Index)) + sizeof(T));

/**
 * @brief Items (atoms, or tiles + atoms) each of Threads threads stages per
 * chunk: about 24 KB of shared memory per block, at most 8 (8 for 4-byte
 * values and indices, 6 for doubles), so that eight 256-thread blocks fit on
 * an SM.
 * @tparam Threads threads of the block.
 * @tparam T the value type.
 * @tparam Index the integer type of tile and atom numbers.
 */
template <int Threads, class T, class Index>
constexpr int items_for = detail::stage_bytes / (Threads * item_bytes<T, Index>) > detail::max_items ? detail::max_items
                          : detail::stage_bytes / (Threads * item_bytes<T, Index>) < 1
                              ? 1
                              : detail::stage_bytes / (Threads * item_bytes<T, Index>);

/**
 * @brief Items per thread of a merge-path or work-oriented chunk.
 * @tparam T the value type.
 * @tparam Index the integer type of tile and atom numbers.
 */
template <class T, class Index> constexpr int items_per_thread = items_for<detail::default_block, T, Index>;

/**
 * @brief Items per thread of a group-mapped chunk (groups above 256 threads
 * fill their own block).
 * @tparam G threads of a group.
 * @tparam T the value type.
 * @tparam Index the integer type of tile and atom numbers.
 */
template <int G, class T, class Index>
constexpr int group_items_per_thread = items_for<(G > detail::default_block ? G : detail::default_block), T, Index>;

/**
 * @brief A point on the path through tiles and atoms.
 * @tparam Index the integer type of tile and atom numbers.
 */
template <class Index> struct coordinate {
  Index tile; /**< Tiles closed. */
  Index atom; /**< Atoms consumed. */
};

/**
 * @brief A block's share of a tile split across blocks (merge-path,
 * work-oriented).
 * @tparam T the value type.
 */
template <class T> struct record {
  long long tile; /**< The tile, or -1: no record. */
  int closes;     /**< Whether the block holds the tile's end. */
  T value;        /**< The block's part of the tile's value. */
};

/**
 * @brief Most blocks a chunked schedule launches: bounds the records that
 * the last block combines (16 per thread).
 * @tparam S the schedule.
 */
template <class S> constexpr int max_chunked_grid = detail::max_records_per_thread / 2 * block_threads<S>;

/**
 * @brief What a kernel needs besides the work.
 *
 * The grid it must be launched with and, for merge-path and work-oriented,
 * the chunk partition and records in the workspace. Plain data, passed by
 * value to the kernel.
 * @tparam Index the integer type of tile and atom numbers.
 */
template <class Index> struct plan {
  Index tiles;               /**< Tiles of the work. */
  Index atoms;               /**< Atoms of the work. */
  int grid;                  /**< Blocks to launch (0: nothing to do). */
  int block;                 /**< Threads per block (`block_threads<S>`). */
  long long chunks;          /**< Chunked schedules: pieces of the path of chunk_items items. */
  int chunk_items;           /**< Items per chunk (block * items_per_thread). */
  long long per_block;       /**< Chunks per block, consecutive. */
  coordinate<Index> *coords; /**< chunks + 1 start points. */
  void *records;             /**< 2 * grid record<T>. */
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
                                    long long chunk_items) {
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

/**
 * @brief Workspace bytes schedule S needs for a work of this size (0 for the
 * mapped schedules).
 * @tparam S the schedule.
 * @tparam T the value type.
 * @tparam Index the integer type of tile and atom numbers.
 * @param tiles tiles of the work.
 * @param atoms atoms of the work.
 */
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
 * @brief The launch plan of a work with schedule S.
 *
 * The workspace is laid out here; prepare() fills it once.
 * @tparam S the schedule.
 * @tparam T the value type.
 * @tparam Index the integer type of tile and atom numbers.
 * @param tiles tiles of the work.
 * @param atoms atoms of the work.
 * @param resident_blocks blocks of the kernel the device holds at once
 * (multiprocessors times cudaOccupancyMaxActiveBlocksPerMultiprocessor; see
 * resident_blocks()).
 * @param workspace workspace_bytes() bytes of device memory (may be NULL for
 * the mapped schedules).
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
     * keep more independent chains in flight. */
    long long cap = std::is_same<S, thread_mapped>::value ? (long long)INT32_MAX : detail::grid_waves * resident;
    p.grid = int(want < cap ? want : cap);
    return p;
  }
}

/**
 * @brief Blocks of a kernel the current device holds at once: its
 * multiprocessors times the kernel's occupancy (1 if the runtime fails).
 *
 * A device query: call it once per kernel and device, not per launch.
 * @tparam Kernel the kernel's function type.
 * @param kernel the kernel.
 * @param block threads per block it is launched with.
 * @param dynamic_shared bytes of dynamic shared memory per block.
 */
template <class Kernel> inline int resident_blocks(Kernel kernel, int block, size_t dynamic_shared = 0) {
  int device = 0, sms = 0, per_sm = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, dynamic_shared) != cudaSuccess)
    return 1;
  return sms * (per_sm > 0 ? per_sm : 1);
}

/**
 * @brief One-time preparation: the chunk start points (a binary search per
 * chunk) and the zeroed block counter. A no-op for the mapped schedules.
 *
 * Run it again only if the work's ends change.
 * @tparam S the schedule.
 * @tparam Work the work description's type.
 * @param p the plan, from make_plan() with a workspace.
 * @param work the work description.
 * @param stream the stream the work is queued on.
 * @return cudaSuccess, or the first CUDA error.
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
    const int threads = detail::search_threads;
    unsigned blocks = (unsigned)((p.chunks + 1 + threads - 1) / threads);
    detail::search_chunk_starts<S><<<blocks, threads, 0, stream>>>(work, p.coords, p.chunks, p.chunk_items);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
      return e;
    return cudaMemsetAsync(p.counter, 0, sizeof(unsigned), stream);
  }
}

/**
 * @brief The path of a work cut into parts of a size of the caller's
 *        choosing, for kernels that walk the parts themselves.
 *
 * Parts of @p items_per_part items each (tiles + atoms for merge_path, atoms
 * for work_oriented; the last part takes the rest), walked by
 * for_each_tile_of_part() (lb/part.cuh) instead of a block's chunk through
 * for_each_tile_reduce(). The same search as prepare()'s chunks: part q of
 * merge_path closes tiles coords[q].tile .. coords[q + 1].tile - 1 and holds
 * the atoms between the two coordinates; a work_oriented part starts at its
 * first atom, in the first tile that ends after it.
 * @tparam S merge_path or work_oriented.
 * @tparam Work a work description (work.cuh).
 * @param work the work.
 * @param coords device array of parts + 1 coordinates: receives the start of
 *        each part and, last, (tiles, atoms), the path's end.
 * @param parts at least ceil(items / items_per_part); nothing is done for 0.
 * @param items_per_part items a part holds.
 * @param stream the stream the search runs on (asynchronous).
 * @return the launch's error, or cudaSuccess.
 */
template <class S, class Work>
cudaError_t partition_path(const Work &work, coordinate<typename Work::index_type> *coords, long long parts,
                           long long items_per_part, cudaStream_t stream) {
  static_assert(detail::traits<S>::chunked, "merge_path or work_oriented");
  if (parts <= 0)
    return cudaSuccess;
  const int threads = 256;
  unsigned blocks = (unsigned)((parts + 1 + threads - 1) / threads);
  detail::search_chunk_starts<S><<<blocks, threads, 0, stream>>>(work, coords, parts, items_per_part);
  return cudaGetLastError();
}

} // namespace lb
} // namespace tessera

#endif
