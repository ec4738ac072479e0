/* Rows of L + U of M = P Dr A Dc Q on the GPU, out of core (Xia, Jiang,
 * Agrawal and Ramnath, PPoPP 2023, section 3.2, Algorithms 3 and 4): one warp
 * per source row runs the fill-path traversal (Rose and Tarjan's fill2, the
 * algorithm of symbolic_fill_path_cpu.c) with a visited bitmap and a
 * frontier queue in global scratch; phase one counts each row's entries, a
 * device scan sizes L + U, phase two writes them. Rows run in chunks whose
 * scratch fits a device-memory budget, with two chunk sizes (a row's frontier
 * holds only vertices below it, so the first half's rows need half the room);
 * each chunk's entries go back to host memory at once, so L + U may exceed
 * device memory. Beyond the paper: a summary of the bitmap, so that finding
 * the next threshold does not read the whole bitmap below the row; and, where
 * the budget leaves the GPU short of rows in flight, queues shorter than n
 * words, the few rows whose sweeps outgrow them rerun with full ones. The
 * columns, entry map and counts are then built on the host as on the CPU path
 * (tsi_lu_symbolic_with). For the paper's section 4.3 ablation, a
 * unified-memory variant (switches.symbolic_memory) runs the same chunks on
 * managed arrays that the host fills and reads itself. */
#include "lu/symbolic/symbolic_internal.h"

#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

#define WARPS_PER_BLOCK TSI_LU_SYMBOLIC_WARPS_PER_BLOCK
#define FULL_MASK 0xffffffffu

typedef struct symbolic_chunk {
  const int64_t *m_ptr; /* M's pattern by rows */
  const int32_t *m_idx;
  int32_t first, last;     /* the chunk's rows, or its entries of row_list */
  const int32_t *row_list; /* NULL: rows first .. last - 1 */
  uint32_t *scratch;       /* one slot per row: bitmap of n bits, its summary, the queue */
  int64_t slot_words;      /* 32-bit words per slot */
  int64_t bitmap_words;    /* words of the bitmap */
  int64_t summary_words;   /* words of the summary: bit w set when bitmap word w holds an entry below the row */
  int64_t queue_words;     /* the queue's room; a row that needs more is left to a rerun */
  int64_t *row_count;      /* phase one: entries of row i at row_count[i] */
  const int64_t *row_ptr;  /* phase two: where row i's entries go, minus out_base */
  int64_t out_base;
  const int64_t *list_out; /* phase two over row_list: where each listed row's entries go */
  int32_t *out;
  int32_t *outgrown; /* phase one: rows that needed more queue than queue_words */
  int32_t *outgrown_count;
} symbolic_chunk;

/* Set bit x; true when this call set it. A plain read first skips the atomic
 * for vertices already visited (bits are only ever set during a row). */
static __device__ __forceinline__ bool visit(uint32_t *visited, int32_t x) {
  uint32_t bit = 1u << (x & 31);
  if (((volatile uint32_t *)visited)[x >> 5] & bit)
    return false;
  return !(atomicOr(&visited[x >> 5], bit) & bit);
}

/* Flag x's bitmap word in the summary: x is an entry below the row, so a
 * later threshold. Swept vertices are not flagged: they lie below the
 * threshold that swept them, so below every later search, and a sweep's
 * many visits pay no second atomic. */
static __device__ __forceinline__ void flag(uint32_t *summary, int32_t x) {
  uint32_t bit = 1u << ((x >> 5) & 31);
  if (!(((volatile uint32_t *)summary)[x >> 10] & bit))
    atomicOr(&summary[x >> 10], bit);
}

/* Smallest visited vertex in [from, to), or -1 (all lanes get the answer),
 * where from is above every swept vertex. The warp reads from's bitmap word,
 * then the summary, 32 words (2^15 vertices) a lane, and only the bitmap
 * words it flags: a row's search over the vertices below it costs i / 2^20
 * warp-wide reads plus about two per threshold, not i / 2^10. */
