#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>

#include "sim/pointnav_rules.hpp"
#include "sim_scenes.hpp"

using namespace batchsim;
using namespace batchsim::sim;

namespace {

struct OneEnv {
    std::shared_ptr<const nav::NavMesh> mesh = test::bake(test::floors({{0, 0, 10, 10}}));
    nav::NavQuery query{mesh};
    EnvState state{1};
    StepOutputs out{1};
    TaskConfig task;
    std::size_t unreachable = 0;

    DistanceContext context() { return {query, GeodesicMode::Exact, unreachable}; }
    // Starts an episode at `position` moved onto the navmesh.
    void start(const Vec3& position, const Quat& rotation, const Vec3& goal) {
        EpisodeSet set;
        set.scene = {0};
        set.start_position = {*query.snap_point(position)};
        set.start_rotation = {rotation};
        set.goal = {*query.snap_point(goal)};
        begin_episode(state, 0, set, 0, task, context(), true, out);
    }
};

constexpr float kPi = std::numbers::pi_v<float>;

}  // namespace

TEST_CASE("PointNav rules: forward moves 0.25 m along the agent's -z", "[pointnav_rules]") {
    OneEnv env;
    env.start({5, 0, 5}, kIdentityQuat, {5, 0, 1});
    CHECK_FALSE(apply_action(env.state, 0, Action::MoveForward, env.task, env.query));
    CHECK(env.state.position[0][2] == Approx(4.75f).margin(1e-5));
    CHECK(env.state.position[0][0] == Approx(5.0f).margin(1e-5));
    CHECK(env.state.path_length[0] == Approx(0.25f).margin(1e-5));
    // Facing +x after a right turn of 90 degrees: -z of the agent is world +x.
    env.state.rotation[0] = yaw_rotation(-kPi / 2);
    apply_action(env.state, 0, Action::MoveForward, env.task, env.query);
    CHECK(env.state.position[0][0] == Approx(5.25f).margin(1e-5));
}

TEST_CASE("PointNav rules: 36 left turns come back to the start heading", "[pointnav_rules]") {
    OneEnv env;
    env.start({5, 0, 5}, kIdentityQuat, {5, 0, 1});
    for (int i = 0; i < 9; ++i) apply_action(env.state, 0, Action::TurnLeft, env.task, env.query);
    // A quarter turn left: forward is world -x.
    const Vec3 forward = rotate(env.state.rotation[0], {0, 0, -1});
    CHECK(forward[0] == Approx(-1.0f).margin(1e-5));
    for (int i = 0; i < 27; ++i) apply_action(env.state, 0, Action::TurnLeft, env.task, env.query);
    for (int k = 0; k < 3; ++k) CHECK(std::fabs(env.state.rotation[0][k]) < 1e-5f);
    CHECK(std::fabs(env.state.rotation[0][3]) == Approx(1.0f).margin(1e-5));
}

TEST_CASE("PointNav rules: walking into a wall slides and collides", "[pointnav_rules]") {
    OneEnv env;
    const auto [lo, hi] = env.mesh->bounds();
    // Facing -x at the floor's west edge, slightly turned: slides along the edge.
    env.start({lo[0] + 0.05f, 0, 5}, yaw_rotation(kPi / 2 - 0.2f), {9, 0, 5});
    const Vec3 before = env.state.position[0];
    CHECK(apply_action(env.state, 0, Action::MoveForward, env.task, env.query));
    CHECK(env.state.position[0][2] != Approx(before[2]));  // slid along the wall
    env.task.allow_sliding = false;
    const Vec3 stuck = env.state.position[0];
    CHECK(apply_action(env.state, 0, Action::MoveForward, env.task, env.query));
    CHECK(std::hypot(env.state.position[0][0] - stuck[0], env.state.position[0][2] - stuck[2]) <
          0.05f);
}

TEST_CASE("PointNav rules: pointgoal is (distance, angle to the left)", "[pointnav_rules]") {
    OneEnv env;
    env.start({5, 0, 5}, kIdentityQuat, {5, 0, 2});  // straight ahead
    CHECK(env.out.pointgoal[0][0] == Approx(3.0f));
    CHECK(env.out.pointgoal[0][1] == Approx(0.0f).margin(1e-6));
    env.start({5, 0, 5}, kIdentityQuat, {3, 0, 5});  // to the left (-x)
    CHECK(env.out.pointgoal[0][1] == Approx(kPi / 2));
    env.start({5, 0, 5}, kIdentityQuat, {5, 0, 7});  // behind
    CHECK(std::fabs(env.out.pointgoal[0][1]) == Approx(kPi));
    CHECK(env.out.camera[0].y == Approx(env.state.position[0][1] + 1.25f));
}

TEST_CASE("PointNav rules: success, SPL and SoftSPL", "[pointnav_rules]") {
    OneEnv env;
    env.start({5, 0, 5}, kIdentityQuat, {5, 0, 4});
    CHECK(env.state.start_distance[0] == Approx(1.0f).margin(1e-4));
    env.state.path_length[0] = 2.0f;
    CHECK(write_metrics(env.state, 0, 0.1f, true, env.task, env.out));
    CHECK(env.out.spl[0] == Approx(0.5f).margin(1e-4));
    CHECK(env.out.softspl[0] == Approx(0.9f * 0.5f).margin(1e-4));
    CHECK_FALSE(write_metrics(env.state, 0, 0.1f, false, env.task, env.out));
    CHECK(env.out.spl[0] == 0.0f);
    CHECK_FALSE(write_metrics(env.state, 0, 0.2f, true, env.task, env.out));  // strictly less
    // Start on the goal and stop at once: Habitat's 0/0 is defined as a perfect episode.
    env.start({5, 0, 5}, kIdentityQuat, {5, 0, 5});
    CHECK(write_metrics(env.state, 0, 0.0f, true, env.task, env.out));
    CHECK(env.out.spl[0] == 1.0f);
    CHECK(env.out.softspl[0] == 1.0f);
}
