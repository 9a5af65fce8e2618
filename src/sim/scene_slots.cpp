#include "sim/scene_slots.hpp"

#include <algorithm>
#include <cassert>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "nav/nav_query.hpp"
#include "sim/episode_starts.hpp"

namespace batchsim::sim {
namespace {

// The scene shuffle's random stream: far from the environments' streams (their indices).
constexpr std::uint64_t kSceneOrderStream = 0x5ce2e0de5ce2e0deULL;

// Uniform in [0, n) from 32 random bits (Lemire's multiply-shift; bias < n / 2^32).
std::size_t pick(Rng& rng, std::size_t n) {
    return static_cast<std::size_t>((std::uint64_t{rng.next_u32()} * n) >> 32u);
}

std::vector<int> shuffled_scenes(int count, std::uint64_t seed) {
    std::vector<int> order(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) order[static_cast<std::size_t>(i)] = i;
    Rng rng(seed, kSceneOrderStream);
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[pick(rng, i)]);
    return order;
}

// One resident place: a scene loading or loaded, and who uses it.
struct Place {
    int scene = -1;  // -1: empty
    SceneLoader::Ticket ticket;
    std::shared_ptr<const ResidentScene> loaded;
    int envs = 0;
    std::size_t cursor = 0;  // evaluation: the scene's next episode to hand out
};

// A slot's resident generations are oldest..newest (at most two; none when newest < oldest);
// generation g lives in place 2k + g % 2.
struct Slot {
    std::vector<int> sequence;  // training: the slot's scenes, cycled
    std::int64_t oldest = 0;
    std::int64_t newest = 0;
};

}  // namespace

struct SceneSlots::Impl {
    const EpisodeSet& episodes;
    SimConfig config;
    SceneLoader& loader;
    std::vector<std::shared_ptr<const ResidentScene>> keep;
    std::vector<Slot> slots;
    std::vector<Place> places;
    std::vector<std::int64_t> env_generation;  // -1: holds no scene
    int next_eval_scene = 0;
    bool started = false;  // the first scenes are loaded; later loads are swaps
    SlotStats counters;
    std::vector<std::uint8_t> starts_checked;  // by scene: its episodes' starts passed

    Impl(const EpisodeSet& e, const SimConfig& c, SceneLoader& l)
        : episodes(e),
          config(c),
          loader(l),
          env_generation(static_cast<std::size_t>(c.num_envs), -1),
          starts_checked(e.scene_paths.size(), 0) {}

    [[nodiscard]] bool training() const { return config.order == EpisodeOrder::Train; }
    int place_index(std::size_t k, std::int64_t generation) const {
        return static_cast<int>(2 * k + static_cast<std::size_t>(generation % 2));
    }
    Place& place(std::size_t k, std::int64_t generation) {
        return places[static_cast<std::size_t>(place_index(k, generation))];
    }
    [[nodiscard]] const std::vector<std::int64_t>& episodes_of(const Place& p) const {
        return episodes.episodes_of_scene[static_cast<std::size_t>(p.scene)];
    }
    [[nodiscard]] bool exhausted(const Place& p) const {
        return p.scene < 0 || p.cursor >= episodes_of(p).size();
    }

    void open(std::size_t k, std::int64_t generation, int scene);
    void ensure_loaded(Place& p);
    void check_starts_once(const Place& p);
    std::shared_ptr<const ResidentScene> free(Place& p);
    void join(std::size_t env, std::int64_t generation);
    void leave(std::size_t env);
    void poll_loads();

    bool next_training_episode(std::size_t env, std::uint64_t step, Rng& rng, EpisodeChoice& out,
                               float max_geodesic);
    bool next_eval_episode(std::size_t env, EpisodeChoice& out);
    bool claim_eval_scene(std::size_t k);
    void collect_training(std::size_t k, std::vector<std::shared_ptr<const ResidentScene>>& freed);
    void collect_eval(std::size_t k, std::vector<std::shared_ptr<const ResidentScene>>& freed);
};

void SceneSlots::Impl::open(std::size_t k, std::int64_t generation, int scene) {
    Place& p = place(k, generation);
    assert(p.scene < 0 && p.envs == 0);
    p = Place{};
    p.scene = scene;
    const auto& reuse = keep.empty() ? nullptr : keep[static_cast<std::size_t>(scene)];
    if (reuse)
        p.loaded = reuse;
    else
        p.ticket = loader.request(episodes.scene_paths[static_cast<std::size_t>(scene)]);
    if (p.loaded) counters.resident_bytes += p.loaded->bytes;
    counters.resident_scenes += 1;
    counters.peak_resident_bytes = std::max(counters.peak_resident_bytes, counters.resident_bytes);
}

