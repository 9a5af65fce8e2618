#include "core/background_task.hpp"

#include <utility>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "core/wait_limit.hpp"

namespace batchsim {

BackgroundTask::BackgroundTask() : thread_([this] { run(); }) {}

BackgroundTask::~BackgroundTask() {
    {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [this] { return !running_ && !task_; });
        stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

void BackgroundTask::start(std::function<void()> task) {
    {
        std::lock_guard lock(mutex_);
        BATCHSIM_CHECK(!pending_, InvalidArgument,
                       "a step is already running: call step_wait() before starting another");
        task_ = std::move(task);
        error_ = nullptr;
        pending_ = true;
    }
    changed_.notify_all();
}

void BackgroundTask::wait(std::chrono::seconds timeout) {
    std::unique_lock lock(mutex_);
    // The task runs on this process's CPU: while it keeps a core busy, it is slow, not stuck.
    const WaitLimit limit = wait_limit(timeout, true, false);
    double waited = 0;
    const bool done = wait_within(
        limit,
        [&](std::chrono::nanoseconds slice) {
            return changed_.wait_for(lock, slice, [this] { return !running_ && !task_; });
        },
        waited);
    BATCHSIM_CHECK(done, Timeout,
                   str("waited ", waited,
                       " s for the background step; it never finished, and "
                       "this process used no CPU time for the last ",
                       timeout.count(), " s: it is stuck"));
    if (!pending_) return;
    pending_ = false;
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

bool BackgroundTask::pending() const {
    std::lock_guard lock(mutex_);
    return pending_;
}

void BackgroundTask::run() {
    std::unique_lock lock(mutex_);
    while (true) {
        changed_.wait(lock, [this] { return stopping_ || task_; });
        if (stopping_) return;
        auto task = std::move(task_);
        task_ = nullptr;
        running_ = true;
        lock.unlock();
        std::exception_ptr error;
        try {
            task();
        } catch (...) {
            error = std::current_exception();
        }
        lock.lock();
        error_ = error;
        running_ = false;
        changed_.notify_all();
    }
}

}  // namespace batchsim
