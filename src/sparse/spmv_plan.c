/* Plan then execute y = alpha*op(A)*x + beta*y on the context's backend:
 * validation, the operand's shape, the schedule (AUTO resolved), the operand
 * in backend memory (CSR of A, or of A^T for the transpose) and the
 * schedule's workspace, prepared once so that execution allocates nothing. */
#include "core/complex_value.h"
#include "sparse/spmv_locality.h"
#include "sparse/spmv_plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Testing aid: a non-empty value other than "0" makes CUDA plans use int64
 * offsets on any matrix, so that the kernels for nnz > INT32_MAX run on
 * small inputs. Read at plan creation. */
#define TSI_FORCE_WIDE_OFFSETS_ENV "TESSERA_SPMV_FORCE_WIDE_OFFSETS"

static bool force_wide_offsets(void) {
  const char *value = getenv(TSI_FORCE_WIDE_OFFSETS_ENV);
  return value && *value && strcmp(value, "0") != 0;
}

static bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

static ts_status check_options(ts_context *ctx, const ts_spmv_options *o) {
  if ((int)o->schedule < 0 || (int)o->schedule >= TS_SCHEDULE_COUNT)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_spmv_plan_create_ex: unknown schedule %d", (int)o->schedule);
  if (o->op != TS_OP_NONE && o->op != TS_OP_TRANSPOSE && o->op != TS_OP_CONJ_TRANSPOSE)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_spmv_plan_create_ex: unknown operation %d", (int)o->op);
  if (o->group_size != 0 && (!is_power_of_two(o->group_size) || o->group_size > 1024))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_spmv_plan_create_ex: group size %d is not a power of two from 1 to 1024 (or 0 to choose)",
                     o->group_size);
  if ((int)o->locality < 0 || (int)o->locality > TS_SPMV_LOCALITY_AUTO)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_spmv_plan_create_ex: unknown locality layout %d",
                     (int)o->locality);
  if (o->schedule == TS_SCHEDULE_SPLIT_ROWS && o->group_size > TSI_SPLIT_MAX_LANES)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_spmv_plan_create_ex: split-rows takes 1, 2, 4 or 8 threads a short row, not %d",
                     o->group_size);
  return TS_SUCCESS;
}

void tsi_spmv_shape_of(int64_t rows, int64_t cols, const int64_t *offsets, tsi_spmv_shape *shape) {
  memset(shape, 0, sizeof *shape);
  shape->rows = rows;
  shape->cols = cols;
  shape->nnz = rows > 0 ? offsets[rows] : 0;
  shape->mean_row = rows > 0 ? (double)shape->nnz / (double)rows : 0.0;
  double squares = 0.0;
  for (int64_t i = 0; i < rows; i++) {
    int64_t n = offsets[i + 1] - offsets[i];
    if (n > shape->max_row)
      shape->max_row = n;
    if (n == 0)
      shape->empty_rows++;
    /* Deviations from the known mean: no cancellation as in sum(x^2) - n mean^2. */
    squares += ((double)n - shape->mean_row) * ((double)n - shape->mean_row);
  }
  double stddev = rows > 0 ? sqrt(squares / (double)rows) : 0.0;
  shape->cv_row = shape->mean_row > 0.0 ? stddev / shape->mean_row : 0.0;
}

static const char *operation_name(ts_operation op) {
  return op == TS_OP_TRANSPOSE ? "A^T" : op == TS_OP_CONJ_TRANSPOSE ? "A^H" : "A";
}

/* The CSR of A^T, conjugated for A^H of complex values. */
static ts_status transposed_operand(ts_context *ctx, const ts_csr *a, ts_operation op, ts_csr **out) {
  ts_status st = ts_csr_transpose(ctx, a, out);
  if (st != TS_SUCCESS || op != TS_OP_CONJ_TRANSPOSE || !TS_DTYPE_IS_COMPLEX(a->dtype))
    return st;
  ts_csr *t = *out;
  for (int64_t k = 0; k < t->nnz; k++)
    tsi_value_set(t->dtype, t->values, k, tsi_z_conj(tsi_value_get(t->dtype, t->values, k)));
  return TS_SUCCESS;
}

/* The operand's arrays in GPU memory: int32 offsets unless nnz passes
 * INT32_MAX (or the testing aid asks for int64). */
