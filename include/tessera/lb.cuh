/**
 * @file
 * @brief tessera's load-balancing layer: device-side schedules that map
 * irregular work onto GPU threads.
 *
 * After Osama, Porumbescu and Owens, "A Programming Model for GPU Load
 * Balancing" (PPoPP 2023). Header-only CUDA C++17 (nvcc -std=c++17); it
 * does not need libtessera.
 *
 * Work. Atoms are the units of work (nonzeros), tiles are runs of
 * consecutive atoms (rows); a description gives the number of tiles, the
 * number of atoms, and the end of each tile:
 *
 * @code
 *   auto work = tessera::lb::make_csr_work(rows, nnz, d_row_offsets);   // CSR
 *   auto work = tessera::lb::make_csc_work(cols, nnz, d_col_offsets);   // CSC
 *   auto work = tessera::lb::make_coo_work(rows, nnz, d_sorted_rows);   // COO
 *   auto work = tessera::lb::make_work(tiles, atoms, my_ends);          // any format
 * @endcode
 *
 * where my_ends is any small copyable object with
 * `__device__ Index operator()(Index tile) const` returning one past the
 * tile's last atom (nondecreasing, first tile starting at atom 0).
 *
 * Schedules (types): thread_mapped, warp_mapped, block_mapped,
 * group_mapped<G> (G a power of two, 1 to 1024), merge_path, work_oriented.
 *
 * The user owns the kernel; the layer lives inside it. A kernel is written
 * once with the schedule as a template argument:
 *
 * @code
 *   namespace lb = tessera::lb;
 *   template <class S>
 *   __global__ void row_sums(lb::plan<int> p, lb::csr_work<int> w, const float *v, float *out) {
 *     __shared__ lb::storage<S, float, int> smem;
 *     lb::for_each_tile_reduce<S>(p, w, smem, 0.0f, lb::plus{},
 *         [=](int atom) { return v[atom]; },              // value of an atom
 *         [=](int tile, float sum) { out[tile] = sum; }); // once per tile
 *   }
 * @endcode
 *
 * Host side, once per work (S the schedule, T the value type):
 *
 * @code
 *   size_t bytes = lb::workspace_bytes<S, float>(rows, nnz);   // 0 for the mapped schedules
 *   // allocate `bytes` of device memory once (or pass NULL when 0)
 *   lb::plan<int> p = lb::make_plan<S, float>(rows, nnz,
 *                         lb::resident_blocks(row_sums<S>, lb::block_threads<S>), workspace);
 *   lb::prepare<S>(p, work, stream);                   // chunk search (merge-path, work-oriented)
 *   row_sums<S><<<p.grid, lb::block_threads<S>, 0, stream>>>(p, work, v, out);   // as often as needed
 * @endcode
 *
 * Switching schedules changes S only. Launch exactly p.grid blocks of
 * `block_threads<S>` threads (p.grid == 0: nothing to do). Results are
 * deterministic: the order in which values are combined depends only on the
 * work and the plan, never on timing (no floating-point atomics); tiles split
 * between blocks are combined by the last block to finish, so there is never
 * a second launch. Two launches of the same plan must not overlap in time
 * (they share the workspace): issue them on one stream.
 *
 * Also: `for_each_atom<S>(p, work, smem, fn)` calls fn(tile, atom) once per
 * atom; segmented_scan() and reduce() over a unit of threads; stride ranges
 * for range-based for loops (step, grid-, block-, warp-stride, infinite).
 *
 * For results too large for one thread (a row of a dense product): vector
 * threads of 1 to 32 lanes that share every atom and split the result
 * (lanes.cuh: tile_threads<S>() for the mapped schedules, group_sum() to
 * join a tile's vector threads in a fixed tree), and parts of the path of
 * any size (partition_path<S>() for merge_path and work_oriented, walked by
 * for_each_tile_of_part() in part.cuh, tiles cut between parts found by
 * split_tile_run() and joined by the kernel in part order).
 * Gathered work (lb/gather.cuh): tiles that are independent ranges of atoms
 * counted at run time, such as a frontier's adjacency lists:
 * for_each_gathered_atom<S, Block>(count, ranges, smem, fn), with two more
 * schedules, lane_mapped<L> (L threads per tile) and grid_mapped (the whole
 * grid on a few long tiles), its one-block form
 * for_each_block_gathered_atom<S, Block>() for a list a block holds alone,
 * and for_each_balanced_atom<Block>(count,
 * ranges, workspace, barrier, smem, fn), the work-oriented schedule of
 * gathered work inside a persistent kernel (the prefix sum of the tile sizes
 * built on the device, then an even share of atoms per warp). Persistent
 * kernels separate their steps with grid_barrier() (lb/grid_barrier.cuh; all
 * blocks resident: cooperative launch).
 */
#ifndef TESSERA_LB_CUH
#define TESSERA_LB_CUH

#include "lb/lanes.cuh"
#include "lb/part.cuh"
#include "lb/gather.cuh"
#include "lb/grid_barrier.cuh"
#include "lb/range.cuh"
#include "lb/schedule.cuh"
#include "lb/tile_reduce.cuh"
#include "lb/unit.cuh"
#include "lb/work.cuh"

#endif
