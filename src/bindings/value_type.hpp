// A C++ configuration struct as a Python value type. Its defaults are the struct's own
// initialisers (they live nowhere else); Python constructs it from keywords, compares,
// copies, pickles and prints it field by field, and `replace(**fields)` returns a changed copy.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <pybind11/pybind11.h>

#include "core/strings.hpp"

namespace batchsim::bindings {

template <typename T>
class ValueType {
public:
    ValueType(pybind11::module_& m, const char* name, const char* doc)
        : cls_(m, name, doc), name_(name) {}

    template <typename M>
    ValueType& field(const char* name, M T::*member, const char* doc) {
        cls_.def_readwrite(name, member, doc);
        fields_.emplace_back(name);
        return *this;
    }

    // An enumeration Python names with strings, through parse/name functions of the core.
    template <typename E>
    ValueType& choice(const char* name, E T::*member, E (*parse)(std::string_view),
                      const char* (*name_of)(E), const char* doc) {
        cls_.def_property(
            name, [member, name_of](const T& t) { return std::string(name_of(t.*member)); },
            [member, parse](T& t, const std::string& given) { t.*member = parse(given); }, doc);
        fields_.emplace_back(name);
        return *this;
    }

    // Defines construction, replace, ==, repr, copy and pickle; `validate` (may be null)
    // checks every value built from keywords.
    void finish(void (*validate)(const T&)) {
        namespace py = pybind11;
        const std::vector<std::string> fields = fields_;
        const std::string type = name_;
        auto build = [fields, type, validate](py::object base, const py::dict& changes) {
            for (const auto& [key, value] : changes) {
                const auto field = std::string(py::str(key));
                if (std::find(fields.begin(), fields.end(), field) == fields.end())
                    throw py::type_error(
                        str(type, " has no field '", field, "'; its fields are ", join(fields)));
                py::setattr(base, key, value);
            }
            T value = base.template cast<T>();
            if (validate != nullptr) validate(value);
            return value;
        };
        auto state = [fields](const py::object& self) {
            py::dict out;
            for (const auto& field : fields) out[field.c_str()] = self.attr(field.c_str());
            return out;
        };
        cls_.def(py::init(
                     [build](const py::kwargs& changes) { return build(py::cast(T{}), changes); }))
            .def(
                "replace",
                [build](const T& self, const py::kwargs& changes) {
                    return build(py::cast(T(self)), changes);
                },
                "a copy with the given fields changed")
            .def("__eq__",
                 [state](const py::object& a, const py::object& b) {
                     return py::isinstance(b, py::type::of(a)) && state(a).equal(state(b));
                 })
            .def("__repr__",
                 [state, type](const py::object& self) {
                     std::vector<std::string> parts;
                     for (const auto& [key, value] : state(self))
                         parts.push_back(
                             str(std::string(py::str(key)), "=", std::string(py::repr(value))));
                     return str(type, "(", join(parts), ")");
                 })
            .def("__copy__", [](const T& self) { return T(self); })
            .def("__deepcopy__", [](const T& self, const py::dict&) { return T(self); })
            .def(py::pickle(
                state, [build](const py::dict& saved) { return build(py::cast(T{}), saved); }));
        py::tuple names(fields.size());
        for (std::size_t i = 0; i < fields.size(); ++i) names[i] = py::str(fields[i]);
        cls_.attr("field_names") = names;
    }

private:
    pybind11::class_<T> cls_;
    std::string name_;
    std::vector<std::string> fields_;
};

}  // namespace batchsim::bindings
