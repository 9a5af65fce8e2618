// numpy <-> C++ conversions with argument checks that name what was expected and given.
#pragma once

#include <array>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::bindings {

using FloatArray = pybind11::array_t<float, pybind11::array::c_style | pybind11::array::forcecast>;
using IntArray =
    pybind11::array_t<std::int32_t, pybind11::array::c_style | pybind11::array::forcecast>;

using MaskArray =
    pybind11::array_t<std::uint8_t, pybind11::array::c_style | pybind11::array::forcecast>;

inline std::string shape_of(const pybind11::array& array) {
    return "[" + join_shape(std::span(array.shape(), static_cast<std::size_t>(array.ndim()))) + "]";
}

// Throws Error(InvalidArgument) naming `name` unless every coordinate of `p` is finite: a
// NaN or infinite point has no answer (queries gave NaN, or "unreachable", issue 40).
inline void check_finite_point(const std::array<float, 3>& p, const std::string& name) {
    BATCHSIM_CHECK(std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]),
                   InvalidArgument,
                   str(name, ": expected finite coordinates (x, y, z), got (", p[0], ", ", p[1],
                       ", ", p[2], ")"));
}

// A point given as any 3-element float sequence or array, with finite coordinates.
inline std::array<float, 3> to_point(const FloatArray& array, const char* name) {
    BATCHSIM_CHECK(
        array.ndim() == 1 && array.shape(0) == 3, InvalidArgument,
        str(name, ": expected 3 coordinates (x, y, z), got an array of shape ", shape_of(array)));
    const float* data = array.data();
    const std::array<float, 3> point{data[0], data[1], data[2]};
    check_finite_point(point, name);
    return point;
}

// An [N, 3] float32 array of points, each with finite coordinates unless not `finite_only`
// (mesh vertices: the baker reports bad ones as bad data).
inline std::span<const std::array<float, 3>> to_points(const FloatArray& array, const char* name,
                                                       bool finite_only = true) {
    BATCHSIM_CHECK(array.ndim() == 2 && array.shape(1) == 3, InvalidArgument,
                   str(name, ": expected an array of shape [N, 3], got ", shape_of(array)));
    const std::span<const std::array<float, 3>> points{
        reinterpret_cast<const std::array<float, 3>*>(array.data()),
        static_cast<std::size_t>(array.shape(0))};
    for (std::size_t i = 0; finite_only && i < points.size(); ++i)
        check_finite_point(points[i], str(name, " row ", i));
    return points;
}

// `value`, unless it is NaN, infinite or below `minimum` (at `minimum` too unless
// `minimum_allowed`): then Error(InvalidArgument) naming `name`.
inline float checked_number(float value, const char* name, float minimum, bool minimum_allowed) {
    const bool fits = minimum_allowed ? value >= minimum : value > minimum;
    BATCHSIM_CHECK(std::isfinite(value) && fits, InvalidArgument,
                   str(name, ": expected a finite number ", minimum_allowed ? ">= " : "> ", minimum,
                       ", got ", value));
    return value;
}

// Rows of an [M, Width] float32 array as fixed-size arrays.
template <std::size_t Width>
std::vector<std::array<float, Width>> rows(const FloatArray& a, std::size_t m, const char* name) {
    BATCHSIM_CHECK(a.ndim() == 2 && std::size_t(a.shape(0)) == m && a.shape(1) == Width,
                   InvalidArgument,
                   str(name, ": expected float32 [", m, ", ", Width, "], got ", shape_of(a)));
    const auto* first = reinterpret_cast<const std::array<float, Width>*>(a.data());
    return {first, first + m};
}

// A [N] bool mask (any array numpy casts to uint8) as bytes.
inline std::span<const std::uint8_t> to_mask(const MaskArray& mask, std::size_t n) {
    BATCHSIM_CHECK(mask.ndim() == 1 && std::size_t(mask.shape(0)) == n, InvalidArgument,
                   str("mask: expected bool [", n, "], got ", shape_of(mask)));
    return {mask.data(), n};
}

inline pybind11::array_t<float> to_numpy(const std::array<float, 3>& point) {
    pybind11::array_t<float> out(3);
    std::copy(point.begin(), point.end(), out.mutable_data());
    return out;
}

}  // namespace batchsim::bindings
