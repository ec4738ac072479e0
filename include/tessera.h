/**
 * @file tessera.h
 * @brief tessera: irregular and sparse computation on NVIDIA GPUs, with a CPU
 *        backend that gives the same answers where no GPU is present.
 *
 * One include gives the whole public C API. Every function returns a
 * ::ts_status; ts_last_error() gives the detail of a failure.
 */
#ifndef TESSERA_H
#define TESSERA_H

#include "tessera/core.h"
#include "tessera/sparse.h"
#include "tessera/spmm.h"
#include "tessera/spgemm.h"
#include "tessera/io.h"
#include "tessera/lu.h"
#include "tessera/sort.h"
#include "tessera/search.h"
#include "tessera/gemm.h"
#include "tessera/model.h"

#endif /* TESSERA_H */
