#include "core/thread_pool.hpp"

#include <algorithm>
#include <utility>

#include "core/check.hpp"
#include "core/strings.hpp"

namespace batchsim {
namespace {

// Polls of an atomic before a thread blocks on a condition variable: a few tens of
// microseconds, enough to catch back-to-back calls within a step without burning a core
// between steps.
constexpr int kSpinPolls = 2000;
// Every this many polls a spinner yields its core: with more threads than free cores, the
// thread it waits for may be the one it would otherwise keep off the CPU (measured on a
// 2-core VM with 4 workers: ~15 us per call instead of ~230 us).
constexpr int kPollsPerYield = 64;

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

// True once `done()` held within kSpinPolls polls.
template <typename Done>
bool spin_until(Done done) {
    for (int i = 0; i < kSpinPolls; ++i) {
        if (done()) return true;
        if (i % kPollsPerYield == kPollsPerYield - 1) {
            std::this_thread::yield();
        } else {
            cpu_relax();
        }
    }
    return done();
}

// ThreadPool::state_: generation << kGenerationShift | kClosed | workers in the job. A worker
// joins with a compare-exchange that fails once the caller has closed the job, so a worker
// that wakes late can never touch a finished job's fields, and the caller never waits for it.
constexpr std::uint64_t kClosed = std::uint64_t{1} << 23;
constexpr std::uint64_t kInJob = kClosed - 1;  // mask of the worker count
constexpr int kGenerationShift = 24;           // 2^40 jobs before the generation wraps
constexpr int kMaxThreads = 1 << 16;           // far below kInJob

std::uint64_t generation(std::uint64_t state) {
    return state >> kGenerationShift;
}

// Clears the busy flag however parallel_for leaves.
struct BusyGuard {
    std::atomic<bool>& busy;
    ~BusyGuard() { busy.store(false, std::memory_order_release); }
};

}  // namespace

ThreadPool::ThreadPool(int threads) {
    BATCHSIM_CHECK(threads >= 1 && threads <= kMaxThreads, InvalidArgument,
                   str("a thread pool needs 1 to ", kMaxThreads,
                       " threads (the caller included), got ", threads));
    workers_.reserve(static_cast<std::size_t>(threads - 1));
    try {
        for (int worker = 1; worker < threads; ++worker)
            workers_.emplace_back([this, worker] { worker_main(worker); });
    } catch (...) {  // std::system_error: no more threads; join those already started
        stop_workers();
        throw;
    }
}

ThreadPool::~ThreadPool() {
    stop_workers();
}

void ThreadPool::stop_workers() noexcept {
    {
        const std::lock_guard lock(mutex_);
        stop_.store(true, std::memory_order_relaxed);
    }
    wake_.notify_all();
    for (std::thread& thread : workers_) thread.join();
    workers_.clear();
}

void ThreadPool::parallel_for(std::size_t n, std::size_t grain, const Body& body) {
    BATCHSIM_CHECK(!busy_.exchange(true, std::memory_order_acquire), Internal,
                   "ThreadPool::parallel_for is not reentrant: it was called from inside a "
                   "parallel_for body or from two threads at once");
    const BusyGuard guard{busy_};
    grain = grain == 0 ? 1 : grain;
    const std::size_t chunks = n / grain + (n % grain != 0 ? 1 : 0);
    if (chunks <= 1 || workers_.empty()) {  // nothing to share: skip the wake-ups
        for (std::size_t begin = 0; begin < n; begin += grain)
            body(begin, begin + std::min(grain, n - begin), 0);
        return;
    }
    body_ = &body;
    n_ = n;
    grain_ = grain;
    chunk_count_ = chunks;
    next_chunk_.store(0, std::memory_order_relaxed);
    failed_.store(false, std::memory_order_relaxed);
    error_ = nullptr;
    {
        const std::lock_guard lock(mutex_);
        const std::uint64_t next = generation(state_.load(std::memory_order_relaxed)) + 1;
        state_.store(next << kGenerationShift, std::memory_order_release);  // publishes the job
    }
    wake_.notify_all();
    run_chunks(0);
    close_job();
    if (failed_.load(std::memory_order_relaxed)) std::rethrow_exception(std::exchange(error_, {}));
}

// No chunk is left to claim: stop workers from joining, then wait for those still in a chunk.
void ThreadPool::close_job() {
    const auto empty = [this] { return (state_.load(std::memory_order_acquire) & kInJob) == 0; };
    if ((state_.fetch_or(kClosed, std::memory_order_acq_rel) & kInJob) == 0 || spin_until(empty))
        return;
    std::unique_lock lock(mutex_);
    idle_.wait(lock, empty);
}

void ThreadPool::run_chunks(int worker) noexcept {
    while (!failed_.load(std::memory_order_relaxed)) {
        const std::size_t chunk = next_chunk_.fetch_add(1, std::memory_order_relaxed);
        if (chunk >= chunk_count_) return;
        const std::size_t begin = chunk * grain_;
        try {
            (*body_)(begin, begin + std::min(grain_, n_ - begin), worker);
        } catch (...) {
            if (!failed_.exchange(true, std::memory_order_relaxed))
                error_ = std::current_exception();
        }
    }
}

// Returns the state of the first job after generation `seen` (or any state once stopping).
std::uint64_t ThreadPool::wait_for_job(std::uint64_t seen) {
    const auto ready = [&] {
        return stop_.load(std::memory_order_relaxed) ||
               generation(state_.load(std::memory_order_acquire)) != seen;
    };
    if (!spin_until(ready)) {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, ready);
    }
    return state_.load(std::memory_order_acquire);
}

// Enters the job of `state` unless the caller closed it (or started another) meanwhile.
bool ThreadPool::join(std::uint64_t state) {
    const std::uint64_t job = generation(state);
    while ((state & kClosed) == 0 && generation(state) == job) {
        if (state_.compare_exchange_weak(state, state + 1, std::memory_order_acquire)) return true;
    }
    return false;
}

// The last worker out of a closed job wakes the caller; the lock orders this with its check.
void ThreadPool::leave() {
    const std::uint64_t state = state_.fetch_sub(1, std::memory_order_acq_rel);
    if ((state & kClosed) != 0 && (state & kInJob) == 1) {
        const std::lock_guard lock(mutex_);
        idle_.notify_one();
    }
}

void ThreadPool::worker_main(int worker) {
    std::uint64_t seen = 0;  // generation 0 has no job
    for (;;) {
        const std::uint64_t state = wait_for_job(seen);
        if (stop_.load(std::memory_order_relaxed)) return;
        seen = generation(state);
        if (!join(state)) continue;  // closed already: all its chunks are taken
        run_chunks(worker);
        leave();
    }
}

}  // namespace batchsim
