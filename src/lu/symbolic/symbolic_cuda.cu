/* Rows of L + U of M = P Dr A Dc Q on the GPU, out of core (Xia, Jiang,
 * Agrawal and Ramnath, PPoPP 2023, section 3.2, Algorithms 3 and 4): a group
 * of threads per source row runs the fill-path traversal (Rose and Tarjan's
 * fill2, the algorithm of symbolic_fill_path_cpu.c) with a visited bitmap and
 * a queue in global scratch; phase one counts each row's entries, a device
 * scan sizes L + U, phase two writes them. Rows run in chunks whose scratch
 * fits a device-memory budget; each chunk's entries go back to host memory
 * at once, so L + U may exceed device memory. Beyond the paper: a summary of
 * the bitmap, so that finding the next threshold does not read the whole
 * bitmap below the row; and slots in tiers (symbolic_tiers_gpu.c): most rows
 * run a warp each in a window of the bitmap around them, with a hash set for
 * the U entries above the window and a ring for two levels of a sweep; the
 * few that outgrow it rerun with the whole bitmap, as many threads a row as
 * the budget's rows in flight leave to the device. The paper's slots (an
 * n-bit bitmap and a queue of n words, two chunk sizes) remain as an
 * ablation (switches.symbolic_queue_words = TSI_LU_FULL_QUEUE), and with
 * them, for the paper's section 4.3, a unified-memory variant
 * (switches.symbolic_memory) that runs the same chunks on managed arrays the
 * host fills and reads itself. The columns, entry map and counts are then
 * built on the host as on the CPU path (tsi_lu_symbolic_with). */
#include "lu/symbolic/symbolic_internal.h"

#include "core/cuda_arch_limits.cuh"

#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

#define WARPS_PER_BLOCK TSI_LU_SYMBOLIC_WARPS_PER_BLOCK
#define FULL_MASK 0xffffffffu

/* What a visit found: a vertex first met, one met before, or one below the
 * window (the row outgrows its tier). */
enum { VISIT_NEW = 0, VISIT_SEEN = 1, VISIT_OUTSIDE = 2 };

typedef struct symbolic_chunk {
  const int64_t *m_ptr; /* M's pattern by rows */
  const int32_t *m_idx;
  int64_t n;
  int32_t first, last;     /* the chunk's rows, or its entries of row_list */
  const int32_t *row_list; /* NULL: rows first .. last - 1 */
  uint32_t *scratch;       /* one slot per row: bitmap window, its summary, hash set, queue */
  int64_t slot_words;      /* 32-bit words per slot */
  int64_t window_bits;     /* the bitmap window (a multiple of 1024); >= n: the whole bitmap */
  int64_t bitmap_words;    /* words of the bitmap window */
  int64_t summary_words;   /* words of the summary: bit w set when bitmap word w holds an entry below the row */
  int64_t hash_words;      /* the far U entries' hash set, a power of two (0: none) */
  int64_t queue_words;     /* the queue's room */
  uint32_t queue_mask;     /* queue_words - 1 for a ring, all ones for a queue that holds every sweep */
  int64_t *row_count;      /* phase one: entries of row i at row_count[i] */
  const int64_t *row_ptr;  /* phase two: where row i's entries go, minus out_base */
  int64_t out_base;
  const int64_t *list_out; /* phase two over row_list: where each listed row's entries go */
  int32_t *out;
  int32_t *outgrown; /* phase one: rows that outgrew the tier */
  int32_t *outgrown_count;
} symbolic_chunk;

/* Set bit x; true when this call set it. A plain read first skips the atomic
 * for vertices already visited (bits are only ever set during a row). */
static __device__ __forceinline__ bool set_bit(uint32_t *visited, int64_t x) {
  uint32_t bit = 1u << (x & 31);
  if (((volatile uint32_t *)visited)[x >> 5] & bit)
    return false;
  return !(atomicOr(&visited[x >> 5], bit) & bit);
}

/* Flag x's bitmap word in the summary (x relative to the window): x is an
 * entry below the row, so a later threshold. Swept vertices are not
 * flagged: they lie below the threshold that swept them, so below every
 * later search, and a sweep's many visits pay no second atomic. */
static __device__ __forceinline__ void flag(uint32_t *summary, int64_t x) {
  uint32_t bit = 1u << ((x >> 5) & 31);
  if (!(((volatile uint32_t *)summary)[x >> 10] & bit))
    atomicOr(&summary[x >> 10], bit);
}

/* Smallest visited vertex in [from, to) (relative to the window), or -1 (all
 * lanes of the warp get the answer), where from is above every swept
 * vertex. The warp reads from's bitmap word, then the summary, 32 words
 * (2^15 vertices) a lane, and only the bitmap words it flags: a row's search
 * over the vertices below it costs i / 2^20 warp-wide reads plus about two
 * per threshold, not i / 2^10. */
