#include "env/scene_mirror.hpp"

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim::env {

SceneMirror::SceneMirror(std::size_t places) : shown_(places), filled_(places, false) {}

std::size_t SceneMirror::sync(const sim::BatchSim& sim, render::BatchRenderer& renderer) {
    const std::size_t places = 2 * static_cast<std::size_t>(sim.slot_count());
    BATCHSIM_CHECK(places <= shown_.size() && places <= renderer.config().places, InvalidArgument,
                   str("the simulator holds scenes at ", places, " places; the renderer has ",
                       renderer.config().places));
    std::size_t changed = 0;
    for (std::size_t p = 0; p < places; ++p) {
        const sim::ResidentScene* resident = sim.resident_scene(static_cast<int>(p));
        const std::shared_ptr<const assets::PackedScene> wanted =
            resident ? resident->packed : nullptr;
        const bool same = wanted ? filled_[p] && shown_[p].lock() == wanted : !filled_[p];
        if (same) continue;
        renderer.set_scene(static_cast<std::uint32_t>(p), wanted.get());
        shown_[p] = wanted;
        filled_[p] = wanted != nullptr;
        ++changed;
    }
    return changed;
}

}  // namespace batchsim::env
