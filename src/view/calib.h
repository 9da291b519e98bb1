/*
 * The calibration in use (model_calibration_of / _at) in the output of
 * estimate, plan and validate, written from its field tables
 * (model/fields.h: "calibration", "calibration-ceiling").
 */
#ifndef GPUSCOPE_VIEW_CALIB_H
#define GPUSCOPE_VIEW_CALIB_H

#include <stdio.h>

#include "model/model.h"

struct json_t;

/*
 * {file, gpu, gpu_name, date, ceilings: [{ceiling, unit, measured, catalog,
 * of_catalog, time_factor}, ...]}, or JSON null when c is NULL (the
 * catalog's figures were used).  A new reference the caller owns.
 */
struct json_t *view_calibration_json(const struct model_calibration *c);

/*
 * "calibration: FILE (GPU, NAME measured DATE)" and a table of the ceilings
 * it replaced, measured against the catalog's; nothing when c is NULL.
 */
void view_calibration_print(FILE *out, const struct model_calibration *c);

#endif