static __device__ int64_t next_visited(const uint32_t *visited, const uint32_t *summary, int64_t from, int64_t to,
                                       int lane) {
  if (from >= to)
    return -1;
  const int64_t first_word = from >> 5, end_word = (to + 31) >> 5;
  /* The word of `from` first: thresholds often lie close together. */
  uint32_t head = ((const volatile uint32_t *)visited)[first_word] & (FULL_MASK << (from & 31));
  if (first_word == end_word - 1 && (to & 31) != 0)
    head &= FULL_MASK >> (32 - (to & 31));
  if (head)
    return first_word * 32 + __ffs(head) - 1;
  if (first_word + 1 >= end_word)
    return -1;
  const int64_t first_flag = (first_word + 1) >> 5, end_flag = (end_word + 31) >> 5;
  for (int64_t base = first_flag; base < end_flag; base += 32) {
    int64_t s = base + lane;
    uint32_t flags = 0;
    if (s < end_flag) {
      flags = ((const volatile uint32_t *)summary)[s];
      if (s == first_flag)
        flags &= FULL_MASK << ((first_word + 1) & 31);
      if (s == end_flag - 1 && (end_word & 31) != 0)
        flags &= FULL_MASK >> (32 - (end_word & 31));
    }
    for (;;) {
      unsigned found = __ballot_sync(FULL_MASK, flags != 0);
      if (!found)
        break;
      int source = __ffs(found) - 1;
      uint32_t source_flags = __shfl_sync(FULL_MASK, flags, source);
      int64_t word = (base + source) * 32 + __ffs(source_flags) - 1;
      uint32_t bits = ((const volatile uint32_t *)visited)[word];
      if (word == end_word - 1 && (to & 31) != 0)
        bits &= FULL_MASK >> (32 - (to & 31));
      if (bits)
        return word * 32 + __ffs(bits) - 1;
      if (lane == source) /* the last word, its bits all at or above `to` */
        flags &= flags - 1;
    }
  }
  return -1;
}

/* One group's shared state (per row). */
typedef struct group_state {
  int32_t tail, count, hashed;
  int32_t stop; /* the row outgrew the tier */
  int32_t threshold;
  int32_t low, high; /* the window's bits this row set, relative to the window */
} group_state;

/* A row's view of its slot. */
typedef struct row_slot {
  uint32_t *visited, *summary;
  int32_t *hash, *queue;
  int64_t base, top; /* the window: vertices base .. top - 1 */
} row_slot;

/* Visit x: in the window, its bit; above it (a U entry: the window holds
 * the row), the hash set, which a row may fill to half (stored x + 1, 0
 * empty; linear probing, never more probes than slots); below it, the row
 * outgrows the tier. */
static __device__ int visit(const symbolic_chunk &c, const row_slot &s, group_state *g, int32_t x) {
  if (x < s.base)
    return VISIT_OUTSIDE;
  if (x < s.top)
    return set_bit(s.visited, x - s.base) ? VISIT_NEW : VISIT_SEEN;
  const uint32_t mask = (uint32_t)c.hash_words - 1u, key = (uint32_t)x + 1u;
  uint32_t h = ((uint32_t)x * 2654435761u) & mask;
  for (int64_t probe = 0; probe < c.hash_words; probe++, h = (h + 1u) & mask) {
    uint32_t old = atomicCAS((unsigned int *)&s.hash[h], 0u, key);
    if (old == key)
      return VISIT_SEEN;
    if (old == 0u) {
      if (atomicAdd(&g->hashed, 1) >= c.hash_words / 2)
        atomicExch(&g->stop, 1);
      return VISIT_NEW;
    }
  }
  atomicExch(&g->stop, 1);
  return VISIT_SEEN;
}

template <int GROUP> static __device__ __forceinline__ void group_sync() {
  if (GROUP == 32)
    __syncwarp();
  else
    __syncthreads();
}

/* Row i of L + U (see row_pattern in symbolic_fill_path_cpu.c): the
 * thresholds t rise, so the next one is the smallest visited vertex above
 * the last one and below i (every visited vertex there is an L entry: swept
 * vertices lie below the threshold that swept them). From each threshold the
 * group sweeps, breadth first and level by level, the unvisited vertices
 * below t; a vertex above t first met is an entry. Each thread expands one
 * queued vertex of the level at a time. A row outgrows its tier when it
 * reaches below its window, fills half its hash set, or meets two levels
 * the ring cannot hold; each depends only on the set of vertices the row
 * visits and on its levels, the same whatever the order of the atomics, so a
 * row outgrows a tier in both phases alike: it stops, and phase one lists
 * it for the next tier. GROUP threads a row: a warp (several rows a block)
 * or one block. */
