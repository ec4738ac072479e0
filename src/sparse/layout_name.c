/* Names of the dense layouts, as the CLI and explain lines print them. */
#include "internal.h"

const char *ts_layout_name(ts_layout layout) {
  switch (layout) {
  case TS_LAYOUT_ROW_MAJOR:
    return "row-major";
  case TS_LAYOUT_COL_MAJOR:
    return "col-major";
  }
  return "unknown";
}
