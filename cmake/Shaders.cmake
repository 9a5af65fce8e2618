# Compiles shaders/<pass>.<stage>.glsl to SPIR-V with glslc and embeds the words in a
# static library, so the module never reads shader files at run time.
#
#   batchsim_add_shaders(<target> INCLUDE_DIR <dir> SOURCES <files...>)
#
# defines <target> providing batchsim::vk::embedded_shader("<pass>.<stage>").
function(batchsim_add_shaders target)
  cmake_parse_arguments(ARG "" "INCLUDE_DIR" "SOURCES" ${ARGN})
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/shaders")
  file(MAKE_DIRECTORY "${out_dir}")
  # Included files: shared.h and GLSL-only *_common.glsl (rebuild the shaders when they change).
  file(GLOB shared_headers "${ARG_INCLUDE_DIR}/*.h" "${ARG_INCLUDE_DIR}/*_common.glsl")

  set(inc_files "")
  set(table_entries "")
  set(array_defs "")
  foreach(source IN LISTS ARG_SOURCES)
    get_filename_component(file_name "${source}" NAME)
    string(REGEX REPLACE "\\.glsl$" "" shader_name "${file_name}")      # fill_pattern.comp
    string(REGEX MATCH "[^.]+$" stage "${shader_name}")                  # comp
    string(MAKE_C_IDENTIFIER "${shader_name}" ident)
    set(inc "${out_dir}/${shader_name}.spv.inc")
    add_custom_command(
      OUTPUT "${inc}"
      COMMAND Vulkan::glslc -fshader-stage=${stage} --target-env=vulkan1.2 -O -Werror
              -I "${ARG_INCLUDE_DIR}" -mfmt=num -o "${inc}" "${CMAKE_CURRENT_SOURCE_DIR}/${source}"
      DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/${source}" ${shared_headers}
      COMMENT "glslc ${file_name}"
      VERBATIM)
    list(APPEND inc_files "${inc}")
    string(APPEND array_defs "constexpr std::uint32_t k_${ident}[] = {\n#include \"${shader_name}.spv.inc\"\n};\n")
    string(APPEND table_entries "    {\"${shader_name}\", k_${ident}},\n")
  endforeach()

  set(registry "${out_dir}/embedded_shaders.cpp")
  configure_file("${CMAKE_CURRENT_SOURCE_DIR}/cmake/embedded_shaders.cpp.in" "${registry}" @ONLY)

  add_library(${target} OBJECT "${registry}" ${inc_files})
  target_include_directories(${target} PRIVATE "${out_dir}" "${CMAKE_CURRENT_SOURCE_DIR}/src")
  target_link_libraries(${target} PUBLIC Vulkan::Vulkan)
endfunction()