static __device__ int32_t next_visited(const uint32_t *visited, const uint32_t *summary, int32_t from, int32_t to,
                                       int lane) {
  if (from >= to)
    return -1;
  const int64_t first_word = from >> 5, end_word = ((int64_t)to + 31) >> 5;
  /* The word of `from` first: thresholds often lie close together. */
  uint32_t head = ((const volatile uint32_t *)visited)[first_word] & (FULL_MASK << (from & 31));
  if (first_word == end_word - 1 && (to & 31) != 0)
    head &= FULL_MASK >> (32 - (to & 31));
  if (head)
    return (int32_t)(first_word * 32 + __ffs(head) - 1);
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
        return (int32_t)(word * 32 + __ffs(bits) - 1);
      if (lane == source) /* the last word, its bits all at or above `to` */
        flags &= flags - 1;
    }
  }
  return -1;
}

/* Row i of L + U (see row_pattern in symbolic_fill_path_cpu.c): the
 * thresholds t rise, so the next one is the smallest visited vertex above
 * the last one and below i (every visited vertex there is an L entry: swept
 * vertices lie below the threshold that swept them). From each threshold the
 * warp sweeps, breadth first, the unvisited vertices below t; a vertex above t
 * first met is an entry. The warp's lanes each expand one queued vertex.
 * A threshold's sweep is the same set of vertices whatever the order of the
 * atomics, so a row whose sweep outgrows queue_words does so in both phases:
 * it stops, and phase one lists it for a rerun with a full queue. */
template <bool write> __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32) fill_path_rows(symbolic_chunk c) {
  __shared__ int32_t tail_of[WARPS_PER_BLOCK];
  __shared__ int32_t count_of[WARPS_PER_BLOCK];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int64_t slot = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if (c.first + slot >= c.last)
    return; /* the whole warp */
  const int32_t i = c.row_list ? c.row_list[c.first + slot] : (int32_t)(c.first + slot);
  uint32_t *visited = c.scratch + slot * c.slot_words;
  uint32_t *summary = visited + c.bitmap_words;
  int32_t *queue = (int32_t *)(summary + c.summary_words);
  int32_t *out = NULL;
  if (write)
    out = c.out + (c.row_list ? c.list_out[c.first + slot] : c.row_ptr[i] - c.out_base);
  volatile int32_t *tail = &tail_of[w];
  int32_t *count = &count_of[w];
  const int32_t room = (int32_t)c.queue_words;
  int32_t low = i, high = i;
  if (lane == 0) {
    visit(visited, i);
    *count = 1;
    if (write)
      out[0] = i;
  }
  __syncwarp();
  for (int64_t k = c.m_ptr[i] + lane; k < c.m_ptr[i + 1]; k += 32) {
    int32_t x = c.m_idx[k];
    if (visit(visited, x)) {
      low = min(low, x);
      high = max(high, x);
      if (x < i)
        flag(summary, x);
      int32_t at = atomicAdd(count, 1);
      if (write)
        out[at] = x;
    }
  }
  __syncwarp();
  bool outgrown = false;
  int32_t t = -1;
  while (!outgrown) {
    t = next_visited(visited, summary, t + 1, i, lane);
    if (t < 0)
      break;
    if (lane == 0) {
      queue[0] = t;
      *tail = 1;
    }
    __syncwarp();
    int32_t head = 0;
    for (;;) {
      int32_t end = *tail;
      __syncwarp();
      if (head == end)
        break;
      if (end > room) {
        outgrown = true;
        break;
      }
      for (int32_t q = head + lane; q < end; q += 32) {
        int32_t v = queue[q];
        for (int64_t k = c.m_ptr[v]; k < c.m_ptr[v + 1]; k++) {
          int32_t x = c.m_idx[k];
          if (!visit(visited, x))
            continue;
          low = min(low, x);
          high = max(high, x);
          if (x < t) {
            int32_t at = atomicAdd((int32_t *)tail, 1);
            if (at < room)
              queue[at] = x;
          } else {
            if (x < i)
              flag(summary, x);
            int32_t at = atomicAdd(count, 1);
            if (write)
              out[at] = x;
          }
        }
      }
      __syncwarp();
      head = end;
    }
  }
  /* Clear what this row set, so the slot serves the next chunk's rows. */
  low = __reduce_min_sync(FULL_MASK, low);
  high = __reduce_max_sync(FULL_MASK, high);
  for (int64_t word = (low >> 5) + lane; word <= (high >> 5); word += 32)
    visited[word] = 0;
  for (int64_t word = (low >> 10) + lane; word <= (high >> 10); word += 32)
    summary[word] = 0;
  if (!write && lane == 0) {
    if (outgrown)
      c.outgrown[atomicAdd(c.outgrown_count, 1)] = i;
    else
      c.row_count[i] = *count;
  }
}

