/* Each vertex's out-edges reordered for the near-far kernel's light and
 * heavy rounds: the edges lighter than delta first, then the others, each
 * class in its stored order, with the end of the light ones. A light round
 * then walks [offsets[u], light_end[u]) and a heavy round [light_end[u],
 * offsets[u + 1]) without reading the other class (Meyer and Sanders,
 * delta-stepping). One warp a vertex: a count, then a stable split by ballot. */
#include "graph_cuda.h"
#include "graph_internal.h"

template <class T>
__global__ void tsi_sssp_split_edges_kernel(int32_t n, const int64_t *offsets, const int32_t *heads, const T *weights,
                                            T delta, int64_t *light_end, int32_t *split_heads, T *split_weights) {
  const int lane = (int)(threadIdx.x & 31u);
  const unsigned below = (1u << lane) - 1u;
  const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  for (int64_t u = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; u < n; u += warps) {
    const int64_t begin = offsets[u], end = offsets[u + 1];
    int64_t light = 0;
    for (int64_t chunk = begin; chunk < end; chunk += 32) {
      const int64_t e = chunk + lane;
      light += __popc(__ballot_sync(0xffffffffu, e < end && weights[e] < delta));
    }
    int64_t light_at = begin, heavy_at = begin + light;
    for (int64_t chunk = begin; chunk < end; chunk += 32) {
      const int64_t e = chunk + lane;
      const bool in = e < end;
      const T w = in ? weights[e] : T(0);
      const bool is_light = in && w < delta;
      const unsigned light_mask = __ballot_sync(0xffffffffu, is_light);
      const unsigned heavy_mask = __ballot_sync(0xffffffffu, in && !is_light);
      if (in) {
        const int64_t to = is_light ? light_at + __popc(light_mask & below) : heavy_at + __popc(heavy_mask & below);
        split_heads[to] = heads[e];
        split_weights[to] = w;
      }
      light_at += __popc(light_mask);
      heavy_at += __popc(heavy_mask);
    }
    if (lane == 0)
      light_end[u] = begin + light;
  }
}

ts_status tsi_sssp_cuda_split_edges(ts_context *ctx, const char *op, const tsi_graph_device *d, double delta,
                                    int64_t *light_end, int32_t *split_heads, void *split_weights) {
  if (d->n == 0)
    return TS_SUCCESS;
  const int threads = 256;
  const int64_t blocks_wanted = ((int64_t)d->n * 32 + threads - 1) / threads;
  const unsigned blocks = (unsigned)(blocks_wanted < 4096 ? blocks_wanted : 4096);
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  if (d->dtype == TS_FLOAT32)
    tsi_sssp_split_edges_kernel<float>
        <<<blocks, threads, 0, stream>>>(d->n, d->offsets, d->heads, static_cast<const float *>(d->weights),
                                         (float)delta, light_end, split_heads, static_cast<float *>(split_weights));
  else
    tsi_sssp_split_edges_kernel<double>
        <<<blocks, threads, 0, stream>>>(d->n, d->offsets, d->heads, static_cast<const double *>(d->weights), delta,
                                         light_end, split_heads, static_cast<double *>(split_weights));
  return tsi_cuda_check_launch(ctx, op);
}
