"""batchsim.procgen v3 (generator version 6): many wall and ceiling materials, per
building and room kind."""

import numpy as np

from batchsim.procgen import generate_scene, plan_scene
from batchsim.procgen.textures import CEILING_MATERIALS, WALL_MATERIALS

KINDS = ("apartment", "office")


def test_wall_and_ceiling_materials_vary_by_building_and_room_kind():
    walls, ceilings, per_scene = set(), set(), []
    for seed in range(20):
        scene = generate_scene(seed, KINDS[seed % 2], 10_000)
        used = {m.material: m for m in scene.meshes}
        wall = WALL_MATERIALS & used.keys()
        for name in wall:  # wall materials only ever on vertical faces
            assert np.abs(used[name].normals[:, 1]).max() < 1e-6, name
        for name in CEILING_MATERIALS & used.keys():  # ceilings face down
            assert np.allclose(used[name].normals, [0.0, -1.0, 0.0]), name
        walls |= wall
        ceilings |= CEILING_MATERIALS & used.keys()
        per_scene.append(len(wall))
        assert len(scene.materials) <= 32  # textures per scene stay few
    assert len(walls) >= 8 and len(ceilings) >= 3
    assert np.mean(per_scene) >= 3.5  # rooms of one building differ too
    layout, _ = plan_scene(0, "apartment")
    assert dict(layout.walls)["bathroom"] in ("wall_tiles", "paint_accent")
    assert layout.wall_material(-1) == layout.facade  # outer faces: the facade
