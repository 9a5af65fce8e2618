// Throttled scene reads and the background loader thread.
#include "sim/scene_loader.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include "core/check.hpp"
#include "core/file_io.hpp"
#include "core/strings.hpp"

namespace batchsim::sim {
namespace {

using Clock = std::chrono::steady_clock;
// A scene still not read after this long is a hang (a stuck file system, say), not a load.
constexpr std::chrono::seconds kLoadWaitTimeout{600};

// Bytes per read() when unthrottled: large enough to cost nothing, small enough that a
// stopping loader notices within a few milliseconds.
constexpr std::size_t kMaxChunk = std::size_t{4} << 20;
// Throttled reads take ~10 ms worth of the rate per chunk (at least 4 KiB), so the rate
// holds over short spans too, not only on average over the file.
constexpr double kChunkSeconds = 0.01;
constexpr std::size_t kMinChunk = 4096;
// Throttling sleeps in slices this long, checking for hurry and stop in between.
constexpr auto kSleepSlice = std::chrono::milliseconds(5);

// How a read is paced and interrupted; counts what it read, even if it fails.
struct ReadControl {
    double bytes_per_second = 0;
    const std::atomic<bool>* hurry = nullptr;
    const std::atomic<bool>* cancel = nullptr;  // the loader is stopping
    std::uint64_t bytes_read = 0;
};

bool is_set(const std::atomic<bool>* flag) {
    return flag != nullptr && flag->load(std::memory_order_relaxed);
}

bool throttled(const ReadControl& control) {
    return control.bytes_per_second > 0 && !is_set(control.hurry);
}

std::size_t chunk_size(const ReadControl& control) {
    if (!throttled(control)) return kMaxChunk;
    const double bytes = control.bytes_per_second * kChunkSeconds;
    return bytes >= double(kMaxChunk) ? kMaxChunk : std::max(kMinChunk, std::size_t(bytes));
}

void check_not_cancelled(const ReadControl& control, const std::filesystem::path& path) {
    BATCHSIM_CHECK(!is_set(control.cancel), Internal,
                   str("the scene loader stopped while reading '", path.string(), "'"));
}

// Sleeps until `allowed` bytes may have been read since `start`, unless hurried.
void pace(const ReadControl& control, Clock::time_point start, std::size_t allowed,
          const std::filesystem::path& path) {
    check_not_cancelled(control, path);
    if (!throttled(control)) return;
    // Capped at a year so that absurdly low rates cannot overflow the clock.
    const double seconds = std::min(double(allowed) / control.bytes_per_second, 3.2e7);
    const auto due =
        start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    for (auto now = Clock::now(); now < due && throttled(control); now = Clock::now()) {
        std::this_thread::sleep_for(std::min<Clock::duration>(due - now, kSleepSlice));
        check_not_cancelled(control, path);
    }
}

// The whole file (as much as it held when opened), read in paced chunks.
std::vector<std::uint8_t> read_paced(const std::filesystem::path& path, ReadControl& control) {
    std::optional<Clock::time_point> start;  // pacing starts at the first read
    std::vector<std::uint8_t> bytes =
        read_file(path, "scene", [&](std::size_t done, std::size_t wanted) {
            if (!start) start = Clock::now();
            control.bytes_read = done;
            const std::size_t chunk = std::min(chunk_size(control), wanted);
            pace(control, *start, done + chunk, path);
            return chunk;
        });
    control.bytes_read = bytes.size();
    return bytes;
}

// Runs `make`, prefixing any batchsim::Error it throws with `context` (kind kept).
template <typename Make>
auto naming(const std::string& context, Make make) {
    try {
        return make();
    } catch (const Error& error) {
        throw Error(error.kind(), str(context, ": ", error.what()));
    }
}

// PackedScene::from_bytes, with errors naming the file where they say "(in memory)".
std::shared_ptr<const assets::PackedScene> parse_packed(const std::string& name,
                                                        std::span<const std::uint8_t> bytes) {
    try {
        return std::make_shared<const assets::PackedScene>(assets::PackedScene::from_bytes(bytes));
    } catch (const Error& error) {
        std::string message = error.what();
        const std::size_t origin = message.find("(in memory)");
        if (origin == std::string::npos) throw Error(error.kind(), str(name, ": ", message));
        throw Error(error.kind(), message.replace(origin, std::strlen("(in memory)"), name));
    }
}

ResidentScene from_packed(const std::filesystem::path& path, std::span<const std::uint8_t> bytes) {
    ResidentScene scene{path, nullptr, nullptr, 0};
    const std::string name = str("'", path.string(), "'");
    scene.packed = parse_packed(name, bytes);
    BATCHSIM_CHECK(!scene.packed->navmesh().empty(), CorruptData,
                   str(name, " has no navmesh; re-import it with `batchsim import`"));
    scene.navmesh = naming(str(name, " navmesh"), [&] {
        return nav::NavMesh::from_habitat_bytes(scene.packed->navmesh());
    });
    scene.bytes = scene.packed->resident_bytes() + 2 * scene.navmesh->habitat_bytes().size();
    return scene;
}

ResidentScene from_navmesh(const std::filesystem::path& path, std::span<const std::uint8_t> bytes) {
    ResidentScene scene{path, nullptr, nullptr, 0};
    scene.navmesh = naming(str("'", path.string(), "'"),
                           [&] { return nav::NavMesh::from_habitat_bytes(bytes); });
    scene.bytes = 2 * scene.navmesh->habitat_bytes().size();
    return scene;
}

void check_rate(double bytes_per_second) {
    BATCHSIM_CHECK(
        bytes_per_second >= 0, InvalidArgument,
        str("scene read rate must be >= 0 bytes/s (0 = unlimited), got ", bytes_per_second));
}

ResidentScene load(const std::filesystem::path& path, ReadControl& control) {
    check_rate(control.bytes_per_second);
    const std::filesystem::path extension = path.extension();
    const bool packed = has_geometry(path);
    BATCHSIM_CHECK(
        packed || extension == ".navmesh", InvalidArgument,
        str("cannot load scene '", path.string(), "': expected a .bsscene or .navmesh file, got ",
            extension.empty() ? "no extension" : str("'", extension.string(), "'")));
    const std::vector<std::uint8_t> bytes = read_paced(path, control);
    return packed ? from_packed(path, bytes) : from_navmesh(path, bytes);
}

// Background work must not slow the steps down; failing to lower it is harmless.
void lower_priority(int nice) {
    static_cast<void>(::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), nice));
}

}  // namespace

