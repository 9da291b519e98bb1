/*
 * Readings no GPU can produce.  Drivers answer NVML_SUCCESS with sentinels
 * now and then (a temperature of 4294967295 C, a utilisation of 255 %,
 * more memory used than the board has); exported, they would put absurd
 * points on every dashboard and fire alerts.  These checks clear the
 * validity bit of such a reading, so it is absent, like an unsupported one.
 */
#ifndef GPUSCOPE_EXPORT_SANITY_H
#define GPUSCOPE_EXPORT_SANITY_H

#include "gpu/gpu.h"

/* Above this, a temperature reading is a sentinel, not a measurement. */
#define SANITY_MAX_TEMP_C 200u

/* Clears the implausible readings of s; returns how many were dropped. */
unsigned sanity_sample(struct gpu_sample *s);
/* The same for the static facts (temperature thresholds, P-state limits). */
unsigned sanity_static(struct gpu_static *st);

#endif