void SceneSlots::Impl::ensure_loaded(Place& p) {
    if (p.loaded) return;
    try {
        p.loaded = loader.wait(p.ticket);
    } catch (const Error& error) {
        // The load error names the file; say when it failed and the likely cause.
        throw Error(error.kind(),
                    str(started ? "scene swap failed: " : "", "scene ", p.scene,
                        " of the dataset could not be loaded",
                        started ? " (was the file changed or deleted during the run?)" : "", ": ",
                        error.what()));
    }
    p.ticket.reset();
    check_starts_once(p);
    counters.resident_bytes += p.loaded->bytes;
    counters.peak_resident_bytes = std::max(counters.peak_resident_bytes, counters.resident_bytes);
}

// The scene's navmesh is here now: the first time, its episodes' starts must pass the rules
// (episode_starts.hpp), or the run stops naming the first that does not.
void SceneSlots::Impl::check_starts_once(const Place& p) {
    std::uint8_t& checked = starts_checked[static_cast<std::size_t>(p.scene)];
    if (checked) return;
    nav::NavQuery query(p.loaded->navmesh);
    check_scene_starts(episodes, p.scene, query);
    checked = 1;
}

std::shared_ptr<const ResidentScene> SceneSlots::Impl::free(Place& p) {
    assert(p.envs == 0);
    std::shared_ptr<const ResidentScene> scene = std::move(p.loaded);
    if (scene) counters.resident_bytes -= scene->bytes;
    counters.resident_scenes -= 1;
    counters.scenes_freed += 1;
    p = Place{};
    return scene;
}

void SceneSlots::Impl::join(std::size_t env, std::int64_t generation) {
    leave(env);
    env_generation[env] = generation;
    Place& p = place(env % slots.size(), generation);
    p.envs += 1;
    ensure_loaded(p);
}

void SceneSlots::Impl::leave(std::size_t env) {
    if (env_generation[env] < 0) return;
    place(env % slots.size(), env_generation[env]).envs -= 1;
    env_generation[env] = -1;
}

// Takes finished background loads, so resident memory counts them as soon as they land.
void SceneSlots::Impl::poll_loads() {
    for (Place& p : places)
        if (p.ticket && loader.ready(p.ticket)) ensure_loaded(p);
}

bool SceneSlots::Impl::next_training_episode(std::size_t env, std::uint64_t step, Rng& rng,
                                             EpisodeChoice& out, float max_geodesic) {
    const std::size_t k = env % slots.size();
    const Slot& slot = slots[k];
    const std::int64_t current = env_generation[env];
    const auto due = static_cast<std::int64_t>(step / std::uint64_t(config.steps_per_scene));
    if (current < 0) {
        join(env, slot.oldest);
    } else if (slot.newest > current && due >= slot.newest) {
        join(env, slot.newest);
        counters.env_switches += 1;
    }
    const std::int64_t generation = env_generation[env];
    const Place& p = place(k, generation);
    const auto list = eligible_episodes(episodes, p.scene, max_geodesic);
    out = {list[pick(rng, list.size())], p.scene, place_index(k, generation)};
    return true;
}

bool SceneSlots::Impl::next_eval_episode(std::size_t env, EpisodeChoice& out) {
    const std::size_t k = env % slots.size();
    Slot& slot = slots[k];
    const std::int64_t first = std::max(env_generation[env], slot.oldest);
    std::int64_t generation = first;
    while (generation <= slot.newest && exhausted(place(k, generation))) ++generation;
    if (generation > slot.newest) {
        if (!claim_eval_scene(k)) {
            leave(env);
            return false;
        }
        generation = slot.newest;
    }
    if (generation != env_generation[env]) {
        if (env_generation[env] >= 0) counters.env_switches += 1;
        join(env, generation);
    }
    Place& p = place(k, generation);
    out = {episodes_of(p)[p.cursor++], p.scene, place_index(k, generation)};
    return true;
}

// Opens the dataset's next unclaimed scene as slot k's newest generation, if a place is free
// (the slot holds one generation or none).
bool SceneSlots::Impl::claim_eval_scene(std::size_t k) {
    Slot& slot = slots[k];
    if (slot.newest > slot.oldest || next_eval_scene >= episodes.scene_count()) return false;
    slot.newest += 1;
    open(k, slot.newest, next_eval_scene++);
    return true;
}