typedef struct device_arrays {
  int64_t *m_ptr;
  int32_t *m_idx;
  int64_t *row_ptr;
  uint32_t *scratch;
  void *scan_temp;
  int32_t *out;
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

/* A pass over rows [begin, end) (of the matrix, or of a device row list)
 * with its slot layout and rows per chunk. */
typedef struct row_pass {
  int64_t begin, end;
  const int32_t *row_list;
  int64_t queue_words, slot_words, chunk_rows;
} row_pass;

static int64_t round_up4(int64_t words) { return (words + 3) / 4 * 4; }

static void set_pass(symbolic_chunk *c, const row_pass *pass) {
  c->slot_words = pass->slot_words;
  c->queue_words = pass->queue_words;
  c->row_list = pass->row_list;
}

/* Passes lay their slots out differently (one pass's queue overlaps the next
 * slot's bitmap in another's), so each starts from cleared scratch; within a
 * pass, rows clear their own bits when done. */
static ts_status clear_scratch(ts_lu *lu, const symbolic_chunk *c, const row_pass *pass) {
  return tsi_cuda_memset(lu->ctx, c->scratch, 0, (size_t)(pass->chunk_rows * pass->slot_words) * sizeof(uint32_t));
}

static ts_status launch_chunk(ts_lu *lu, symbolic_chunk c, bool write, cudaStream_t stream) {
  unsigned blocks = (unsigned)((c.last - c.first + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK);
  if (write)
    fill_path_rows<true><<<blocks, WARPS_PER_BLOCK * 32, 0, stream>>>(c);
  else
    fill_path_rows<false><<<blocks, WARPS_PER_BLOCK * 32, 0, stream>>>(c);
  return tsi_cuda_check_launch(lu->ctx, write ? "LU symbolic write" : "LU symbolic count");
}

/* Phase one over a pass: chunks of chunk_rows rows. Adds its chunks. */
static ts_status count_pass(ts_lu *lu, symbolic_chunk c, const row_pass *pass, cudaStream_t stream, int64_t *chunks) {
  set_pass(&c, pass);
  ts_status st = clear_scratch(lu, &c, pass);
  for (int64_t first = pass->begin; first < pass->end && st == TS_SUCCESS; first += pass->chunk_rows) {
    c.first = (int32_t)first;
    c.last = (int32_t)(first + pass->chunk_rows < pass->end ? first + pass->chunk_rows : pass->end);
    st = launch_chunk(lu, c, false, stream);
    (*chunks)++;
  }
  return st;
}

/* Phase two over a pass of consecutive rows: the same rows per chunk at
 * most, fewer where the chunk's entries would pass out_capacity; each
 * chunk's entries are copied into the host rows at once. Rows that outgrow
 * the queue stop early here too and are written again by write_listed. */
static ts_status write_pass(ts_lu *lu, memory_mode mode, symbolic_chunk c, const row_pass *pass, const int64_t *row_ptr,
                            int64_t out_capacity, int32_t *row_idx, cudaStream_t stream) {
  int32_t *whole_out = c.out; /* managed: all of L + U */
  set_pass(&c, pass);
  ts_status st = clear_scratch(lu, &c, pass);
  int64_t first = pass->begin;
  while (first < pass->end && st == TS_SUCCESS) {
    int64_t last = first + 1;
    while (last < pass->end && last - first < pass->chunk_rows && row_ptr[last + 1] - row_ptr[first] <= out_capacity)
      last++;
    c.first = (int32_t)first;
    c.last = (int32_t)last;
    c.out_base = row_ptr[first];
    const size_t bytes = (size_t)(row_ptr[last] - row_ptr[first]) * sizeof(int32_t);
    if (mode.managed) {
      c.out = whole_out + row_ptr[first];
      st = launch_chunk(lu, c, true, stream);
      if (st == TS_SUCCESS)
        st = prefetch_to_host(lu, mode, c.out, bytes);
    } else {
      st = launch_chunk(lu, c, true, stream);
      if (st == TS_SUCCESS)
        st = tsi_cuda_memcpy_to_host(lu->ctx, row_idx + row_ptr[first], c.out, bytes);
    }
    first = last;
  }
  return st;
}

static int64_t row_length(const int64_t *row_ptr, int32_t row) { return row_ptr[row + 1] - row_ptr[row]; }

/* Phase two over the listed rows (sorted, on the host in `list`): chunks of
 * at most chunk_rows rows and out_capacity entries, each listed row's
 * entries at list_out within the chunk, copied through a host staging area
 * into the rows. */
static ts_status write_listed(ts_lu *lu, symbolic_chunk c, const row_pass *pass, const int32_t *list,
                              const int64_t *row_ptr, int64_t out_capacity, int32_t *row_idx, int64_t *list_out,
                              int64_t *d_list_out, cudaStream_t stream) {
  const int64_t count = pass->end;
  int64_t staging_entries = 0;
  for (int64_t first = 0; first < count;) { /* the chunks, and each row's place in its chunk */
    int64_t last = first, entries = 0;
    while (last < count && last - first < pass->chunk_rows &&
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
    st = launch_chunk(lu, c, true, stream);
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

/* The queue of a pass whose full queue (`bound` words) leaves fewer rows in
 * flight than the device runs: as long as `budget` allows with `rows` rows
 * in flight, but not under the bitmap's length (a row's sweep seldom visits
 * more than that; those that do rerun), and only where it puts more rows in
 * flight. The tests can fix it. */
static int64_t queue_words_for(const ts_lu *lu, int64_t budget, int64_t fixed_words, int64_t bound, int64_t rows) {
  if (lu->switches.symbolic_queue_words == TSI_LU_FULL_QUEUE)
    return bound;
  if (lu->switches.symbolic_queue_words > 0)
    return lu->switches.symbolic_queue_words < bound ? lu->switches.symbolic_queue_words : bound;
  const int64_t full_rows = tsi_lu_symbolic_chunk_rows(budget, round_up4(fixed_words + bound), rows);
  if (full_rows >= rows)
    return bound;
  int64_t words = budget / (int64_t)sizeof(uint32_t) / rows - fixed_words;
  int64_t least = fixed_words > TSI_LU_SYMBOLIC_MIN_QUEUE_WORDS ? fixed_words : TSI_LU_SYMBOLIC_MIN_QUEUE_WORDS;
  if (words < least)
    words = least;
  if (words >= bound || tsi_lu_symbolic_chunk_rows(budget, round_up4(fixed_words + words), rows) <= full_rows)
    return bound; /* no more rows in flight for it */
  return words;
}

/* A pass's rows per chunk within the budget and the rows in flight, and the
 * scratch (words) the largest pass needs. */
static ts_status size_chunks(ts_lu *lu, row_pass *pass, int64_t budget, int64_t rows, int64_t in_flight,
                             int64_t *scratch_words) {
  pass->chunk_rows = tsi_lu_symbolic_chunk_rows(budget, pass->slot_words, rows);
  if (pass->chunk_rows > in_flight)
    pass->chunk_rows = in_flight;
  int64_t words = 0;
  if (tsi_mul_overflows(pass->chunk_rows, pass->slot_words, &words))
    return tsi_error(lu->ctx, TS_ERROR_OVERFLOW, "ts_lu_analyze: the symbolic workspace overflows");
  if (words > *scratch_words)
    *scratch_words = words;
  return TS_SUCCESS;
}

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
  device_arrays d = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  int64_t *row_ptr = NULL, *list_out = NULL;
  int32_t *row_idx = NULL, *list = NULL;
  int64_t held = 0, peak = 0;
  cudaError_t err;
  const memory_mode mode = {lu->switches.symbolic_memory != TSI_LU_SYMBOLIC_EXPLICIT,
                            lu->switches.symbolic_memory == TSI_LU_SYMBOLIC_MANAGED_PREFETCH};

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
    /* Slots: the bitmap of n bits, its summary and a queue of at most the
     * vertices below the part's last row (Algorithm 4's two parts; one part
     * when asked), shortened where the budget would leave the GPU idle. */
    int64_t bitmap_words = (n + 31) / 32, summary_words = (bitmap_words + 31) / 32;
    int64_t fixed_words = bitmap_words + summary_words;
    int64_t split = lu->switches.symbolic_one_chunk_size ? 0 : n / 2;
    row_pass parts[2] = {{0, split, NULL, split, 0, 0}, {split, n, NULL, n, 0, 0}};
    row_pass rerun = {0, 0, NULL, n, round_up4(fixed_words + n), 0};
    int64_t budget = lu->options.symbolic_memory_budget;
    if (budget <= 0) {
      size_t free_bytes = 0, total_bytes = 0;
      if ((err = cudaMemGetInfo(&free_bytes, &total_bytes)) != cudaSuccess) {
        st = tsi_cuda_error(lu->ctx, err, "ts_lu_analyze: GPU symbolic factorization: cudaMemGetInfo");
        goto cleanup;
      }
      budget = (int64_t)(free_bytes / TSI_LU_SYMBOLIC_BUDGET_DIVISOR);
    }
    int device_sms = 0, warps_per_sm = 0;
    (void)cudaDeviceGetAttribute(&device_sms, cudaDevAttrMultiProcessorCount, ctx->device);
    (void)cudaDeviceGetAttribute(&warps_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, ctx->device);
    int64_t in_flight = (int64_t)device_sms * (warps_per_sm / 32) * TSI_LU_SYMBOLIC_ROWS_PER_RESIDENT_WARP;
    if (in_flight < WARPS_PER_BLOCK)
      in_flight = WARPS_PER_BLOCK;
    int64_t scratch_words = 0;
    bool shortened = false;
    for (int p = 0; p < 2 && st == TS_SUCCESS; p++) {
      row_pass *pass = &parts[p];
      if (pass->end <= pass->begin)
        continue;
      int64_t bound = pass->queue_words, rows_in_part = pass->end - pass->begin;
      pass->queue_words = mode.managed ? bound
                                       : queue_words_for(lu, budget, fixed_words, bound,
                                                         rows_in_part < in_flight ? rows_in_part : in_flight);
      pass->slot_words = round_up4(fixed_words + pass->queue_words);
      shortened = shortened || pass->queue_words < bound;
      st = size_chunks(lu, pass, budget, rows_in_part, in_flight, &scratch_words);
    }
    if (st == TS_SUCCESS && shortened) /* up to every row may rerun */
      st = size_chunks(lu, &rerun, budget, n, in_flight, &scratch_words);
    if (st != TS_SUCCESS)
      goto cleanup;
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
    if (shortened) {
      if ((st = tsi_cuda_malloc(ctx, (void **)&d.outgrown, (size_t)(n + 1) * sizeof(int32_t))) != TS_SUCCESS ||
          (st = tsi_cuda_memset(ctx, d.outgrown + n, 0, sizeof(int32_t))) != TS_SUCCESS)
        goto cleanup;
      held += (n + 1) * (int64_t)sizeof(int32_t);
    }

    /* Phase one: count each row's entries into row_ptr[i + 1]; the rows
     * that outgrew a shortened queue are counted again with a full one. */
    symbolic_chunk c = {};
    c.m_ptr = d.m_ptr;
    c.m_idx = d.m_idx;
    c.scratch = d.scratch;
    c.bitmap_words = bitmap_words;
    c.summary_words = summary_words;
    c.row_count = d.row_ptr + 1;
    c.outgrown = d.outgrown;
    c.outgrown_count = d.outgrown ? d.outgrown + n : NULL;
    int64_t chunks = 0;
    for (int p = 0; p < 2 && st == TS_SUCCESS; p++)
      if (parts[p].end > parts[p].begin)
        st = count_pass(lu, c, &parts[p], stream, &chunks);
    if (st != TS_SUCCESS)
      goto cleanup;
    int32_t listed = 0;
    if (shortened && (st = tsi_cuda_memcpy_to_host(ctx, &listed, d.outgrown + n, sizeof(int32_t))) != TS_SUCCESS)
      goto cleanup;
    if (listed > 0) {
      list = (int32_t *)tsi_malloc_array(listed, sizeof(int32_t));
      list_out = (int64_t *)tsi_malloc_array(listed, sizeof(int64_t));
      if (!list || !list_out) {
        st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the symbolic rerun's rows");
        goto cleanup;
      }
      /* Sorted, so that the rerun's chunks do not depend on the atomics. */
      if ((st = tsi_cuda_memcpy_to_host(ctx, list, d.outgrown, (size_t)listed * sizeof(int32_t))) != TS_SUCCESS)
        goto cleanup;
      qsort(list, (size_t)listed, sizeof(int32_t), compare_rows);
      if ((st = tsi_cuda_memcpy_to_device(ctx, d.outgrown, list, (size_t)listed * sizeof(int32_t))) != TS_SUCCESS)
        goto cleanup;
      rerun.end = listed;
      rerun.row_list = d.outgrown;
      if ((st = count_pass(lu, c, &rerun, stream, &chunks)) != TS_SUCCESS)
        goto cleanup;
    }
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
     * least the longest row), and goes to the host before the next chunk. */
    int64_t longest = 0;
    for (int64_t i = 0; i < n; i++)
      if (row_ptr[i + 1] - row_ptr[i] > longest)
        longest = row_ptr[i + 1] - row_ptr[i];
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
      if (listed > 0) {
        if ((st = tsi_cuda_malloc(ctx, (void **)&d.list_out, (size_t)listed * sizeof(int64_t))) != TS_SUCCESS)
          goto cleanup;
        held += listed * (int64_t)sizeof(int64_t);
      }
      if (held > peak)
        peak = held;
      c.row_count = NULL;
      c.row_ptr = d.row_ptr;
      c.out = d.out;
      for (int p = 0; p < 2 && st == TS_SUCCESS; p++)
        if (parts[p].end > parts[p].begin)
          st = write_pass(lu, mode, c, &parts[p], row_ptr, out_capacity, row_idx, stream);
      if (st == TS_SUCCESS && listed > 0)
        st = write_listed(lu, c, &rerun, list, row_ptr, out_capacity, row_idx, list_out, d.list_out, stream);
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
  tsi_cuda_free(d.outgrown);
  tsi_cuda_free(d.list_out);
  free(row_ptr);
  free(row_idx);
  free(list);
  free(list_out);
  return st;
}

ts_status tsi_lu_symbolic_cuda(ts_lu *lu, const ts_csr *a) {
  return tsi_lu_symbolic_with(lu, a, tsi_lu_symbolic_cuda_rows);
}
