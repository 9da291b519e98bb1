/*
 * The backend registry and the names of codes and fields.
 */
#include <string.h>

#include "gpu/gpu.h"

const struct gpu_backend *const gpu_backends[] = {
	&gpu_backend_nvml,
	NULL,
};

const struct gpu_backend *gpu_backend_find(const char *name)
{
	size_t i;
	for (i = 0; gpu_backends[i]; i++)
		if (!strcmp(gpu_backends[i]->name, name))
			return gpu_backends[i];
	return NULL;
}

const char *gpu_rc_name(int rc)
{
	switch (rc) {
	case GPU_OK:
		return "ok";
	case GPU_ERR_NO_LIBRARY:
		return "no library";
	case GPU_ERR_NO_DRIVER:
		return "driver not loaded";
	case GPU_ERR_VERSION_MISMATCH:
		return "driver/library version mismatch";
	case GPU_ERR_NO_PERMISSION:
		return "no permission";
	case GPU_ERR_LOST:
		return "gpu lost";
	case GPU_ERR_NOT_SUPPORTED:
		return "not supported";
	case GPU_ERR_TIMEOUT:
		return "timeout";
	case GPU_ERR_RESET_REQUIRED:
		return "reset required";
	case GPU_ERR_NO_GPU:
		return "no gpu";
	default:
		return "error";
	}
}

const char *gpu_clock_event_name(uint64_t bit)
{
	switch (bit) {
	case GPU_CLOCK_EVENT_GPU_IDLE:
		return "gpu_idle";
	case GPU_CLOCK_EVENT_APP_CLOCKS:
		return "applications_clocks_setting";
	case GPU_CLOCK_EVENT_SW_POWER_CAP:
		return "sw_power_cap";
	case GPU_CLOCK_EVENT_HW_SLOWDOWN:
		return "hw_slowdown";
	case GPU_CLOCK_EVENT_SYNC_BOOST:
		return "sync_boost";
	case GPU_CLOCK_EVENT_SW_THERMAL:
		return "sw_thermal_slowdown";
	case GPU_CLOCK_EVENT_HW_THERMAL:
		return "hw_thermal_slowdown";
	case GPU_CLOCK_EVENT_HW_POWER_BRAKE:
		return "hw_power_brake_slowdown";
	case GPU_CLOCK_EVENT_DISPLAY_CLOCKS:
		return "display_clock_setting";
	default:
		return NULL;
	}
}

#define GPU_GEN_NAME(type, member, dims) #member,
static const char *const static_names[] = {GPU_STATIC_FIELDS(GPU_GEN_NAME)};
static const char *const sample_names[] = {GPU_SAMPLE_FIELDS(GPU_GEN_NAME)};
static const char *const link_names[] = {GPU_LINK_FIELDS(GPU_GEN_NAME)};
static const char *const gpm_names[] = {GPU_GPM_FIELDS(GPU_GEN_NAME)};

_Static_assert(gpu_static_nfields <= 64 * GPU_VALID_WORDS, "static validity bits fit");
_Static_assert(gpu_sample_nfields <= 64 * GPU_VALID_WORDS, "sample validity bits fit");
_Static_assert(gpu_link_nfields <= 64, "link validity bits fit");
_Static_assert(gpu_gpm_nfields <= 64, "gpm validity bits fit");

const char *gpu_static_field_name(enum gpu_static_field f)
{
	return (unsigned)f < gpu_static_nfields ? static_names[f] : NULL;
}

const char *gpu_sample_field_name(enum gpu_sample_field f)
{
	return (unsigned)f < gpu_sample_nfields ? sample_names[f] : NULL;
}

const char *gpu_link_field_name(enum gpu_link_field f)
{
	return (unsigned)f < gpu_link_nfields ? link_names[f] : NULL;
}

const char *gpu_gpm_field_name(enum gpu_gpm_field f)
{
	return (unsigned)f < gpu_gpm_nfields ? gpm_names[f] : NULL;
}
