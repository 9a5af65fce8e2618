"""The inputs of scripts/probe_inputs.py: for each class of issue 40, inputs other than the
ones the issue tried. Each case is Python run after scripts/probe_prelude.py in a process of
its own, in an empty folder; `cli(...)` runs `batchsim ...` there. A case expects either a
clear error, whose message must name every string in `names`, or success (`ok`)."""

# ruff: noqa: E501  (each statement of a case stays on one line of its snippet)
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    name: str
    klass: str  # the heading: crash, hang, wrong output, silently accepted, unclear
    code: str
    names: tuple[str, ...] = ()  # what the error must name; () with ok=True: must succeed
    ok: bool = False
    env: tuple[tuple[str, str], ...] = ()


TINY_TRAIN = (
    "'num_envs=2', 'resolution=16', 'rollout_steps=16', 'hidden_size=32', 'total_frames=64', "
    "'device=cpu', 'num_threads=1', 'eval_every=0', 'cpca_steps=0', f'dataset={SPLIT}', f'val_dataset={SPLIT}', "
    "f'log_dir={W}/run'"
)


def train(*overrides: str, options: str = "") -> str:
    words = ", ".join(repr(o) for o in overrides)
    return f"cli('train', {options + ', ' if options else ''}{TINY_TRAIN}, {words})"


OBJ_FLOOR = "open('m.obj', 'w').write('v -3 0 -3\\nv 3 0 -3\\nv 3 0 3\\nv -3 0 3\\nf 1 4 3 2\\n')\n"

