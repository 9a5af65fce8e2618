// Keeps a renderer's places showing the scenes a simulator holds resident. The simulator
// loads, swaps and frees scenes on its own schedule; before each render the mirror uploads
// what changed and empties places the simulator emptied, so device memory follows host
// memory. It holds no scene alive: a place whose scene was freed reads as changed.
#pragma once

#include <memory>
#include <vector>

#include "assets/packed_scene.hpp"
#include "render/batch_renderer.hpp"
#include "sim/batch_sim.hpp"

namespace batchsim::env {

class SceneMirror {
public:
    explicit SceneMirror(std::size_t places);

    // Returns how many places it re-uploaded or emptied. Throws Error(InvalidArgument) if the
    // renderer has fewer places than the simulator (2 per slot).
    std::size_t sync(const sim::BatchSim& sim, render::BatchRenderer& renderer);

private:
    std::vector<std::weak_ptr<const assets::PackedScene>> shown_;
    std::vector<bool> filled_;
};

}  // namespace batchsim::env
