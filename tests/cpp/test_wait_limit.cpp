// core/wait_limit: slow work this process does is waited out, a hang is not (issue 40).
#include "core/wait_limit.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "core/check.hpp"

using namespace std::chrono_literals;
using batchsim::wait_limit;
using batchsim::wait_within;

namespace {

// Sets BATCHSIM_WAIT_TIMEOUT_S for one scope.
struct ScopedOverride {
    explicit ScopedOverride(const char* value) { ::setenv("BATCHSIM_WAIT_TIMEOUT_S", value, 1); }
    ~ScopedOverride() { ::unsetenv("BATCHSIM_WAIT_TIMEOUT_S"); }
};

// Work that ends after `duration`, keeping a core busy (spinning) or not (sleeping).
class Work {
public:
    Work(std::chrono::milliseconds duration, bool spin)
        : thread_([this, duration, spin] {
              const auto end = std::chrono::steady_clock::now() + duration;
              while (std::chrono::steady_clock::now() < end)
                  if (!spin) std::this_thread::sleep_for(1ms);
              done_ = true;
          }) {}
    ~Work() { thread_.join(); }
    // A wait_once for wait_within: polls until done or the slice ends.
    bool wait(std::chrono::nanoseconds slice) const {
        const auto end = std::chrono::steady_clock::now() + slice;
        while (!done_ && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(1ms);
        return done_.load();
    }

private:
    std::atomic<bool> done_{false};
    std::thread thread_;
};

}  // namespace

TEST_CASE("a wait goes on past its slice while this process works, not while it idles",
          "[wait_limit]") {
    double waited = 0;
    SECTION("busy work that takes several slices is waited out") {
        const Work work(600ms, true);
        CHECK(wait_within(
            wait_limit(100ms, true), [&](auto s) { return work.wait(s); }, waited));
        CHECK(waited >= 0.5);
    }
    SECTION("idle work (another device's) is a hang after one slice") {
        const Work work(600ms, false);
        CHECK_FALSE(wait_within(
            wait_limit(100ms, true), [&](auto s) { return work.wait(s); }, waited));
        CHECK((waited >= 0.1 && waited < 0.4));
    }
    SECTION("without the extension (a GPU's work) busy work is a hang after one slice too") {
        const Work work(600ms, true);
        CHECK_FALSE(wait_within(
            wait_limit(100ms, false), [&](auto s) { return work.wait(s); }, waited));
        CHECK((waited >= 0.1 && waited < 0.4));
    }
    SECTION("BATCHSIM_WAIT_TIMEOUT_S is a hard limit, busy or not") {
        const ScopedOverride hard("0.05");
        const Work work(600ms, true);
        const batchsim::WaitLimit limit = wait_limit(10s, true);
        CHECK((limit.hard && limit.slice == 50ms));
        CHECK_FALSE(wait_within(
            limit, [&](auto s) { return work.wait(s); }, waited));
        CHECK(waited < 0.4);
    }
}

TEST_CASE("BATCHSIM_WAIT_TIMEOUT_S must be seconds > 0", "[wait_limit]") {
    CHECK_FALSE(batchsim::wait_timeout_override().has_value());
    for (const char* bad : {"abc", "0", "-1", "nan", "inf", "1e99", "5s"}) {
        const ScopedOverride set(bad);
        CHECK_THROWS_WITH(batchsim::wait_timeout_override(),
                          Catch::Contains("BATCHSIM_WAIT_TIMEOUT_S") && Catch::Contains(bad));
    }
    const ScopedOverride set("2.5");
    CHECK(batchsim::wait_timeout_override() == 2.5);
    CHECK_FALSE(wait_limit(1s, true, false).hard);  // a wait that is not overridable
}