template <bool write, int GROUP>
__global__ void __launch_bounds__(GROUP > WARPS_PER_BLOCK * 32 ? GROUP : WARPS_PER_BLOCK * 32)
    fill_path_rows(symbolic_chunk c) {
  constexpr int GROUPS_PER_BLOCK = GROUP == 32 ? WARPS_PER_BLOCK : 1;
  __shared__ group_state state[GROUPS_PER_BLOCK];
  const int rank = (int)(threadIdx.x % GROUP), lane = (int)(threadIdx.x & 31);
  const int64_t slot = (int64_t)blockIdx.x * GROUPS_PER_BLOCK + threadIdx.x / GROUP;
  if (threadIdx.x >= GROUPS_PER_BLOCK * GROUP || c.first + slot >= c.last)
    return; /* the whole group */
  group_state *g = &state[threadIdx.x / GROUP];
  volatile group_state *vg = g;
  const int32_t i = c.row_list ? c.row_list[c.first + slot] : (int32_t)(c.first + slot);
  row_slot s;
  s.visited = c.scratch + slot * c.slot_words;
  s.summary = s.visited + c.bitmap_words;
  s.hash = (int32_t *)(s.summary + c.summary_words);
  s.queue = s.hash + c.hash_words;
  s.base = tsi_lu_symbolic_window_base(i, c.window_bits, c.n);
  s.top = s.base + c.window_bits;
  int32_t *out = NULL;
  if (write)
    out = c.out + (c.row_list ? c.list_out[c.first + slot] : c.row_ptr[i] - c.out_base);
  const int64_t room = c.queue_words;
  int32_t low = (int32_t)(i - s.base), high = low;
  if (rank == 0) {
    set_bit(s.visited, i - s.base);
    g->tail = 0;
    g->count = 1;
    g->hashed = 0;
    g->stop = 0;
    g->low = low;
    g->high = high;
    if (write)
      out[0] = i;
  }
  group_sync<GROUP>();
  for (int64_t k = c.m_ptr[i] + rank; k < c.m_ptr[i + 1]; k += GROUP) {
    int32_t x = c.m_idx[k];
    int seen = visit(c, s, g, x);
    if (seen == VISIT_OUTSIDE)
      atomicExch(&g->stop, 1);
    if (seen != VISIT_NEW)
      continue;
    if (x < s.top) {
      low = min(low, (int32_t)(x - s.base));
      high = max(high, (int32_t)(x - s.base));
    }
    if (x < i)
      flag(s.summary, x - s.base);
    int32_t at = atomicAdd(&g->count, 1);
    if (write)
      out[at] = x;
  }
  group_sync<GROUP>();
  int64_t t = -1;
  while (!vg->stop) {
    /* The next threshold: the group's first warp searches, the rest wait. */
    if (rank < 32) {
      int64_t from = t + 1 > s.base ? t + 1 - s.base : 0;
      int64_t found = next_visited(s.visited, s.summary, from, i - s.base, lane);
      if (rank == 0) {
        g->threshold = found < 0 ? -1 : (int32_t)(found + s.base);
        if (found >= 0) {
          s.queue[0] = g->threshold;
          g->tail = 1;
        }
      }
    }
    group_sync<GROUP>();
    t = vg->threshold;
    if (t < 0)
      break;
    int64_t head = 0;
    for (;;) {
      const int64_t end = vg->tail;
      group_sync<GROUP>();
      if (head == end || vg->stop)
        break;
      for (int64_t q = head + rank; q < end; q += GROUP) {
        int32_t v = s.queue[q & c.queue_mask];
        for (int64_t k = c.m_ptr[v]; k < c.m_ptr[v + 1]; k++) {
          int32_t x = c.m_idx[k];
          int seen = visit(c, s, g, x);
          if (seen == VISIT_OUTSIDE)
            atomicExch(&g->stop, 1);
          if (seen != VISIT_NEW)
            continue;
          if (x < s.top) {
            low = min(low, (int32_t)(x - s.base));
            high = max(high, (int32_t)(x - s.base));
          }
          if (x < t) {
            int32_t at = atomicAdd(&g->tail, 1);
            if (at - head < room)
              s.queue[at & c.queue_mask] = x;
            else
              atomicExch(&g->stop, 1);
          } else {
            if (x < i)
              flag(s.summary, x - s.base);
            int32_t at = atomicAdd(&g->count, 1);
            if (write)
              out[at] = x;
          }
        }
      }
      group_sync<GROUP>();
      head = end;
    }
    group_sync<GROUP>();
  }
  /* Clear what this row set, so that the slot serves the next chunk's rows. */
  low = __reduce_min_sync(FULL_MASK, low);
  high = __reduce_max_sync(FULL_MASK, high);
  if (GROUP > 32 && lane == 0) {
    atomicMin(&g->low, low);
    atomicMax(&g->high, high);
  }
  group_sync<GROUP>();
  if (GROUP > 32) {
    low = vg->low;
    high = vg->high;
  }
  for (int64_t word = (low >> 5) + rank; word <= (high >> 5); word += GROUP)
    s.visited[word] = 0;
  for (int64_t word = (low >> 10) + rank; word <= (high >> 10); word += GROUP)
    s.summary[word] = 0;
  if (vg->hashed > 0)
    for (int64_t h = rank; h < c.hash_words; h += GROUP)
      s.hash[h] = 0;
  if (!write && rank == 0) {
    if (!vg->stop)
      c.row_count[i] = vg->count;
    else if (c.outgrown) /* the last tier's rows cannot outgrow it */
      c.outgrown[atomicAdd(c.outgrown_count, 1)] = i;
  }
}

typedef struct device_arrays {
  int64_t *m_ptr;
  int32_t *m_idx;
  int64_t *row_ptr;
  uint32_t *scratch;
  void *scan_temp;
  int32_t *out;
  int32_t *rows;     /* a tier's rows (sorted) */
  int32_t *outgrown; /* n rows, then their count */
  int64_t *list_out;
} device_arrays;

/* Where the arrays live (enum tsi_lu_symbolic_memory). */
typedef struct memory_mode {
  bool managed, prefetch;
} memory_mode;

static ts_status allocate(ts_lu *lu, memory_mode mode, void **ptr, size_t bytes) {
  if (!mode.managed)
    return tsi_cuda_malloc(lu->ctx, ptr, bytes);
  cudaError_t err = cudaMallocManaged(ptr, bytes, cudaMemAttachGlobal);
  if (err != cudaSuccess) {
    *ptr = NULL;
    return tsi_cuda_error(lu->ctx, err, "ts_lu_analyze: GPU symbolic factorization: cudaMallocManaged");
  }
  return TS_SUCCESS;
}

/* Start moving a managed range to the device or (to_host) the host. */
static cudaError_t prefetch(ts_lu *lu, const void *ptr, size_t bytes, bool to_host) {
  cudaMemLocation where = {};
  where.type = to_host ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
  where.id = to_host ? 0 : lu->ctx->device;
  return cudaMemPrefetchAsync(ptr, bytes, where, 0, (cudaStream_t)lu->ctx->stream);
}

