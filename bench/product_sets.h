/* The matrices of the SpMM and SpGEMM benchmarks: the corpus, 2-D and 3-D
 * meshes (5- and 7-point Laplacians), R-MAT graphs of scale 16 to 20 (edge
 * factor 16, Graph500 probabilities, directed) and power-law rows (Zipf
 * exponents 0.9 and 1.2). --quick shrinks the generated ones. */
#ifndef TESSERA_BENCH_PRODUCT_SETS_H
#define TESSERA_BENCH_PRODUCT_SETS_H

#include "tsb.h"

#include <stdbool.h>
#include <string.h>

enum { PS_CORPUS, PS_MESH, PS_RMAT, PS_POWERLAW, PS_COUNT };
static const char *const ps_set_names[PS_COUNT] = {"corpus", "mesh", "rmat", "powerlaw"};

enum { PS_LAPLACIAN_2D, PS_LAPLACIAN_3D, PS_RMAT_GEN, PS_POWER_LAW };

typedef struct ps_spec {
  int set;
  const char *name;
  int kind;
  int64_t n;       /* side, scale (R-MAT) or rows */
  int64_t nnz;     /* power law: target entries */
  double exponent; /* power law */
  int64_t divisor; /* --quick: sides and rows divided by it, R-MAT scale lowered by 4 */
} ps_spec;

/* Sized so that B and C of 512 fp64 columns fit the H200 beside cuSPARSE's
 * buffers (the largest: 4.2 M rows, 17 GB each). */
static const ps_spec ps_specs[] = {
    {PS_MESH, "laplacian2d_1024", PS_LAPLACIAN_2D, 1024, 0, 0, 8},
    {PS_MESH, "laplacian2d_2048", PS_LAPLACIAN_2D, 2048, 0, 0, 16},
    {PS_MESH, "laplacian3d_64", PS_LAPLACIAN_3D, 64, 0, 0, 4},
    {PS_MESH, "laplacian3d_128", PS_LAPLACIAN_3D, 128, 0, 0, 8},
    {PS_RMAT, "rmat_16", PS_RMAT_GEN, 16, 0, 0, 0},
    {PS_RMAT, "rmat_18", PS_RMAT_GEN, 18, 0, 0, 0},
    {PS_RMAT, "rmat_20", PS_RMAT_GEN, 20, 0, 0, 0},
    {PS_POWERLAW, "powerlaw_z0.9_2^18", PS_POWER_LAW, 1 << 18, 4300000, 0.9, 16},
    {PS_POWERLAW, "powerlaw_z1.2_2^16", PS_POWER_LAW, 1 << 16, 840000, 1.2, 16},
};
#define PS_SPEC_COUNT ((int)(sizeof ps_specs / sizeof ps_specs[0]))

static inline ts_status ps_generate(ts_context *ctx, const ps_spec *s, bool quick, ts_csr **a) {
  const int64_t d = quick && s->divisor > 0 ? s->divisor : 1;
  switch (s->kind) {
  case PS_LAPLACIAN_2D:
    return ts_gen_laplacian_2d(ctx, s->n / d, s->n / d, TS_FLOAT64, a);
  case PS_LAPLACIAN_3D:
    return ts_gen_laplacian_3d(ctx, s->n / d, s->n / d, s->n / d, TS_FLOAT64, a);
  case PS_RMAT_GEN: {
    ts_rmat_params p = ts_rmat_graph500((int)(quick ? s->n - 4 : s->n), 16);
    p.symmetric = 0;
    return ts_gen_rmat(ctx, &p, 20261129u, TS_FLOAT64, a);
  }
  default:
    return ts_gen_power_law(ctx, s->n / d, s->n / d, s->nnz / d, s->exponent, 20261129u, TS_FLOAT64, a);
  }
}

/* Parse a --set value into sets[]; false for an unknown name. */
static inline bool ps_parse_set(const char *name, bool *sets) {
  bool known = false;
  for (int s = 0; s < PS_COUNT; s++)
    if (strcmp(name, ps_set_names[s]) == 0 || strcmp(name, "all") == 0) {
      sets[s] = true;
      known = true;
    }
  return known;
}

#endif
