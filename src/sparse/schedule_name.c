/* Names of the SpMV schedules, as the CLI, benchmarks and explain lines print them. */
#include "core/internal.h"

const char *ts_schedule_name(ts_schedule schedule) {
  switch (schedule) {
  case TS_SCHEDULE_AUTO:
    return "auto";
  case TS_SCHEDULE_THREAD_MAPPED:
    return "thread-mapped";
  case TS_SCHEDULE_WARP_MAPPED:
    return "warp-mapped";
  case TS_SCHEDULE_BLOCK_MAPPED:
    return "block-mapped";
  case TS_SCHEDULE_GROUP_MAPPED:
    return "group-mapped";
  case TS_SCHEDULE_MERGE_PATH:
    return "merge-path";
  case TS_SCHEDULE_WORK_ORIENTED:
    return "work-oriented";
  case TS_SCHEDULE_SPLIT_ROWS:
    return "split-rows";
  }
  return "unknown";
}