/* Host data into a device array: a copy, or (managed) the host's own writes,
 * prefetched to the device when asked. */
static ts_status fill_device(ts_lu *lu, memory_mode mode, void *dst, const void *src, size_t bytes) {
  if (!mode.managed)
    return tsi_cuda_memcpy_to_device(lu->ctx, dst, src, bytes);
  memcpy(dst, src, bytes);
  cudaError_t err = mode.prefetch ? prefetch(lu, dst, bytes, false) : cudaSuccess;
  return err == cudaSuccess
             ? TS_SUCCESS
             : tsi_cuda_error(lu->ctx, err, "ts_lu_analyze: GPU symbolic factorization: prefetch to the device");
}

/* Start moving a managed range to the host (prefetch variant only). */
static ts_status prefetch_to_host(ts_lu *lu, memory_mode mode, const void *src, size_t bytes) {
  if (!mode.managed || !mode.prefetch || bytes == 0)
    return TS_SUCCESS;
  cudaError_t err = prefetch(lu, src, bytes, true);
  return err == cudaSuccess
             ? TS_SUCCESS
             : tsi_cuda_error(lu->ctx, err, "ts_lu_analyze: GPU symbolic factorization: prefetch to the host");
}

/* A device array into host memory: a copy, or (managed) the host's own
 * reads once the stream is done. */
static ts_status read_device(ts_lu *lu, memory_mode mode, void *dst, const void *src, size_t bytes) {
  if (!mode.managed)
    return tsi_cuda_memcpy_to_host(lu->ctx, dst, src, bytes);
  ts_status st = prefetch_to_host(lu, mode, src, bytes);
  if (st == TS_SUCCESS)
    st = tsi_cuda_sync(lu->ctx);
  if (st == TS_SUCCESS)
    memcpy(dst, src, bytes);
  return st;
}

/* The managed variants stay within half the free device memory. */
static ts_status check_managed_room(ts_lu *lu, memory_mode mode, int64_t bytes) {
  size_t free_bytes = 0, total_bytes = 0;
  if (!mode.managed)
    return TS_SUCCESS;
  cudaError_t err = cudaMemGetInfo(&free_bytes, &total_bytes);
  if (err != cudaSuccess)
    return tsi_cuda_error(lu->ctx, err, "ts_lu_analyze: GPU symbolic factorization: cudaMemGetInfo");
  if (bytes > (int64_t)(free_bytes / 2))
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY,
                     "ts_lu_analyze: the unified-memory symbolic variant needs %lld bytes, more than half the free "
                     "device memory (it never oversubscribes)",
                     (long long)bytes);
  return TS_SUCCESS;
}

/* A pass over rows [begin, end) (of the matrix, or of a sorted list of
 * rows, on the host in `host_list` and on the device in `row_list`) with its
 * tier's slots. */
typedef struct row_pass {
  int64_t begin, end;
  const int32_t *row_list, *host_list;
  tsi_lu_symbolic_tier tier;
} row_pass;

static void set_pass(symbolic_chunk *c, const row_pass *pass) {
  const tsi_lu_symbolic_tier *t = &pass->tier;
  c->slot_words = t->slot_words;
  c->window_bits = t->window_bits;
  c->bitmap_words = t->bitmap_words;
  c->summary_words = t->summary_words;
  c->hash_words = t->hash_words;
  c->queue_words = t->queue_words;
  c->queue_mask = t->ring ? (uint32_t)(t->queue_words - 1) : FULL_MASK;
  c->row_list = pass->row_list;
}

/* Passes lay their slots out differently, so each starts from cleared
 * scratch (the slots its rows use); within a pass, rows clear their own
 * bits when done. */
static ts_status clear_scratch(ts_lu *lu, const symbolic_chunk *c, const row_pass *pass) {
  int64_t slots = pass->end - pass->begin < pass->tier.rows ? pass->end - pass->begin : pass->tier.rows;
  return tsi_cuda_memset(lu->ctx, c->scratch, 0, (size_t)(slots * pass->tier.slot_words) * sizeof(uint32_t));
}

template <bool write, int GROUP> static void launch_group(const symbolic_chunk &c, cudaStream_t stream) {
  constexpr int groups_per_block = GROUP == 32 ? WARPS_PER_BLOCK : 1;
  constexpr int threads = GROUP == 32 ? WARPS_PER_BLOCK * 32 : GROUP;
  unsigned blocks = (unsigned)((c.last - c.first + groups_per_block - 1) / groups_per_block);
  fill_path_rows<write, GROUP><<<blocks, threads, 0, stream>>>(c);
}

template <bool write> static void launch_rows(const symbolic_chunk &c, int group, cudaStream_t stream) {
  switch (group) {
  case 64:
    launch_group<write, 64>(c, stream);
    break;
  case 128:
    launch_group<write, 128>(c, stream);
    break;
  case 256:
    launch_group<write, 256>(c, stream);
    break;
  case 512:
    launch_group<write, 512>(c, stream);
    break;
  default:
    launch_group<write, 32>(c, stream);
    break;
  }
}

static ts_status launch_chunk(ts_lu *lu, symbolic_chunk c, const row_pass *pass, bool write, cudaStream_t stream) {
  if (write)
    launch_rows<true>(c, pass->tier.group, stream);
  else
    launch_rows<false>(c, pass->tier.group, stream);
  return tsi_cuda_check_launch(lu->ctx, write ? "LU symbolic write" : "LU symbolic count");
}