CASES = [
    # ---- crash: nothing unsafe after a wait gives up ----
    Case(
        "wait gives up during a reset",
        "crash",
        "env = batchsim.BatchNavEnv(SPLIT, 64, device='cpu', resolution=(64, 64))\n"
        "env.reset(seed=0)",
        ("BATCHSIM_WAIT_TIMEOUT_S",),
        env=(("BATCHSIM_WAIT_TIMEOUT_S", "1e-6"),),
    ),
    # ---- hangs: a named pipe wherever a file is read ----
    Case(
        "texture map of an OBJ material is a FIFO",
        "hang",
        OBJ_FLOOR.replace("v -3", "mtllib look.mtl\\nv -3")
        + "open('look.mtl', 'w').write('newmtl a\\nmap_Kd tex.png\\n')\nfifo(W / 'tex.png')\n"
        "batchsim.import_scene('m.obj', 'm.bsscene')",
        ("tex.png", "FIFO"),
    ),
    Case(
        "--navmesh is a FIFO",
        "hang",
        OBJ_FLOOR
        + "fifo(W / 'x.navmesh')\ncli('import', 'm.obj', 'm.bsscene', '--navmesh', 'x.navmesh')",
        ("x.navmesh", "FIFO"),
    ),
    Case(
        "a split's content file is a FIFO",
        "hang",
        "import shutil\nshutil.copytree(SPLIT, W / 'train')\n"
        "content = sorted((W / 'train' / 'content').glob('*.json.gz'))[0]\n"
        "content.unlink()\nfifo(content)\nbatchsim.datasets.load_pointnav(W / 'train')",
        ("json.gz", "FIFO"),
    ),
    Case(
        "train --config is a FIFO",
        "hang",
        "fifo(W / 'c.json')\n" + train(options="'--config', 'c.json'"),
        ("c.json", "FIFO"),
    ),
    Case(
        "eval's checkpoint is a FIFO",
        "hang",
        "(W / 'r').mkdir()\nfifo(W / 'r' / 'checkpoint.pt')\n"
        "cli('eval', '--checkpoint', 'r', '--split', str(SPLIT), '--device', 'cpu')",
        ("checkpoint.pt", "FIFO"),
    ),
    Case(
        "NavMesh.load of a FIFO",
        "hang",
        "batchsim.NavMesh.load(fifo(W / 'n.navmesh'))",
        ("n.navmesh", "FIFO"),
    ),
    # ---- wrong output ----
    Case(
        "import over its source, spelt another way",
        "wrong output",
        OBJ_FLOOR + "(W / 'sub').mkdir()\nbatchsim.import_scene('m.obj', 'sub/../m.obj')",
        ("m.obj", "itself"),
    ),
    Case(
        "a navmesh-only scene under a Simulator with depth",
        "wrong output",
        "import shutil\n(W / 's').mkdir()\nshutil.copy(NAVMESH, W / 's' / 'room.navmesh')\n"
        "e = episodes()[0]\ne['scene_id'] = str(W / 's' / 'room.glb')\n"
        "split = W / 'only'\nsplit.mkdir()\nimport gzip, json\n"
        "(split / 'only.json.gz').write_bytes(gzip.compress(json.dumps({'episodes': [e]}).encode()))\n"
        "sim = batchsim.Simulator(split, 2, device='cpu', resolution=16)\nsim.reset(seed=0)",
        ("room.navmesh", "no geometry"),
    ),
    Case(
        "a start pitched 10 degrees",
        "wrong output",
        "split = one_episode(start_rotation=[0.0872, 0.0, 0.0, 0.9962])\n"
        "batchsim.BatchSim(split, 2).reset(seed=0)",
        ("start_rotation", "vertical axis"),
    ),
    Case(
        "a start 1 m below the floor",
        "wrong output",
        "p = episodes()[0]['start_position']\nsplit = one_episode(start_position=[p[0], p[1] - 1.0, p[2]])\n"
        "cli('check-dataset', str(split))",
        ("start_position", "navmesh"),
    ),
    Case(
        "step_wait() twice after one step_async()",
        "wrong output",
        "env = batchsim.BatchNavEnv(SPLIT, 2, device='cpu', resolution=(16, 16))\nenv.reset(seed=0)\n"
        "env.step_async(np.zeros(2, np.int64))\nenv.step_wait()\nenv.step_wait()",
        ("step_wait",),
    ),
    Case(
        "video at another resolution than the checkpoint's",
        "wrong output",
        "cli('video', '--checkpoint', str(RUN), '--split', str(SPLIT), '--resolution', '8', "
        "'--episodes', '1', '--device', 'cpu', '--out', 'v.gif')",
        ("resolution", "16", "8"),
    ),
    Case(
        "geodesic distance to -inf",
        "wrong output",
        "n = batchsim.NavMesh.load(NAVMESH)\nn.geodesic_distance([0, 0, 0], [float('-inf'), 0, 0])",
        ("finite",),
    ),
    Case(
        "snap_point beyond float32",
        "wrong output",
        "batchsim.NavMesh.load(NAVMESH).snap_point([1e40, 0, 0])",
        ("finite",),
    ),
    # ---- silently accepted ----
    Case(
        "a gzip bomb as a content file",
        "silently accepted",
        "import shutil, zlib\nshutil.copytree(SPLIT, W / 'train')\n"
        "content = sorted((W / 'train' / 'content').glob('*.json.gz'))[0]\n"
        "z = zlib.compressobj(9, zlib.DEFLATED, 31)\nblock = b' ' * (1 << 24)\n"
        "data = b''.join(z.compress(block) for _ in range(20)) + z.flush()\n"
        "content.write_bytes(data)\nbatchsim.datasets.load_pointnav(W / 'train')",
        ("json.gz", "BATCHSIM_MAX_JSON_MB"),
    ),
    Case(
        "a bool override of 2",
        "silently accepted",
        train("normalize_advantage=2"),
        ("normalize_advantage", "2"),
    ),
    Case("a negative clip", "silently accepted", train("clip=-0.1"), ("clip", "-0.1")),
    Case("rollout_steps=0", "silently accepted", train("rollout_steps=0"), ("rollout_steps",)),
    Case(
        "entropy_coef=inf", "silently accepted", train("entropy_coef=inf"), ("entropy_coef", "inf")
    ),
    Case(
        "a seed in config= and a keyword",
        "silently accepted",
        "batchsim.Simulator(SPLIT, 2, config=batchsim.SimConfig(seed=3), seed=4, device='cpu')",
        ("seed", "3", "4"),
    ),
    Case(
        "rgb in render= and a keyword",
        "silently accepted",
        "batchsim.Simulator(SPLIT, 2, render=batchsim.RenderOptions(rgb=True), rgb=False, device='cpu')",
        ("rgb",),
    ),
    Case(
        "--resume of a log_dir that does not exist",
        "silently accepted",
        train("log_dir=runz", options="'--resume'"),
        ("runz", "checkpoint"),
    ),
    Case(
        "a GLB vertex at NaN",
        "silently accepted",
        "open('g.glb', 'wb').write(glb(floor()[:5] + [[float('nan'), 0, 0]]))\n"
        "batchsim.import_scene('g.glb', 'g.bsscene')",
        ("g.glb", "vertex"),
    ),
    Case(
        "a GLB vertex at 1e9 m",
        "silently accepted",
        "open('g.glb', 'wb').write(glb(floor()[:5] + [[1e9, 0, 0]]))\n"
        "batchsim.import_scene('g.glb', 'g.bsscene')",
        ("g.glb", "vertex"),
    ),
    Case(
        "--navmesh of a scene 100 m away",
        "silently accepted",
        "open('g.glb', 'wb').write(glb(floor(6.0, at=100.0)))\n"
        "cli('import', 'g.glb', 'g.bsscene', '--navmesh', str(NAVMESH))",
        ("navmesh", "g.glb"),
    ),
    Case(
        "NaN rows to geodesic_distances",
        "silently accepted",
        "n = batchsim.NavMesh.load(NAVMESH)\n"
        "n.geodesic_distances(np.zeros((2, 3), np.float32), np.array([[0, 0, 0], [0, np.nan, 0]], np.float32))",
        ("ends", "row 1", "finite"),
    ),
    Case(
        "reset mask of floats",
        "silently accepted",
        "sim = batchsim.Simulator(SPLIT, 2, device='cpu', resolution=16)\nsim.reset(seed=0)\n"
        "sim.reset_envs([0.5, 1.0])",
        ("mask",),
    ),
    Case(
        "reset mask as a masked array",
        "silently accepted",
        "env = batchsim.BatchNavEnv(SPLIT, 2, device='cpu', resolution=(16, 16), array='numpy')\n"
        "env.reset(seed=0)\n"
        "env.reset(options={'reset_mask': np.ma.masked_array([True, False], mask=[0, 1])})",
        ("mask", "masked"),
    ),
    Case(
        "actions as strings",
        "silently accepted",
        "env = batchsim.BatchNavEnv(SPLIT, 2, device='cpu', resolution=(16, 16), array='numpy')\n"
        "env.reset(seed=0)\nenv.step(np.array(['1', '0']))",
        ("actions",),
    ),
    # ---- unclear errors: each must name the field, key or file ----
    Case(
        "TaskConfig(max_episode_steps='10')",
        "unclear",
        "batchsim.TaskConfig(max_episode_steps='10')",
        ("max_episode_steps", "'10'"),
    ),
    Case("RenderOptions(width=-3)", "unclear", "batchsim.RenderOptions(width=-3)", ("width", "-3")),
    Case(
        "RendererConfig(views=2**40)", "unclear", "batchsim.RendererConfig(views=2**40)", ("views",)
    ),
    Case(
        "NavMeshSettings(agent_radius='x')",
        "unclear",
        "batchsim.NavMeshSettings(agent_radius='x')",
        ("agent_radius", "'x'"),
    ),
    Case(
        "NavMeshSettings(radius=0.2), a field it lacks",
        "unclear",
        "batchsim.NavMeshSettings(radius=0.2)",
        ("radius", "agent_radius"),
    ),
    Case("Context(device=[1])", "unclear", "batchsim.Context(device=[1])", ("device",)),
    Case("BatchSim(num_envs=2.5)", "unclear", "batchsim.BatchSim(SPLIT, 2.5)", ("num_envs", "2.5")),
    Case(
        "a checkpoint of zeros",
        "unclear",
        "(W / 'r').mkdir()\n(W / 'r' / 'checkpoint.pt').write_bytes(bytes(4096))\n"
        "cli('eval', '--checkpoint', 'r', '--split', str(SPLIT), '--device', 'cpu')",
        ("checkpoint.pt",),
    ),
    Case(
        "a gzip file as a checkpoint",
        "unclear",
        "import gzip\n(W / 'r').mkdir()\n(W / 'r' / 'checkpoint.pt').write_bytes(gzip.compress(b'x' * 100))\n"
        + train("log_dir=r", options="'--resume'"),
        ("checkpoint.pt",),
    ),
    Case(
        "episodes as an object",
        "unclear",
        "import gzip\n(W / 's').mkdir()\n(W / 's' / 's.json.gz').write_bytes(gzip.compress(b'{\"episodes\": {}}'))\n"
        "batchsim.datasets.load_pointnav(W / 's')",
        ("s.json.gz", "episodes"),
    ),
    Case(
        "start_position of two numbers",
        "unclear",
        "split = one_episode(start_position=[1.0, 2.0])\nbatchsim.datasets.load_pointnav(split)",
        ("start_position",),
    ),
    Case(
        "a split that is a JSON string",
        "unclear",
        "import gzip\n(W / 's').mkdir()\n(W / 's' / 's.json.gz').write_bytes(gzip.compress(b'\"hello\"'))\n"
        "batchsim.datasets.load_pointnav(W / 's')",
        ("s.json.gz",),
    ),
    Case("hidden_size=32.5", "unclear", train("hidden_size=32.5"), ("hidden_size", "32.5")),
    Case("device=foo", "unclear", train("device=foo"), ("device", "foo")),
    Case(
        "--config of a JSON list",
        "unclear",
        "open('c.json', 'w').write('[1, 2]')\n" + train(options="'--config', 'c.json'"),
        ("c.json",),
    ),
    Case(
        "scenes_resident=0",
        "unclear",
        "batchsim.Simulator(SPLIT, 2, scenes_resident=0, device='cpu')",
        ("scenes_resident",),
    ),
    Case(
        "scenes_resident=5000",
        "unclear",
        "batchsim.Simulator(SPLIT, 2, scenes_resident=5000, device='cpu')",
        ("scenes_resident", "5000"),
    ),
    Case(
        "a JPEG renamed .obj",
        "unclear",
        "open('m.obj', 'wb').write(b'\\xff\\xd8\\xff\\xe0' + bytes(200))\n"
        "batchsim.import_scene('m.obj', 'm.bsscene')",
        ("m.obj", "JPEG"),
    ),
    Case(
        "a GLB that is a PNG",
        "unclear",
        "open('m.glb', 'wb').write(png(8, 8))\ncli('import', 'm.glb', 'm.bsscene')",
        ("m.glb", "PNG"),
    ),
    Case(
        "a texture declaring 100000 x 100000",
        "unclear",
        OBJ_FLOOR.replace("v -3", "mtllib look.mtl\\nvt 0 0\\nv -3")
        + "open('look.mtl', 'w').write('newmtl a\\nmap_Kd big.png\\n')\n"
        "open('big.png', 'wb').write(png(100000, 100000))\n"
        "batchsim.import_scene('m.obj', 'm.bsscene')",
        ("big.png", "100000"),
    ),
    Case(
        "a floor 200 km across",
        "unclear",
        "open('g.glb', 'wb').write(glb(floor(200000.0)))\nbatchsim.import_scene('g.glb', 'g.bsscene')",
        ("g.glb", "cell_size"),
    ),
    Case("Scene.load of a folder", "unclear", "batchsim.Scene.load(W)", ("directory",)),
    Case(
        "BatchNavEnv.step after close",
        "unclear",
        "env = batchsim.BatchNavEnv(SPLIT, 2, device='cpu', resolution=(16, 16))\nenv.reset(seed=0)\n"
        "env.close()\nenv.step(np.zeros(2, np.int64))",
        ("closed",),
    ),
    Case(
        "Simulator.reset after close",
        "unclear",
        "sim = batchsim.Simulator(SPLIT, 2, device='cpu', resolution=16)\nsim.close()\nsim.reset(seed=0)",
        ("closed",),
    ),
    Case(
        "Simulator.step racing close",
        "unclear",
        "import threading\nsim = batchsim.Simulator(SPLIT, 4, device='cpu', resolution=16)\nsim.reset(seed=0)\n"
        "def steps():\n    try:\n        [sim.step() for _ in range(1000)]\n    except batchsim.ClosedError as e:\n        print('the stepping thread:', e)\n"
        "t = threading.Thread(target=steps)\nt.start()\nsim.close()\nt.join()\nsim.step()",
        ("closed",),
    ),
    # ---- handled correctly: what must still work ----
    Case(
        "a GLB floor imports with its navmesh",
        "ok",
        "open('g.glb', 'wb').write(glb(floor()))\nbatchsim.import_scene('g.glb', 'g.bsscene')\n"
        "assert batchsim.Scene.load('g.bsscene').has_navmesh",
        ok=True,
    ),
    Case(
        "a start turned 135 degrees about the vertical",
        "ok",
        "split = one_episode(start_rotation=[0.0, 0.92388, 0.0, -0.38268])\n"
        "sim = batchsim.BatchSim(split, 2)\nsim.reset(seed=0)\nsim.step(np.ones(2, np.int32))",
        ok=True,
    ),
    Case(
        "an integer field written 1e3",
        "ok",
        train("hidden_size=1e3"),
        ok=True,
    ),
    Case(
        "a split read under a raised BATCHSIM_MAX_JSON_MB",
        "ok",
        "import shutil\nshutil.copytree(SPLIT, W / 'train')\nbatchsim.datasets.load_pointnav(W / 'train')",
        ok=True,
        env=(("BATCHSIM_MAX_JSON_MB", "1024"),),
    ),
]
