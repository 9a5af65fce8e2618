// GPU-visible structs and constants, declared once: included by GLSL shaders and by C++.
// C++ checks every size and offset below against std430/push-constant layout rules.
#ifndef BATCHSIM_SHADERS_SHARED_H
#define BATCHSIM_SHADERS_SHARED_H

#ifdef __cplusplus
#include <cstddef>
#include <cstdint>
namespace batchsim::gpu {
using uint = std::uint32_t;
using std::uint64_t;
#define BATCHSIM_GPU_CONST(type, name, value) inline constexpr type name = value
#else
#define BATCHSIM_GPU_CONST(type, name, value) const type name = value
#endif

// ---- fill_pattern.comp: writes a reproducible pattern (self-tests of export and sync) ----

// Threads per workgroup: 256 fills a warp/wavefront multiple on every vendor.
#define BATCHSIM_FILL_PATTERN_GROUP_SIZE 256
// Most workgroups per dispatch; larger buffers are covered by a grid-stride loop.
BATCHSIM_GPU_CONST(uint, kFillPatternMaxGroups, 65535u);
// value[i] = float(((i * kFillPatternIndexStride + seed * kFillPatternSeedStride) mod 2^32)
//                  mod kFillPatternModulus). Odd strides and a prime modulus (< 2^24, so
// exact in float32) make neighbouring elements and consecutive seeds all differ.
BATCHSIM_GPU_CONST(uint, kFillPatternIndexStride, 131u);
BATCHSIM_GPU_CONST(uint, kFillPatternSeedStride, 7919u);
BATCHSIM_GPU_CONST(uint, kFillPatternModulus, 1000003u);

struct FillPatternParams {
    uint64_t address;  // device address of a float32 array
    uint count;        // number of elements to write
    uint seed;
};

#ifdef __cplusplus
static_assert(sizeof(FillPatternParams) == 16);
static_assert(offsetof(FillPatternParams, address) == 0);
static_assert(offsetof(FillPatternParams, count) == 8);
static_assert(offsetof(FillPatternParams, seed) == 12);
}  // namespace batchsim::gpu
#endif

#endif  // BATCHSIM_SHADERS_SHARED_H
