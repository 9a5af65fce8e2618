// batchsim._core.BatchRenderer(context, config), or BatchRenderer(renderer) for another handle
// on one (a Python subclass's, around a Simulator's renderer): arguments checked here, then
// the GIL is released around uploads and renders. Its outputs are persistent batchsim.Tensor
// objects. `stream` is the consumer's CUDA stream (a CUstream handle; 0 = the default stream).
#include <optional>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/arrays.hpp"
#include "bindings/bindings.hpp"
#include "render/batch_renderer.hpp"

namespace py = pybind11;

namespace batchsim::bindings {
namespace {

using render::BatchRenderer;
using UIntArray = py::array_t<std::uint32_t, py::array::c_style | py::array::forcecast>;

// CameraPose records from positions [N, 3], rotations [N, 4] (x, y, z, w) and places [N].
std::vector<gpu::CameraPose> camera_poses(std::size_t views, const FloatArray& positions,
                                          const FloatArray& rotations, const UIntArray& places) {
    auto require = [&](const py::array& a, std::size_t width, const char* name) {
        const bool ok = width == 0 ? a.ndim() == 1 && std::size_t(a.shape(0)) == views
                                   : a.ndim() == 2 && std::size_t(a.shape(0)) == views &&
                                         std::size_t(a.shape(1)) == width;
        BATCHSIM_CHECK(ok, InvalidArgument,
                       width == 0 ? str(name, ": expected shape [", views, "], got ", shape_of(a))
                                  : str(name, ": expected shape [", views, ", ", width, "], got ",
                                        shape_of(a)));
    };
    require(positions, 3, "positions");
    require(rotations, 4, "rotations");
    require(places, 0, "places");
    std::vector<gpu::CameraPose> poses(views);
    for (std::size_t i = 0; i < views; ++i) {
        const float* p = positions.data() + 3 * i;
        const float* q = rotations.data() + 4 * i;
        poses[i] = {p[0], p[1], p[2], places.data()[i], q[0], q[1], q[2], q[3]};
    }
    return poses;
}

}  // namespace

void bind_render(py::module_& m) {
    py::class_<BatchRenderer, std::shared_ptr<BatchRenderer>>(
        m, "BatchRenderer",
        "Every view of a batch in one submission; backend 'raster', 'compute' (ray casting) "
        "or 'auto' (see batchsim doctor).")
        .def(py::init([](std::shared_ptr<device::GpuContext> context,
                         const render::RendererConfig& config) {
                 py::gil_scoped_release unlocked;
                 return std::make_shared<BatchRenderer>(std::move(context), config);
             }),
             py::arg("context"), py::arg("config"))
        .def(py::init([](const std::shared_ptr<BatchRenderer>& renderer) { return renderer; }),
             py::arg("renderer"),
             "Another handle on `renderer`: batchsim.BatchRenderer's for a Simulator's renderer")
        .def_property_readonly("context", &BatchRenderer::context)
        .def_property_readonly("config", &BatchRenderer::config,
                               "the RendererConfig, with backend resolved")
        .def_property_readonly(
            "backend",
            [](const BatchRenderer& r) { return render::backend_name(r.config().backend); },
            "the backend in use: 'raster' or 'compute' ('auto' resolved)")
        .def(
            "set_scene",
            [](BatchRenderer& r, std::uint32_t place,
               const std::shared_ptr<assets::PackedScene>& scene) {
                py::gil_scoped_release unlocked;
                r.set_scene(place, scene.get());
            },
            py::arg("place"), py::arg("scene").none(true))
        .def("scene_bytes", &BatchRenderer::scene_bytes, py::arg("place"),
             py::arg("textures_only") = false,
             "Device memory of the scene in `place` (0 if empty); textures_only: its textures'.")
        .def(
            "render",
            [](BatchRenderer& r, const FloatArray& positions, const FloatArray& rotations,
               const UIntArray& places, std::uintptr_t stream) {
                const auto poses = camera_poses(r.config().views, positions, rotations, places);
                py::gil_scoped_release unlocked;
                r.render(poses, stream);
            },
            py::arg("positions"), py::arg("rotations"), py::arg("places"), py::arg("stream") = 0)
        .def_property_readonly("batches", &BatchRenderer::batch_count)
        .def(
            "batch_views",
            [](const BatchRenderer& r, std::uint32_t batch) {
                const auto range = r.batch_views(batch);
                return py::make_tuple(range.first, range.count);
            },
            py::arg("batch"), "(first view, view count) of a batch")
        .def(
            "submit",
            [](BatchRenderer& r, std::uint32_t batch, const FloatArray& positions,
               const FloatArray& rotations, const UIntArray& places, std::uintptr_t stream) {
                const auto views = r.batch_views(batch).count;
                const auto poses = camera_poses(views, positions, rotations, places);
                py::gil_scoped_release unlocked;
                r.submit(batch, poses, stream);
            },
            py::arg("batch"), py::arg("positions"), py::arg("rotations"), py::arg("places"),
            py::arg("stream") = 0)
        .def(
            "wait",
            [](BatchRenderer& r, std::uint32_t batch) {
                py::gil_scoped_release unlocked;
                r.wait(batch);
            },
            py::arg("batch"))
        .def(
            "pass_times",
            [](const BatchRenderer& r, std::uint32_t batch) -> py::object {
                const auto times = r.pass_times(batch);
                if (!times) return py::none();
                py::dict out;
                out["upload_ms"] = times->upload_ms;
                out["cull_ms"] = times->cull_ms;
                out["draw_ms"] = times->draw_ms;
                out["copy_ms"] = times->copy_ms;
                out["start_ms"] = times->start_ms;
                out["end_ms"] = times->end_ms;
                return out;
            },
            py::arg("batch"),
            "GPU milliseconds per pass of the batch's last submission seen finished, and when "
            "it began and ended on the device's timestamp clock (start_ms, end_ms)")
        .def(
            "draw_statistics",
            [](const BatchRenderer& r, std::uint32_t batch) -> py::object {
                const auto counts = r.draw_statistics(batch);
                if (!counts) return py::none();
                py::dict out;
                out["triangles"] = counts->triangles;
                out["vertex_shaders"] = counts->vertex_shaders;
                out["clipped_triangles"] = counts->clipped_triangles;
                out["clipper_output"] = counts->clipper_output;
                out["fragment_shaders"] = counts->fragment_shaders;
                return out;
            },
            py::arg("batch"), "pipeline statistics of the batch's last finished draw pass")
        .def_property_readonly("depth", &BatchRenderer::depth,
                               "[N, 1, H, W] float32 metres along the view axis; 0 = nothing; "
                               "None unless rendered")
        .def_property_readonly("rgb", &BatchRenderer::rgb,
                               "[N, H, W, 4] uint8 sRGB, alpha 255; None unless rendered");
}

}  // namespace batchsim::bindings