static ts_status upload_operand(ts_spmv_plan *p, const ts_csr *op) {
  ts_context *ctx = p->ctx;
  tsi_spmv_device_matrix *d = &p->device;
  size_t value_size = ts_dtype_size(op->dtype);
  d->rows = op->rows;
  d->cols = op->cols;
  d->nnz = op->nnz;
  d->dtype = op->dtype;
  d->wide_offsets = op->nnz > INT32_MAX || force_wide_offsets();
  size_t offset_size = d->wide_offsets ? sizeof(int64_t) : sizeof(int32_t);
  size_t offsets_bytes = (size_t)(op->rows + 1) * offset_size;
  /* +1 byte: a matrix without entries still gets valid pointers. */
  ts_status st = tsi_cuda_malloc(ctx, &d->offsets, offsets_bytes);
  if (st == TS_SUCCESS)
    st = tsi_cuda_malloc(ctx, (void **)&d->indices, (size_t)op->nnz * sizeof(int32_t) + 1);
  if (st == TS_SUCCESS)
    st = tsi_cuda_malloc(ctx, &d->values, (size_t)op->nnz * value_size + 1);
  if (st != TS_SUCCESS)
    return st;
  if (d->wide_offsets) {
    st = tsi_cuda_memcpy_to_device(ctx, d->offsets, op->row_ptr, offsets_bytes);
  } else {
    int32_t *narrow = tsi_malloc_array(op->rows + 1, sizeof(int32_t));
    if (!narrow)
      return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_spmv_plan_create_ex: no host memory for %lld row offsets",
                       (long long)(op->rows + 1));
    for (int64_t i = 0; i <= op->rows; i++)
      narrow[i] = (int32_t)op->row_ptr[i];
    st = tsi_cuda_memcpy_to_device(ctx, d->offsets, narrow, offsets_bytes);
    free(narrow);
  }
  if (st == TS_SUCCESS && op->nnz > 0)
    st = tsi_cuda_memcpy_to_device(ctx, d->indices, op->col_idx, (size_t)op->nnz * sizeof(int32_t));
  if (st == TS_SUCCESS && op->nnz > 0)
    st = tsi_cuda_memcpy_to_device(ctx, d->values, op->values, (size_t)op->nnz * value_size);
  return st;
}

static ts_status prepare_cuda(ts_spmv_plan *p, const ts_csr *op) {
  ts_status st = upload_operand(p, op);
  if (st != TS_SUCCESS)
    return st;
  if (p->schedule == TS_SCHEDULE_SPLIT_ROWS)
    tsi_spmv_split_count(op->rows, op->row_ptr, &p->device.split_pieces, &p->device.split_multi);
  p->workspace_bytes = tsi_spmv_cuda_workspace_bytes(&p->device, p->schedule, p->group_size);
  if (p->workspace_bytes > 0) {
    st = tsi_cuda_malloc(p->ctx, &p->workspace, p->workspace_bytes);
    if (st != TS_SUCCESS)
      return st;
  }
  if (p->schedule == TS_SCHEDULE_SPLIT_ROWS) {
    st = tsi_spmv_split_upload(p->ctx, op->rows, op->row_ptr, &p->device, p->workspace);
    if (st != TS_SUCCESS)
      return st;
  }
  return tsi_spmv_cuda_prepare(p->ctx, &p->device, p->schedule, p->group_size, p->workspace, p->workspace_bytes);
}

static void resolve_schedule(ts_spmv_plan *p, const ts_spmv_options *o) {
  const tsi_spmv_shape *s = &p->shape;
  if (o->schedule == TS_SCHEDULE_AUTO) {
    char reason[TSI_SPMV_EXPLAIN_SIZE - 64]; /* room for the prefix */
    p->schedule = tsi_spmv_auto_choose(s, o->group_size, &p->group_size, reason, sizeof reason);
    snprintf(p->explain, sizeof p->explain, "auto: %s for %s: %s", ts_schedule_name(p->schedule), operation_name(p->op),
             reason);
    return;
  }
  p->schedule = o->schedule;
  p->group_size = 0;
  if (o->schedule == TS_SCHEDULE_GROUP_MAPPED)
    p->group_size = o->group_size ? o->group_size : tsi_spmv_default_group_size(s);
  else if (o->schedule == TS_SCHEDULE_SPLIT_ROWS)
    p->group_size = o->group_size ? o->group_size : tsi_spmv_split_default_lanes(s);
  char group[48] = "";
  if (p->group_size > 0)
    snprintf(group, sizeof group, ", %s %d%s",
             o->schedule == TS_SCHEDULE_SPLIT_ROWS ? "threads a short row" : "group size", p->group_size,
             o->group_size ? "" : " (chosen)");
  snprintf(p->explain, sizeof p->explain,
           "requested: %s%s for %s (%lld rows, %lld cols, %lld nnz, mean row %.3g, max row %lld, cv %.3g)",
           ts_schedule_name(p->schedule), group, operation_name(p->op), (long long)s->rows, (long long)s->cols,
           (long long)s->nnz, s->mean_row, (long long)s->max_row, s->cv_row);
}

