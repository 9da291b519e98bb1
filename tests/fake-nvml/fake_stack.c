/*
 * Stand-ins for the CUDA stack's libraries, so `gpuscope check` can load
 * them by dlopen() in tests: one source built four times, as libcuda.so.1
 * (FAKE_CUDA), libcudart.so.12 (FAKE_CUDART), libcudnn.so.9 (FAKE_CUDNN)
 * and libnccl.so.2 (FAKE_NCCL).  Each reports the version given in the
 * [system] section of $FAKE_NVML_SCENARIO (cuda_driver_version,
 * cuda_runtime_version, cudnn_version, nccl_version), encoded as the real
 * library encodes it; without the key it fails as the real call can.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* Value of `key` in the [system] section, or -1. */
static long long scenario_value(const char *key)
{
	const char *path = getenv("FAKE_NVML_SCENARIO");
	char line[1024];
	int in_system = 0;
	long long v = -1;
	FILE *f;
	if (!path || !(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *s = line, *eq;
		size_t n;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '[') {
			in_system = !strncmp(s, "[system]", 8);
			continue;
		}
		eq = strchr(s, '=');
		n = strlen(key);
		if (!in_system || !eq || strncmp(s, key, n) || (s[n] != ' ' && s[n] != '='))
			continue;
		v = strtoll(eq + 1, NULL, 0);
	}
	fclose(f);
	return v;
}

#if defined(FAKE_CUDA)
/* CUresult: CUDA_SUCCESS 0, CUDA_ERROR_INVALID_VALUE 1, CUDA_ERROR_NO_DEVICE 100 */
EXPORT int cuDriverGetVersion(int *v)
{
	long long x = scenario_value("cuda_driver_version");
	if (!v)
		return 1;
	if (x < 0)
		return 100;
	*v = (int)x;
	return 0;
}
EXPORT int cuInit(unsigned flags)
{
	(void)flags;
	return scenario_value("cuda_driver_version") < 0 ? 100 : 0;
}
#elif defined(FAKE_CUDART)
/* cudaError_t: cudaSuccess 0, cudaErrorInvalidValue 1 */
EXPORT int cudaRuntimeGetVersion(int *v)
{
	long long x = scenario_value("cuda_runtime_version");
	if (!v || x < 0)
		return 1;
	*v = (int)x;
	return 0;
}
#elif defined(FAKE_CUDNN)
/* cuDNN 8: major*1000 + minor*100 + patch; cuDNN 9: major*10000 + minor*100 + patch */
EXPORT size_t cudnnGetVersion(void)
{
	long long x = scenario_value("cudnn_version");
	return x < 0 ? 0 : (size_t)x;
}
#elif defined(FAKE_NCCL)
/* ncclResult_t: ncclSuccess 0, ncclInvalidArgument 4 */
EXPORT int ncclGetVersion(int *v)
{
	long long x = scenario_value("nccl_version");
	if (!v || x < 0)
		return 4;
	*v = (int)x;
	return 0;
}
#else
#error "define one of FAKE_CUDA FAKE_CUDART FAKE_CUDNN FAKE_NCCL"
#endif
