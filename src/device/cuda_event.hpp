// Host waits on CUDA events that others record (PyTorch): a step's thread waits for the copy
// of a policy's actions into pinned memory before it reads them.
#pragma once

#include <cstdint>

namespace batchsim::device::cuda {

// Blocks the calling thread until the work before `event` (a CUevent handle, such as
// torch.cuda.Event.cuda_event) on CUDA device `ordinal` has finished. An event never recorded
// counts as finished. Throws Error(Unsupported) without a driver, Error(Cuda) if the wait fails.
void synchronize_event(int ordinal, std::uintptr_t event);

}  // namespace batchsim::device::cuda
