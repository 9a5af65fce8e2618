// String building without <format> (GCC 12, Debian bookworm's compiler, lacks it).
#pragma once

#include <sstream>
#include <string>
#include <string_view>

namespace batchsim {

// str("expected ", n, " got ", m): concatenates anything printable with operator<<.
template <typename... Parts>
std::string str(const Parts&... parts) {
    std::ostringstream out;
    (out << ... << parts);
    return out.str();
}

}  // namespace batchsim

namespace batchsim {

// join({"a", "b"}) == "a, b"
template <typename Range>
std::string join(const Range& items, std::string_view separator = ", ") {
    std::string out;
    bool first = true;
    for (const auto& item : items) {
        if (!first) out += separator;
        out += item;
        first = false;
    }
    return out;
}

}  // namespace batchsim

namespace batchsim {

// join_shape({2, 3}) == "2, 3"
template <typename Range>
std::string join_shape(const Range& extents) {
    std::string out;
    for (const auto extent : extents) out += (out.empty() ? "" : ", ") + std::to_string(extent);
    return out;
}

}  // namespace batchsim
