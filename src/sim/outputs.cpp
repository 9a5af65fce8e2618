#include "sim/outputs.hpp"

#include <type_traits>
#include <utility>
#include <vector>

#include "sim/batch_sim.hpp"

namespace batchsim::sim {
namespace {

// The element and columns of a std::vector<T> output's values.
template <typename T>
struct ValuesOf;
template <>
struct ValuesOf<float> {
    static constexpr Element element = Element::Float32;
    static constexpr std::int32_t columns = 1;
};
template <>
struct ValuesOf<std::int32_t> {
    static constexpr Element element = Element::Int32;
    static constexpr std::int32_t columns = 1;
};
template <>
struct ValuesOf<std::int64_t> {
    static constexpr Element element = Element::Int64;
    static constexpr std::int32_t columns = 1;
};
template <>
struct ValuesOf<std::uint8_t> {  // 0 or 1, read as bool
    static constexpr Element element = Element::Bool;
    static constexpr std::int32_t columns = 1;
};
template <std::size_t N>
struct ValuesOf<std::array<float, N>> {
    static constexpr Element element = Element::Float32;
    static constexpr std::int32_t columns = N;
};

// The two structs of per-environment vectors that outputs read.
const EnvState& state_of(const BatchSim& sim) {
    return sim.state();
}
const StepOutputs& outputs_of(const BatchSim& sim) {
    return sim.outputs();
}

// `row` with the element, columns, stride and reader of the vector `Member` of the struct
// that `Owner` returns.
template <auto Owner, auto Member>
OutputRow vector_row(OutputRow row) {
    using Struct = std::remove_cvref_t<decltype(Owner(std::declval<const BatchSim&>()))>;
    using T = typename std::remove_cvref_t<decltype(std::declval<Struct>().*Member)>::value_type;
    row.element = ValuesOf<T>::element;
    row.columns = ValuesOf<T>::columns;
    row.stride = sizeof(T);
    row.first = [](const BatchSim& sim) -> const void* { return (Owner(sim).*Member).data(); };
    return row;
}

// A row of EnvState's `Member`, under another name.
template <auto Member>
OutputRow state_row(std::string_view name, bool staged, EnvRole env, std::string_view env_key,
                    std::string_view doc) {
    return vector_row<&state_of, Member>(
        {.name = name, .staged = staged, .env = env, .env_key = env_key, .doc = doc});
}

// A row of StepOutputs' `Member`: every step output reaches the device.
template <auto Member>
OutputRow step_row(std::string_view name, EnvRole env, std::string_view env_key, ValueRange range,
                   std::string_view doc) {
    return vector_row<&outputs_of, Member>(
        {.name = name, .staged = true, .env = env, .env_key = env_key, .range = range, .doc = doc});
}

// A float field of the renderer's CameraPose records: a strided view.
template <auto Field>
OutputRow camera_row(std::string_view name, std::int32_t columns, std::string_view doc) {
    return {.name = name,
            .element = Element::Float32,
            .columns = columns,
            .stride = sizeof(gpu::CameraPose),
            .doc = doc,
            .first = [](const BatchSim& sim) -> const void* {
                return &(sim.outputs().camera.data()->*Field);
            }};
}

std::vector<OutputRow> make_table() {
    using enum EnvRole;
    std::vector<OutputRow> rows{
        state_row<&EnvState::position>("position", false, None, "",
                                       "the agent on the navmesh (m, y up)"),
        state_row<&EnvState::rotation>("rotation", false, None, "",
                                       "the agent's orientation, a unit quaternion (x, y, z, w)"),
        state_row<&EnvState::goal>("goal", false, None, "", "the episode's goal")};
#define BATCHSIM_STEP_ROW(name, type, env, key, range, doc) \
    rows.push_back(step_row<&StepOutputs::name>(#name, EnvRole::env, key, ValueRange::range, doc));
    BATCHSIM_STEP_OUTPUTS(BATCHSIM_STEP_ROW)
#undef BATCHSIM_STEP_ROW
    // In the order SimOutputs, results() and the env's info had before the table.
    rows.push_back(state_row<&EnvState::episode>("episode_index", true, InfoAll, "episode_id",
                                                 "index into ``episodes``"));
    rows.push_back(state_row<&EnvState::scene>("scene_index", true, InfoAll, "scene_id",
                                               "index into ``scene_paths``"));
    rows.push_back(state_row<&EnvState::resident>(
        "resident_scene", false, None, "",
        "the resident scene place (0 .. 2K-1) the renderer draws the env in"));
    rows.push_back(state_row<&EnvState::active>("active", false, None, "",
                                                "False once evaluation has nothing left to run"));
    rows.push_back(camera_row<&gpu::CameraPose::x>(
        "camera_position", 3, "the renderer's camera, camera_height above the agent"));
    rows.push_back(camera_row<&gpu::CameraPose::qx>("camera_rotation", 4,
                                                    "the camera's orientation (x, y, z, w)"));
    return rows;
}

}  // namespace

std::size_t OutputRow::row_bytes() const {
    const std::size_t size = element == Element::Int64 ? 8 : element == Element::Bool ? 1 : 4;
    return size * static_cast<std::size_t>(columns);
}

std::span<const OutputRow> output_table() {
    static const std::vector<OutputRow> table = make_table();
    return table;
}

std::string_view name_of(Element element) {
    switch (element) {
        case Element::Float32: return "float32";
        case Element::Int32: return "int32";
        case Element::Int64: return "int64";
        case Element::Bool: return "bool";
    }
    return "?";
}

std::string_view name_of(EnvRole role) {
    switch (role) {
        case EnvRole::None: return "none";
        case EnvRole::Observation: return "observation";
        case EnvRole::Step: return "step";
        case EnvRole::InfoEnded: return "info_ended";
        case EnvRole::InfoAll: return "info";
    }
    return "?";
}

std::string_view name_of(ValueRange range) {
    switch (range) {
        case ValueRange::Any: return "any";
        case ValueRange::Polar: return "polar";
    }
    return "?";
}

}  // namespace batchsim::sim
