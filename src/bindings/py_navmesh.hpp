// The Python-side owner of a navmesh, shared by the NavMesh bindings (nav.cpp,
// nav_batch.cpp) and the Scene bindings.
#pragma once

#include <memory>
#include <mutex>

#include <pybind11/pybind11.h>

#include "core/random.hpp"
#include "nav/nav_query.hpp"

namespace batchsim::bindings {

// What Python holds: the shared navmesh plus one query object and random stream. Calls run
// without the GIL, so a mutex keeps the query object to one thread at a time.
struct PyNavMesh {
    std::shared_ptr<const nav::NavMesh> mesh;
    nav::NavQuery query;
    Rng rng;
    std::mutex mutex;

    explicit PyNavMesh(std::shared_ptr<const nav::NavMesh> navmesh)
        : mesh(navmesh), query(std::move(navmesh)) {}

    // Runs f(query) with the GIL released and the query locked.
    template <typename F>
    auto locked(F&& f) {
        pybind11::gil_scoped_release release;
        std::lock_guard lock(mutex);
        return f(query);
    }
};

using Handle = std::shared_ptr<PyNavMesh>;

inline Handle wrap(std::shared_ptr<const nav::NavMesh> mesh) {
    return std::make_shared<PyNavMesh>(std::move(mesh));
}

void bind_nav_batch(pybind11::class_<PyNavMesh, Handle>& navmesh);

}  // namespace batchsim::bindings
