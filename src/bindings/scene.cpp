// batchsim._core.Scene (a loaded packed scene file) and import_scene (`batchsim import`).
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "assets/bvh.hpp"
#include "assets/bvh_wide.hpp"
#include "assets/packed_scene.hpp"
#include "assets/packed_scene_format.hpp"
#include "assets/packed_scene_writer.hpp"
#include "assets/scene_build.hpp"
#include "assets/texture_compression.hpp"
#include "bindings/arrays.hpp"
#include "bindings/bindings.hpp"
#include "bindings/py_navmesh.hpp"
#include "nav/floors.hpp"

namespace py = pybind11;

namespace batchsim::bindings {
namespace {

using Scene = std::shared_ptr<assets::PackedScene>;

template <typename T>
py::array_t<T> copy_rows(const T* data, std::size_t rows, std::size_t cols) {
    py::array_t<T> out({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(cols)});
    std::copy(data, data + rows * cols, out.mutable_data());
    return out;
}

// Float columns [first, first + cols) of each vertex (8 floats: position, normal, uv).
py::array_t<float> vertex_columns(const Scene& s, std::size_t first, std::size_t cols) {
    const auto vertices = s->vertices();
    py::array_t<float> out(
        {static_cast<py::ssize_t>(vertices.size()), static_cast<py::ssize_t>(cols)});
    float* dst = out.mutable_data();
    for (const auto& v : vertices) {
        const float* src = &v.px + first;
        dst = std::copy(src, src + cols, dst);
    }
    return out;
}

// Each vertex's colour: RGBA8 [V, 4], RGB sRGB-encoded (white where the model has none).
py::array_t<std::uint8_t> vertex_colors(const Scene& s) {
    const auto vertices = s->vertices();
    py::array_t<std::uint8_t> out({static_cast<py::ssize_t>(vertices.size()), py::ssize_t{4}});
    std::uint8_t* dst = out.mutable_data();
    for (const auto& v : vertices) {
        for (std::uint32_t channel = 0; channel < 4; ++channel)
            *dst++ = static_cast<std::uint8_t>(v.color >> (8 * channel));
    }
    return out;
}

py::dict texture_dict(const Scene& s, std::size_t index, std::uint32_t level) {
    BATCHSIM_CHECK(
        index < s->texture_count(), InvalidArgument,
        str("texture index ", index, " out of range: the scene has ", s->texture_count()));
    const assets::TextureView t = s->texture(index);
    BATCHSIM_CHECK(level < t.mip_count, InvalidArgument,
                   str("mip level ", level, " out of range: the texture has ", t.mip_count));
    const std::size_t offset = assets::mip_chain_bytes(t.width, t.height, level, t.format);
    const std::uint32_t w = std::max(t.width >> level, 1u), h = std::max(t.height >> level, 1u);
    const auto rgba = assets::decode_level(
        t.pixels.subspan(offset, assets::level_bytes(w, h, t.format)), w, h, t.format);
    py::array_t<std::uint8_t> pixels({py::ssize_t(h), py::ssize_t(w), py::ssize_t{4}});
    std::copy(rgba.begin(), rgba.end(), pixels.mutable_data());
    py::dict out;
    out["name"] = std::string(t.name), out["width"] = t.width, out["height"] = t.height;
    out["mip_count"] = t.mip_count, out["pixels"] = pixels;
    out["format"] = assets::format_name(t.format), out["bytes"] = t.pixels.size();
    return out;
}

py::list materials(const Scene& s) {
    py::list out;
    for (const assets::Material& m : s->materials()) {
        py::dict d;
        d["base_color"] = py::make_tuple(m.base_r, m.base_g, m.base_b, m.base_a);
        d["texture"] = m.base_color_texture == gpu::kNoTexture ? py::object(py::none())
                                                               : py::int_(m.base_color_texture);
        out.append(d);
    }
    return out;
}

py::dict chunks(const Scene& s) {
    const auto c = s->chunks();
    py::array_t<float> lo({py::ssize_t(c.size()), py::ssize_t{3}}),
        hi({py::ssize_t(c.size()), py::ssize_t{3}});
    py::array_t<std::uint32_t> first(py::ssize_t(c.size())), count(py::ssize_t(c.size())),
        material(py::ssize_t(c.size()));
    for (std::size_t i = 0; i < c.size(); ++i) {
        std::copy_n(&c[i].min_x, 3, lo.mutable_data() + 3 * i);
        std::copy_n(&c[i].max_x, 3, hi.mutable_data() + 3 * i);
        first.mutable_data()[i] = c[i].first_index, count.mutable_data()[i] = c[i].index_count;
        material.mutable_data()[i] = c[i].material;
    }
    py::dict out;
    out["min"] = lo, out["max"] = hi, out["first_index"] = first, out["index_count"] = count;
    out["material"] = material;
    return out;
}

Scene import_scene(const std::filesystem::path& model, const std::filesystem::path& out,
                   const std::string& axes, float scale,
                   std::optional<std::filesystem::path> navmesh, bool bake,
                   const nav::NavMeshSettings& settings, std::uint32_t chunk_triangles,
                   std::uint64_t texture_budget_bytes, const std::string& texture_format,
                   bool compress) {
    assets::SceneBuildOptions options;
    options.import.axes = axes, options.import.scale = scale;
    options.import.chunk_triangles = chunk_triangles;
    options.textures = {texture_budget_bytes, assets::parse_texture_format(texture_format)};
    options.navmesh_file = std::move(navmesh), options.bake_navmesh = bake, options.bake = settings;
    py::gil_scoped_release release;
    assets::check_output_is_not_an_input(out, model, options);
    assets::write_packed_scene(out, assets::build_scene(model, options), {.deflate = compress});
    return std::make_shared<assets::PackedScene>(assets::PackedScene::load(out));
}

void bind_scene_class(py::module_& m) {
    py::class_<assets::PackedScene, Scene>(m, "Scene", "A packed scene file, loaded and validated.")
        .def_static(
            "load",
            [](const std::filesystem::path& path) {
                py::gil_scoped_release release;
                return std::make_shared<assets::PackedScene>(assets::PackedScene::load(path));
            },
            py::arg("path"))
        .def_property_readonly("source", [](const Scene& s) { return std::string(s->source()); })
        .def_property_readonly("file_bytes", &assets::PackedScene::file_bytes,
                               "Bytes of the file (deflated sections as stored).")
        .def_property_readonly(
            "loaded_bytes", &assets::PackedScene::resident_bytes,
            "Bytes this scene holds in memory: the file, or a compressed file's sections "
            "once inflated.")
        .def_property_readonly("format_version", &assets::PackedScene::format_version,
                               "The file's format version: 5 if compressed, else 3 or 4.")
        .def_property_readonly("vertex_count", [](const Scene& s) { return s->vertices().size(); })
        .def_property_readonly("triangle_count",
                               [](const Scene& s) { return s->indices().size() / 3; })
        .def_property_readonly("texture_count", &assets::PackedScene::texture_count)
        .def_property_readonly(
            "texture_bytes",
            [](const Scene& s) {
                std::size_t total = 0;
                for (std::size_t i = 0; i < s->texture_count(); ++i)
                    total += s->texture(i).pixels.size();
                return total;
            },
            "Bytes of the stored mip chains of every texture (as packed: RGBA8 or BC1).")
        .def_property_readonly("chunk_count", [](const Scene& s) { return s->chunks().size(); })
        .def_property_readonly("has_navmesh", [](const Scene& s) { return !s->navmesh().empty(); })
        .def_property_readonly(
            "bvh_node_count", [](const Scene& s) { return s->bvh_nodes().size(); },
            "Nodes of the scene's ray-casting BVH (two child boxes each; at least 1).")
        .def_property_readonly(
            "bvh_depth", [](const Scene& s) { return assets::bvh_depth(s->bvh_nodes()); },
            "Nodes on the BVH's longest root-to-node path (at most 64, the GPU stack size).")
        .def(
            "bvh4_nodes",
            [](const Scene& s) {
                const auto nodes = assets::collapse_bvh4(s->bvh_nodes());
                constexpr std::size_t kFloats = sizeof(gpu::Bvh4Node) / sizeof(float);
                return copy_rows(reinterpret_cast<const float*>(nodes.data()), nodes.size(),
                                 kFloats);
            },
            "The 4-wide BVH the compute renderer uploads, collapsed from the stored one: "
            "float32 [N, 32], the bytes of shared.h Bvh4Node (child and count as uint32 bits).")
        .def_property_readonly("bounds",
                               [](const Scene& s) {
                                   return py::make_tuple(to_numpy(s->bounds().min),
                                                         to_numpy(s->bounds().max));
                               })
        .def("positions", [](const Scene& s) { return vertex_columns(s, 0, 3); })
        .def("normals", [](const Scene& s) { return vertex_columns(s, 3, 3); })
        .def("uvs", [](const Scene& s) { return vertex_columns(s, 6, 2); })
        .def("colors", &vertex_colors,
             "Vertex colours: uint8 [V, 4], RGB sRGB-encoded; 255s where the model has none.")
        .def("indices",
             [](const Scene& s) {
                 return copy_rows(s->indices().data(), s->indices().size() / 3, 3);
             })
        .def("chunks", &chunks,
             "Culling chunks: dict of min/max [C,3], first_index, index_count, material.")
        .def("materials", &materials)
        .def("texture", &texture_dict, py::arg("index"), py::arg("level") = 0)
        .def_property_readonly(
            "floor_heights",
            [](const Scene& s) {
                if (s->navmesh().empty()) return std::vector<float>{};
                return nav::floor_heights(*nav::NavMesh::from_habitat_bytes(s->navmesh()));
            },
            "heights of the scene's floors, lowest first (NavMesh.floor_heights); [] without a "
            "navmesh")
        .def("navmesh", [](const Scene& s) {
            BATCHSIM_CHECK(!s->navmesh().empty(), InvalidArgument,
                           str("scene '", s->source(), "' has no navmesh"));
            return wrap(nav::NavMesh::from_habitat_bytes(s->navmesh()));
        });
}

}  // namespace

void bind_scene(py::module_& m) {
    // The newest format version this build reads, which it writes compressed, and the one it
    // writes uncompressed (cache keys of imported scenes and procgen manifests use them).
    m.attr("PACKED_SCENE_VERSION") = assets::packed::kVersion;
    m.attr("PACKED_SCENE_UNCOMPRESSED_VERSION") = assets::packed::kPlainVersion;
    m.attr("DEFAULT_TEXTURE_BUDGET_BYTES") = assets::kDefaultTextureBudgetBytes;
    bind_scene_class(m);
    m.def("import_scene", &import_scene, py::arg("model"), py::arg("out"),
          py::arg("axes") = "x,y,z", py::arg("scale") = 1.0f, py::arg("navmesh") = py::none(),
          py::arg("bake_navmesh") = true, py::arg("settings") = nav::NavMeshSettings{},
          py::arg("chunk_triangles") = 1024u,
          py::arg("texture_budget_bytes") = assets::kDefaultTextureBudgetBytes,
          py::arg("texture_format") = "rgba8", py::arg("compress") = false,
          "Imports a model (Assimp), adds its navmesh and writes a packed scene file atomically "
          "(compress: sections deflated, format version 5).");
    m.def("axes_for_up", &assets::axes_for_up, py::arg("up"));
}

}  // namespace batchsim::bindings
