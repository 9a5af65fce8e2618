// When a wait for work (GPU work, a background step) is a hang rather than slow work.
//
// A fixed limit called slow CPU work stuck: lavapipe rendered 200,000 views for more than
// 120 s, and the wait gave up on work that was running fine (issue 40). Work this process
// does itself (a CPU device renders on threads of this process, a background step runs
// here) shows its progress as CPU time, so such a wait goes on past each slice in which the
// process kept at least a quarter of a core busy, and is a hang only after a whole slice
// without. Work done elsewhere (a GPU, a CUDA stream) shows none: one slice is the limit.
// BATCHSIM_WAIT_TIMEOUT_S (seconds > 0) replaces the slice with a hard limit for every GPU
// wait: tests use a tiny one to time waits out on purpose; a user may prefer to fail fast.
#pragma once

#include <chrono>
#include <optional>

namespace batchsim {

// Seconds of CPU time every thread of this process has used.
double process_cpu_seconds();

// A share of one core's time; a slice in which the process used less is a slice without
// progress.
inline constexpr double kBusyCoreShare = 0.25;

struct WaitLimit {
    std::chrono::nanoseconds slice{};  // one wait call's time limit
    bool while_busy = false;           // a slice that ends with the process busy extends it
    bool hard = false;                 // BATCHSIM_WAIT_TIMEOUT_S set `slice`: no extension

    // The slice in seconds, for messages.
    [[nodiscard]] double slice_seconds() const;
};

// BATCHSIM_WAIT_TIMEOUT_S's value when set to a number of seconds > 0, else nothing; throws
// Error(InvalidArgument) naming the variable for anything else.
std::optional<double> wait_timeout_override();

// `slice`, extended while the process is busy when `progress_is_cpu_time`; a hard limit of
// BATCHSIM_WAIT_TIMEOUT_S instead when that is set (and `overridable`).
WaitLimit wait_limit(std::chrono::nanoseconds slice, bool progress_is_cpu_time,
                     bool overridable = true);

// Calls wait_once(slice) (true once the work is done) until the work is done, or until a
// slice ends in a hang: then returns false. `waited` is set to the seconds waited in all.
template <typename WaitOnce>
bool wait_within(const WaitLimit& limit, WaitOnce&& wait_once, double& waited) {
    const auto started = std::chrono::steady_clock::now();
    const auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    };
    for (;;) {
        const double cpu_before = process_cpu_seconds();
        const double wall_before = elapsed();
        if (wait_once(limit.slice)) {
            waited = elapsed();
            return true;
        }
        waited = elapsed();
        const double busy = process_cpu_seconds() - cpu_before;
        if (!limit.while_busy || limit.hard || busy < kBusyCoreShare * (waited - wall_before))
            return false;
    }
}

}  // namespace batchsim
