// SPIR-V compiled from shaders/*.glsl at build time and linked into the module.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace batchsim::vk {

// The SPIR-V words of "<pass>.<stage>" (e.g. "fill_pattern.comp"); throws if unknown.
std::span<const std::uint32_t> embedded_shader(std::string_view name);

}  // namespace batchsim::vk
