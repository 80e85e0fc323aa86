# course_add_lesson(<lesson> [GRADING])
#
# Builds <lesson>_tests: the lesson's Catch2 tests and CPU references, linked with
# the C++ exercise files that lessons/<lesson>/manifest.json lists. The manifest is
# the only list of exercise files; nothing here names a lesson.
#   normal mode: exercise files come from solutions/<lesson>/ (ctest checks them);
#   GRADING:     they come from ${CMAKE_BINARY_DIR}/submission/, where the grader
#                writes one-line wrappers that #include the student's own files.
function(course_add_lesson lesson)
  cmake_parse_arguments(PARSE_ARGV 1 arg "GRADING" "" "")
  set(lesson_dir "${PROJECT_SOURCE_DIR}/lessons/${lesson}")
  set(manifest "${lesson_dir}/manifest.json")
  if(NOT EXISTS "${manifest}")
    message(FATAL_ERROR "no manifest for lesson '${lesson}': ${manifest}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${manifest}")
  file(READ "${manifest}" manifest_json)

  # C++ and CUDA exercise files, straight from the manifest.
  set(exercise_sources "")
  set(cuda_sources "")
  string(JSON n_exercises LENGTH "${manifest_json}" exercises)
  math(EXPR last "${n_exercises} - 1")
  foreach(i RANGE ${last})
    string(JSON kind GET "${manifest_json}" exercises ${i} kind)
    if(kind STREQUAL "cpp" OR kind STREQUAL "cu")
      string(JSON file GET "${manifest_json}" exercises ${i} file)
      if(arg_GRADING)
        set(path "${CMAKE_BINARY_DIR}/submission/${file}")
      else()
        set(path "${PROJECT_SOURCE_DIR}/solutions/${lesson}/${file}")
      endif()
      if(kind STREQUAL "cu")
        list(APPEND cuda_sources "${path}")
      else()
        list(APPEND exercise_sources "${path}")
      endif()
    endif()
  endforeach()

  file(GLOB test_sources CONFIGURE_DEPENDS "${lesson_dir}/tests/*.cpp" "${lesson_dir}/reference/*.cpp")
  file(GLOB reference_cuda CONFIGURE_DEPENDS "${lesson_dir}/reference/*.cu")

  # Tests and references change rarely: one object library, compiled once per tree.
  add_library(${lesson}_test_objects OBJECT ${test_sources})
  target_include_directories(${lesson}_test_objects PRIVATE "${lesson_dir}/include" "${lesson_dir}/reference")
  target_link_libraries(${lesson}_test_objects PRIVATE course_testing)
  if(reference_cuda OR cuda_sources)
    target_link_libraries(${lesson}_test_objects PRIVATE cuda_emu)
  endif()

  # The student's code: small TUs, the only thing rebuilt on a re-grade.
  add_library(${lesson}_exercises OBJECT ${exercise_sources})
  target_include_directories(${lesson}_exercises PRIVATE "${lesson_dir}/include")
  target_link_libraries(${lesson}_exercises PRIVATE course_blank)
  target_compile_options(${lesson}_exercises PRIVATE -O1 -fno-diagnostics-color -fmax-errors=20)
  # CUDA exercises and references: the emulator by default, nvcc with COURSE_CUDA.
  course_cuda_sources(${lesson}_exercises ${cuda_sources} ${reference_cuda})
  if(reference_cuda)
    set_source_files_properties(${reference_cuda} PROPERTIES INCLUDE_DIRECTORIES "${lesson_dir}/include")
  endif()

  add_executable(${lesson}_tests)
  target_link_libraries(${lesson}_tests PRIVATE ${lesson}_test_objects ${lesson}_exercises course_testing)
  set_target_properties(${lesson}_tests PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")

  # Checks of the lesson's content (e.g. the figures in its notes): not graded.
  file(GLOB check_sources CONFIGURE_DEPENDS "${lesson_dir}/checks/*.cpp")
  if(check_sources AND NOT arg_GRADING AND COURSE_BUILD_TESTS)
    add_executable(${lesson}_checks ${check_sources})
    target_link_libraries(${lesson}_checks PRIVATE course_testing)
    target_compile_definitions(${lesson}_checks PRIVATE LESSON_DIR="${lesson_dir}")
    set_target_properties(${lesson}_checks PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
    add_test(NAME ${lesson}.checks COMMAND ${lesson}_checks)
  endif()

  if(NOT arg_GRADING AND COURSE_BUILD_TESTS)
    # The solutions must pass every test, veto detectors included, on fresh inputs.
    add_test(NAME ${lesson}.solutions COMMAND ${lesson}_tests --rng-seed time)
    if(TARGET grader)
      add_test(NAME ${lesson}.exercises_in_sync
               COMMAND grader dev sync ${lesson} --check --root "${PROJECT_SOURCE_DIR}")
      add_test(NAME ${lesson}.dev_check
               COMMAND grader dev check ${lesson} --root "${PROJECT_SOURCE_DIR}")
      set_tests_properties(${lesson}.dev_check PROPERTIES TIMEOUT 1200)
      # The JSON report of a failing and of a passing submission obeys docs/report.schema.json.
      find_package(Python3 COMPONENTS Interpreter QUIET)
      if(Python3_FOUND)
        set(reports "${CMAKE_BINARY_DIR}/reports/${lesson}")
        add_test(NAME ${lesson}.report_schema
                 COMMAND sh -c "mkdir -p '${reports}' && \
                   { '$<TARGET_FILE:grader>' ${lesson} --root '${PROJECT_SOURCE_DIR}' --json '${reports}/exercises.json' >/dev/null; test $? -eq 1; } && \
                   '$<TARGET_FILE:grader>' ${lesson} --answers --root '${PROJECT_SOURCE_DIR}' --json '${reports}/answers.json' >/dev/null && \
                   '${Python3_EXECUTABLE}' '${PROJECT_SOURCE_DIR}/cmake/validate_report.py' \
                     '${PROJECT_SOURCE_DIR}/docs/report.schema.json' '${reports}/exercises.json' '${reports}/answers.json'")
      endif()
    endif()
  endif()
endfunction()
