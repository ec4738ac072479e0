/* The tiers of the GPU symbolic phase's slots (symbolic_tiers_gpu.c), host
 * code checked here without a GPU: every plan ends with a tier no row can
 * outgrow (the whole bitmap, a queue of n words), keeps each tier's slots
 * within the budget (at least one row), gives the whole-bitmap tiers the
 * threads the budget's rows leave idle, and narrows as the tests ask; a
 * row's window holds the row with a quarter of the window above it. And the
 * case that motivated the tiers: the 2048^2 mesh (4.2 M rows) under 1 GiB
 * and 256 MiB keeps thousands of rows in flight where the paper's slots
 * (an n-bit bitmap and a queue of n words, 17 MB a row) kept 61 and 15. */
#include "test_common.h"

#include "lu/symbolic/symbolic_internal.h"

/* An H200: 132 multiprocessors of 2048 threads, two rows a resident warp. */
enum { SMS = 132 };
static const int64_t in_flight = (int64_t)SMS * 64 * 2, threads = (int64_t)SMS * 2048;

static int is_power_of_two(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

static void check_plan(int64_t n, int64_t budget, const tsi_lu_symbolic_limits *limits) {
  tsi_lu_symbolic_plan plan;
  ts_status st = tsi_lu_symbolic_plan_tiers(NULL, n, budget, in_flight, threads, limits, &plan);
  CHECK_MSG(st == TS_SUCCESS, "n %lld, budget %lld: %s", (long long)n, (long long)budget, ts_last_error(NULL));
  if (st != TS_SUCCESS)
    return;
  CHECK(plan.tiers >= 1 && plan.tiers <= TSI_LU_SYMBOLIC_TIERS_MAX);
  const tsi_lu_symbolic_tier *last = &plan.tier[plan.tiers - 1];
  CHECK_MSG(!last->ring && last->queue_words >= n && last->window_bits >= n && last->hash_words == 0,
            "n %lld: the last tier can be outgrown", (long long)n);
  int64_t largest = 0;
  for (int t = 0; t < plan.tiers; t++) {
    const tsi_lu_symbolic_tier *tier = &plan.tier[t];
    const int windowed = tier->window_bits < n;
    CHECK(tier->window_bits % 1024 == 0 && tier->bitmap_words == tier->window_bits / 32 &&
          tier->summary_words == (tier->bitmap_words + 31) / 32);
    CHECK(tier->slot_words % 4 == 0 &&
          tier->slot_words >= tier->bitmap_words + tier->summary_words + tier->hash_words + tier->queue_words);
    CHECK(!tier->ring || is_power_of_two(tier->queue_words));
    CHECK(windowed ? is_power_of_two(tier->hash_words) && tier->ring && t == 0 : tier->hash_words == 0);
    CHECK_MSG(tier->rows >= 1 && tier->rows <= in_flight, "tier %d: %lld rows", t, (long long)tier->rows);
    CHECK_MSG(tier->rows == 1 || tier->rows * tier->slot_words * 4 <= budget, "tier %d: %lld rows of %lld words", t,
              (long long)tier->rows, (long long)tier->slot_words);
    CHECK(is_power_of_two(tier->group) && tier->group >= 32 && tier->group <= TSI_LU_SYMBOLIC_MAX_GROUP);
    CHECK_MSG(windowed ? tier->group == 32 : tier->rows * tier->group <= threads || tier->group == 32,
              "tier %d: %lld rows of %d threads", t, (long long)tier->rows, tier->group);
    if (t + 1 < plan.tiers)
      CHECK(tier->ring); /* only a ring can be outgrown after the window */
    if (tier->rows * tier->slot_words > largest)
      largest = tier->rows * tier->slot_words;
  }
  CHECK(plan.scratch_words == largest);
}

static void test_plans(void) {
  const int64_t orders[] = {1, 2, 100, 5000, 65536, 70000, 1000000, 4194304};
  const int64_t budgets[] = {1, 65536, (int64_t)256 << 20, (int64_t)1 << 30, (int64_t)35 << 30};
  for (int o = 0; o < 8; o++)
    for (int b = 0; b < 5; b++)
      check_plan(orders[o], budgets[b], NULL);
  /* The tests' narrowing: a window of 4096 bits, a hash set of 8, rings of 4. */
  tsi_lu_symbolic_limits narrow = {4, 4096, 8};
  for (int o = 0; o < 8; o++)
    check_plan(orders[o], (int64_t)1 << 20, &narrow);
  tsi_lu_symbolic_plan plan;
  CHECK(tsi_lu_symbolic_plan_tiers(NULL, 30000, (int64_t)1 << 20, in_flight, threads, &narrow, &plan) == TS_SUCCESS);
  CHECK(plan.tiers == 3 && plan.tier[0].window_bits == 4096 && plan.tier[0].hash_words == 8 &&
        plan.tier[0].queue_words == 4 && plan.tier[1].queue_words == 4);
  /* Orders past 2^40 are refused rather than wrapped. */
  CHECK(tsi_lu_symbolic_plan_tiers(NULL, (int64_t)1 << 41, 1 << 30, in_flight, threads, NULL, &plan) ==
        TS_ERROR_OVERFLOW);
}

/* The 2048^2 mesh: the tiers' rows in flight under tight budgets, against
 * the paper's slots (bitmap + summary + a queue of n words). */
static void test_mesh_2048(void) {
  const int64_t n = (int64_t)2048 * 2048;
  const int64_t paper_slot = 4 * (n / 32 + n / 1024 + n);
  const int64_t budgets[2] = {(int64_t)1 << 30, (int64_t)256 << 20};
  for (int b = 0; b < 2; b++) {
    tsi_lu_symbolic_plan plan;
    CHECK(tsi_lu_symbolic_plan_tiers(NULL, n, budgets[b], in_flight, threads, NULL, &plan) == TS_SUCCESS);
    CHECK(plan.tiers == 3);
    const int64_t paper_rows = budgets[b] / paper_slot;
    /* The windowed tier runs far more rows at once than the paper's slots;
     * the whole-bitmap ring tier too, its rows' threads filling the device. */
    CHECK_MSG(plan.tier[0].rows >= 100 * paper_rows && plan.tier[1].rows >= 25 * paper_rows,
              "budget %lld: %lld and %lld rows in flight, the paper's %lld", (long long)budgets[b],
              (long long)plan.tier[0].rows, (long long)plan.tier[1].rows, (long long)paper_rows);
    CHECK(plan.tier[1].rows * plan.tier[1].group >= threads / 2);
    printf(
        "2048^2 mesh, %lld MiB: rows in flight %lld / %lld / %lld (threads a row %d / %d / %d); paper's slots %lld\n",
        (long long)(budgets[b] >> 20), (long long)plan.tier[0].rows, (long long)plan.tier[1].rows,
        (long long)plan.tier[2].rows, plan.tier[0].group, plan.tier[1].group, plan.tier[2].group,
        (long long)paper_rows);
  }
}

/* A row's window: aligned, holding the row, three quarters of it below
 * (less the alignment) and the rest above. */
static void test_windows(void) {
  const int64_t window = TSI_LU_SYMBOLIC_WINDOW, n = 4194304;
  unsigned long long state = 99;
  for (int trial = 0; trial < 100000; trial++) {
    int64_t i = (int64_t)((test_random(&state) + 1.0) * 0.5 * (double)n);
    i = i >= n ? n - 1 : i;
    int64_t base = tsi_lu_symbolic_window_base(i, window, n);
    if (!(base % 1024 == 0 && base <= i && i - base < window - window / 4 + 1024 && base + window > i)) {
      CHECK_MSG(0, "row %lld: window at %lld", (long long)i, (long long)base);
      break;
    }
  }
  CHECK(tsi_lu_symbolic_window_base(5, window, n) == 0);
  CHECK(tsi_lu_symbolic_window_base(n - 1, n, n) == 0); /* the whole bitmap */
}

int main(void) {
  test_plans();
  test_mesh_2048();
  test_windows();
  return test_finish();
}