/* Phase one over a pass: chunks of the tier's rows in flight. Adds its chunks. */
static ts_status count_pass(ts_lu *lu, symbolic_chunk c, const row_pass *pass, cudaStream_t stream, int64_t *chunks) {
  set_pass(&c, pass);
  ts_status st = clear_scratch(lu, &c, pass);
  for (int64_t first = pass->begin; first < pass->end && st == TS_SUCCESS; first += pass->tier.rows) {
    c.first = (int32_t)first;
    c.last = (int32_t)(first + pass->tier.rows < pass->end ? first + pass->tier.rows : pass->end);
    st = launch_chunk(lu, c, pass, false, stream);
    (*chunks)++;
  }
  return st;
}

/* Phase two over a pass of consecutive rows: the same rows per chunk at
 * most, fewer where the chunk's entries would pass out_capacity; each
 * chunk's entries are copied into the host rows at once. Rows that outgrew
 * the tier stop early here too and are written again by a later pass. */
static ts_status write_pass(ts_lu *lu, memory_mode mode, symbolic_chunk c, const row_pass *pass, const int64_t *row_ptr,
                            int64_t out_capacity, int32_t *row_idx, cudaStream_t stream) {
  int32_t *whole_out = c.out; /* managed: all of L + U */
  set_pass(&c, pass);
  ts_status st = clear_scratch(lu, &c, pass);
  int64_t first = pass->begin;
  while (first < pass->end && st == TS_SUCCESS) {
    int64_t last = first + 1;
    while (last < pass->end && last - first < pass->tier.rows && row_ptr[last + 1] - row_ptr[first] <= out_capacity)
      last++;
    c.first = (int32_t)first;
    c.last = (int32_t)last;
    c.out_base = row_ptr[first];
    const size_t bytes = (size_t)(row_ptr[last] - row_ptr[first]) * sizeof(int32_t);
    if (mode.managed) {
      c.out = whole_out + row_ptr[first];
      st = launch_chunk(lu, c, pass, true, stream);
      if (st == TS_SUCCESS)
        st = prefetch_to_host(lu, mode, c.out, bytes);
    } else {
      st = launch_chunk(lu, c, pass, true, stream);
      if (st == TS_SUCCESS)
        st = tsi_cuda_memcpy_to_host(lu->ctx, row_idx + row_ptr[first], c.out, bytes);
    }
    first = last;
  }
  return st;
}

static int64_t row_length(const int64_t *row_ptr, int32_t row) { return row_ptr[row + 1] - row_ptr[row]; }

/* Phase two over the listed rows (pass->host_list, sorted; the same on the
 * device): chunks of at most the tier's rows and out_capacity entries, each
 * listed row's entries at list_out within the chunk, copied through a host
 * staging area into the rows. */
static ts_status write_listed(ts_lu *lu, symbolic_chunk c, const row_pass *pass, const int64_t *row_ptr,
                              int64_t out_capacity, int32_t *row_idx, int64_t *list_out, int64_t *d_list_out,
                              cudaStream_t stream) {
  const int32_t *list = pass->host_list;
  const int64_t count = pass->end;
  int64_t staging_entries = 0;
  for (int64_t first = 0; first < count;) { /* the chunks, and each row's place in its chunk */
    int64_t last = first, entries = 0;
    while (last < count && last - first < pass->tier.rows &&
           (last == first || entries + row_length(row_ptr, list[last]) <= out_capacity)) {
      list_out[last] = entries;
      entries += row_length(row_ptr, list[last]);
      last++;
    }
    if (entries > staging_entries)
      staging_entries = entries;
    first = last;
  }
  int32_t *staging = (int32_t *)tsi_malloc_array(staging_entries > 0 ? staging_entries : 1, sizeof(int32_t));
  if (!staging)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the symbolic staging area");
  set_pass(&c, pass);
  c.list_out = d_list_out;
  ts_status st = tsi_cuda_memcpy_to_device(lu->ctx, d_list_out, list_out, (size_t)count * sizeof(int64_t));
  if (st == TS_SUCCESS)
    st = clear_scratch(lu, &c, pass);
  for (int64_t first = 0; first < count && st == TS_SUCCESS;) {
    int64_t last = first + 1;
    while (last < count && list_out[last] != 0)
      last++;
    c.first = (int32_t)first;
    c.last = (int32_t)last;
    int64_t entries = list_out[last - 1] + row_length(row_ptr, list[last - 1]);
    st = launch_chunk(lu, c, pass, true, stream);
    if (st == TS_SUCCESS)
      st = tsi_cuda_memcpy_to_host(lu->ctx, staging, c.out, (size_t)entries * sizeof(int32_t));
    for (int64_t k = first; k < last && st == TS_SUCCESS; k++)
      memcpy(row_idx + row_ptr[list[k]], staging + list_out[k], (size_t)row_length(row_ptr, list[k]) * sizeof(int32_t));
    first = last;
  }
  free(staging);
  return st;
}

static int compare_rows(const void *x, const void *y) {
  int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
  return (a > b) - (a < b);
}

/* The paper's slots for rows [begin, end): the whole bitmap and a queue of
 * `bound` words (every sweep of these rows fits), a warp a row. */
