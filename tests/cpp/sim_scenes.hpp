// Scenes and episode sets for the simulation tests: baked navmeshes saved as .navmesh files
// in a scratch folder, and seeded random episodes on them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "asset_test_utils.hpp"
#include "nav/nav_query.hpp"
#include "nav_scenes.hpp"
#include "sim/episodes.hpp"

namespace batchsim::test {

// Two 5 x 5 m rooms joined by a 1 m doorway: walls to slide along, corridors that change.
inline Mesh two_rooms() {
    Mesh mesh = floors({{0, 0, 10, 5}});
    add_box(mesh, 4.9f, 0, 0, 5.1f, 2, 2);
    add_box(mesh, 4.9f, 0, 3, 5.1f, 2, 5);
    add_box(mesh, 2, 0, 2, 2.6f, 2, 2.6f);  // a pillar
    return mesh;
}

// An open 8 x 6 m floor with two pillars.
inline Mesh pillared_hall() {
    Mesh mesh = floors({{0, 0, 8, 6}});
    add_box(mesh, 2, 0, 2, 3, 2, 3);
    add_box(mesh, 5, 0, 3, 5.5f, 2, 4.5f);
    return mesh;
}

// Two floors 2 m apart in x: two islands, so goals across are unreachable.
inline Mesh two_islands() {
    return floors({{0, 0, 3, 3}, {5, 0, 8, 3}});
}

struct SimScenes {
    std::shared_ptr<ScratchDir> dir = std::make_shared<ScratchDir>();  // movable
    std::vector<std::shared_ptr<const nav::NavMesh>> meshes;
    std::vector<std::filesystem::path> paths;

    void add(const std::string& name, const Mesh& mesh) {
        meshes.push_back(bake(mesh));
        paths.push_back(dir->path / (name + ".navmesh"));
        meshes.back()->save(paths.back());
    }
};

inline SimScenes standard_scenes() {
    SimScenes scenes;
    scenes.add("two_rooms", two_rooms());
    scenes.add("pillared_hall", pillared_hall());
    scenes.add("two_rooms_again", two_rooms());
    return scenes;
}

// `per_scene` episodes on each scene: start and goal random navmesh points of one island,
// random heading about +y.
inline sim::EpisodeSet random_episodes(const SimScenes& scenes, int per_scene, std::uint64_t seed) {
    sim::EpisodeSet set;
    set.scene_paths = scenes.paths;
    Rng rng(seed);
    for (std::size_t s = 0; s < scenes.meshes.size(); ++s) {
        nav::NavQuery query(scenes.meshes[s]);
        for (int e = 0; e < per_scene; ++e) {
            const nav::Vec3 start = query.random_point(rng);
            set.scene.push_back(static_cast<std::int32_t>(s));
            set.start_position.push_back(start);
            set.start_rotation.push_back(sim::yaw_rotation(rng.uniform() * 6.2831853f));
            set.goal.push_back(query.random_point(rng, query.island_of(start)));
        }
    }
    return set;
}

}  // namespace batchsim::test
