# Third-party packages, all from Debian (installed by .ci/install-deps).
# A missing one stops configuration with the package to install.
macro(course_require package debian_package)
  find_package(${package} ${ARGN} QUIET)
  if(NOT ${package}_FOUND)
    message(FATAL_ERROR "${package} not found: install it with `sudo apt-get install ${debian_package}` "
                        "(or run .ci/install-deps)")
  endif()
endmacro()

course_require(Catch2 catch2)
if(COURSE_CUDA)
  find_package(CUDAToolkit REQUIRED)  # nvcc, cudart and cuBLAS for GPU builds
else()
  course_require(Boost libboost-context-dev COMPONENTS context)  # the CPU emulator's fibers
endif()
if(COURSE_BUILD_GRADER AND NOT COURSE_GRADING_LESSON)
  course_require(fmt libfmt-dev)
  course_require(nlohmann_json nlohmann-json3-dev)
  course_require(CLI11 libcli11-dev)
  course_require(cmark libcmark-dev)  # answers.md parser (cmake/Findcmark.cmake)
endif()
if(NOT TARGET nlohmann_json::nlohmann_json)
  # The test harness's JSON reporter needs it in grading trees too.
  course_require(nlohmann_json nlohmann-json3-dev)
endif()
