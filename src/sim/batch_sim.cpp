#include "sim/batch_sim.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "core/thread_pool.hpp"
#include "sim/pointnav_rules.hpp"

namespace batchsim::sim {
namespace {

// Environments per work item: big enough to amortise claiming it, small enough to balance
// environments whose steps cost very different amounts (path searches).
constexpr std::size_t kGrain = 32;
// Episode starts per work item: each costs a path search (tens of microseconds), and a
// step of trained agents starts only ~1% of the batch (41 of 4,096): in chunks of 32 that
// was two chunks, so at most two threads started episodes while the others waited.
constexpr std::size_t kBeginGrain = 1;
// Seeds the environments' noise streams apart from their episode streams.
constexpr std::uint64_t kNoiseSeed = 0x6e6f6973652d7267ULL;

// Environment i's action, or Error(InvalidArgument) naming what it is and what it may be.
void check_action(std::size_t i, std::int64_t action) {
    BATCHSIM_CHECK(action >= 0 && action < kActionCount, InvalidArgument,
                   str("actions[", i, "] is ", action,
                       "; expected 0 (STOP), 1 (MOVE_FORWARD), 2 (TURN_LEFT) or 3 (TURN_RIGHT)"));
}

// One worker's navmesh queries (one per resident scene, made on first use) and counters;
// a cache line of its own, as workers write their counters while others read theirs.
struct alignas(64) WorkerScratch {
    std::vector<std::unique_ptr<nav::NavQuery>> queries;
    std::size_t unreachable = 0;

    nav::NavQuery& query_for(const std::shared_ptr<const nav::NavMesh>& mesh) {
        for (auto& query : queries)
            if (&query->mesh() == mesh.get()) return *query;
        return *queries.emplace_back(std::make_unique<nav::NavQuery>(mesh));
    }
    void drop(const nav::NavMesh* mesh) {
        std::erase_if(queries, [&](const auto& query) { return &query->mesh() == mesh; });
    }
};

}  // namespace

struct BatchSim::Impl {
    SimConfig config;
    EpisodeSet episodes;
    EnvState state;
    StepOutputs out;
    std::vector<std::int32_t> actions;
    // Environments that start an episode in this call: kFresh reports the first step,
    // kAfterEnd keeps reporting the episode that ended in this step (SameStep autoreset).
    enum Begin : std::uint8_t { kNo = 0, kFresh = 1, kAfterEnd = 2 };
    std::vector<std::uint8_t> begin_now;
    struct Beginning {
        std::size_t env;
        std::int64_t episode;
        bool report;
    };
    std::vector<Beginning> beginning;
    ThreadPool pool;
    std::vector<WorkerScratch> workers;
    SceneLoader loader;
    std::unique_ptr<SceneSlots> slots;
    std::uint64_t step_count = 0;
    std::uint64_t episodes_started = 0;
    float max_geodesic = kNoGeodesicLimit;

    Impl(const SimConfig& c, EpisodeSet e)
        : config(c),
          episodes(std::move(e)),
          state(std::size_t(c.num_envs)),
          out(std::size_t(c.num_envs)),
          actions(std::size_t(c.num_envs)),
          begin_now(std::size_t(c.num_envs)),
          pool(c.num_threads),
          workers(std::size_t(c.num_threads)),
          loader(LoaderConfig{.bytes_per_second = c.loader_bytes_per_second}) {}

    nav::NavQuery& query(std::size_t i, WorkerScratch& w) const {
        return w.query_for(slots->resident(state.resident[i])->navmesh);
    }
    DistanceContext distance_context(std::size_t i, WorkerScratch& w) const {
        return {query(i, w), config.geodesic, w.unreachable};
    }