bool has_geometry(const std::filesystem::path& path) {
    return path.extension() == ".bsscene";
}

ResidentScene load_scene(const std::filesystem::path& path, double bytes_per_second,
                         const std::atomic<bool>* hurry) {
    ReadControl control{bytes_per_second, hurry, nullptr, 0};
    return load(path, control);
}

class SceneLoader::Request {
public:
    Request(std::filesystem::path p, const void* o) : path(std::move(p)), owner(o) {}

    const std::filesystem::path path;
    const void* const owner;  // the loader's state, to reject tickets of another loader
    std::atomic<bool> hurry{false};
    // Under State::mutex:
    bool done = false;
    std::shared_ptr<const ResidentScene> scene;
    std::exception_ptr error;
};

struct SceneLoader::State {
    explicit State(LoaderConfig c) : config(c) {}
    void run();
    void load_one(Request& request);
    void hurry_up_to(const Request& request);

    const LoaderConfig config;
    mutable std::mutex mutex;
    std::condition_variable work;      // a request was queued, or stop
    std::condition_variable finished;  // a request is done
    std::deque<Ticket> queue;
    Ticket current;  // being loaded
    bool stop = false;
    std::atomic<bool> cancel{false};  // set with stop: interrupts the current read
    LoaderStats stats;
    std::thread thread;
};

