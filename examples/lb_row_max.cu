/* Per-row maximum over a user's own sparse format, written once on tessera's
 * load-balancing layer and run with two schedules; checked against a CPU loop.
 * The layer is header-only: this program needs only tessera/lb.cuh. */
#include "tessera/lb.cuh"

#include <cmath>
#include <cstdio>
#include <vector>

namespace lb = tessera::lb;

/* The user's format: row r holds entries row_end[r - 1] .. row_end[r] - 1
 * (row 0 starts at entry 0). Any type with this call operator describes
 * tiles to the layer. */
struct ragged_rows {
  const int *row_end;
  __device__ int operator()(int row) const { return row_end[row]; }
};

/* The kernel, written once: the schedule is its template argument. */
template <class Schedule>
__global__ void row_max(lb::plan<int> plan, lb::work<int, ragged_rows> rows, const float *values, float *out) {
  __shared__ lb::storage<Schedule, float, int> smem;
  lb::for_each_tile_reduce<Schedule>(
      plan, rows, smem, -INFINITY, lb::maximum{}, [=](int entry) { return values[entry]; },
      [=](int row, float m) { out[row] = m; });
}

#define CUDA_OK(call)                                                                                                  \
  do {                                                                                                                 \
    cudaError_t e = (call);                                                                                            \
    if (e != cudaSuccess) {                                                                                            \
      std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e), __FILE__, __LINE__);                              \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

/* Plan, prepare and launch with one schedule; returns the number of rows that
 * differ from the CPU's maxima. */
template <class Schedule>
static int run(const char *name, int rows, int entries, const int *d_row_end, const float *d_values,
               const std::vector<float> &expected) {
  constexpr int block = lb::block_threads<Schedule>;
  lb::work<int, ragged_rows> work = lb::make_work(rows, entries, ragged_rows{d_row_end});
  void *workspace = nullptr;
  size_t bytes = lb::workspace_bytes<Schedule, float, int>(rows, entries);
  if (bytes)
    CUDA_OK(cudaMalloc(&workspace, bytes));
  lb::plan<int> plan =
      lb::make_plan<Schedule, float, int>(rows, entries, lb::resident_blocks(row_max<Schedule>, block), workspace);
  CUDA_OK(lb::prepare<Schedule>(plan, work, 0));
  float *d_out = nullptr;
  CUDA_OK(cudaMalloc(&d_out, rows * sizeof(float)));
  row_max<Schedule><<<plan.grid, block>>>(plan, work, d_values, d_out);
  CUDA_OK(cudaGetLastError());
  std::vector<float> out(rows);
  CUDA_OK(cudaMemcpy(out.data(), d_out, rows * sizeof(float), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int r = 0; r < rows; r++)
    wrong += out[r] != expected[r];
  std::printf("%s: %d blocks, %d of %d rows differ from the CPU\n", name, plan.grid, wrong, rows);
  cudaFree(d_out);
  cudaFree(workspace);
  return wrong;
}

int main(void) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: no usable CUDA device\n");
    return 77;
  }
  /* Rows of 0 to 30 entries, every 97th row empty, one row of 100,000. */
  const int rows = 50000;
  std::vector<int> row_end(rows);
  int entries = 0;
  for (int r = 0; r < rows; r++) {
    entries += r == 12345 ? 100000 : r % 97 == 0 ? 0 : (r * 7919) % 31;
    row_end[r] = entries;
  }
  std::vector<float> values(entries);
  for (int k = 0; k < entries; k++)
    values[k] = float((k * 2654435761u) % 1000003u) / 1000.0f - 500.0f;
  std::vector<float> expected(rows, -INFINITY);
  for (int r = 0, k = 0; r < rows; r++)
    for (; k < row_end[r]; k++)
      expected[r] = std::fmax(expected[r], values[k]);

  int *d_row_end = nullptr;
  float *d_values = nullptr;
  CUDA_OK(cudaMalloc(&d_row_end, rows * sizeof(int)));
  CUDA_OK(cudaMalloc(&d_values, entries * sizeof(float)));
  CUDA_OK(cudaMemcpy(d_row_end, row_end.data(), rows * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_values, values.data(), entries * sizeof(float), cudaMemcpyHostToDevice));

  /* The same kernel with two schedules: switching is one identifier. */
  int wrong = run<lb::merge_path>("merge-path", rows, entries, d_row_end, d_values, expected);
  wrong += run<lb::group_mapped<64>>("group-mapped<64>", rows, entries, d_row_end, d_values, expected);

  cudaFree(d_row_end);
  cudaFree(d_values);
  std::printf("%s\n", wrong == 0 ? "PASS" : "FAIL");
  return wrong == 0 ? 0 : 1;
}
