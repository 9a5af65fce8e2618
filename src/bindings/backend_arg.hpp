// The renderer backend as Python names it: "auto", "raster" or "compute".
#pragma once

#include <string>

#include "core/check.hpp"
#include "core/strings.hpp"
#include "render/batch_renderer.hpp"

namespace batchsim::bindings {

inline render::Backend parse_backend(const std::string& name) {
    for (const auto backend :
         {render::Backend::Auto, render::Backend::Raster, render::Backend::Compute})
        if (name == render::backend_name(backend)) return backend;
    throw Error(Error::Kind::InvalidArgument,
                str("backend: expected 'auto', 'raster' or 'compute', got '", name, "'"));
}

}  // namespace batchsim::bindings
