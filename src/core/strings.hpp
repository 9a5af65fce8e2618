// String building without <format> (GCC 12, Debian bookworm's compiler, lacks it).
#pragma once

#include <cctype>
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

namespace batchsim {

// quoted_excerpt("f 1\t2") == "'f 1?2'": text from a file for a message, at most `max`
// bytes, any unprintable byte as '?'.
inline std::string quoted_excerpt(std::string_view text, std::size_t max = 60) {
    std::string out = "'";
    for (const char c : text.substr(0, max))
        out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
    return out + (text.size() > max ? "...'" : "'");
}

}  // namespace batchsim