static ts_status paper_pass(ts_lu *lu, row_pass *pass, int64_t n, int64_t begin, int64_t end, int64_t bound,
                            int64_t budget, int64_t in_flight) {
  tsi_lu_symbolic_tier *t = &pass->tier;
  pass->begin = begin;
  pass->end = end;
  pass->row_list = pass->host_list = NULL;
  t->window_bits = (n + 1023) / 1024 * 1024;
  t->bitmap_words = t->window_bits / 32;
  t->summary_words = (t->bitmap_words + 31) / 32;
  t->hash_words = 0;
  t->queue_words = bound > 0 ? bound : 1;
  t->ring = 0;
  t->group = 32;
  t->slot_words = (t->bitmap_words + t->summary_words + t->queue_words + 3) / 4 * 4;
  t->rows = tsi_lu_symbolic_chunk_rows(budget, t->slot_words, end - begin);
  if (t->rows > in_flight)
    t->rows = in_flight;
  int64_t words = 0;
  if (tsi_mul_overflows(t->rows, t->slot_words, &words))
    return tsi_error(lu->ctx, TS_ERROR_OVERFLOW, "ts_lu_analyze: the symbolic workspace overflows");
  return TS_SUCCESS;
}

/* The tiers' passes run one after another: the first over every row, each
 * later one over the rows the one before listed as outgrown. */
enum { MAX_PASSES = TSI_LU_SYMBOLIC_TIERS_MAX > 2 ? TSI_LU_SYMBOLIC_TIERS_MAX : 2 };