void SceneSlots::Impl::collect_training(std::size_t k,
                                        std::vector<std::shared_ptr<const ResidentScene>>& freed) {
    Slot& slot = slots[k];
    if (slot.newest > slot.oldest && place(k, slot.oldest).envs == 0) {
        freed.push_back(free(place(k, slot.oldest)));
        slot.oldest += 1;
        counters.scene_swaps += 1;
    }
    if (slot.newest == slot.oldest && slot.sequence.size() > 1) {
        slot.newest += 1;
        const auto index = static_cast<std::size_t>(slot.newest) % slot.sequence.size();
        open(k, slot.newest, slot.sequence[index]);
    }
}

void SceneSlots::Impl::collect_eval(std::size_t k,
                                    std::vector<std::shared_ptr<const ResidentScene>>& freed) {
    Slot& slot = slots[k];
    while (slot.oldest <= slot.newest) {
        Place& oldest = place(k, slot.oldest);
        if (oldest.scene >= 0 && (oldest.envs > 0 || !exhausted(oldest))) break;
        if (oldest.scene >= 0) freed.push_back(free(oldest));
        slot.oldest += 1;
        if (slot.oldest <= slot.newest) counters.scene_swaps += 1;
    }
    // Prefetch once the current scene has handed out its last episode (or none is left).
    if (slot.newest < slot.oldest || exhausted(place(k, slot.newest))) claim_eval_scene(k);
}

SceneSlots::SceneSlots(const EpisodeSet& episodes, const SimConfig& config, SceneLoader& loader,
                       const std::vector<std::shared_ptr<const ResidentScene>>& keep)
    : impl_(std::make_unique<Impl>(episodes, config, loader)) {
    Impl& s = *impl_;
    s.keep = keep;
    s.keep.resize(static_cast<std::size_t>(episodes.scene_count()));
    // Every slot needs a scene and an environment.
    const int k_count = std::min({config.scenes_resident, episodes.scene_count(), config.num_envs});
    s.slots.resize(static_cast<std::size_t>(k_count));
    s.places.resize(2 * s.slots.size());
    const std::vector<int> order =
        s.training() ? shuffled_scenes(episodes.scene_count(), config.seed) : std::vector<int>{};
    for (std::size_t j = 0; j < order.size(); ++j)
        s.slots[j % s.slots.size()].sequence.push_back(order[j]);
    for (std::size_t k = 0; k < s.slots.size(); ++k)
        s.open(k, 0, s.training() ? s.slots[k].sequence[0] : s.next_eval_scene++);
    for (Place& p : s.places)
        if (p.scene >= 0) s.ensure_loaded(p);
    s.keep.clear();  // reuse only for the first scenes; later ones load fresh
    s.started = true;
    (void)collect();
}

SceneSlots::~SceneSlots() = default;

int SceneSlots::slot_count() const {
    return static_cast<int>(impl_->slots.size());
}

const ResidentScene* SceneSlots::resident(int r) const {
    if (r < 0 || r >= static_cast<int>(impl_->places.size())) return nullptr;
    return impl_->places[static_cast<std::size_t>(r)].loaded.get();
}

bool SceneSlots::next_episode(std::size_t env, std::uint64_t step, Rng& rng, EpisodeChoice& out,
                              float max_geodesic) {
    return impl_->training() ? impl_->next_training_episode(env, step, rng, out, max_geodesic)
                             : impl_->next_eval_episode(env, out);
}

std::vector<std::shared_ptr<const ResidentScene>> SceneSlots::collect() {
    std::vector<std::shared_ptr<const ResidentScene>> freed;
    for (std::size_t k = 0; k < impl_->slots.size(); ++k) {
        if (impl_->training())
            impl_->collect_training(k, freed);
        else
            impl_->collect_eval(k, freed);
    }
    impl_->poll_loads();
    return freed;
}

std::vector<std::shared_ptr<const ResidentScene>> SceneSlots::loaded_scenes() const {
    std::vector<std::shared_ptr<const ResidentScene>> out(
        static_cast<std::size_t>(impl_->episodes.scene_count()));
    for (const Place& p : impl_->places)
        if (p.loaded) out[static_cast<std::size_t>(p.scene)] = p.loaded;
    return out;
}

bool SceneSlots::exhausted() const {
    const Impl& s = *impl_;
    if (s.training() || s.next_eval_scene < s.episodes.scene_count()) return false;
    return std::all_of(s.places.begin(), s.places.end(),
                       [&](const Place& p) { return p.envs == 0 && s.exhausted(p); });
}

SlotStats SceneSlots::stats() const {
    return impl_->counters;
}

}  // namespace batchsim::sim
