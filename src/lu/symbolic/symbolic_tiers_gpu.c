/* The tiers of the GPU symbolic phase's slots under a memory budget
 * (symbolic_cuda.cu runs them). The paper's slot (Xia et al., PPoPP 2023,
 * section 3.2) holds an n-bit visited bitmap and a queue of n words for
 * every row in flight: 4 n bytes a row, so at several million rows a budget
 * of a GiB runs a few dozen rows at once where the device runs thousands,
 * and the phase takes many times longer. Most rows reach few vertices below them (with a
 * fill-reducing order that is a postorder of the elimination tree, a row's
 * reach lies in its subtree, numbered just below it) and sweep short levels:
 * their slot needs a window of the bitmap around the row, a small hash set
 * for the U entries above the window, and a ring for two consecutive levels
 * of a sweep. The few rows that outgrow it rerun with the whole bitmap; they
 * carry most of the work, so they get as many threads a row as the budget's
 * rows in flight leave idle. */
#include "lu/symbolic/symbolic_internal.h"

static int64_t round_up4(int64_t words) { return (words + 3) / 4 * 4; }

static int64_t largest_power_of_two_at_most(int64_t value) {
  int64_t power = 1;
  while (power <= value / 2)
    power *= 2;
  return power;
}

/* Rows in flight for slots of `slot_words` under `budget`: at least one, at
 * most the device's; and the threads a row for a whole-bitmap tier. */
static void size_tier(tsi_lu_symbolic_tier *tier, int64_t budget, int64_t in_flight, int64_t threads, bool warp) {
  int64_t rows = budget / (tier->slot_words * (int64_t)sizeof(uint32_t));
  tier->rows = rows < 1 ? 1 : rows > in_flight ? in_flight : rows;
  int64_t group = threads / tier->rows;
  group = group > TSI_LU_SYMBOLIC_MAX_GROUP ? TSI_LU_SYMBOLIC_MAX_GROUP : group;
  tier->group = warp || group < 32 ? 32 : (int)largest_power_of_two_at_most(group);
}

ts_status tsi_lu_symbolic_plan_tiers(ts_context *ctx, int64_t n, int64_t budget, int64_t in_flight, int64_t threads,
                                     const tsi_lu_symbolic_limits *limits, tsi_lu_symbolic_plan *plan) {
  plan->tiers = 0;
  plan->scratch_words = 0;
  if (n >= ((int64_t)1 << 40))
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "ts_lu_analyze: order %lld too large for the GPU symbolic phase",
                     (long long)n);
  const int64_t full_bits = (n + 1023) / 1024 * 1024;
  const int64_t ring_cap_words =
      limits && limits->ring_words > 0 ? largest_power_of_two_at_most(limits->ring_words) : 0;
  int64_t window = TSI_LU_SYMBOLIC_WINDOW, hash = TSI_LU_SYMBOLIC_HASH_WORDS;
  if (limits && limits->window_bits > 0)
    window = (limits->window_bits + 1023) / 1024 * 1024;
  if (window < 4096)
    window = 4096; /* the window holds the row: a quarter above it, alignment to 1024 below */
  if (limits && limits->hash_words > 0)
    hash = largest_power_of_two_at_most(limits->hash_words) < 2 ? 2 : largest_power_of_two_at_most(limits->hash_words);
  /* The windowed tier, where the window leaves out part of the order. */
  if (window < full_bits) {
    tsi_lu_symbolic_tier *t = &plan->tier[plan->tiers++];
    t->window_bits = window;
    t->hash_words = hash;
    t->queue_words = TSI_LU_SYMBOLIC_RING_WORDS;
    if (ring_cap_words > 0 && ring_cap_words < t->queue_words)
      t->queue_words = ring_cap_words;
    t->ring = 1;
  }
  /* The whole bitmap with a ring, where a ring is shorter than the order;
   * then the whole bitmap with a queue of n, which no row outgrows. */
  int64_t ring = TSI_LU_SYMBOLIC_FULL_RING_WORDS;
  if (ring_cap_words > 0 && ring_cap_words < ring)
    ring = ring_cap_words;
  if (ring < n) {
    tsi_lu_symbolic_tier *t = &plan->tier[plan->tiers++];
    t->window_bits = full_bits;
    t->hash_words = 0;
    t->queue_words = ring;
    t->ring = 1;
  }
  tsi_lu_symbolic_tier *last = &plan->tier[plan->tiers++];
  last->window_bits = full_bits;
  last->hash_words = 0;
  last->queue_words = n > 0 ? n : 1;
  last->ring = 0;
  for (int k = 0; k < plan->tiers; k++) {
    tsi_lu_symbolic_tier *t = &plan->tier[k];
    t->bitmap_words = t->window_bits / 32;
    t->summary_words = (t->bitmap_words + 31) / 32;
    t->slot_words = round_up4(t->bitmap_words + t->summary_words + t->hash_words + t->queue_words);
    size_tier(t, budget, in_flight, threads, t->window_bits < full_bits);
    int64_t words = 0;
    if (tsi_mul_overflows(t->rows, t->slot_words, &words))
      return tsi_error(ctx, TS_ERROR_OVERFLOW, "ts_lu_analyze: the GPU symbolic workspace overflows");
    if (words > plan->scratch_words)
      plan->scratch_words = words;
  }
  return TS_SUCCESS;
}
