// A fixed set of worker threads for data-parallel loops over environments. Built for latency:
// it is called a few times per simulation step, thousands of steps a second, so a call
// allocates nothing and wakes sleeping workers through one generation counter.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace batchsim {

class ThreadPool {
public:
    using Body = std::function<void(std::size_t begin, std::size_t end, int worker)>;

    // `threads` counts every worker including the calling thread: 1 starts no background
    // thread. Throws Error(InvalidArgument) unless 1 <= threads <= 65536.
    explicit ThreadPool(int threads);
    ~ThreadPool();  // joins the workers; no parallel_for may be running
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;
    ThreadPool(ThreadPool&&) = delete;
    ThreadPool& operator=(ThreadPool&&) = delete;

    [[nodiscard]] int size() const { return static_cast<int>(workers_.size()) + 1; }

    // Calls body(begin, end, worker) on disjoint chunks [begin, end) of at most `grain`
    // indices (0 counts as 1) that together cover [0, n), claimed dynamically by the workers.
    // The caller works too, as worker 0; worker ids are 0..size()-1 and each worker runs one
    // chunk at a time, so per-worker scratch indexed by `worker` needs no lock. Returns when
    // every chunk is done. If a body throws, the chunks not yet started are skipped and the
    // first exception is rethrown here; the pool stays usable.
    //
    // Not reentrant: one call at a time, and never from inside a body (that call throws
    // Error(Internal)). Background workers join a call as they wake up; the call returns as
    // soon as every chunk is done, without waiting for workers that are still waking.
    void parallel_for(std::size_t n, std::size_t grain, const Body& body);

private:
    void worker_main(int worker);
    std::uint64_t wait_for_job(std::uint64_t seen);
    bool join(std::uint64_t state);
    void leave();
    void run_chunks(int worker) noexcept;
    void close_job();
    void stop_workers() noexcept;

    std::vector<std::thread> workers_;  // ids 1..size()-1
    std::mutex mutex_;
    std::condition_variable wake_;   // a new job or stop_
    std::condition_variable idle_;   // the last worker left a closed job
    std::atomic<bool> stop_{false};  // set under mutex_
    std::atomic<bool> busy_{false};  // a parallel_for is running
    // The job's generation, a closed bit and how many workers are in it (see the .cpp). The
    // caller stores a new generation under mutex_, after the job fields below.
    std::atomic<std::uint64_t> state_{0};

    // The current job, written only while no worker is in one.
    const Body* body_ = nullptr;
    std::size_t n_ = 0;
    std::size_t grain_ = 1;
    std::size_t chunk_count_ = 0;
    alignas(64) std::atomic<std::size_t> next_chunk_{0};  // own cache line: hammered
    std::atomic<bool> failed_{false};
    std::exception_ptr error_;  // the first exception; written by whoever set failed_
};

}  // namespace batchsim
