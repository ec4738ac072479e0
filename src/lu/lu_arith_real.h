/* The arithmetic of the host's LU templates (numeric/numeric_cpu_impl.h,
 * solve/solve_cpu_impl.h, numeric/pivoted_cpu_impl.h) for real values: the
 * working type is double, stored values float or double (TSI_VALUE, defined
 * by the includer), the operations C's own. Included before a template's
 * real instantiations; lu_arith_undef.h after them. The complex set,
 * lu_arith_complex.h, defines the same names. */
#define TSI_WORK double
#define TSI_W_SINGLE float /* the working type in single precision, and its dtype */
#define TSI_W_SINGLE_DTYPE TS_FLOAT32
#define TSI_WIDEN(v) ((double)(v))
#define TSI_NARROW(w) ((TSI_VALUE)(w))
#define TSI_W_ZERO 0.0
#define TSI_W_IS_ZERO(w) ((w) == 0.0)
#define TSI_W_ADD(a, b) ((a) + (b))
#define TSI_W_SUB(a, b) ((a) - (b))
#define TSI_W_MUL(a, b) ((a) * (b))
#define TSI_W_MINUS_PRODUCT(x, l, u) ((x) - (l) * (u))
/* x[rows[q]] -= l[q] u over a column of L. Its rows are distinct, so four
 * entries' loads of x go before their stores (the compiler keeps each load
 * after the store before it, as they could alias): the same operations as
 * one at a time. Columns of fewer than 8 entries go one at a time. */
#define TSI_W_MINUS_MULTIPLE(x, rows, l, begin, end, u)                                                                \
  do {                                                                                                                 \
    int64_t q_ = (begin);                                                                                              \
    if (q_ + 8 <= (end))                                                                                               \
      for (; q_ + 4 <= (end); q_ += 4) {                                                                               \
        const int64_t r0_ = (rows)[q_], r1_ = (rows)[q_ + 1], r2_ = (rows)[q_ + 2], r3_ = (rows)[q_ + 3];              \
        const double x0_ = (x)[r0_], x1_ = (x)[r1_], x2_ = (x)[r2_], x3_ = (x)[r3_];                                   \
        (x)[r0_] = TSI_W_MINUS_PRODUCT(x0_, TSI_WIDEN((l)[q_]), (u));                                                  \
        (x)[r1_] = TSI_W_MINUS_PRODUCT(x1_, TSI_WIDEN((l)[q_ + 1]), (u));                                              \
        (x)[r2_] = TSI_W_MINUS_PRODUCT(x2_, TSI_WIDEN((l)[q_ + 2]), (u));                                              \
        (x)[r3_] = TSI_W_MINUS_PRODUCT(x3_, TSI_WIDEN((l)[q_ + 3]), (u));                                              \
      }                                                                                                                \
    for (; q_ < (end); q_++)                                                                                           \
      (x)[(rows)[q_]] = TSI_W_MINUS_PRODUCT((x)[(rows)[q_]], TSI_WIDEN((l)[q_]), (u));                                 \
  } while (0)
#define TSI_W_DIV(a, b) ((a) / (b))
#define TSI_W_SCALE(s, w) ((s) * (w))
#define TSI_W_SCALED(s, w, t) ((s) * (w) * (t))
#define TSI_W_ABS(w) fabs(w)
#define TSI_W_ABS_BELOW(w, t) (fabs(w) < (t))
#define TSI_W_ISFINITE(w) isfinite(w)
#define TSI_W_CONJ_IF(w, conjugate) (w)
#define TSI_W_PERTURBED(w, r) ((w) < 0.0 ? -(r) : (r))
#define TSI_W_DIVIDER(p) (p)
#define TSI_W_DIVIDE(w, d) ((w) / (d))
#define TSI_MAX_ABS(max, w) ((max) = fabs(w) > (max) ? fabs(w) : (max))
#define TSI_FLOPS_UPDATE 2
#define TSI_FLOPS_DIVIDE 1
