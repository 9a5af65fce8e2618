# BATCHSIM_SANITIZE=address,undefined instruments every target of this build.
if(BATCHSIM_SANITIZE)
  set(_flags -fsanitize=${BATCHSIM_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_compile_options(${_flags})
  add_link_options(${_flags})
  message(STATUS "batchsim: sanitizers enabled: ${BATCHSIM_SANITIZE}")
endif()