void SceneLoader::State::run() {
    lower_priority(config.nice);
    for (;;) {
        Ticket ticket;
        {
            std::unique_lock lock(mutex);
            work.wait(lock, [this] { return stop || !queue.empty(); });
            if (stop) return;
            ticket = std::move(queue.front());
            queue.pop_front();
            current = ticket;
        }
        load_one(*ticket);
    }
}

void SceneLoader::State::load_one(Request& request) {
    ReadControl control{config.bytes_per_second, &request.hurry, &cancel, 0};
    std::shared_ptr<const ResidentScene> scene;
    std::exception_ptr error;
    try {
        scene = std::make_shared<const ResidentScene>(load(request.path, control));
    } catch (...) {
        error = std::current_exception();
    }
    {
        const std::lock_guard lock(mutex);
        current.reset();
        request.scene = std::move(scene);
        request.error = error;
        request.done = true;
        stats.bytes_read += control.bytes_read;
        stats.loads += request.scene ? 1 : 0;
    }
    finished.notify_all();
}

// FIFO: `request` comes after the current one and those queued before it. Under mutex.
void SceneLoader::State::hurry_up_to(const Request& request) {
    if (current) current->hurry.store(true, std::memory_order_relaxed);
    for (const Ticket& queued : queue) {
        queued->hurry.store(true, std::memory_order_relaxed);
        if (queued.get() == &request) break;
    }
}

SceneLoader::SceneLoader(LoaderConfig config) {
    check_rate(config.bytes_per_second);
    state_ = std::make_unique<State>(config);
    state_->thread = std::thread([state = state_.get()] { state->run(); });
}

SceneLoader::~SceneLoader() {
    {
        const std::lock_guard lock(state_->mutex);
        state_->stop = true;
        state_->cancel.store(true, std::memory_order_relaxed);
        for (const Ticket& dropped : state_->queue) {
            dropped->error = std::make_exception_ptr(Error(
                Error::Kind::Internal,
                str("the scene loader stopped before loading '", dropped->path.string(), "'")));
            dropped->done = true;
        }
        state_->queue.clear();
    }
    state_->work.notify_all();
    state_->thread.join();
}

SceneLoader::Ticket SceneLoader::request(std::filesystem::path path) {
    auto ticket = std::make_shared<Request>(std::move(path), state_.get());
    {
        const std::lock_guard lock(state_->mutex);
        state_->queue.push_back(ticket);
    }
    state_->work.notify_one();
    return ticket;
}

bool SceneLoader::ready(const Ticket& ticket) const {
    BATCHSIM_CHECK(ticket != nullptr, InvalidArgument, "SceneLoader::ready: null ticket");
    const std::lock_guard lock(state_->mutex);
    return ticket->done;
}

std::shared_ptr<const ResidentScene> SceneLoader::wait(const Ticket& ticket) {
    BATCHSIM_CHECK(ticket != nullptr, InvalidArgument, "SceneLoader::wait: null ticket");
    BATCHSIM_CHECK(ticket->owner == state_.get(), InvalidArgument,
                   "SceneLoader::wait: the ticket belongs to another SceneLoader");
    std::unique_lock lock(state_->mutex);
    if (!ticket->done) {
        state_->hurry_up_to(*ticket);
        const Clock::time_point start = Clock::now();
        const bool done =
            state_->finished.wait_for(lock, kLoadWaitTimeout, [&] { return ticket->done; });
        BATCHSIM_CHECK(done, Timeout,
                       str("waited ", kLoadWaitTimeout.count(), " s for scene '",
                           ticket->path.string(), "' to load; the loader never finished it"));
        state_->stats.stalls += 1;
        state_->stats.stall_seconds += std::chrono::duration<double>(Clock::now() - start).count();
    }
    if (ticket->error) std::rethrow_exception(ticket->error);
    return ticket->scene;
}

LoaderStats SceneLoader::stats() const {
    const std::lock_guard lock(state_->mutex);
    return state_->stats;
}

}  // namespace batchsim::sim
