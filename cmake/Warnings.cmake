# Strict warnings for batchsim's own targets only; third-party headers are included as SYSTEM.
function(batchsim_set_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align
    -Woverloaded-virtual -Wnull-dereference -Wimplicit-fallthrough
    # Vulkan's idiom `VkFooInfo info{VK_STRUCTURE_TYPE_FOO_INFO};` zero-fills on purpose.
    -Wno-missing-field-initializers)
  if(BATCHSIM_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
