// Enumerations that the Python layer names with strings ("train", "corridor", "auto", ...):
// one table per enum gives both directions, and a bad name gets an error listing the choices.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim {

template <typename E>
struct Choice {
    const char* name;
    E value;
};

// The value named `given`; throws Error(InvalidArgument) "<what>: expected 'a', 'b' or 'c',
// got 'd'" otherwise.
template <typename E>
E parse_choice(std::string_view given, const char* what, std::span<const Choice<E>> choices) {
    std::string expected;
    for (std::size_t i = 0; i < choices.size(); ++i) {
        if (given == choices[i].name) return choices[i].value;
        const char* separator = i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ";
        expected += str(separator, "'", choices[i].name, "'");
    }
    throw Error(Error::Kind::InvalidArgument,
                str(what, ": expected ", expected, ", got '", given, "'"));
}

// The name of `value` in `choices` ("?" for a value the table lacks: a bug of ours).
template <typename E>
const char* choice_name(E value, std::span<const Choice<E>> choices) {
    for (const auto& choice : choices)
        if (choice.value == value) return choice.name;
    return "?";
}

}  // namespace batchsim
