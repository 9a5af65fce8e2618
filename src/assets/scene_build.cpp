#include "assets/scene_build.hpp"

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
    if (options.navmesh_file)
        scene.navmesh = nav::NavMesh::load(*options.navmesh_file)->habitat_bytes();
    else if (options.bake_navmesh)
        scene.navmesh = bake_scene_navmesh(scene, options.bake);
    // The file name only: packed files do not depend on the folder they were built from.
    scene.source = model.filename().string();
    return scene;
}

}  // namespace batchsim::assets
