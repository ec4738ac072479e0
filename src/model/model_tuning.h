/* The performance model's constants in one place: the occupancy
 * calculator's allocation units (facts of the architecture, written into a
 * calibration by ts_model_calibrate) and the choices of the SpMV
 * description (model_spmv_rank.c) that were set against measurements; the
 * results file behind each choice is named beside it. */
#ifndef TESSERA_MODEL_TUNING_H
#define TESSERA_MODEL_TUNING_H

/* Occupancy-calculator units of compute capability 7.0 and later, every
 * architecture tessera builds for (CUDA Toolkit, cuda_occupancy.h):
 * registers are given to a warp in units of 256, from one of four
 * partitions, at most 255 a thread; shared memory in units of 128 bytes. An
 * architecture with other units needs its own values here. */
#define TSI_MODEL_REGISTER_ALLOC_UNIT 256
#define TSI_MODEL_REGISTER_PARTITIONS 4
#define TSI_MODEL_MAX_REGISTERS_PER_THREAD 255
#define TSI_MODEL_SHARED_ALLOC_UNIT 128

/* SpMV: x accesses of rows closer than this many bytes of x stay in L1/L2
 * lines that neighbouring rows share, so x is read once, coalesced. */
#define TSI_MODEL_BANDED_X_BYTES 65536.0
/* Wider bands count as banded too when the band is at most this part of
 * the columns (a stencil's: a 3-D grid's bandwidth is rows^(2/3), a random
 * pattern's about the columns) and the x entries between a row's farthest
 * columns, 2 bandwidth + 1, fit this share of the L2 beside the streamed
 * matrix: each diagonal's accesses are then consecutive across consecutive
 * rows (model-spmv-regular-h200.md: any share from about 1 % to all of the
 * L2 classifies those matrices the same). */
#define TSI_MODEL_BANDED_MAX_FRACTION (1.0 / 16.0)
#define TSI_MODEL_BANDED_X_L2_SHARE 0.25
/* Scattered x: the share of the L2 that holds x for its gathers (the rest
 * holds the streamed matrix); not fitted. */
#define TSI_MODEL_SCATTERED_X_L2_SHARE 0.5

#endif
