#include "assets/scene_build.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <string>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "nav/navmesh.hpp"

namespace batchsim::assets {

std::vector<std::uint8_t> bake_scene_navmesh(const SceneData& scene,
                                             const nav::NavMeshSettings& settings) {
    std::vector<float> positions;
    positions.reserve(scene.vertices.size() * 3);
    for (const Vertex& v : scene.vertices) positions.insert(positions.end(), {v.px, v.py, v.pz});
    try {
        return nav::NavMesh::bake(positions, scene.indices, settings)->habitat_bytes();
    } catch (const Error& error) {
        throw Error(error.kind(),
                    str("'", scene.source, "': ", error.what(),
                        " (import it without a navmesh: --no-navmesh, bake_navmesh=False)"));
    }
}

namespace {

using Box = std::array<nav::Vec3, 2>;

Box vertex_bounds(const SceneData& scene) {
    constexpr float inf = std::numeric_limits<float>::infinity();
    Box out{nav::Vec3{inf, inf, inf}, nav::Vec3{-inf, -inf, -inf}};
    for (const Vertex& v : scene.vertices) {
        const nav::Vec3 p{v.px, v.py, v.pz};
        for (std::size_t axis = 0; axis < 3; ++axis) {
            out[0][axis] = std::min(out[0][axis], p[axis]);
            out[1][axis] = std::max(out[1][axis], p[axis]);
        }
    }
    return out;
}

std::string show(const Box& b) {
    return str("(", b[0][0], ", ", b[0][1], ", ", b[0][2], ") to (", b[1][0], ", ", b[1][1], ", ",
               b[1][2], ")");
}

}  // namespace

void check_navmesh_fits(const nav::NavMesh& navmesh, const SceneData& scene,
                        const std::filesystem::path& navmesh_file) {
    const Box model = vertex_bounds(scene), surface = navmesh.surface_bounds();
    const nav::NavMeshSettings& s = navmesh.settings();
    const float across = s.agent_radius + kNavMeshFitCells * s.cell_size;
    const float up = s.agent_max_climb + kNavMeshFitCells * s.cell_height;
    bool fits = true;
    for (std::size_t axis = 0; axis < 3; ++axis) {
        const float slack = axis == 1 ? up : across;
        fits = fits && surface[0][axis] >= model[0][axis] - slack &&
               surface[1][axis] <= model[1][axis] + slack;
    }
    BATCHSIM_CHECK(
        fits, InvalidArgument,
        str("navmesh '", navmesh_file.string(), "' does not belong to model '", scene.source,
            "': its walkable surface spans ", show(surface), ", beyond the model's bounds ",
            show(model), " by more than ", across, " m across or ", up,
            " m up or down (its agent's radius or climb and ", kNavMeshFitCells,
            " cells, what Recast may add). It was made for another scene, or the model needs "
            "other axes or scale (--up / --axes, --scale)"));
}

void check_output_is_not_an_input(const std::filesystem::path& out,
                                  const std::filesystem::path& model,
                                  const SceneBuildOptions& options) {
    const auto check = [&](const std::filesystem::path& input, const char* role) {
        std::error_code error;  // either one missing: not the same file
        BATCHSIM_CHECK(
            !std::filesystem::equivalent(out, input, error), InvalidArgument,
            str("output '", out.string(), "' is the ", role, " '", input.string(),
                "' itself (the same file): writing the packed scene would replace "
                "it; choose another output, such as '",
                std::filesystem::path(model).replace_extension(".bsscene").string(), "'"));
    };
    check(model, "model");
    if (options.navmesh_file) check(*options.navmesh_file, "navmesh");
}

SceneData build_scene(const std::filesystem::path& model, const SceneBuildOptions& options) {
    SceneData scene = import_model(model, options.import);
    // In place: pack_scene would copy the scene to limit its sizes.
    prepare_textures(scene.textures, options.textures, model.filename().string());
    if (options.navmesh_file) {
        const auto navmesh = nav::NavMesh::load(*options.navmesh_file);
        check_navmesh_fits(*navmesh, scene, *options.navmesh_file);
        scene.navmesh = navmesh->habitat_bytes();
    } else if (options.bake_navmesh)
        scene.navmesh = bake_scene_navmesh(scene, options.bake);
    // The file name only: packed files do not depend on the folder they were built from.
    scene.source = model.filename().string();
    return scene;
}

}  // namespace batchsim::assets
