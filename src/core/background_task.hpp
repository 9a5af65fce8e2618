// One task at a time on a thread of its own: start() hands it over and returns, wait()
// blocks until it is done and rethrows what it threw. For overlapping a long call (a
// simulation step) with work on the calling thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace batchsim {

class BackgroundTask {
public:
    static constexpr std::chrono::seconds kWaitTimeout{900};

    BackgroundTask();
    ~BackgroundTask();  // waits for a running task (dropping its error) and joins
    BackgroundTask(const BackgroundTask&) = delete;
    BackgroundTask& operator=(const BackgroundTask&) = delete;

    // Throws Error(InvalidArgument) while a task is running or unwaited.
    void start(std::function<void()> task);
    // Returns at once when nothing was started; rethrows the task's exception. A task still
    // running after `timeout`, the process having used no CPU time in the last `timeout`
    // (core/wait_limit.hpp), throws Error(Timeout) and stays pending: wait() may be called
    // again. Every wait inside a step is bounded, so a step that outlives the default is hung.
    void wait(std::chrono::seconds timeout = kWaitTimeout);
    [[nodiscard]] bool pending() const;  // started and not yet waited for

private:
    void run();

    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::function<void()> task_;
    std::exception_ptr error_;
    bool pending_ = false;  // start() .. wait()
    bool running_ = false;  // the thread has the task
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace batchsim