ts_status ts_spmv_plan_create_ex(ts_context *ctx, const ts_csr *a, const ts_spmv_options *options,
                                 ts_spmv_plan **plan) {
  if (!ctx || !a || !plan)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_spmv_plan_create_ex: NULL argument");
  *plan = NULL;
  ts_spmv_options o;
  memset(&o, 0, sizeof o);
  if (options)
    o = *options;
  ts_status st = check_options(ctx, &o);
  if (st != TS_SUCCESS)
    return st;
  if (a->symmetry != TS_GENERAL)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_spmv_plan_create_ex: matrix holds %s storage; expand it with ts_coo_expand_symmetric first",
                     ts_symmetry_name(a->symmetry));
  st = ts_csr_check(ctx, a);
  if (st != TS_SUCCESS)
    return st;
  /* The locality layouts' kernels are written for real values; AUTO keeps
   * complex operands as they are. */
  if (TS_DTYPE_IS_COMPLEX(a->dtype) && o.locality == TS_SPMV_LOCALITY_AUTO)
    o.locality = TS_SPMV_LOCALITY_NONE;
  if (TS_DTYPE_IS_COMPLEX(a->dtype) && o.locality != TS_SPMV_LOCALITY_NONE)
    return tsi_error(ctx, TS_ERROR_UNSUPPORTED,
                     "ts_spmv_plan_create_ex: the locality layouts take real values; this matrix holds %s (use "
                     "TS_SPMV_LOCALITY_NONE or AUTO)",
                     ts_dtype_name(a->dtype));

  ts_csr *transposed = NULL;
  ts_spmv_plan *p = calloc(1, sizeof *p);
  if (!p)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_spmv_plan_create_ex: out of host memory");
  p->ctx = ctx;
  tsi_context_retain(ctx); /* released by ts_spmv_plan_destroy */
  p->op = o.op;
  p->rows = a->rows;
  p->cols = a->cols;
  p->nnz = a->nnz;
  p->dtype = a->dtype;
  /* The CSR of A^T holds A's CSC arrays: the kernels read it as any CSR
   * (that of A^H its conjugated values). */
  const ts_csr *operand = a;
  if (o.op == TS_OP_TRANSPOSE || o.op == TS_OP_CONJ_TRANSPOSE) {
    st = transposed_operand(ctx, a, o.op, &transposed);
    if (st != TS_SUCCESS)
      goto cleanup;
    operand = transposed;
  }
  tsi_spmv_shape_of(operand->rows, operand->cols, operand->row_ptr, &p->shape);
  resolve_schedule(p, &o);

  if (ctx->backend == TS_BACKEND_CUDA && o.locality != TS_SPMV_LOCALITY_NONE) {
    /* The layout's own plans run the operand (already transposed). */
    ts_spmv_options inner = o;
    inner.op = TS_OP_NONE;
    inner.locality = TS_SPMV_LOCALITY_NONE;
    st = tsi_spmv_locality_create(ctx, operand, o.locality, &inner, p->explain, sizeof p->explain, &p->locality);
    if (st == TS_SUCCESS) {
      p->schedule = ts_spmv_plan_schedule(p->locality->inner);
      p->group_size = ts_spmv_plan_group_size(p->locality->inner);
    }
  } else if (ctx->backend == TS_BACKEND_CUDA) {
    st = prepare_cuda(p, operand);
  } else if (transposed) {
    p->host = transposed; /* the CPU runs the CSR of A^T as it is */
    transposed = NULL;
  } else {
    st = ts_csr_copy(ctx, a, &p->host);
  }

cleanup:
  ts_csr_destroy(transposed);
  if (st != TS_SUCCESS) {
    ts_spmv_plan_destroy(p);
    return st;
  }
  *plan = p;
  return TS_SUCCESS;
}

