/* Memory latency by pointer chase: one thread follows a random single cycle
 * of nodes 128 bytes apart, each load depending on the
 * last (Mei and Chu, "Dissecting GPU Memory Hierarchy through
 * Microbenchmarking", IEEE TPDS 2017). Over a buffer several times L2 every
 * step misses L2: DRAM latency; within a few MiB, after a warm pass: L2
 * latency. Loads use ld.global.cg (cached in L2, not L1). */
#include "model/model_bench.cuh"

#include <stdint.h>
#include <stdlib.h>

/* Words between nodes: one node per 128-byte line. */
#define NODE_WORDS 32u

__global__ void tsi_model_chase_build(unsigned *nodes, const unsigned *next, unsigned count) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count)
    nodes[(size_t)i * NODE_WORDS] = next[i] * NODE_WORDS;
}

__global__ void tsi_model_chase(const unsigned *nodes, unsigned steps, unsigned *sink) {
  unsigned j = 0;
  for (unsigned s = 0; s < steps; s++)
    j = __ldcg(nodes + j);
  *sink = j;
}

/* A random order of the nodes (Fisher-Yates); linking each node to the
 * next in that order closes one cycle through all of them. */
static void random_order(unsigned *order, unsigned count, uint64_t seed) {
  for (unsigned i = 0; i < count; i++)
    order[i] = i;
  for (unsigned i = count - 1; i > 0; i--) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    unsigned j = (unsigned)((seed >> 33) % (i + 1));
    unsigned t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
}

/* Chase a cycle of `count` nodes: `warm` untimed steps, then `steps` timed. */
static cudaError_t chase_ns(const tsi_model_bench &b, unsigned count, unsigned warm, unsigned steps, bool flush,
                            double *ns) {
  unsigned *host = (unsigned *)malloc((size_t)count * sizeof(unsigned));
  unsigned *links = NULL;
  cudaError_t err = cudaSuccess;
  if (!host)
    return cudaErrorMemoryAllocation;
  random_order(host, count, 0x9e3779b97f4a7c15ULL ^ count);
  /* The permutation as a cycle: node host[i] links to host[i + 1]. */
  unsigned *link_host = (unsigned *)malloc((size_t)count * sizeof(unsigned));
  if (!link_host) {
    free(host);
    return cudaErrorMemoryAllocation;
  }
  for (unsigned i = 0; i < count; i++)
    link_host[host[i]] = host[(i + 1) % count];
  unsigned *sink = b.scratch + (b.scratch_bytes / sizeof(unsigned) - 1);
  float ms = 0;
  err = cudaMallocAsync((void **)&links, (size_t)count * sizeof(unsigned), b.stream);
  if (err == cudaSuccess)
    err = cudaMemcpyAsync(links, link_host, (size_t)count * sizeof(unsigned), cudaMemcpyHostToDevice, b.stream);
  if (err == cudaSuccess) {
    tsi_model_chase_build<<<(count + 255) / 256, 256, 0, b.stream>>>(b.scratch, links, count);
    err = cudaGetLastError();
  }
  if (err == cudaSuccess && warm) {
    tsi_model_chase<<<1, 1, 0, b.stream>>>(b.scratch, warm, sink);
    err = cudaGetLastError();
  }
  if (err == cudaSuccess && flush)
    err = tsi_model_flush_l2(b);
  if (err == cudaSuccess)
    err = cudaEventRecord(b.start, b.stream);
  if (err == cudaSuccess) {
    tsi_model_chase<<<1, 1, 0, b.stream>>>(b.scratch, steps, sink);
    err = cudaGetLastError();
  }
  if (err == cudaSuccess)
    err = cudaEventRecord(b.stop, b.stream);
  if (err == cudaSuccess)
    err = tsi_model_elapsed(b, &ms);
  if (links) {
    cudaError_t e2 = cudaFreeAsync(links, b.stream);
    if (err == cudaSuccess)
      err = e2;
  }
  cudaError_t e3 = cudaStreamSynchronize(b.stream);
  if (err == cudaSuccess)
    err = e3;
  free(link_host);
  free(host);
  *ns = ms * 1e6 / steps;
  return err;
}

cudaError_t tsi_model_bench_latency(const tsi_model_bench &b, ts_model_params *p) {
  /* DRAM: the scratch buffer's nodes (>= 4x L2), L2 flushed first; the
   * chase visits distinct nodes, so no step hits a line loaded before. */
  unsigned dram_nodes = (unsigned)(b.scratch_bytes / (NODE_WORDS * sizeof(unsigned)) - 1);
  cudaError_t err = chase_ns(b, dram_nodes, 0, 20000, true, &p->dram_latency_ns);
  /* L2: 4 MiB of nodes, warmed by one full turn of the cycle. */
  unsigned l2_nodes = (unsigned)((4u << 20) / (NODE_WORDS * sizeof(unsigned)));
  if (err == cudaSuccess)
    err = chase_ns(b, l2_nodes, l2_nodes, 100000, false, &p->l2_latency_ns);
  return err;
}
