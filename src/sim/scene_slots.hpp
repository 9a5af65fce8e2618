// Scene slots, as in Shacklett et al. (2021): K scenes resident (at most the number of
// scenes and of environments), environment i in slot i mod K. Each slot has two resident places (2k
// and 2k+1) so that its next scene loads in the background while environments still run on the
// current one; an environment moves to the next scene at an episode end, and a scene is freed when
// its last environment leaves.
//
// Training: slot k cycles through its share of a seeded shuffle of the scenes; it moves on
// every steps_per_scene steps, and an environment follows at its first episode end after
// that. Because steps_per_scene exceeds an episode, every environment has left the old scene
// before the one after the next is due, so an environment's scenes (and all its randomness)
// depend only on the seed and its index: not on the batch size nor on load times.
// Evaluation: scenes are taken in dataset order, each episode handed out exactly once, in
// environment order; environments with nothing left to run park.
//
// Everything here runs on the stepping thread, between the parallel phases of a step.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/random.hpp"
#include "sim/config.hpp"
#include "sim/episodes.hpp"
#include "sim/scene_loader.hpp"

namespace batchsim::sim {

struct SlotStats {
    std::uint64_t scene_swaps = 0;   // times a slot moved on to its next scene
    std::uint64_t env_switches = 0;  // times an environment moved to its slot's next scene
    std::uint64_t scenes_freed = 0;
    std::size_t resident_scenes = 0;  // scenes in memory now (loaded or loading)
    std::size_t resident_bytes = 0;   // host memory of the loaded ones
    std::size_t peak_resident_bytes = 0;
};

struct EpisodeChoice {
    std::int64_t episode = -1;
    std::int32_t scene = -1;
    std::int32_t resident = -1;  // resident place (0 .. 2K-1)
};

class SceneSlots {
public:
    // Loads each slot's first scene (waiting for them) and queues the next ones. Scenes in
    // `keep` (by scene index, may be empty or hold nulls) are reused instead of reloaded.
    SceneSlots(const EpisodeSet& episodes, const SimConfig& config, SceneLoader& loader,
               const std::vector<std::shared_ptr<const ResidentScene>>& keep);
    ~SceneSlots();
    SceneSlots(const SceneSlots&) = delete;
    SceneSlots& operator=(const SceneSlots&) = delete;

    [[nodiscard]] int slot_count() const;
    // The scene loaded at resident place r; null while empty or loading.
    [[nodiscard]] const ResidentScene* resident(int r) const;

    // The next episode of environment `env` at simulation step `step`, moving it to its
    // slot's next scene when due (waiting for the load if needed); its randomness comes from
    // `rng`. Training draws one of eligible_episodes(max_geodesic, checked) uniformly, with
    // one draw of `rng` whatever the limit; evaluation ignores the limit. Returns false when
    // evaluation has nothing left for it: it parks, holding no scene.
    bool next_episode(std::size_t env, std::uint64_t step, Rng& rng, EpisodeChoice& out,
                      float max_geodesic = kNoGeodesicLimit);

    // Frees scenes that no environment uses any more and queues the loads slots need next.
    // Returns the freed scenes, so that per-thread queries on them can be dropped.
    std::vector<std::shared_ptr<const ResidentScene>> collect();

    // Every loaded scene by scene index (null where not resident), for reuse on reset.
    [[nodiscard]] std::vector<std::shared_ptr<const ResidentScene>> loaded_scenes() const;
    // True once evaluation has handed out every episode and no environment holds a scene.
    [[nodiscard]] bool exhausted() const;
    [[nodiscard]] SlotStats stats() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace batchsim::sim
