// libFuzzer harness for PointNav-v1 episodes on their way into the simulator. The input is
// the JSON a Habitat json.gz holds. In production Python parses it (datasets/parse.py) and
// hands BatchSim the columns; here the project's C++ JSON parser stands in, so that the
// columns reach sim::validate without Python's checks. Accepted sets then run a few steps
// of BatchSim on two scenes baked at start-up (rooms with a doorway; two islands), and every
// output must be finite (DESIGN.md: unreachable goals, islands and divide-by-zero never
// produce inf or NaN). The only acceptable failure is batchsim::Error.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "assets/gltf_json.hpp"
#include "core/check.hpp"
#include "nav/navmesh.hpp"
#include "sim/batch_sim.hpp"

namespace {

namespace fs = std::filesystem;
using batchsim::assets::gltf::JsonValue;
using namespace batchsim;

constexpr std::size_t kMaxEpisodes = 64;  // enough for scene swaps; keeps an input fast
constexpr std::size_t kMaxScenes = 4;
constexpr int kSteps = 24;

// FUZZ_DEBUG=1: say what each input did (a seed that validation rejects fuzzes only the parser).
bool verbose() {
    static const bool on = std::getenv("FUZZ_DEBUG") != nullptr;
    return on;
}

// An axis-aligned floor quad, two triangles facing up.
void add_floor(std::vector<float>& p, std::vector<std::uint32_t>& i, float x0, float z0, float x1,
               float z1) {
    const auto base = static_cast<std::uint32_t>(p.size() / 3);
    p.insert(p.end(), {x0, 0, z0, x1, 0, z0, x1, 0, z1, x0, 0, z1});
    i.insert(i.end(), {base, base + 2, base + 1, base, base + 3, base + 2});
}

// Bakes `floors` and writes the navmesh to `path`.
fs::path write_navmesh(const fs::path& path, const std::vector<std::array<float, 4>>& floors) {
    std::vector<float> positions;
    std::vector<std::uint32_t> indices;
    for (const auto& f : floors) add_floor(positions, indices, f[0], f[1], f[2], f[3]);
    nav::NavMesh::bake(positions, indices)->save(path);
    return path;
}

// The two scenes, baked once per process into a scratch folder.
struct Scenes {
    fs::path dir = fs::temp_directory_path() / ("fuzz_episodes_" + std::to_string(getpid()));
    fs::path rooms, islands;
    Scenes() {
        fs::create_directories(dir);
        // Two 4 x 4 m rooms joined by a 1 m wide corridor.
        rooms =
            write_navmesh(dir / "rooms.navmesh", {{0, 0, 4, 4}, {4, 1.5f, 6, 2.5f}, {6, 0, 10, 4}});
        islands = write_navmesh(dir / "islands.navmesh", {{0, 0, 3, 3}, {5, 0, 8, 3}});
    }
    ~Scenes() {
        std::error_code ignored;
        fs::remove_all(dir, ignored);
    }
    Scenes(const Scenes&) = delete;
    Scenes& operator=(const Scenes&) = delete;
};

std::optional<float> number(const JsonValue* v) {
    if (v == nullptr || v->type != JsonValue::Type::Number) return std::nullopt;
    return static_cast<float>(v->number);
}

// A JSON array of exactly N numbers, as float32 (as Python hands them over).
template <std::size_t N>
std::optional<std::array<float, N>> numbers(const JsonValue* v) {
    if (v == nullptr || v->type != JsonValue::Type::Array || v->items.size() != N)
        return std::nullopt;
    std::array<float, N> out{};
    for (std::size_t k = 0; k < N; ++k) {
        const auto x = number(&v->items[k]);
        if (!x) return std::nullopt;
        out[k] = *x;
    }
    return out;
}

// Appends one episode record; false if a field is missing or mistyped (Python's FormatError).
bool add_episode(const JsonValue& e, const Scenes& scenes, std::map<std::string, int>& scene_ids,
                 sim::EpisodeSet& set) {
    const JsonValue* scene_id = e.find("scene_id");
    const JsonValue* goals = e.find("goals");
    const auto start = numbers<3>(e.find("start_position"));
    const auto rotation = numbers<4>(e.find("start_rotation"));
    const auto goal =
        numbers<3>(goals ? goals->at(0) ? goals->at(0)->find("position") : nullptr : nullptr);
    if (!scene_id || scene_id->type != JsonValue::Type::String || !start || !rotation || !goal)
        return false;
    auto [it, added] = scene_ids.emplace(scene_id->text, static_cast<int>(scene_ids.size()));
    if (added) {
        if (scene_ids.size() > kMaxScenes) return false;
        const bool islands = scene_id->text.find("island") != std::string::npos;
        set.scene_paths.push_back(islands ? scenes.islands : scenes.rooms);
    }
    set.scene.push_back(it->second);
    set.start_position.push_back(*start);
    set.start_rotation.push_back(*rotation);
    set.goal.push_back(*goal);
    return true;
}

std::optional<sim::EpisodeSet> episodes_of(const JsonValue& doc, const Scenes& scenes) {
    const JsonValue* list = doc.find("episodes");
    if (list == nullptr || list->type != JsonValue::Type::Array) return std::nullopt;
    if (list->items.empty() || list->items.size() > kMaxEpisodes) return std::nullopt;
    sim::EpisodeSet set;
    std::map<std::string, int> scene_ids;
    for (const JsonValue& e : list->items)
        if (!add_episode(e, scenes, scene_ids, set)) return std::nullopt;
    return set;
}

// Evaluation or training, exact or corridor geodesics: chosen by the input's size so that
// every seed runs one mode and mutations reach the others.
sim::SimConfig config_for(const sim::EpisodeSet& set, std::size_t input_size) {
    sim::SimConfig c;
    c.num_envs = static_cast<int>(std::min<std::size_t>(set.size(), 4));
    c.scenes_resident = std::min(set.scene_count(), c.num_envs);
    c.order = input_size % 2 ? sim::EpisodeOrder::Eval : sim::EpisodeOrder::Train;
    c.geodesic = input_size % 4 >= 2 ? sim::GeodesicMode::Exact : sim::GeodesicMode::Corridor;
    c.seed = input_size;
    c.task.max_episode_steps = 8;
    c.steps_per_scene = 10;
    c.loader_bytes_per_second = 0;
    return c;
}

void require_finite(float value, const char* what, std::size_t env) {
    if (std::isfinite(value)) return;
    std::fprintf(stderr, "non-finite %s (%f) in environment %zu\n", what, double(value), env);
    std::abort();
}

void check_outputs(const sim::BatchSim& sim) {
    const sim::StepOutputs& o = sim.outputs();
    for (std::size_t i = 0; i < sim.num_envs(); ++i) {
        require_finite(o.reward[i], "reward", i);
        require_finite(o.spl[i], "spl", i);
        require_finite(o.softspl[i], "softspl", i);
        require_finite(o.distance_to_goal[i], "distance_to_goal", i);
        require_finite(o.pointgoal[i][0], "pointgoal distance", i);
        require_finite(o.pointgoal[i][1], "pointgoal angle", i);
        require_finite(o.camera[i].x + o.camera[i].y + o.camera[i].z, "camera position", i);
    }
}

// Mostly forward, some turns, a STOP every ninth step.
void run_steps(sim::BatchSim& sim) {
    sim.reset();
    check_outputs(sim);
    for (int t = 0; t < kSteps; ++t) {
        auto actions = sim.actions();
        for (std::size_t i = 0; i < actions.size(); ++i) {
            const std::size_t u = (static_cast<std::size_t>(t) * 7 + i * 3) % 5;
            actions[i] = t % 9 == 8 ? 0 : u == 2 ? 2 : u == 3 ? 3 : 1;
        }
        sim.step();
        check_outputs(sim);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const Scenes scenes;
    try {
        const JsonValue doc =
            assets::gltf::parse_json({reinterpret_cast<const char*>(data), size}, "fuzz");
        std::optional<sim::EpisodeSet> set = episodes_of(doc, scenes);
        if (!set) return 0;
        sim::validate(*set);
        sim::BatchSim sim(config_for(*set, size), std::move(*set));
        run_steps(sim);
        if (verbose())
            std::fprintf(stderr, "ran %zu environments, %llu episodes\n", sim.num_envs(),
                         static_cast<unsigned long long>(sim.stats().episodes_started));
    } catch (const Error& e) {
        if (verbose()) std::fprintf(stderr, "rejected: %s\n", e.what());
        // Rejected: the expected outcome for malformed episodes.
    }
    return 0;
}