    [[nodiscard]] EnvRange all() const { return {0, state.size()}; }
    void check_actions() const;
    void check_range(EnvRange envs) const;
    void advance(std::size_t i, WorkerScratch& w);
    void finish_step(std::size_t i, bool stop_called, float distance);
    void hold(std::size_t i);
    void assign_episodes(EnvRange envs);
    void begin_episodes();
    void drop_queries(const std::vector<std::shared_ptr<const ResidentScene>>& freed);
};

void BatchSim::Impl::check_actions() const {
    for (std::size_t i = 0; i < actions.size(); ++i) check_action(i, actions[i]);
}

void BatchSim::Impl::check_range(EnvRange envs) const {
    BATCHSIM_CHECK(slots, InvalidArgument, "call reset() before step()");
    BATCHSIM_CHECK(envs.first <= state.size() && envs.count <= state.size() - envs.first,
                   InvalidArgument,
                   str("environments ", envs.first, "..", envs.first + envs.count,
                       " lie outside the batch of ", state.size()));
}

// An environment without a running episode reports nothing this step.
void BatchSim::Impl::hold(std::size_t i) {
    out.reward[i] = 0;
    out.terminated[i] = 0;
    out.truncated[i] = 0;
    if (config.autoreset == AutoReset::NextStep || !state.active[i]) begin_now[i] = kFresh;
}

// The systems of one environment's step, in order.
void BatchSim::Impl::advance(std::size_t i, WorkerScratch& w) {
    if (state.needs_episode[i]) return hold(i);
    const auto action = static_cast<Action>(actions[i]);
    // 1. Act: move (sliding along walls) or turn; count collisions and path length.
    state.collisions[i] += apply_action(state, i, action, config.task, query(i, w)) ? 1 : 0;
    state.steps[i] += 1;
    // 2. Measure the distance to the goal (geodesic; straight-line where unreachable).
    const float distance = goal_distance(state, i, distance_context(i, w));
    // 3-5. Metrics, reward, termination and truncation.
    finish_step(i, action == Action::Stop, distance);
    // 6. Observe: pointgoal_with_gps_compass and the camera pose.
    observe(state, i, out);
}

void BatchSim::Impl::finish_step(std::size_t i, bool stop_called, float distance) {
    const TaskConfig& task = config.task;
    const bool success = write_metrics(state, i, distance, stop_called, task, out);
    out.reward[i] = task.slack_reward + (state.previous_distance[i] - distance) +
                    (success ? task.success_reward : 0.0f);
    state.previous_distance[i] = distance;
    out.terminated[i] = stop_called ? 1 : 0;
    out.truncated[i] = !stop_called && state.steps[i] >= task.max_episode_steps ? 1 : 0;
    if (out.terminated[i] || out.truncated[i]) {
        state.needs_episode[i] = 1;
        if (config.autoreset == AutoReset::SameStep) begin_now[i] = kAfterEnd;
    }
}

// Serial, in environment order, so that evaluation hands out episodes deterministically.
void BatchSim::Impl::assign_episodes(EnvRange envs) {
    beginning.clear();
    for (std::size_t i = envs.first; i < envs.first + envs.count; ++i) {
        if (begin_now[i] == kNo) continue;
        const bool report = begin_now[i] == kFresh;
        begin_now[i] = kNo;
        EpisodeChoice choice;
        const bool got = slots->next_episode(i, step_count, state.rng[i], choice, max_geodesic);
        state.active[i] = got ? 1 : 0;
        if (!got) continue;
        state.scene[i] = choice.scene;
        state.resident[i] = choice.resident;
        state.needs_episode[i] = 0;
        beginning.push_back({i, choice.episode, report});
    }
    episodes_started += beginning.size();
}

void BatchSim::Impl::begin_episodes() {
    pool.parallel_for(beginning.size(), kBeginGrain, [&](std::size_t b, std::size_t e, int worker) {
        WorkerScratch& w = workers[static_cast<std::size_t>(worker)];
        for (std::size_t k = b; k < e; ++k) {
            const auto [i, episode, report] = beginning[k];
            begin_episode(state, i, episodes, episode, config.task, distance_context(i, w), report,
                          out);
        }
    });
}

void BatchSim::Impl::drop_queries(const std::vector<std::shared_ptr<const ResidentScene>>& freed) {
    for (const auto& scene : freed)
        if (scene)
            for (WorkerScratch& w : workers) w.drop(scene->navmesh.get());
}

BatchSim::BatchSim(const SimConfig& config, EpisodeSet episodes) {
    validate(config);
    validate(episodes);
    impl_ = std::make_unique<Impl>(config, std::move(episodes));
}

BatchSim::~BatchSim() = default;

const SimConfig& BatchSim::config() const {
    return impl_->config;
}

std::size_t BatchSim::num_envs() const {
    return impl_->state.size();
}

const EpisodeSet& BatchSim::episodes() const {
    return impl_->episodes;
}

void BatchSim::reset(std::optional<std::uint64_t> seed) {
    Impl& s = *impl_;
    const bool reseed = seed.has_value() || !s.slots;
    if (seed) s.config.seed = *seed;
    if (reseed) {
        for (std::size_t i = 0; i < s.state.size(); ++i) {
            s.state.rng[i] = Rng(s.config.seed, i);
            s.state.noise_rng[i] = Rng(s.config.seed ^ kNoiseSeed, i);
        }
    }
    auto keep =
        s.slots ? s.slots->loaded_scenes() : std::vector<std::shared_ptr<const ResidentScene>>{};
    for (WorkerScratch& w : s.workers) w.queries.clear();
    s.slots.reset();  // its scenes stay alive in `keep`
    s.slots = std::make_unique<SceneSlots>(s.episodes, s.config, s.loader, keep);
    keep.clear();
    s.step_count = 0;
    std::fill(s.state.needs_episode.begin(), s.state.needs_episode.end(), 1);
    std::fill(s.state.active.begin(), s.state.active.end(), 0);
    std::fill(s.begin_now.begin(), s.begin_now.end(), Impl::kFresh);
    s.assign_episodes(s.all());
    s.begin_episodes();
    s.drop_queries(s.slots->collect());
}

void BatchSim::reset_envs(std::span<const std::uint8_t> mask) {
    Impl& s = *impl_;
    BATCHSIM_CHECK(s.slots, InvalidArgument, "call reset() before reset_envs()");
    BATCHSIM_CHECK(mask.size() == s.state.size(), InvalidArgument,
                   str("the reset mask must have one entry per environment (", s.state.size(),
                       "), got ", mask.size()));
    for (std::size_t i = 0; i < mask.size(); ++i)
        s.begin_now[i] = mask[i] ? Impl::kFresh : Impl::kNo;
    s.assign_episodes(s.all());
    s.begin_episodes();
    s.drop_queries(s.slots->collect());
}

void BatchSim::set_max_episode_geodesic(float metres) {
    check_geodesic_limit(impl_->episodes, metres);
    if (!std::isinf(metres)) sort_by_geodesic(impl_->episodes);
    impl_->max_geodesic = metres;
}

float BatchSim::max_episode_geodesic() const {
    return impl_->max_geodesic;
}

std::span<std::int32_t> BatchSim::actions() {
    return impl_->actions;
}

void BatchSim::set_actions(std::span<const std::int64_t> values) {
    std::vector<std::int32_t>& actions = impl_->actions;
    BATCHSIM_CHECK(values.size() == actions.size(), InvalidArgument,
                   str("actions: expected ", actions.size(), " values, got ", values.size()));
    for (std::size_t i = 0; i < values.size(); ++i) check_action(i, values[i]);
    std::transform(values.begin(), values.end(), actions.begin(),
                   [](std::int64_t action) { return static_cast<std::int32_t>(action); });
}

void BatchSim::step() {
    act();
    start_pending_episodes();
}

void BatchSim::act() {
    begin_step();
    act(impl_->all());
}

void BatchSim::start_pending_episodes() {
    start_pending_episodes(impl_->all());
    end_step();
}

void BatchSim::begin_step() {
    Impl& s = *impl_;
    BATCHSIM_CHECK(s.slots, InvalidArgument, "call reset() before step()");
    s.check_actions();
    // Counted before any range acts, so that every range hands out episodes at this step.
    s.step_count += 1;
}

void BatchSim::act(EnvRange envs) {
    Impl& s = *impl_;
    s.check_range(envs);
    s.pool.parallel_for(envs.count, kGrain, [&](std::size_t b, std::size_t e, int worker) {
        WorkerScratch& w = s.workers[static_cast<std::size_t>(worker)];
        for (std::size_t i = envs.first + b; i < envs.first + e; ++i) s.advance(i, w);
    });
}

void BatchSim::start_pending_episodes(EnvRange envs) {
    Impl& s = *impl_;
    s.check_range(envs);
    s.assign_episodes(envs);
    s.begin_episodes();
}

// Once per step, after every range: a collect between ranges could claim an evaluation
// scene for one slot before a later range's environment claims one for another slot, and so
// hand the scenes out in another order.
void BatchSim::end_step() {
    Impl& s = *impl_;
    BATCHSIM_CHECK(s.slots, InvalidArgument, "call reset() before step()");
    s.drop_queries(s.slots->collect());
}

const EnvState& BatchSim::state() const {
    return impl_->state;
}

const StepOutputs& BatchSim::outputs() const {
    return impl_->out;
}

SimStats BatchSim::stats() const {
    const Impl& s = *impl_;
    SimStats stats{s.step_count, s.episodes_started, 0, {}, s.loader.stats()};
    for (const WorkerScratch& w : s.workers) stats.unreachable += w.unreachable;
    if (s.slots) stats.slots = s.slots->stats();
    return stats;
}

bool BatchSim::finished() const {
    return impl_->slots && impl_->slots->exhausted();
}

const ResidentScene* BatchSim::resident_scene(int r) const {
    return impl_->slots ? impl_->slots->resident(r) : nullptr;
}

int BatchSim::slot_count() const {
    return impl_->slots ? impl_->slots->slot_count() : 0;
}

}  // namespace batchsim::sim
