// `batchsim import`: model file -> SceneData with a navmesh -> packed scene file.
#pragma once

#include <filesystem>
#include <optional>

#include "assets/importer.hpp"
#include "assets/scene_data.hpp"
#include "assets/texture_budget.hpp"
#include "nav/navmesh_bake.hpp"

namespace batchsim::nav {
class NavMesh;
}

namespace batchsim::assets {

struct SceneBuildOptions {
    ImportOptions import;
    TexturePolicy textures;  // budget and stored format
    // A Habitat .navmesh to embed as it is; without one the navmesh is baked with `bake`.
    std::optional<std::filesystem::path> navmesh_file;
    bool bake_navmesh = true;  // false: a scene without navmesh (rendering only)
    nav::NavMeshSettings bake;
};

// Imports `model`, fits its textures to the budget and encodes them (prepare_textures),
// then loads (and validates) or bakes its navmesh.
SceneData build_scene(const std::filesystem::path& model, const SceneBuildOptions& options);

// Throws Error(InvalidArgument) if `out` is the model or the navmesh file `options` names
// (the same file under any name: a symlink, a hard link): the packed scene written there
// would replace its own source (issue 40). Call before build_scene.
void check_output_is_not_an_input(const std::filesystem::path& out,
                                  const std::filesystem::path& model,
                                  const SceneBuildOptions& options);

// Cells of slack beyond the agent's radius (across) and climb (up or down) that a navmesh's
// surface may reach past its model's bounds: Recast rounds the surface out to whole cells,
// and a navmesh baked from a model lies within its bounds up to that. Another scene's
// navmesh seldom does (issue 40: one was embedded without a word).
inline constexpr float kNavMeshFitCells = 4;

// Throws Error(InvalidArgument) naming both bounds unless `navmesh` (loaded from
// `navmesh_file`) lies within `scene`'s bounds, up to the slack above.
void check_navmesh_fits(const nav::NavMesh& navmesh, const SceneData& scene,
                        const std::filesystem::path& navmesh_file);

// Bakes a navmesh of a scene's triangles: a Habitat .navmesh image.
std::vector<std::uint8_t> bake_scene_navmesh(const SceneData& scene,
                                             const nav::NavMeshSettings& settings);

}  // namespace batchsim::assets
