/* Internal pieces of the performance model shared by its files. */
#ifndef TESSERA_MODEL_INTERNAL_H
#define TESSERA_MODEL_INTERNAL_H

#include "core/internal.h"
#include "tessera/model.h"

#include <stddef.h>

/* Kinds of the members of ts_model_params in its JSON form. */
typedef enum tsi_model_field_kind {
  TSI_FIELD_TEXT,  /* char array, a JSON string */
  TSI_FIELD_INT,   /* int */
  TSI_FIELD_INT64, /* int64_t */
  TSI_FIELD_REAL,  /* double */
  TSI_FIELD_REALS  /* double[count], a JSON array */
} tsi_model_field_kind;

/* One member: its JSON key, kind, offset in the struct and array length. */
typedef struct tsi_model_field {
  const char *key;
  tsi_model_field_kind kind;
  size_t offset;
  int count; /* TSI_FIELD_REALS: elements; TSI_FIELD_TEXT: bytes */
} tsi_model_field;

/* Every member of ts_model_params, in the order written. */
extern const tsi_model_field tsi_model_fields[];
extern const int tsi_model_field_count;

#endif /* TESSERA_MODEL_INTERNAL_H */
