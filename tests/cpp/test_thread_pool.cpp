#include "core/thread_pool.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/check.hpp"

using batchsim::Error;
using batchsim::ThreadPool;

namespace {

// Runs one parallel_for and checks that every index was covered exactly once, by chunks of
// at most `grain` (0 meaning 1) handed to valid worker ids.
void check_coverage(ThreadPool& pool, std::size_t n, std::size_t grain) {
    const std::size_t limit = grain == 0 ? 1 : grain;
    std::vector<std::atomic<int>> hits(n);
    std::atomic<bool> bad_chunk{false};
    std::atomic<bool> bad_worker{false};
    pool.parallel_for(n, grain, [&](std::size_t begin, std::size_t end, int worker) {
        if (begin >= end || end > n || end - begin > limit) bad_chunk = true;
        if (worker < 0 || worker >= pool.size()) bad_worker = true;
        for (std::size_t i = begin; i < end && i < n; ++i) hits[i].fetch_add(1);
    });
    CHECK_FALSE(bad_chunk);
    CHECK_FALSE(bad_worker);
    std::size_t wrong = 0;
    for (const auto& hit : hits) wrong += hit.load() != 1 ? 1 : 0;
    CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("a thread pool needs at least one thread", "[thread_pool]") {
    CHECK_THROWS_AS(ThreadPool(0), Error);
    CHECK_THROWS_AS(ThreadPool(-3), Error);
    try {
        ThreadPool pool(0);
    } catch (const Error& error) {
        CHECK(error.kind() == Error::Kind::InvalidArgument);
    }
    CHECK(ThreadPool(1).size() == 1);
    CHECK(ThreadPool(4).size() == 4);
}

TEST_CASE("parallel_for covers every index exactly once", "[thread_pool]") {
    for (const int threads : {1, 2, 3, 8}) {
        ThreadPool pool(threads);
        for (const std::size_t n : {0, 1, 2, 7, 64, 100, 1000, 4097}) {
            for (const std::size_t grain : {0, 1, 3, 16, 64, 5000}) {
                CAPTURE(threads, n, grain);
                check_coverage(pool, n, grain);
            }
        }
    }
}

TEST_CASE("parallel_for with n = 0 never calls the body", "[thread_pool]") {
    ThreadPool pool(3);
    int calls = 0;
    pool.parallel_for(0, 8, [&](std::size_t, std::size_t, int) { ++calls; });
    CHECK(calls == 0);
}

TEST_CASE("per-worker scratch needs no lock", "[thread_pool]") {
    ThreadPool pool(4);
    // Plain (non-atomic) counters, one per worker: a data race here would show under TSan
    // and as a wrong total.
    std::vector<std::size_t> sums(static_cast<std::size_t>(pool.size()), 0);
    const std::size_t n = 100000;
    pool.parallel_for(n, 7, [&](std::size_t begin, std::size_t end, int worker) {
        for (std::size_t i = begin; i < end; ++i) sums[static_cast<std::size_t>(worker)] += i;
    });
    std::size_t total = 0;
    for (const std::size_t sum : sums) total += sum;
    CHECK(total == n * (n - 1) / 2);
}

TEST_CASE("background workers take chunks", "[thread_pool]") {
    ThreadPool pool(3);
    // Worker 0 holds its first chunk until a background worker has run one (or 10 s pass),
    // so the call only finishes quickly if the background workers really share the work.
    std::atomic<int> background_chunks{0};
    pool.parallel_for(64, 1, [&](std::size_t, std::size_t, int worker) {
        if (worker != 0) {
            background_chunks.fetch_add(1);
            return;
        }
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (background_chunks.load() == 0 && std::chrono::steady_clock::now() < deadline)
            std::this_thread::yield();
    });
    CHECK(background_chunks.load() > 0);
}

TEST_CASE("an exception in a body is rethrown and the pool stays usable", "[thread_pool]") {
    for (const int threads : {1, 4}) {
        CAPTURE(threads);
        ThreadPool pool(threads);
        std::atomic<int> calls{0};
        const auto throwing = [&](std::size_t, std::size_t, int) {
            calls.fetch_add(1);
            throw std::runtime_error("chunk failed");
        };
        CHECK_THROWS_WITH(pool.parallel_for(1000, 1, throwing), "chunk failed");
        // Once a chunk has failed no worker starts another, so each ran at most one.
        CHECK(calls.load() >= 1);
        CHECK(calls.load() <= pool.size());
        check_coverage(pool, 1000, 3);
        // A batchsim::Error keeps its kind.
        try {
            pool.parallel_for(100, 1, [](std::size_t, std::size_t, int) {
                throw Error(Error::Kind::CorruptData, "bad");
            });
            FAIL("no exception");
        } catch (const Error& error) {
            CHECK(error.kind() == Error::Kind::CorruptData);
        }
        check_coverage(pool, 50, 1);
    }
}

TEST_CASE("a nested parallel_for throws a clear error", "[thread_pool]") {
    for (const int threads : {1, 3}) {
        CAPTURE(threads);
        ThreadPool pool(threads);
        try {
            pool.parallel_for(8, 1, [&](std::size_t, std::size_t, int) {
                pool.parallel_for(4, 1, [](std::size_t, std::size_t, int) {});
            });
            FAIL("no exception");
        } catch (const Error& error) {
            CHECK(error.kind() == Error::Kind::Internal);
            CHECK_THAT(error.what(), Catch::Contains("not reentrant"));
        }
        check_coverage(pool, 100, 4);
    }
}

TEST_CASE("many back-to-back calls", "[thread_pool]") {
    ThreadPool pool(4);
    std::vector<int> data(256, 0);
    for (int step = 0; step < 20000; ++step) {
        pool.parallel_for(data.size(), 16, [&](std::size_t begin, std::size_t end, int) {
            for (std::size_t i = begin; i < end; ++i) ++data[i];
        });
    }
    std::size_t wrong = 0;
    for (const int value : data) wrong += value != 20000 ? 1 : 0;
    CHECK(wrong == 0);
}

TEST_CASE("calls separated by idle gaps", "[thread_pool]") {
    // Gaps let workers fall asleep, so some wake late, into a closed or a newer job.
    ThreadPool pool(4);
    for (int call = 0; call < 200; ++call) {
        std::this_thread::sleep_for(std::chrono::microseconds(call % 4 * 100));
        check_coverage(pool, 64, 1 + static_cast<std::size_t>(call % 8));
    }
}

TEST_CASE("a pool is destroyed cleanly while idle", "[thread_pool]") {
    for (int round = 0; round < 50; ++round) {
        ThreadPool never_used(4);  // workers may not have started yet
    }
    for (int round = 0; round < 50; ++round) {
        ThreadPool pool(4);
        check_coverage(pool, 100, 1);
    }
    // Called right after construction: workers that have not started yet must still join in.
    for (int round = 0; round < 50; ++round) {
        auto pool = std::make_unique<ThreadPool>(6);
        check_coverage(*pool, 60, 1);
        pool.reset();
    }
}
