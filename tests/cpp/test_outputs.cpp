// sim::output_table(): each row reads the array it names, with its element type and columns,
// and the staged rows are contiguous (StepResults copies them as blocks).
#include <catch2/catch.hpp>

#include <cstring>
#include <set>
#include <string>

#include "sim/batch_sim.hpp"
#include "sim/outputs.hpp"
#include "sim_scenes.hpp"

using namespace batchsim;

namespace {

const sim::OutputRow& row_named(std::string_view name) {
    for (const sim::OutputRow& row : sim::output_table())
        if (row.name == name) return row;
    FAIL("no output " << name);
    return sim::output_table().front();  // not reached: FAIL throws
}

// Environment i's values of `row`, as bytes.
std::string values(const sim::BatchSim& sim, const sim::OutputRow& row, std::size_t i) {
    const auto* first = static_cast<const char*>(row.first(sim));
    return {first + i * row.stride, row.row_bytes()};
}

template <typename T>
std::string bytes_of(const T& value) {
    return {reinterpret_cast<const char*>(&value), sizeof(T)};
}

}  // namespace

TEST_CASE("output_table: rows are unique, staged ones contiguous", "[outputs]") {
    std::set<std::string_view> names;
    for (const sim::OutputRow& row : sim::output_table()) {
        CHECK(names.insert(row.name).second);
        CHECK(row.first != nullptr);
        CHECK(row.columns >= 1);
        CHECK(row.stride >= row.row_bytes());
        if (row.staged) CHECK(row.stride == row.row_bytes());
    }
    CHECK(names.size() == 20);
}

TEST_CASE("output_table: each row reads its array", "[outputs]") {
    const auto scenes = test::standard_scenes();
    sim::SimConfig config;
    config.num_envs = 3;
    config.num_threads = 1;
    config.scenes_resident = 2;
    sim::BatchSim sim(config, test::random_episodes(scenes, 2, 4));
    sim.reset();
    for (auto& action : sim.actions()) action = 1;
    sim.step();
    const sim::EnvState& st = sim.state();
    const sim::StepOutputs& out = sim.outputs();
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(values(sim, row_named("position"), i) == bytes_of(st.position[i]));
        CHECK(values(sim, row_named("episode_index"), i) == bytes_of(st.episode[i]));
        CHECK(values(sim, row_named("active"), i) == bytes_of(st.active[i]));
        CHECK(values(sim, row_named("pointgoal"), i) == bytes_of(out.pointgoal[i]));
        CHECK(values(sim, row_named("distance_to_goal"), i) == bytes_of(out.distance_to_goal[i]));
        CHECK(values(sim, row_named("terminated"), i) == bytes_of(out.terminated[i]));
        const gpu::CameraPose& camera = out.camera[i];
        CHECK(values(sim, row_named("camera_position"), i) ==
              std::string(reinterpret_cast<const char*>(&camera.x), 3 * sizeof(float)));
        CHECK(values(sim, row_named("camera_rotation"), i) ==
              std::string(reinterpret_cast<const char*>(&camera.qx), 4 * sizeof(float)));
    }
    CHECK(row_named("pointgoal").env == sim::EnvRole::Observation);
    CHECK(row_named("pointgoal").env_key == "pointgoal_with_gps_compass");
    CHECK(row_named("episode_index").element == sim::Element::Int64);
    CHECK(row_named("terminated").element == sim::Element::Bool);
}
