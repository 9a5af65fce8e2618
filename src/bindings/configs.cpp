// The configuration structs as Python value types (see value_type.hpp): TaskConfig and
// SimConfig (sim/config.hpp), RenderOptions (env/simulator.hpp) and RendererConfig
// (render/batch_renderer.hpp). Their defaults and docs are the structs'.
#include <pybind11/pybind11.h>

#include "bindings/bindings.hpp"
#include "bindings/value_type.hpp"
#include "env/simulator.hpp"
#include "render/batch_renderer.hpp"
#include "sim/config.hpp"

namespace py = pybind11;

namespace batchsim::bindings {
namespace {

void bind_task_config(py::module_& m) {
    using T = sim::TaskConfig;
    ValueType<T>(m, "TaskConfig", "Habitat PointNav-v1 task constants (habitat-lab's defaults).")
        .field("forward_step", &T::forward_step, "metres per MOVE_FORWARD")
        .field("turn_degrees", &T::turn_degrees, "degrees per TURN_LEFT / TURN_RIGHT")
        .field("success_distance", &T::success_distance,
               "STOP closer than this geodesic distance (m) succeeds")
        .field("slack_reward", &T::slack_reward, "reward added every step")
        .field("success_reward", &T::success_reward, "reward added on success")
        .field("max_episode_steps", &T::max_episode_steps, "longer episodes are truncated")
        .field("camera_height", &T::camera_height, "camera above the agent (m)")
        .field("allow_sliding", &T::allow_sliding, "slide along walls")
        .field("forward_noise", &T::forward_noise,
               "std dev (m) of Gaussian noise on each forward step's distance; 0: none")
        .field("turn_noise", &T::turn_noise,
               "std dev (degrees) of Gaussian noise on each turn's angle; 0: none")
        .field("camera_height_jitter", &T::camera_height_jitter,
               "camera height drawn per episode in camera_height +- this (m); 0: none")
        .finish(&sim::validate);
}

void bind_sim_config_type(py::module_& m) {
    using T = sim::SimConfig;
    ValueType<T>(m, "SimConfig", "The batch simulation's setup (sim/config.hpp).")
        .field("num_envs", &T::num_envs, "environments stepped together (N)")
        .field("num_threads", &T::num_threads, "CPU workers, the calling thread included")
        .field("seed", &T::seed, "environment i's randomness depends only on (seed, i)")
        .choice("mode", &T::order, &sim::parse_episode_order, &sim::name_of,
                "'train' (sample episodes) or 'eval' (every episode once)")
        .field("scenes_resident", &T::scenes_resident, "K scenes in memory; env i in slot i mod K")
        .field("steps_per_scene", &T::steps_per_scene, "training: a slot's steps per scene")
        .choice("geodesic", &T::geodesic, &sim::parse_geodesic_mode, &sim::name_of,
                "'corridor' (reuses paths, within 1 cm) or 'exact'")
        .choice("autoreset", &T::autoreset, &sim::parse_autoreset, &sim::name_of,
                "'same_step', 'next_step' or 'disabled'")
        .field("loader_bytes_per_second", &T::loader_bytes_per_second,
               "background scene reads' rate cap (0: unlimited)")
        .field("task", &T::task, "a TaskConfig")
        .finish(&sim::validate);
}

void bind_render_options(py::module_& m) {
    using T = env::RenderOptions;
    ValueType<T>(m, "RenderOptions", "What a Simulator renders (env/simulator.hpp).")
        .field("width", &T::width, "pixels")
        .field("height", &T::height, "pixels")
        .field("hfov_degrees", &T::hfov_degrees, "horizontal field of view")
        .field("near_plane", &T::near_plane, "metres")
        .field("far_plane", &T::far_plane, "metres")
        .field("depth", &T::depth, "render depth [N, 1, H, W] float32")
        .field("rgb", &T::rgb, "render colour [N, H, W, 4] uint8")
        .choice("backend", &T::backend, &render::parse_backend, &render::backend_name,
                "'auto', 'raster' or 'compute'")
        .field("final_views", &T::final_views,
               "same_step autoreset: also render ended episodes' last views")
        .field("double_buffer", &T::double_buffer,
               "simulate one half of the batch while the GPU renders the other; same results")
        .finish(nullptr);
}

void bind_renderer_config(py::module_& m) {
    using T = render::RendererConfig;
    ValueType<T>(m, "RendererConfig", "A BatchRenderer's setup (render/batch_renderer.hpp).")
        .field("views", &T::views, "views rendered together")
        .field("width", &T::width, "pixels")
        .field("height", &T::height, "pixels")
        .field("hfov_degrees", &T::hfov_degrees, "horizontal field of view")
        .field("near_plane", &T::near_plane, "metres")
        .field("far_plane", &T::far_plane, "metres")
        .field("places", &T::places, "scenes resident at once")
        .field("batches", &T::batches, "submissions the views split into (views: naive mode)")
        .field("depth", &T::depth, "render depth [views, 1, H, W] float32")
        .field("rgb", &T::rgb, "render colour [views, H, W, 4] uint8")
        .choice("backend", &T::backend, &render::parse_backend, &render::backend_name,
                "'auto', 'raster' or 'compute'")
        .finish(nullptr);
}

}  // namespace

void bind_configs(py::module_& m) {
    bind_task_config(m);
    bind_sim_config_type(m);
    bind_render_options(m);
    bind_renderer_config(m);
}

}  // namespace batchsim::bindings
