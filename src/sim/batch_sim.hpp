// BatchSim: N PointNav environments stepped together on a pool of CPU threads, with
// Habitat's rules (pointnav_rules.hpp), K resident scene slots (scene_slots.hpp) and camera
// poses for the renderer. One owner; Python holds it and views its arrays.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "sim/config.hpp"
#include "sim/episodes.hpp"
#include "sim/scene_loader.hpp"
#include "sim/scene_slots.hpp"
#include "sim/state.hpp"

namespace batchsim::sim {

struct SimStats {
    std::uint64_t steps = 0;             // step() calls since the last reset
    std::uint64_t episodes_started = 0;  // since construction
    std::uint64_t unreachable = 0;       // distance measurements that fell back to straight-line
    SlotStats slots;
    LoaderStats loader;
};

// Environments [first, first + count).
struct EnvRange {
    std::size_t first = 0;
    std::size_t count = 0;
};

class BatchSim {
public:
    // Validates config and episodes (see their validate()), starts the workers and the
    // loader, and loads each slot's first scene. Environments start with reset().
    BatchSim(const SimConfig& config, EpisodeSet episodes);
    ~BatchSim();
    BatchSim(const BatchSim&) = delete;
    BatchSim& operator=(const BatchSim&) = delete;

    [[nodiscard]] const SimConfig& config() const;
    [[nodiscard]] std::size_t num_envs() const;
    [[nodiscard]] const EpisodeSet& episodes() const;

    // Starts an episode in every environment; with a seed, first reseeds every environment
    // (i from (seed, i)) and restarts the scene schedule. Evaluation restarts from the first
    // episode. Scenes already resident are kept where the new schedule wants them.
    void reset(std::optional<std::uint64_t> seed = std::nullopt);
    // Starts a new episode in each environment whose mask byte is nonzero (mask: [N]).
    void reset_envs(std::span<const std::uint8_t> mask);

    // Training draws each new episode among its scene's episodes of geodesic <= `metres`
    // (eligible_episodes: the scene's shortest where none is); inf, the default: no limit,
    // the draws of a sim without one. From the next episode start on, across reset() too;
    // call it between steps. Evaluation ignores it. Throws Error(InvalidArgument) for NaN
    // or a negative limit, or a finite one where an episode's geodesic is missing.
    void set_max_episode_geodesic(float metres);
    [[nodiscard]] float max_episode_geodesic() const;

    // The actions step() applies, [N] int32 in 0..3 (Action); written in place by callers.
    [[nodiscard]] std::span<std::int32_t> actions();
    // Copies N actions of any integer width, widened to int64 (a device tensor's values that
    // reached the host), into actions(). Throws Error(InvalidArgument) as step() does for
    // the first value out of range, leaving actions() as they were.
    void set_actions(std::span<const std::int64_t> values);
    // Advances every environment by its action. Throws Error(InvalidArgument) naming the
    // first environment whose action is out of range, before changing anything.
    void step();
    // step() in its two halves, for a caller that looks at the batch in between (the env
    // renders the views that ended episodes saw last): act() applies the actions, measures
    // and reports; environments whose episode ended then wait. start_pending_episodes()
    // starts the episodes autoreset owes (SameStep: the ones that just ended) and frees the
    // scenes nobody uses any more.
    void act();
    void start_pending_episodes();

    // step() over contiguous ranges of environments, so that a caller can render one range
    // while the next one simulates: begin_step(); then for each range, in environment order
    // and together covering the batch, act(range) and start_pending_episodes(range); then
    // end_step(). Bit for bit the results of step(): environments draw from their own random
    // streams, episodes are handed out in environment order, every range sees the same step
    // number, and scenes are freed (and next ones claimed) only once every range has chosen
    // its episodes. Until end_step(), the scenes of every environment stay resident. A range
    // outside the batch throws Error(InvalidArgument).
    void begin_step();  // checks every action (throws before changing anything), counts the step
    void act(EnvRange envs);
    void start_pending_episodes(EnvRange envs);
    void end_step();  // frees the scenes nobody uses any more

    [[nodiscard]] const EnvState& state() const;
    [[nodiscard]] const StepOutputs& outputs() const;
    [[nodiscard]] SimStats stats() const;
    // Evaluation: every episode has run and every environment has parked.
    [[nodiscard]] bool finished() const;
    // The scene at resident place r (0 .. 2K-1), null while empty or loading: the renderer
    // draws environment i's camera in resident_scene(state().resident[i]).
    [[nodiscard]] const ResidentScene* resident_scene(int r) const;
    [[nodiscard]] int slot_count() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace batchsim::sim
