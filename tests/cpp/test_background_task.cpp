#include "core/background_task.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "core/check.hpp"

using batchsim::BackgroundTask;

TEST_CASE("BackgroundTask runs a task off the calling thread", "[background_task]") {
    BackgroundTask task;
    CHECK_FALSE(task.pending());
    task.wait();  // nothing started: returns at once
    std::atomic<int> runs{0};
    std::thread::id where;
    for (int i = 0; i < 50; ++i) {
        task.start([&] {
            where = std::this_thread::get_id();
            runs.fetch_add(1);
        });
        CHECK(task.pending());
        task.wait();
        CHECK_FALSE(task.pending());
    }
    CHECK(runs.load() == 50);
    CHECK(where != std::this_thread::get_id());
}

TEST_CASE("BackgroundTask rethrows in wait and refuses a second start", "[background_task]") {
    BackgroundTask task;
    task.start([] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        throw std::runtime_error("step failed");
    });
    CHECK_THROWS_WITH(task.start([] {}), Catch::Contains("call step_wait()"));
    CHECK_THROWS_WITH(task.wait(), "step failed");
    task.wait();  // the error was reported once
    task.start([] {});
    task.wait();
}

TEST_CASE("BackgroundTask's destructor waits for a running task", "[background_task]") {
    std::atomic<bool> finished{false};
    {
        BackgroundTask task;
        task.start([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(30));
            finished = true;
        });
    }
    CHECK(finished.load());
}

TEST_CASE("BackgroundTask's wait times out on a stuck task, which stays pending",
          "[background_task]") {
    std::atomic<bool> release{false};
    BackgroundTask task;
    task.start([&] {
        while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    try {
        task.wait(std::chrono::seconds(1));
        FAIL("wait() returned while the task was stuck");
    } catch (const batchsim::Error& error) {
        CHECK(error.kind() == batchsim::Error::Kind::Timeout);
        CHECK_THAT(error.what(), Catch::Contains("background step"));
    }
    CHECK(task.pending());
    release = true;
    task.wait();  // the task now finishes, and the wait with it
    CHECK_FALSE(task.pending());
}
