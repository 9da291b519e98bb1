/*
 * Dropping readings no GPU can produce (see sanity.h).
 */
#include "export/sanity.h"

#define BIT_CLEAR(v, i) ((v)[(i) / 64] &= ~((uint64_t)1 << ((i) % 64)))
/* Clears the reading when it is valid and cond holds; counts it in n. */
#define DROP_IF(s, kind, member, cond, n) \
	do { \
		if (GPU_BIT_TEST((s)->valid, gpu_##kind##_##member##_valid) && (cond)) { \
			BIT_CLEAR((s)->valid, gpu_##kind##_##member##_valid); \
			(n)++; \
		} \
	} while (0)

unsigned sanity_sample(struct gpu_sample *s)
{
	unsigned n = 0;
	DROP_IF(s, sample, util_gpu_pct, s->util_gpu_pct > 100, n);
	DROP_IF(s, sample, util_mem_pct, s->util_mem_pct > 100, n);
	DROP_IF(s, sample, util_enc_pct, s->util_enc_pct > 100, n);
	DROP_IF(s, sample, util_dec_pct, s->util_dec_pct > 100, n);
	DROP_IF(s, sample, temp_gpu_c, s->temp_gpu_c > SANITY_MAX_TEMP_C, n);
	DROP_IF(s, sample, temp_mem_c, s->temp_mem_c > SANITY_MAX_TEMP_C, n);
	DROP_IF(s, sample, pstate, s->pstate > 15, n);
	if (GPU_SAMPLE_HAS(s, fb_total_bytes)) {
		uint64_t total = s->fb_total_bytes;
		DROP_IF(s, sample, fb_used_bytes, s->fb_used_bytes > total, n);
		DROP_IF(s, sample, fb_free_bytes, s->fb_free_bytes > total, n);
		DROP_IF(s, sample, fb_reserved_bytes, s->fb_reserved_bytes > total, n);
	}
	return n;
}

unsigned sanity_static(struct gpu_static *st)
{
	unsigned n = 0;
	DROP_IF(st, static, temp_slowdown_c, st->temp_slowdown_c > SANITY_MAX_TEMP_C, n);
	DROP_IF(st, static, temp_shutdown_c, st->temp_shutdown_c > SANITY_MAX_TEMP_C, n);
	DROP_IF(st, static, temp_gpu_max_c, st->temp_gpu_max_c > SANITY_MAX_TEMP_C, n);
	DROP_IF(st, static, temp_mem_max_c, st->temp_mem_max_c > SANITY_MAX_TEMP_C, n);
	return n;
}
