#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

// Colour only: see raster_frag_common.glsl.
#define WRITE_DEPTH 0
#define WRITE_RGB 1

#include "shared.h"
#include "render_common.glsl"
#include "raster_frag_common.glsl"
