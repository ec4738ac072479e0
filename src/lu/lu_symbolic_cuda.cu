/* Rows of L + U of M = P Dr A Dc Q on the GPU, out of core (Xia, Jiang,
 * Agrawal and Ramnath, PPoPP 2023, section 3.2, Algorithms 3 and 4): one warp
 * per source row runs the fill-path traversal (Rose and Tarjan's fill2, the
 * algorithm of lu_symbolic_fill_path_cpu.c) with a visited bitmap and a
 * frontier queue in global scratch; phase one counts each row's entries, a
 * device scan sizes L + U, phase two writes them. Rows run in chunks whose
 * scratch fits a device-memory budget, with two chunk sizes (a row's frontier
 * holds only vertices below it, so the first half's rows need half the room);
 * each chunk's entries go back to host memory at once, so L + U may exceed
 * device memory. The columns, entry map and counts are then built on the host
 * as on the CPU path (tsi_lu_symbolic_with). */
#include "lu_symbolic.h"

#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <stdlib.h>

#define WARPS_PER_BLOCK 8
#define FULL_MASK 0xffffffffu
/* Rows in flight per chunk: beyond a few per resident warp, slots only cost
 * memory and their initial clearing. */
#define ROWS_PER_RESIDENT_WARP 2
/* Default budget: this fraction of the free device memory. */
#define DEFAULT_BUDGET_DIVISOR 4

typedef struct symbolic_chunk {
  const int64_t *m_ptr; /* M's pattern by rows */
  const int32_t *m_idx;
  int32_t first, last;    /* rows of the chunk */
  uint32_t *scratch;      /* one slot per row: bitmap of n bits, then the queue */
  int64_t slot_words;     /* 32-bit words per slot */
  int64_t bitmap_words;   /* words of the bitmap */
  int64_t *row_count;     /* phase one: entries of row i at row_count[i] */
  const int64_t *row_ptr; /* phase two: where row i's entries go, minus out_base */
  int64_t out_base;
  int32_t *out;
} symbolic_chunk;

/* Set bit x; true when this call set it. A plain read first skips the atomic
 * for vertices already visited (bits are only ever set during a row). */
static __device__ __forceinline__ bool visit(uint32_t *visited, int32_t x) {
  uint32_t bit = 1u << (x & 31);
  if (((volatile uint32_t *)visited)[x >> 5] & bit)
    return false;
  return !(atomicOr(&visited[x >> 5], bit) & bit);
}

/* Smallest visited vertex in [from, to), or -1 (all lanes get the answer). */
static __device__ int32_t next_visited(const uint32_t *visited, int32_t from, int32_t to, int lane) {
  if (from >= to)
    return -1;
  int64_t first_word = from >> 5, end_word = ((int64_t)to + 31) >> 5;
  for (int64_t base = first_word; base < end_word; base += 32) {
    int64_t w = base + lane;
    uint32_t bits = 0;
    if (w < end_word) {
      bits = ((const volatile uint32_t *)visited)[w];
      if (w == first_word)
        bits &= FULL_MASK << (from & 31);
      if (w == end_word - 1 && (to & 31) != 0)
        bits &= FULL_MASK >> (32 - (to & 31));
    }
    unsigned found = __ballot_sync(FULL_MASK, bits != 0);
    if (found) {
      int source = __ffs(found) - 1;
      uint32_t word = __shfl_sync(FULL_MASK, bits, source);
      return (int32_t)((base + source) * 32 + __ffs(word) - 1);
    }
  }
  return -1;
}

/* Row i of L + U (see row_pattern in lu_symbolic_fill_path_cpu.c): the
 * thresholds t rise, so the next one is the smallest visited vertex above
 * the last one and below i (every visited vertex there is an L entry: swept
 * vertices lie below the threshold that swept them). From each threshold the
 * warp sweeps, breadth first, the unvisited vertices below t; a vertex above t
 * first met is an entry. The warp's lanes each expand one queued vertex. */
