/* The graph in GPU memory (out-edges, weights, in-edges for bottom-up BFS,
 * the hub bits and the list of vertices of many in-edges), and the launch of
 * the persistent traversal kernels. */
#include "graph_cuda_device.cuh"
#include "graph_internal.h"

#include <stdlib.h>
#include <string.h>

static ts_status upload(ts_context *ctx, const char *op, void **dst, const void *src, int64_t bytes, int64_t *count) {
  /* At least a word: an empty array still gets a valid pointer. */
  ts_status st = tsi_cuda_malloc(ctx, dst, (size_t)(bytes > 4 ? bytes : 4));
  if (st == TS_SUCCESS && bytes > 0 && src)
    st = tsi_cuda_memcpy_to_device(ctx, *dst, src, (size_t)bytes);
  if (st == TS_SUCCESS)
    *count += bytes;
  (void)op;
  return st;
}

ts_status tsi_graph_cuda_upload(ts_context *ctx, const char *op, const tsi_graph_host *g, bool in_edges,
                                const tsi_graph_tuning *t, tsi_graph_device *d) {
  memset(d, 0, sizeof *d);
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  d->n = (int32_t)g->n;
  d->m = g->m;
  d->dtype = g->dtype;
  const int64_t words = (g->n + 31) / 32;
  uint32_t *hub_bits = (uint32_t *)tsi_calloc_array(words > 0 ? words : 1, sizeof(uint32_t));
  int32_t *heavy = NULL;
  if (!hub_bits)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no host memory for the hub bits", op);
  for (int64_t v = 0; v < g->n; v++)
    if (g->offsets[v + 1] - g->offsets[v] > t->hub_degree) {
      hub_bits[v >> 5] |= 1u << (v & 31);
      d->hubs++;
    }
  st = upload(ctx, op, (void **)&d->offsets, g->offsets, (g->n + 1) * 8, &d->bytes);
  if (st == TS_SUCCESS)
    st = upload(ctx, op, (void **)&d->heads, g->heads, g->m * 4, &d->bytes);
  if (st == TS_SUCCESS && g->weights)
    st = upload(ctx, op, &d->weights, g->weights, g->m * (int64_t)ts_dtype_size(g->dtype), &d->bytes);
  if (st == TS_SUCCESS)
    st = upload(ctx, op, (void **)&d->hub_bits, hub_bits, words * 4, &d->bytes);
  if (st == TS_SUCCESS && in_edges) {
    const int64_t *in_offsets = g->undirected ? g->offsets : g->in_offsets;
    if (!g->undirected) {
      st = upload(ctx, op, (void **)&d->own_in_offsets, g->in_offsets, (g->n + 1) * 8, &d->in_edge_bytes);
      if (st == TS_SUCCESS)
        st = upload(ctx, op, (void **)&d->own_in_tails, g->in_tails, g->m * 4, &d->in_edge_bytes);
      d->in_offsets = d->own_in_offsets;
      d->in_tails = d->own_in_tails;
    } else {
      d->in_offsets = d->offsets;
      d->in_tails = d->heads;
    }
    /* Vertices whose in-edges a bottom-up step scans with a whole warp. */
    for (int64_t v = 0; st == TS_SUCCESS && v < g->n; v++)
      d->heavy_count += in_offsets[v + 1] - in_offsets[v] > t->heavy_in_degree;
    if (st == TS_SUCCESS) {
      heavy = (int32_t *)tsi_malloc_array(d->heavy_count > 0 ? d->heavy_count : 1, sizeof(int32_t));
      if (!heavy)
        st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no host memory for the heavy vertices", op);
    }
    if (st == TS_SUCCESS) {
      int64_t k = 0;
      for (int64_t v = 0; v < g->n; v++)
        if (in_offsets[v + 1] - in_offsets[v] > t->heavy_in_degree)
          heavy[k++] = (int32_t)v;
      st = upload(ctx, op, (void **)&d->heavy_in, heavy, d->heavy_count * 4, &d->in_edge_bytes);
    }
  }
  free(hub_bits);
  free(heavy);
  if (st != TS_SUCCESS)
    tsi_graph_cuda_release(d);
  return st;
}

void tsi_graph_cuda_release(tsi_graph_device *d) {
  if (!d)
    return;
  tsi_cuda_free(d->offsets);
  tsi_cuda_free(d->heads);
  tsi_cuda_free(d->weights);
  tsi_cuda_free(d->own_in_offsets);
  tsi_cuda_free(d->own_in_tails);
  tsi_cuda_free(d->hub_bits);
  tsi_cuda_free(d->heavy_in);
  memset(d, 0, sizeof *d);
}

void tsi_graph_cuda_capability(ts_context *ctx, int *major, int *minor) {
  *major = 0;
  *minor = 0;
  if (cudaDeviceGetAttribute(major, cudaDevAttrComputeCapabilityMajor, ctx->device) != cudaSuccess ||
      cudaDeviceGetAttribute(minor, cudaDevAttrComputeCapabilityMinor, ctx->device) != cudaSuccess) {
    (void)cudaGetLastError();
    *major = 0;
    *minor = 0;
  }
}

cudaError_t tsi_persistent_launch_of(ts_context *ctx, const void *kernel, int blocks_per_sm,
                                     tsi_persistent_launch *launch) {
  launch->kernel = kernel;
  launch->grid = 1;
  launch->cooperative = false;
  int cooperative = 0, sms = 0, per_sm = 0;
  cudaError_t err = cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, ctx->device);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx->device);
  if (err == cudaSuccess)
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, TSI_GRAPH_BLOCK, 0);
  if (err != cudaSuccess)
    return err;
  if (!cooperative || per_sm < 1)
    return cudaSuccess; /* one block: always resident */
  launch->cooperative = true;
  launch->grid = sms * (per_sm < blocks_per_sm ? per_sm : blocks_per_sm);
  return cudaSuccess;
}

cudaError_t tsi_persistent_start(ts_context *ctx, const tsi_persistent_launch *launch, void **args) {
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  if (launch->cooperative)
    return cudaLaunchCooperativeKernel(launch->kernel, dim3((unsigned)launch->grid), dim3(TSI_GRAPH_BLOCK), args, 0,
                                       stream);
  return cudaLaunchKernel(launch->kernel, dim3(1), dim3(TSI_GRAPH_BLOCK), args, 0, stream);
}
