// Axis specs of ImportOptions ("x,z,-y", "z"), declared in importer.hpp.
#include <cctype>
#include <utility>

#include "assets/importer.hpp"
#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::assets {
namespace {

[[noreturn]] void bad_axes(std::string_view spec) {
    throw Error(Error::Kind::InvalidArgument,
                str("axes '", spec, "' is not a signed permutation of x,y,z; expected three ",
                    "comma-separated axes such as \"x,z,-y\" (z up -> y up), or \"y\" / \"z\""));
}

// "-y" -> (axis 1, sign -1); nullopt-like {-1, 0} on anything else.
std::pair<int, float> parse_signed_axis(std::string_view token) {
    float sign = 1.0f;
    if (!token.empty() && (token.front() == '-' || token.front() == '+')) {
        sign = token.front() == '-' ? -1.0f : 1.0f;
        token.remove_prefix(1);
    }
    if (token.size() != 1) return {-1, 0.0f};
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(token[0])));
    if (c < 'x' || c > 'z') return {-1, 0.0f};
    return {c - 'x', sign};
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

}  // namespace

std::string axes_for_up(char up) {
    switch (std::tolower(static_cast<unsigned char>(up))) {
        case 'y': return "x,y,z";
        case 'z': return "x,z,-y";
        default: break;
    }
    throw Error(Error::Kind::InvalidArgument,
                str("up axis '", up, "' is not supported; expected 'y' or 'z'"));
}

AxisMatrix parse_axes(std::string_view spec) {
    const std::string_view trimmed = trim(spec);
    if (trimmed.size() == 1 && (std::tolower(static_cast<unsigned char>(trimmed[0])) == 'y' ||
                                std::tolower(static_cast<unsigned char>(trimmed[0])) == 'z'))
        return parse_axes(axes_for_up(trimmed[0]));
    AxisMatrix matrix{};
    std::array<bool, 3> used{};
    std::size_t row = 0, start = 0;
    for (std::size_t end = 0; end <= trimmed.size(); ++end) {
        if (end < trimmed.size() && trimmed[end] != ',') continue;
        const auto [axis, sign] = parse_signed_axis(trim(trimmed.substr(start, end - start)));
        if (row >= 3 || axis < 0 || used[static_cast<std::size_t>(axis)]) bad_axes(spec);
        used[static_cast<std::size_t>(axis)] = true;
        matrix[row++][static_cast<std::size_t>(axis)] = sign;
        start = end + 1;
    }
    if (row != 3) bad_axes(spec);
    return matrix;
}

float determinant(const AxisMatrix& m) {
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
           m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

}  // namespace batchsim::assets
