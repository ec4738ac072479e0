/**
 * @file tessera.h
 * @brief tessera: irregular and sparse computation on NVIDIA GPUs, with a CPU
 *        backend that gives the same answers where no GPU is present.
 *
 * One include gives the whole public C API. Every function returns a
 * ::ts_status; ts_last_error() gives the detail of a failure.
 */
/**
 * @mainpage tessera API reference
 *
 * tessera is a C library for irregular, sparse computation on NVIDIA GPUs,
 * with a CPU backend (OpenMP) that gives the same answers where no GPU is
 * present. This reference is generated from the comments of the public
 * headers; the Files page lists each header with its summary.
 *
 * - **The C API**: `#include <tessera.h>` (link libtessera: CMake's
 *   `find_package(tessera)` and `tessera::tessera`, or pkg-config's
 *   `tessera`). tessera.h includes one header per area, under tessera/.
 *   Every function returns a ::ts_status; after a failure ts_last_error()
 *   gives the detail. The library never exits, aborts or prints. Exported
 *   names start with `ts_`.
 * - **The device API**: `#include <tessera/lb.cuh>`, the load-balancing
 *   layer (namespace tessera::lb), header-only CUDA C++17 for use inside
 *   your own kernels; it does not need libtessera.
 *
 * The command-line tool `tessera` is described in docs/CLI.md (installed
 * beside this reference).
 */
#ifndef TESSERA_H
#define TESSERA_H

#include "tessera/core.h"
#include "tessera/sparse.h"
#include "tessera/spmm.h"
#include "tessera/spgemm.h"
#include "tessera/graph.h"
#include "tessera/io.h"
#include "tessera/lu.h"
#include "tessera/lu_batch.h"
#include "tessera/sort.h"
#include "tessera/search.h"
#include "tessera/gemm.h"
#include "tessera/model.h"

#endif /* TESSERA_H */
