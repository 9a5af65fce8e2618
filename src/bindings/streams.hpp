// The CUDA stream GPU work is ordered on: the caller's `stream` argument, else torch's current
// stream on the context's CUDA device; 0 (unused) with CPU export.
#pragma once

#include <cstdint>
#include <optional>

#include <pybind11/pybind11.h>

#include "device/gpu_context.hpp"

namespace batchsim::bindings {

inline std::uintptr_t consumer_stream(const device::GpuContext& context,
                                      std::optional<std::int64_t> stream) {
    if (stream) return static_cast<std::uintptr_t>(*stream);
    if (!context.exports_cuda()) return 0;
    return pybind11::module_::import("batchsim._streams")
        .attr("current_stream")(context.cuda_ordinal())
        .cast<std::uintptr_t>();
}

}  // namespace batchsim::bindings