template <bool write> __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32) fill_path_rows(symbolic_chunk c) {
  __shared__ int32_t tail_of[WARPS_PER_BLOCK];
  __shared__ int32_t count_of[WARPS_PER_BLOCK];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int64_t slot = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int32_t i = (int32_t)(c.first + slot);
  if (i >= c.last)
    return; /* the whole warp */
  uint32_t *visited = c.scratch + slot * c.slot_words;
  int32_t *queue = (int32_t *)(visited + c.bitmap_words);
  int32_t *out = write ? c.out + (c.row_ptr[i] - c.out_base) : NULL;
  volatile int32_t *tail = &tail_of[w];
  int32_t *count = &count_of[w];
  int32_t low = i, high = i;
  if (lane == 0) {
    atomicOr(&visited[i >> 5], 1u << (i & 31));
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
      int32_t at = atomicAdd(count, 1);
      if (write)
        out[at] = x;
    }
  }
  __syncwarp();
  int32_t t = -1;
  for (;;) {
    t = next_visited(visited, t + 1, i, lane);
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
      for (int32_t q = head + lane; q < end; q += 32) {
        int32_t v = queue[q];
        for (int64_t k = c.m_ptr[v]; k < c.m_ptr[v + 1]; k++) {
          int32_t x = c.m_idx[k];
          if (!visit(visited, x))
            continue;
          low = min(low, x);
          high = max(high, x);
          if (x < t) {
            queue[atomicAdd((int32_t *)tail, 1)] = x;
          } else {
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
  if (!write && lane == 0)
    c.row_count[i] = *count;
}

typedef struct device_arrays {
  int64_t *m_ptr;
  int32_t *m_idx;
  int64_t *row_ptr;
  uint32_t *scratch;
  void *scan_temp;
  int32_t *out;
} device_arrays;

static ts_status cuda_failure(ts_lu *lu, cudaError_t err, const char *what) {
  (void)cudaGetLastError();
  return tsi_error(lu->ctx, err == cudaErrorMemoryAllocation ? TS_ERROR_OUT_OF_MEMORY : TS_ERROR_CUDA,
                   "ts_lu_analyze: GPU symbolic factorization: %s: %s", what, cudaGetErrorString(err));
}

/* A part of the rows [begin, end) with its slot size and rows per chunk. */
typedef struct row_part {
  int64_t begin, end, slot_words, chunk_rows;
} row_part;

static int64_t round_up4(int64_t words) { return (words + 3) / 4 * 4; }

/* The parts lay their slots out differently (one part's queue overlaps the
 * next slot's bitmap in the other's), so each part starts from cleared
 * scratch; within a part, rows clear their own bits when done. */
static ts_status clear_scratch(ts_lu *lu, const symbolic_chunk *c, const row_part *part) {
  return tsi_cuda_memset(lu->ctx, c->scratch, 0, (size_t)(part->chunk_rows * part->slot_words) * sizeof(uint32_t));
}

/* Phase one over a part: chunks of chunk_rows rows. Returns the chunks. */
static ts_status count_part(ts_lu *lu, symbolic_chunk c, const row_part *part, cudaStream_t stream, int64_t *chunks) {
  c.slot_words = part->slot_words;
  ts_status st = clear_scratch(lu, &c, part);
  if (st != TS_SUCCESS)
    return st;
  for (int64_t first = part->begin; first < part->end; first += part->chunk_rows) {
    int64_t last = first + part->chunk_rows < part->end ? first + part->chunk_rows : part->end;
    c.first = (int32_t)first;
    c.last = (int32_t)last;
    unsigned blocks = (unsigned)((last - first + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK);
    fill_path_rows<false><<<blocks, WARPS_PER_BLOCK * 32, 0, stream>>>(c);
    st = tsi_cuda_check_launch(lu->ctx, "LU symbolic count");
    if (st != TS_SUCCESS)
      return st;
    (*chunks)++;
  }
  return TS_SUCCESS;
}

/* Phase two over a part: the same rows per chunk at most, fewer where the
 * chunk's entries would pass out_capacity; each chunk's entries are copied
 * into the host rows at once. */
static ts_status write_part(ts_lu *lu, symbolic_chunk c, const row_part *part, const int64_t *row_ptr,
                            int64_t out_capacity, int32_t *row_idx, cudaStream_t stream) {
  c.slot_words = part->slot_words;
  ts_status st = clear_scratch(lu, &c, part);
  if (st != TS_SUCCESS)
    return st;
  int64_t first = part->begin;
  while (first < part->end) {
    int64_t last = first + 1;
    while (last < part->end && last - first < part->chunk_rows && row_ptr[last + 1] - row_ptr[first] <= out_capacity)
      last++;
    c.first = (int32_t)first;
    c.last = (int32_t)last;
    c.out_base = row_ptr[first];
    unsigned blocks = (unsigned)((last - first + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK);
    fill_path_rows<true><<<blocks, WARPS_PER_BLOCK * 32, 0, stream>>>(c);
    st = tsi_cuda_check_launch(lu->ctx, "LU symbolic write");
    if (st != TS_SUCCESS)
      return st;
    int64_t entries = row_ptr[last] - row_ptr[first];
    st = tsi_cuda_memcpy_to_host(lu->ctx, row_idx + row_ptr[first], c.out, (size_t)entries * sizeof(int32_t));
    if (st != TS_SUCCESS)
      return st;
    first = last;
  }
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
  device_arrays d = {NULL, NULL, NULL, NULL, NULL, NULL};
  int64_t *row_ptr = NULL;
  int32_t *row_idx = NULL;
  int64_t held = 0, peak = 0;
  cudaError_t err;

  /* M's pattern and the row counts (then offsets) on the device. */
  size_t ptr_bytes = (size_t)(n + 1) * sizeof(int64_t), idx_bytes = (size_t)nnz * sizeof(int32_t);
  if ((st = tsi_cuda_malloc(ctx, (void **)&d.m_ptr, ptr_bytes)) != TS_SUCCESS ||
      (st = tsi_cuda_malloc(ctx, (void **)&d.m_idx, idx_bytes > 0 ? idx_bytes : 4)) != TS_SUCCESS ||
      (st = tsi_cuda_malloc(ctx, (void **)&d.row_ptr, ptr_bytes)) != TS_SUCCESS)
    goto cleanup;
  held += (int64_t)(2 * ptr_bytes + idx_bytes);
  if ((st = tsi_cuda_memcpy_to_device(ctx, d.m_ptr, rows->m_ptr, ptr_bytes)) != TS_SUCCESS ||
      (nnz > 0 && (st = tsi_cuda_memcpy_to_device(ctx, d.m_idx, rows->m_idx, idx_bytes)) != TS_SUCCESS) ||
      (st = tsi_cuda_memset(ctx, d.row_ptr, 0, ptr_bytes)) != TS_SUCCESS)
    goto cleanup;

  {
    /* Slots: the bitmap of n bits and a queue of the vertices below the
     * part's last row (Algorithm 4's two parts; one part when asked). */
    int64_t bitmap_words = (n + 31) / 32;
    int64_t split = lu->symbolic_one_chunk_size ? 0 : n / 2;
    row_part parts[2] = {{0, split, round_up4(bitmap_words + split), 0}, {split, n, round_up4(bitmap_words + n), 0}};
    int64_t budget = lu->options.symbolic_memory_budget;
    if (budget <= 0) {
      size_t free_bytes = 0, total_bytes = 0;
      if ((err = cudaMemGetInfo(&free_bytes, &total_bytes)) != cudaSuccess) {
        st = cuda_failure(lu, err, "cudaMemGetInfo");
        goto cleanup;
      }
      budget = (int64_t)(free_bytes / DEFAULT_BUDGET_DIVISOR);
    }
    int device_sms = 0, warps_per_sm = 0;
    (void)cudaDeviceGetAttribute(&device_sms, cudaDevAttrMultiProcessorCount, ctx->device);
    (void)cudaDeviceGetAttribute(&warps_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, ctx->device);
    int64_t in_flight = (int64_t)device_sms * (warps_per_sm / 32) * ROWS_PER_RESIDENT_WARP;
    if (in_flight < WARPS_PER_BLOCK)
      in_flight = WARPS_PER_BLOCK;
    int64_t scratch_words = 0;
    for (int p = 0; p < 2; p++) {
      row_part *part = &parts[p];
      if (part->end <= part->begin)
        continue;
      part->chunk_rows = tsi_lu_symbolic_chunk_rows(budget, part->slot_words, part->end - part->begin);
      if (part->chunk_rows > in_flight)
        part->chunk_rows = in_flight;
      int64_t words = 0;
      if (tsi_mul_overflows(part->chunk_rows, part->slot_words, &words)) {
        st = tsi_error(ctx, TS_ERROR_OVERFLOW, "ts_lu_analyze: the symbolic workspace overflows");
        goto cleanup;
      }
      if (words > scratch_words)
        scratch_words = words;
    }
    if (scratch_words > 0) {
      if ((st = tsi_cuda_malloc(ctx, (void **)&d.scratch, (size_t)scratch_words * 4)) != TS_SUCCESS) {
        tsi_error(ctx, st,
                  "ts_lu_analyze: cannot allocate the GPU symbolic workspace (%lld bytes; lower "
                  "symbolic_memory_budget)",
                  (long long)(scratch_words * 4));
        goto cleanup;
      }
      held += scratch_words * 4;
    }

    /* Phase one: count each row's entries into row_ptr[i + 1]. */
    symbolic_chunk c = {d.m_ptr, d.m_idx, 0, 0, d.scratch, 0, bitmap_words, d.row_ptr + 1, NULL, 0, NULL};
    int64_t chunks = 0;
    for (int p = 0; p < 2 && st == TS_SUCCESS; p++)
      if (parts[p].end > parts[p].begin)
        st = count_part(lu, c, &parts[p], stream, &chunks);
    if (st != TS_SUCCESS)
      goto cleanup;
    lu->stats.symbolic_chunks = chunks;

    /* A device scan turns the counts into row offsets. */
    size_t temp_bytes = 0;
    if (n > 0) {
      if ((err = cub::DeviceScan::InclusiveSum(NULL, temp_bytes, d.row_ptr + 1, d.row_ptr + 1, (int)n, stream)) !=
          cudaSuccess) {
        st = cuda_failure(lu, err, "scan size");
        goto cleanup;
      }
      if ((st = tsi_cuda_malloc(ctx, &d.scan_temp, temp_bytes > 0 ? temp_bytes : 4)) != TS_SUCCESS)
        goto cleanup;
      if (held + (int64_t)temp_bytes > peak)
        peak = held + (int64_t)temp_bytes;
      if ((err = cub::DeviceScan::InclusiveSum(d.scan_temp, temp_bytes, d.row_ptr + 1, d.row_ptr + 1, (int)n,
                                               stream)) != cudaSuccess) {
        st = cuda_failure(lu, err, "scan");
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
    if ((st = tsi_cuda_memcpy_to_host(ctx, row_ptr, d.row_ptr, ptr_bytes)) != TS_SUCCESS)
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
    if (out_capacity > total)
      out_capacity = total;
    if (total > 0) {
      if ((st = tsi_cuda_malloc(ctx, (void **)&d.out, (size_t)out_capacity * sizeof(int32_t))) != TS_SUCCESS)
        goto cleanup;
      held += out_capacity * (int64_t)sizeof(int32_t);
      if (held > peak)
        peak = held;
      c.row_count = NULL;
      c.row_ptr = d.row_ptr;
      c.out = d.out;
      for (int p = 0; p < 2 && st == TS_SUCCESS; p++)
        if (parts[p].end > parts[p].begin)
          st = write_part(lu, c, &parts[p], row_ptr, out_capacity, row_idx, stream);
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
  free(row_ptr);
  free(row_idx);
  return st;
}

ts_status tsi_lu_symbolic_cuda(ts_lu *lu, const ts_csr *a) {
  return tsi_lu_symbolic_with(lu, a, tsi_lu_symbolic_cuda_rows);
}
