#include "sim/state.hpp"

namespace batchsim::sim {

EnvState::EnvState(std::size_t n)
    : position(n),
      rotation(n, kIdentityQuat),
      goal(n),
      start_distance(n),
      previous_distance(n),
      path_length(n),
      steps(n),
      collisions(n),
      episode(n, -1),
      scene(n, -1),
      resident(n, -1),
      needs_episode(n, 1),
      active(n, 0),
      rng(n),
      noise_rng(n),
      camera_height(n),
      corridor(n) {}

StepOutputs::StepOutputs(std::size_t n) : camera(n) {
#define BATCHSIM_SIZE_OUTPUT(name, ...) name.resize(n);
    BATCHSIM_STEP_OUTPUTS(BATCHSIM_SIZE_OUTPUT)
#undef BATCHSIM_SIZE_OUTPUT
}

}  // namespace batchsim::sim
