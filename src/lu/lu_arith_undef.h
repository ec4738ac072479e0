/* Ends the instantiations of an LU template with one arithmetic set
 * (lu_arith_real.h or lu_arith_complex.h), so that the other set can be
 * defined. */
#undef TSI_WORK
#undef TSI_W_SINGLE
#undef TSI_W_SINGLE_DTYPE
#undef TSI_WIDEN
#undef TSI_NARROW
#undef TSI_W_ZERO
#undef TSI_W_IS_ZERO
#undef TSI_W_ADD
#undef TSI_W_SUB
#undef TSI_W_MUL
#undef TSI_W_MINUS_PRODUCT
#undef TSI_W_MINUS_MULTIPLE
#undef TSI_W_DIV
#undef TSI_W_SCALE
#undef TSI_W_SCALED
#undef TSI_W_ABS
#undef TSI_W_ABS_BELOW
#undef TSI_W_ISFINITE
#undef TSI_W_CONJ_IF
#undef TSI_W_PERTURBED
#undef TSI_W_DIVIDER
#undef TSI_W_DIVIDE
#undef TSI_MAX_ABS
#undef TSI_FLOPS_UPDATE
#undef TSI_FLOPS_DIVIDE