ts_status tsi_lu_symbolic_cuda_rows(ts_lu *lu, tsi_lu_rows *rows) {
  ts_context *ctx = lu->ctx;
  if (!ctx || ctx->backend != TS_BACKEND_CUDA)
    return tsi_error(ctx, TS_ERROR_UNSUPPORTED, "ts_lu_analyze: GPU symbolic factorization needs a CUDA context");
  const int64_t n = rows->n, nnz = rows->m_ptr[n];
  if (n >= INT32_MAX)
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "ts_lu_analyze: order %lld too large for 32-bit indices", (long long)n);
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  device_arrays d = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  int64_t *row_ptr = NULL, *list_out = NULL;
  int32_t *row_idx = NULL;
  int32_t *lists[MAX_PASSES] = {NULL}; /* each pass's rows (host, sorted), the first pass's none */
  int64_t held = 0, peak = 0;
  cudaError_t err;
  const memory_mode mode = {lu->switches.symbolic_memory != TSI_LU_SYMBOLIC_EXPLICIT,
                            lu->switches.symbolic_memory == TSI_LU_SYMBOLIC_MANAGED_PREFETCH};
  /* The paper's slots: asked for, or the unified-memory variants' chunks. */
  const bool paper = mode.managed || lu->switches.symbolic_queue_words == TSI_LU_FULL_QUEUE;

  /* M's pattern and the row counts (then offsets) on the device. */
  size_t ptr_bytes = (size_t)(n + 1) * sizeof(int64_t), idx_bytes = (size_t)nnz * sizeof(int32_t);
  if ((st = check_managed_room(lu, mode, (int64_t)(2 * ptr_bytes + idx_bytes))) != TS_SUCCESS ||
      (st = allocate(lu, mode, (void **)&d.m_ptr, ptr_bytes)) != TS_SUCCESS ||
      (st = allocate(lu, mode, (void **)&d.m_idx, idx_bytes > 0 ? idx_bytes : 4)) != TS_SUCCESS ||
      (st = allocate(lu, mode, (void **)&d.row_ptr, ptr_bytes)) != TS_SUCCESS)
    goto cleanup;
  held += (int64_t)(2 * ptr_bytes + idx_bytes);
  if ((st = fill_device(lu, mode, d.m_ptr, rows->m_ptr, ptr_bytes)) != TS_SUCCESS ||
      (nnz > 0 && (st = fill_device(lu, mode, d.m_idx, rows->m_idx, idx_bytes)) != TS_SUCCESS) ||
      (st = tsi_cuda_memset(ctx, d.row_ptr, 0, ptr_bytes)) != TS_SUCCESS)
    goto cleanup;

  {
    int64_t budget = lu->options.symbolic_memory_budget;
    if (budget <= 0) {
      size_t free_bytes = 0, total_bytes = 0;
      if ((err = cudaMemGetInfo(&free_bytes, &total_bytes)) != cudaSuccess) {
        st = tsi_cuda_error(lu->ctx, err, "ts_lu_analyze: GPU symbolic factorization: cudaMemGetInfo");
        goto cleanup;
      }
      budget = (int64_t)(free_bytes / TSI_LU_SYMBOLIC_BUDGET_DIVISOR);
    }
    int device_sms = 0, threads_per_sm = 0;
    (void)cudaDeviceGetAttribute(&device_sms, cudaDevAttrMultiProcessorCount, ctx->device);
    (void)cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, ctx->device);
    int64_t in_flight = (int64_t)device_sms * (threads_per_sm / 32) * TSI_LU_SYMBOLIC_ROWS_PER_RESIDENT_WARP;
    if (in_flight < WARPS_PER_BLOCK)
      in_flight = WARPS_PER_BLOCK;
    const int64_t resident_threads = (int64_t)device_sms * threads_per_sm;

    /* The passes: the paper's two parts (a row's queue holds only vertices
     * below it, so the first half's rows need half the room; one part when
     * asked), or the tiers. */
    row_pass passes[MAX_PASSES];
    int pass_count = 0;
    if (paper) {
      int64_t split = lu->switches.symbolic_one_chunk_size ? 0 : n / 2;
      if (split > 0 &&
          (st = paper_pass(lu, &passes[pass_count++], n, 0, split, split, budget, in_flight)) != TS_SUCCESS)
        goto cleanup;
      if (n > split && (st = paper_pass(lu, &passes[pass_count++], n, split, n, n, budget, in_flight)) != TS_SUCCESS)
        goto cleanup;
    } else {
      tsi_lu_symbolic_plan plan;
      const tsi_lu_symbolic_limits limits = {lu->switches.symbolic_queue_words > 0 ? lu->switches.symbolic_queue_words
                                                                                   : 0,
                                             lu->switches.symbolic_window_bits, lu->switches.symbolic_hash_words};
      if ((st = tsi_lu_symbolic_plan_tiers(ctx, n, budget, in_flight, resident_threads, &limits, &plan)) != TS_SUCCESS)
        goto cleanup;
      for (int t = 0; t < plan.tiers; t++) {
        passes[pass_count] = (row_pass){0, t == 0 ? n : 0, NULL, NULL, plan.tier[t]};
        pass_count++;
      }
    }
    int64_t scratch_words = 0;
    for (int p = 0; p < pass_count; p++)
      if (passes[p].tier.rows * passes[p].tier.slot_words > scratch_words)
        scratch_words = passes[p].tier.rows * passes[p].tier.slot_words;
    if (scratch_words > 0) {
      if ((st = check_managed_room(lu, mode, held + scratch_words * 4)) != TS_SUCCESS)
        goto cleanup;
      if ((st = allocate(lu, mode, (void **)&d.scratch, (size_t)scratch_words * 4)) != TS_SUCCESS) {
        tsi_error(ctx, st,
                  "ts_lu_analyze: cannot allocate the GPU symbolic workspace (%lld bytes; lower "
                  "symbolic_memory_budget)",
                  (long long)(scratch_words * 4));
        goto cleanup;
      }
      held += scratch_words * 4;
    }
    if (!paper && pass_count > 1) {
      if ((st = tsi_cuda_malloc(ctx, (void **)&d.outgrown, (size_t)(n + 1) * sizeof(int32_t))) != TS_SUCCESS ||
          (st = tsi_cuda_malloc(ctx, (void **)&d.rows, (size_t)(n > 0 ? n : 1) * sizeof(int32_t))) != TS_SUCCESS)
        goto cleanup;
      held += (2 * n + 1) * (int64_t)sizeof(int32_t);
    }

    /* Phase one: count each row's entries into row_ptr[i + 1]; the rows
     * that outgrow a tier are listed (sorted, so that the next tier's
     * chunks do not depend on the atomics) for the next. */
    symbolic_chunk c = {};
    c.m_ptr = d.m_ptr;
    c.m_idx = d.m_idx;
    c.n = n;
    c.scratch = d.scratch;
    c.row_count = d.row_ptr + 1;
    c.outgrown = d.outgrown;
    c.outgrown_count = d.outgrown ? d.outgrown + n : NULL;
    int64_t chunks = 0;
    for (int p = 0; p < pass_count && st == TS_SUCCESS; p++) {
      if (passes[p].end <= passes[p].begin)
        break; /* no row outgrew the tier before */
      const bool listing = !paper && p + 1 < pass_count;
      if (listing && (st = tsi_cuda_memset(ctx, d.outgrown + n, 0, sizeof(int32_t))) != TS_SUCCESS)
        goto cleanup;
      st = count_pass(lu, c, &passes[p], stream, &chunks);
      if (st != TS_SUCCESS || !listing)
        continue;
      int32_t listed = 0;
      if ((st = tsi_cuda_memcpy_to_host(ctx, &listed, d.outgrown + n, sizeof(int32_t))) != TS_SUCCESS)
        goto cleanup;
      if (listed == 0)
        continue;
      lists[p + 1] = (int32_t *)tsi_malloc_array(listed, sizeof(int32_t));
      if (!lists[p + 1]) {
        st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the symbolic rerun's rows");
        goto cleanup;
      }
      if ((st = tsi_cuda_memcpy_to_host(ctx, lists[p + 1], d.outgrown, (size_t)listed * sizeof(int32_t))) != TS_SUCCESS)
        goto cleanup;
      qsort(lists[p + 1], (size_t)listed, sizeof(int32_t), compare_rows);
      if ((st = tsi_cuda_memcpy_to_device(ctx, d.rows, lists[p + 1], (size_t)listed * sizeof(int32_t))) != TS_SUCCESS)
        goto cleanup;
      passes[p + 1].end = listed;
      passes[p + 1].row_list = d.rows;
      passes[p + 1].host_list = lists[p + 1];
    }
    if (st != TS_SUCCESS)
      goto cleanup;
    lu->stats.symbolic_chunks = chunks;

    /* A device scan turns the counts into row offsets. */
    size_t temp_bytes = 0;
    if (n > 0) {
      if ((err = cub::DeviceScan::InclusiveSum(NULL, temp_bytes, d.row_ptr + 1, d.row_ptr + 1, (int)n, stream)) !=
          cudaSuccess) {
        st = tsi_cuda_error(lu->ctx, err, "ts_lu_analyze: GPU symbolic factorization: scan size");
        goto cleanup;
      }
      if ((st = tsi_cuda_malloc(ctx, &d.scan_temp, temp_bytes > 0 ? temp_bytes : 4)) != TS_SUCCESS)
        goto cleanup;
      if (held + (int64_t)temp_bytes > peak)
        peak = held + (int64_t)temp_bytes;
      if ((err = cub::DeviceScan::InclusiveSum(d.scan_temp, temp_bytes, d.row_ptr + 1, d.row_ptr + 1, (int)n,
                                               stream)) != cudaSuccess) {
        st = tsi_cuda_error(lu->ctx, err, "ts_lu_analyze: GPU symbolic factorization: scan");
        goto cleanup;
      }
      if ((st = tsi_cuda_check_launch(ctx, "LU symbolic scan")) != TS_SUCCESS)
        goto cleanup;
      tsi_cuda_free(d.scan_temp);
      d.scan_temp = NULL;
    }
    row_ptr = (int64_t *)tsi_malloc_array(n + 1, sizeof(int64_t));
    if (!row_ptr) {
      st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the row offsets of L + U");
      goto cleanup;
    }
    if ((st = read_device(lu, mode, row_ptr, d.row_ptr, ptr_bytes)) != TS_SUCCESS)
      goto cleanup;
    int64_t total = row_ptr[n];
    row_idx = (int32_t *)tsi_malloc_array(total > 0 ? total : 1, sizeof(int32_t));
    if (!row_idx) {
      st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the rows of L + U (%lld entries)",
                     (long long)total);
      goto cleanup;
    }

    /* Phase two: the output of a chunk stays within half the budget (at
     * least the longest row), and goes to the host before the next chunk.
     * A listed pass writes only the rows that do not outgrow it: those are
     * written by the next. */
    int64_t longest = 0, most_listed = 0;
    for (int64_t i = 0; i < n; i++)
      if (row_ptr[i + 1] - row_ptr[i] > longest)
        longest = row_ptr[i + 1] - row_ptr[i];
    for (int p = 1; p < pass_count; p++)
      most_listed = passes[p].host_list && passes[p].end > most_listed ? passes[p].end : most_listed;
    int64_t out_capacity = budget / 2 / (int64_t)sizeof(int32_t);
    if (out_capacity < longest)
      out_capacity = longest;
    if (out_capacity > total || mode.managed)
      out_capacity = total;
    if (total > 0) {
      if ((st = check_managed_room(lu, mode, held + out_capacity * (int64_t)sizeof(int32_t))) != TS_SUCCESS ||
          (st = allocate(lu, mode, (void **)&d.out, (size_t)out_capacity * sizeof(int32_t))) != TS_SUCCESS)
        goto cleanup;
      held += out_capacity * (int64_t)sizeof(int32_t);
      if (most_listed > 0) {
        list_out = (int64_t *)tsi_malloc_array(most_listed, sizeof(int64_t));
        if (!list_out) {
          st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the symbolic rerun's places");
          goto cleanup;
        }
        if ((st = tsi_cuda_malloc(ctx, (void **)&d.list_out, (size_t)most_listed * sizeof(int64_t))) != TS_SUCCESS)
          goto cleanup;
        held += most_listed * (int64_t)sizeof(int64_t);
      }
      if (held > peak)
        peak = held;
      c.row_count = NULL;
      c.row_ptr = d.row_ptr;
      c.out = d.out;
      for (int p = 0; p < pass_count && st == TS_SUCCESS; p++) {
        if (passes[p].end <= passes[p].begin)
          break;
        if (!passes[p].host_list) {
          st = write_pass(lu, mode, c, &passes[p], row_ptr, out_capacity, row_idx, stream);
          continue;
        }
        /* The pass's rows less those the next pass lists (both sorted). */
        row_pass done = passes[p];
        const int32_t *later = p + 1 < pass_count ? passes[p + 1].host_list : NULL;
        const int64_t later_count = later ? passes[p + 1].end : 0;
        int32_t *kept = lists[p]; /* filtered in place: the next pass has its own list */
        int64_t count = 0, at = 0;
        for (int64_t k = 0; k < passes[p].end; k++) {
          while (at < later_count && later[at] < kept[k])
            at++;
          if (at < later_count && later[at] == kept[k])
            continue;
          kept[count++] = kept[k];
        }
        if (count == 0)
          continue;
        if ((st = tsi_cuda_memcpy_to_device(ctx, d.rows, kept, (size_t)count * sizeof(int32_t))) != TS_SUCCESS)
          break;
        done.end = count;
        done.row_list = d.rows;
        done.host_list = kept;
        st = write_listed(lu, c, &done, row_ptr, out_capacity, row_idx, list_out, d.list_out, stream);
      }
      if (st == TS_SUCCESS && mode.managed)
        st = read_device(lu, mode, row_idx, d.out, (size_t)total * sizeof(int32_t));
      if (st != TS_SUCCESS)
        goto cleanup;
    }
    if ((st = tsi_cuda_sync(ctx)) != TS_SUCCESS)
      goto cleanup;
  }
  if (held > peak)
    peak = held;
  if (peak > lu->stats.peak_device_bytes)
    lu->stats.peak_device_bytes = peak;
  rows->row_ptr = row_ptr;
  rows->row_idx = row_idx;
  row_ptr = NULL;
  row_idx = NULL;
cleanup:
  if (st != TS_SUCCESS)
    (void)cudaStreamSynchronize(stream); /* nothing in flight reads what is freed below */
  tsi_cuda_free(d.m_ptr);
  tsi_cuda_free(d.m_idx);
  tsi_cuda_free(d.row_ptr);
  tsi_cuda_free(d.scratch);
  tsi_cuda_free(d.scan_temp);
  tsi_cuda_free(d.out);
  tsi_cuda_free(d.rows);
  tsi_cuda_free(d.outgrown);
  tsi_cuda_free(d.list_out);
  free(row_ptr);
  free(row_idx);
  for (int p = 0; p < MAX_PASSES; p++)
    free(lists[p]);
  free(list_out);
  return st;
}

ts_status tsi_lu_symbolic_cuda(ts_lu *lu, const ts_csr *a) {
  return tsi_lu_symbolic_with(lu, a, tsi_lu_symbolic_cuda_rows);
}