ts_status ts_spmv_plan_create(ts_context *ctx, const ts_csr *a, ts_spmv_plan **plan) {
  return ts_spmv_plan_create_ex(ctx, a, NULL, plan);
}

void ts_spmv_plan_destroy(ts_spmv_plan *plan) {
  if (!plan)
    return;
  tsi_spmv_locality_destroy(plan->locality);
  if (plan->ctx->backend == TS_BACKEND_CUDA) {
    tsi_cuda_free(plan->device.offsets);
    tsi_cuda_free(plan->device.indices);
    tsi_cuda_free(plan->device.values);
    tsi_cuda_free(plan->workspace);
  }
  ts_csr_destroy(plan->host);
  ts_context *ctx = plan->ctx;
  free(plan);
  tsi_context_release(ctx);
}

ts_schedule ts_spmv_plan_schedule(const ts_spmv_plan *plan) { return plan ? plan->schedule : TS_SCHEDULE_AUTO; }

ts_spmv_locality ts_spmv_plan_locality(const ts_spmv_plan *plan) {
  return plan && plan->locality ? plan->locality->kind : TS_SPMV_LOCALITY_NONE;
}

int ts_spmv_plan_group_size(const ts_spmv_plan *plan) { return plan ? plan->group_size : 0; }

const char *ts_spmv_plan_explain(const ts_spmv_plan *plan) { return plan ? plan->explain : ""; }

int64_t ts_spmv_plan_bytes(const ts_spmv_plan *plan) {
  if (!plan)
    return 0;
  const tsi_spmv_shape *s = &plan->shape;
  int64_t v = (int64_t)ts_dtype_size(plan->dtype);
  bool narrow = plan->ctx->backend == TS_BACKEND_CUDA && !plan->device.wide_offsets;
  int64_t offset = narrow ? 4 : 8;
  /* Of the operand: values and column indices once, row offsets once, x
   * read once, y read and written (whether beta is 0 is only known at
   * execution, so y's read is always counted). */
  return s->nnz * (v + 4) + (s->rows + 1) * offset + s->cols * v + 2 * s->rows * v;
}

ts_status ts_spmv_execute(ts_spmv_plan *plan, double alpha, const ts_buffer *x, double beta, ts_buffer *y) {
  if (!plan || !x || !y)
    return tsi_error(plan ? plan->ctx : NULL, TS_ERROR_INVALID_ARGUMENT, "ts_spmv_execute: NULL argument");
  ts_context *ctx = plan->ctx;
  size_t v = ts_dtype_size(plan->dtype);
  int64_t x_entries = plan->shape.cols, y_entries = plan->shape.rows;
  if (tsi_buffer_context(x) != ctx || tsi_buffer_context(y) != ctx)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_spmv_execute: x and y must belong to the plan's context");
  if (ts_buffer_memory(x) != TS_MEMORY_DEVICE || ts_buffer_memory(y) != TS_MEMORY_DEVICE)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_spmv_execute: x and y must be TS_MEMORY_DEVICE buffers");
  if (ts_buffer_size(x) < (size_t)x_entries * v || ts_buffer_size(y) < (size_t)y_entries * v)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_spmv_execute: x holds %zu bytes and y %zu; y = %s x needs %lld and %lld", ts_buffer_size(x),
                     ts_buffer_size(y), operation_name(plan->op), (long long)(x_entries * (int64_t)v),
                     (long long)(y_entries * (int64_t)v));
  /* A kernel reads x while it writes y: the same (or overlapping) memory
   * would give a wrong y, not an error. */
  if (tsi_ranges_overlap(ts_buffer_data(x), (size_t)x_entries * v, ts_buffer_data(y), (size_t)y_entries * v))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_spmv_execute: x and y overlap; y = alpha*%s*x + beta*y needs separate buffers",
                     operation_name(plan->op));
  if (y_entries == 0)
    return TS_SUCCESS;
  if (plan->locality)
    return tsi_spmv_locality_run(ctx, plan->locality, alpha, x, beta, y);
  if (ctx->backend == TS_BACKEND_CUDA)
    return tsi_spmv_cuda_run(ctx, &plan->device, plan->schedule, plan->group_size, plan->workspace,
                             plan->workspace_bytes, alpha, ts_buffer_data(x), beta, ts_buffer_data(y));
  return tsi_csr_spmv_host_checked(ctx, alpha, plan->host, ts_buffer_data(x), beta, ts_buffer_data(y));
}
