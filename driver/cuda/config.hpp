#pragma once
// Whether the CUDA Driver API headers are available to this build.
//
// PTXGEN_HAVE_CUDA is set by CMake when the toolkit was found. Only <cuda.h>
// (types, enums, declarations) is used: libcuda itself is never linked but
// opened at run time with dlopen (see driver_api.hpp), so a binary built here
// starts on a machine without a driver and reports "no CUDA driver" instead.

#if defined(PTXGEN_HAVE_CUDA) && PTXGEN_HAVE_CUDA && __has_include(<cuda.h>)
#define PTXGEN_CUDA_HEADERS 1
#else
#define PTXGEN_CUDA_HEADERS 0
#endif
