// Scene loading for the simulator, which keeps K scenes resident and prepares the next scene
// of each slot in the background while training runs. The background thread must not slow
// the steps down, so it runs at a low priority and reads at a capped rate; a simulator that
// has to wait for a scene hurries it instead.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>

#include "assets/packed_scene.hpp"
#include "nav/navmesh.hpp"

namespace batchsim::sim {

struct ResidentScene {
    std::filesystem::path path;
    std::shared_ptr<const assets::PackedScene> packed;  // null for a bare .navmesh file
    std::shared_ptr<const nav::NavMesh> navmesh;        // always set
    // Host memory this scene holds: the packed scene's buffer (the file, or a deflated file's
    // loaded sections) plus the navmesh (its image and
    // Detour's copy of the tiles, estimated as the image size again).
    std::size_t bytes = 0;
};

// Loads a packed scene (.bsscene), which must contain a navmesh, or a bare Habitat .navmesh.
// Throws Error(InvalidArgument) for any other extension or a negative or NaN rate,
// Error(FileNotFound) if the file is missing, Error(Io) if reading fails and
// Error(CorruptData) if it is malformed; messages name the file. Reads in chunks, sleeping as
// needed to keep the average read rate at or under bytes_per_second (0 = unlimited); once
// `*hurry` (may be null) becomes true the rest of the file is read at full speed.
ResidentScene load_scene(const std::filesystem::path& path, double bytes_per_second = 0,
                         const std::atomic<bool>* hurry = nullptr);

// Whether load_scene gives `path` geometry to render: a packed scene (.bsscene) does, a bare
// Habitat .navmesh (navigation only) does not.
bool has_geometry(const std::filesystem::path& path);

struct LoaderConfig {
    double bytes_per_second = 0;  // background read rate cap; 0 = unlimited
    int nice = 10;                // the loader thread's niceness (Linux), so steps win the CPU
};

struct LoaderStats {
    std::uint64_t loads = 0;       // scenes loaded
    std::uint64_t bytes_read = 0;  // file bytes read, failed loads included
    std::uint64_t stalls = 0;      // wait() calls that had to block
    double stall_seconds = 0;      // time spent blocked in wait()
};

// One background thread loading scenes in request order. Its methods may be called from any
// thread.
class SceneLoader {
public:
    class Request;  // opaque; shared between the loader and the requester
    using Ticket = std::shared_ptr<Request>;

    // Throws Error(InvalidArgument) for a negative or NaN rate.
    explicit SceneLoader(LoaderConfig config = {});
    ~SceneLoader();  // stops promptly: drops queued requests, interrupts throttled reads
    SceneLoader(const SceneLoader&) = delete;
    SceneLoader& operator=(const SceneLoader&) = delete;

    Ticket request(std::filesystem::path path);
    [[nodiscard]] bool ready(const Ticket& ticket) const;  // loaded or failed
    // Blocks until the request is done, lifting the rate limit for it and for every request
    // queued before it; returns the scene or rethrows its load error (the batchsim::Error of
    // load_scene, kind kept). Throws Error(Timeout) naming the file after 10 minutes. Throws
    // Error(InvalidArgument) for a null ticket or one of another loader.
    std::shared_ptr<const ResidentScene> wait(const Ticket& ticket);
    [[nodiscard]] LoaderStats stats() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace batchsim::sim
