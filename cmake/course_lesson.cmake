# course_add_lesson(<lesson> [GRADING])
#
# For every code exercise E (kind cpp or cu) in lessons/<lesson>/manifest.json,
# builds <lesson>_E_tests: lessons/<lesson>/tests/test_E.cpp and its parts
# test_E.<part>.cpp (course_test_sources), linked with the exercise's file and
# the lesson's references. One binary per exercise, so a compile error in one
# exercise leaves the others gradable. The manifest is the only list of
# exercises; nothing here names a lesson. CMake reads only each
# exercise's id, kind and file (string(JSON)); docs/manifest.schema.json validates the
# whole file (course.schemas.*), and <lesson>.manifest_as_grader checks that CMake's
# reading equals the grader's (`grader dev manifest`).
#   normal mode: exercise files come from solutions/<lesson>/ (ctest checks them);
#   GRADING:     they come from ${CMAKE_BINARY_DIR}/submission/, where the grader
#                writes one-line wrappers that #include the student's own files.
# A student release (grader dev release) has no solutions/: there normal mode builds
# no exercise (nothing to check them against), and a COURSE_CUDA grading tree times
# the submission without the reference solution.
# Grading trees build the C++ exercises' code with these (COURSE_SANITIZE, on by
# default). CUDA exercises run on the emulator's fibers, which ASan cannot follow
# without annotations, so they are built plainly.
option(COURSE_SANITIZE "Grading trees: build C++ exercise code with ASan and UBSan" ON)
# UBSan without its null and pointer-overflow checks: a dereference of either pointer is
# still stopped, by ASan, as a memory error; the two cost a re-grade about 0.1 s, a third of
# its longest test (docs/benchmarks.md, twenty-seventh session). Alignment stays checked:
# x86 reads a misaligned float without complaint, so only UBSan sees it.
set(course_sanitize_flags -fsanitize=address,undefined -fno-sanitize=null,pointer-overflow
    -fno-sanitize-recover=all -fno-omit-frame-pointer)
# The standard headers precompiled for a C++ exercise's code (read by cmake/course_editor.cmake too).
# Not <stdexcept>: it brings <string>, and loading that larger header cost each re-grade's
# compile about 0.05 s (docs/benchmarks.md, twenty-seventh session); a file that includes it
# still compiles, parsing it itself.
set(course_exercise_pch_headers <algorithm> <cmath> <cstddef> <limits> <numeric> <vector>)
# What every test file of a lesson parses: Catch2 and the standard headers, precompiled once
# per tree for all its test targets (a lab's test file 5.4 -> 3.6 s of CPU to compile;
# docs/benchmarks.md). Only headers every test could include: nothing of a lesson.
set(course_test_pch_headers <catch2/catch.hpp> <algorithm> <cmath> <cstddef> <random> <sstream>
                            <string> <vector>)

# Sets <out> to whether sanitized programs run on this machine, and writes the answer
# to <build>/sanitizers.txt for the grader's report. Some kernels (vm.mmap_rnd_bits = 32
# with GCC 12's libasan) make every ASan program die at start: grading under them would
# fail every C++ item, so such a tree builds plainly and the report says why.
function(course_check_sanitizers out)
  if(NOT COURSE_SANITIZE)
    file(WRITE "${CMAKE_BINARY_DIR}/sanitizers.txt" "off: COURSE_SANITIZE=OFF\n")
    set(${out} OFF PARENT_SCOPE)
    return()
  endif()
  include(CheckCXXSourceRuns)
  set(CMAKE_REQUIRED_FLAGS "${course_sanitize_flags}")
  string(REPLACE ";" " " CMAKE_REQUIRED_FLAGS "${CMAKE_REQUIRED_FLAGS}")
  set(CMAKE_REQUIRED_LINK_OPTIONS ${course_sanitize_flags})
  set(CMAKE_REQUIRED_QUIET ON)
  check_cxx_source_runs([[
#include <vector>
int main() { std::vector<int> v(4, 1); return v[3] - 1; }
]] COURSE_SANITIZERS_RUN)
  if(COURSE_SANITIZERS_RUN)
    file(WRITE "${CMAKE_BINARY_DIR}/sanitizers.txt" "on\n")
  else()
    file(WRITE "${CMAKE_BINARY_DIR}/sanitizers.txt"
         "off: a program built with ${CMAKE_REQUIRED_FLAGS} does not run on this machine\n")
  endif()
  set(${out} ${COURSE_SANITIZERS_RUN} PARENT_SCOPE)
endfunction()

# Sets <out> to exercise <id>'s test sources in <dir>: test_<id>.cpp when it exists, then
# its parts, test_<id>.<part>.cpp (a long suite split by what it covers), sorted. The dot
# keeps exercises apart: ids are identifiers, so test_matmul_tiled.cpp is never a part of
# an exercise matmul. Each part is one more translation unit to compile in every fresh
# grading tree: split a suite into few of them.
function(course_test_sources out dir id glob_mode)
  set(sources "")
  if(EXISTS "${dir}/test_${id}.cpp")
    set(sources "${dir}/test_${id}.cpp")
  endif()
  file(GLOB parts ${glob_mode} "${dir}/test_${id}.*.cpp")
  list(SORT parts)
  set(${out} ${sources} ${parts} PARENT_SCOPE)
endfunction()

function(course_add_lesson lesson)
  cmake_parse_arguments(PARSE_ARGV 1 arg "GRADING" "" "")
  set(lesson_dir "${PROJECT_SOURCE_DIR}/lessons/${lesson}")
  set(manifest "${lesson_dir}/manifest.json")
  if(NOT EXISTS "${manifest}")
    message(FATAL_ERROR "no manifest for lesson '${lesson}': ${manifest}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${manifest}")
  file(READ "${manifest}" manifest_json)
  set(solutions_dir "${PROJECT_SOURCE_DIR}/solutions/${lesson}")
  if(NOT EXISTS "${solutions_dir}")
    set(solutions_dir "")  # a student release
  endif()
  if(arg_GRADING)
    course_check_sanitizers(sanitize)
  endif()

  # Folders are globbed with CONFIGURE_DEPENDS, except in grading trees: there the
  # re-check would cost every re-grade 0.1 s per build run, and the grader re-configures
  # the tree itself when these folders change (grader-configured-for.txt).
  set(glob_mode CONFIGURE_DEPENDS)
  if(arg_GRADING)
    set(glob_mode "")
  endif()
  # References (CPU and GPU) shared by the lesson's tests: compiled once per tree.
  file(GLOB reference_cpp ${glob_mode} "${lesson_dir}/reference/*.cpp")
  file(GLOB reference_cuda ${glob_mode} "${lesson_dir}/reference/*.cu")
  add_library(${lesson}_references OBJECT ${reference_cpp})
  target_include_directories(${lesson}_references PUBLIC "${lesson_dir}/include" "${lesson_dir}/reference")
  target_link_libraries(${lesson}_references PUBLIC course_testing course_device_buffer)
  course_cuda_sources(${lesson}_references ${reference_cuda})
  if(COURSE_CUDA)
    # The emulator's test API, GPU edition: tests tagged [emulator] are not run.
    target_include_directories(${lesson}_references PUBLIC "${PROJECT_SOURCE_DIR}/grader/emulator/include_gpu")
    target_link_libraries(${lesson}_references PUBLIC CUDA::cudart)
  else()
    target_link_libraries(${lesson}_references PUBLIC cuda_emu)
  endif()
  set(trusted_targets ${lesson}_references course_testing course_alloc_count)
  # The test targets' shared precompiled header (course_test_pch_headers), built by a target
  # of no code of its own with the same flags as theirs (the references' usage requirements).
  set(test_pch ${lesson}_test_pch)
  file(CONFIGURE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/${test_pch}.cpp"
       CONTENT "// Owns ${lesson}'s test precompiled header: no code.\n")
  add_library(${test_pch} OBJECT "${CMAKE_CURRENT_BINARY_DIR}/${test_pch}.cpp")
  target_link_libraries(${test_pch} PRIVATE ${lesson}_references)
  target_precompile_headers(${test_pch} PRIVATE ${course_test_pch_headers})
  target_compile_options(${test_pch} PRIVATE -O1)
  list(APPEND trusted_targets ${test_pch})
  if(NOT COURSE_CUDA)
    # Every exercise includes the blanks' header: in the kernel files' precompiled header too
    # (a kernel file's compile, 0.43-0.52 s of CPU before, docs/benchmarks.md).
    set(emu_pch ${lesson}_emu_pch)
    course_emu_pch(${emu_pch} "${lesson_dir}/include" <course/blank.hpp>)
    target_link_libraries(${emu_pch} PRIVATE course_blank)
    list(APPEND trusted_targets ${emu_pch})
  endif()
  set(exercise_lines "")      # "id kind file" per code exercise, as `grader dev manifest` prints
  set(cuda_code "")           # the code objects of the CUDA exercises
  set(cuda_solution_code "")  # GRADING with COURSE_CUDA: the same, from solutions/

  string(JSON n_exercises LENGTH "${manifest_json}" exercises)
  math(EXPR last "${n_exercises} - 1")
  foreach(i RANGE ${last})
    string(JSON kind GET "${manifest_json}" exercises ${i} kind)
    if(NOT (kind STREQUAL "cpp" OR kind STREQUAL "cu"))
      continue()
    endif()
    string(JSON id GET "${manifest_json}" exercises ${i} id)
    string(JSON file GET "${manifest_json}" exercises ${i} file)
    string(APPEND exercise_lines "${id} ${kind} ${file}\n")
    if(arg_GRADING)
      set(source "${CMAKE_BINARY_DIR}/submission/${file}")
    elseif(solutions_dir)
      set(source "${solutions_dir}/${file}")
    else()
      continue()  # a student release: the grader builds the exercises in its own trees
    endif()
    set(test_source "${lesson_dir}/tests/test_${id}.cpp")
    if(NOT EXISTS "${test_source}")
      message(FATAL_ERROR "exercise '${id}' of ${lesson} has no tests: expected ${test_source}")
    endif()
    course_test_sources(test_sources "${lesson_dir}/tests" ${id} "${glob_mode}")

    # The student's code: the only thing rebuilt on a re-grade.
    add_library(${lesson}_${id}_code OBJECT)
    target_include_directories(${lesson}_${id}_code PRIVATE "${lesson_dir}/include")
    target_link_libraries(${lesson}_${id}_code PRIVATE course_blank)
    if(kind STREQUAL "cu")
      course_cuda_sources(${lesson}_${id}_code PCH_FROM ${lesson}_emu_pch "${source}")
    else()
      target_sources(${lesson}_${id}_code PRIVATE "${source}")
      target_compile_options(${lesson}_${id}_code PRIVATE -O1)
      if(arg_GRADING AND sanitize)
        # Graded C++ runs under AddressSanitizer and UBSan: a read one past a row
        # fails the item with the sanitizer's summary instead of passing by luck.
        # -g1 (line tables only, 0.15 s faster than -g) gives it the student's file and line.
        target_compile_options(${lesson}_${id}_code PRIVATE ${course_sanitize_flags} -g1)
        set(sanitize_${id} ON)
      endif()
      # The standard headers precompiled once per tree: a re-grade then compiles the
      # student's file in about 0.3 s instead of 0.9 s (docs/benchmarks.md).
      target_precompile_headers(${lesson}_${id}_code PRIVATE ${course_exercise_pch_headers})
    endif()
    target_compile_options(${lesson}_${id}_code PRIVATE -fno-diagnostics-color -fmax-errors=20)

    if(kind STREQUAL "cu")
      list(APPEND cuda_code ${lesson}_${id}_code)
      if(arg_GRADING AND COURSE_CUDA AND solutions_dir)
        add_library(${lesson}_${id}_solution_code OBJECT)
        target_include_directories(${lesson}_${id}_solution_code PRIVATE "${lesson_dir}/include")
        target_link_libraries(${lesson}_${id}_solution_code PRIVATE course_blank)
        course_cuda_sources(${lesson}_${id}_solution_code "${solutions_dir}/${file}")
        list(APPEND cuda_solution_code ${lesson}_${id}_solution_code)
      endif()
    endif()

    # The tests compiled apart from the student's code, so a grading tree builds them
    # before (and without the time limit of) the student's compile: <lesson>_trusted.
    add_library(${lesson}_${id}_test_objects OBJECT ${test_sources})
    target_link_libraries(${lesson}_${id}_test_objects PUBLIC ${lesson}_references)
    target_precompile_headers(${lesson}_${id}_test_objects REUSE_FROM ${test_pch})
    target_compile_options(${lesson}_${id}_test_objects PRIVATE -O1)
    list(APPEND trusted_targets ${lesson}_${id}_test_objects)
    set(target ${lesson}_${id}_tests)
    add_executable(${target})
    target_link_libraries(${target} PRIVATE ${lesson}_${id}_test_objects ${lesson}_references
                          ${lesson}_${id}_code)
    if(kind STREQUAL "cpp")
      # Heap accounting (course/alloc_count.hpp): tests can bound what student code allocates.
      target_link_libraries(${target} PRIVATE course_alloc_count)
    endif()
    if(sanitize_${id})
      target_link_options(${target} PRIVATE ${course_sanitize_flags})
    endif()
    set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
    if(NOT arg_GRADING AND COURSE_BUILD_TESTS)
      # The solutions must pass every test, veto detectors included, on fresh inputs.
      add_test(NAME ${lesson}.solutions.${id} COMMAND ${target} --rng-seed time)
    endif()

    # Marking mode's trusted comparison (course/remote.hpp), for exercises with a
    # tests/remote_<id>.cpp: <lesson>_<id>_judge runs the tests (and the hidden tests in
    # solutions/<lesson>/hidden_tests/, test_<id>.cpp and its parts as above, which
    # students never see) with no student code
    # in it; <lesson>_<id>_compute runs only the student's functions.
    set(remote_glue "${lesson_dir}/tests/remote_${id}.cpp")
    # A CUDA exercise crosses it on the emulator only (course/remote_device.hpp).
    if(EXISTS "${remote_glue}" AND (NOT arg_GRADING OR COURSE_MARKING)
       AND NOT (kind STREQUAL "cu" AND COURSE_CUDA))
      set(judge ${lesson}_${id}_judge)
      add_executable(${judge} ${test_sources} "${remote_glue}")
      course_test_sources(hidden "${PROJECT_SOURCE_DIR}/solutions/${lesson}/hidden_tests" ${id}
                          "${glob_mode}")
      if(hidden)
        target_sources(${judge} PRIVATE ${hidden})
        # Hidden tests reuse the public tests' helpers (e.g. lab_support.hpp).
        target_include_directories(${judge} PRIVATE "${lesson_dir}/tests")
      endif()
      target_compile_definitions(${judge} PRIVATE COURSE_REMOTE_JUDGE)
      target_precompile_headers(${judge} REUSE_FROM ${test_pch})
      target_compile_options(${judge} PRIVATE -O1)
      target_link_libraries(${judge} PRIVATE ${lesson}_references course_remote course_alloc_count)
      set(compute ${lesson}_${id}_compute)
      add_executable(${compute} "${remote_glue}")
      target_include_directories(${compute} PRIVATE "${lesson_dir}/include")
      target_compile_definitions(${compute} PRIVATE COURSE_REMOTE_COMPUTE)
      target_link_libraries(${compute} PRIVATE ${lesson}_${id}_code course_remote course_remote_main
                            course_alloc_count)
      if(sanitize_${id})
        target_link_options(${compute} PRIVATE ${course_sanitize_flags})
      endif()
      if(kind STREQUAL "cu")
        target_link_libraries(${judge} PRIVATE course_remote_device)
        target_link_libraries(${compute} PRIVATE course_remote_device)
        list(APPEND trusted_targets course_remote_device)
      endif()
      set_target_properties(${judge} ${compute} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
      list(APPEND trusted_targets ${judge} course_remote course_remote_main)
      if(NOT arg_GRADING AND COURSE_BUILD_TESTS)
        # The solutions pass across the process boundary too, hidden tests included.
        add_test(NAME ${lesson}.solutions.remote.${id} COMMAND ${judge} --rng-seed time)
        set_tests_properties(${lesson}.solutions.remote.${id} PROPERTIES
                             ENVIRONMENT "COURSE_COMPUTE=$<TARGET_FILE:${compute}>")
      endif()
    endif()
  endforeach()
  if(arg_GRADING)
    # Everything but the student's code (references, tests, judges, the emulator):
    # the grader builds it first, unconfined and without the student's time limit.
    if(NOT COURSE_CUDA)
      list(APPEND trusted_targets cuda_emu)
    endif()
    list(REMOVE_DUPLICATES trusted_targets)
    add_custom_target(${lesson}_trusted)
    add_dependencies(${lesson}_trusted ${trusted_targets})
  endif()

  # Fast kernels beyond the labs (lessons/<lesson>/fast/*.cu): what the GPU timings hold the
  # labs against, never part of a grade. <lesson>_fast is built where the bench is
  # (COURSE_CUDA) or where its tests run: fast/test_*.cpp on the emulator, in a tree with
  # tests (<lesson>_fast_tests, ctest <lesson>.fast). A grading tree without CUDA builds none
  # of it, so no student's first grade waits for these compiles.
  file(GLOB fast_cuda ${glob_mode} "${lesson_dir}/fast/*.cu")
  file(GLOB fast_tests ${glob_mode} "${lesson_dir}/fast/test_*.cpp")
  set(fast_tested FALSE)
  if(fast_tests AND NOT arg_GRADING AND COURSE_BUILD_TESTS AND NOT COURSE_CUDA)
    set(fast_tested TRUE)
  endif()
  set(fast_code "")
  if(fast_cuda AND (COURSE_CUDA OR fast_tested))
    add_library(${lesson}_fast OBJECT)
    course_cuda_sources(${lesson}_fast ${fast_cuda})
    target_include_directories(${lesson}_fast PUBLIC "${lesson_dir}/fast")
    target_link_libraries(${lesson}_fast PUBLIC ${lesson}_references)
    set(fast_code ${lesson}_fast)
    if(fast_tested)
      add_executable(${lesson}_fast_tests ${fast_tests})
      # The labs' test helpers (tests/lab_support.hpp) check these kernels as they check labs.
      target_include_directories(${lesson}_fast_tests PRIVATE "${lesson_dir}/tests")
      target_link_libraries(${lesson}_fast_tests PRIVATE ${lesson}_fast ${lesson}_references)
      set_target_properties(${lesson}_fast_tests PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
      add_test(NAME ${lesson}.fast COMMAND ${lesson}_fast_tests --rng-seed time)
    endif()
  endif()

  # GPU timings (COURSE_CUDA only): lessons/<lesson>/bench/*.cpp linked with the CUDA
  # exercises (<lesson>_gpu_bench) and, in a grading tree, with the solutions
  # (<lesson>_gpu_bench_solution, not in a student release), so the grader can report
  # the ratio of the two.
  file(GLOB bench_sources ${glob_mode} "${lesson_dir}/bench/*.cpp")
  file(GLOB bench_cuda ${glob_mode} "${lesson_dir}/bench/*.cu")  # baselines (GPU only)
  if(COURSE_CUDA AND bench_sources)
    add_executable(${lesson}_gpu_bench ${bench_sources})
    course_cuda_sources(${lesson}_gpu_bench ${bench_cuda})
    target_link_libraries(${lesson}_gpu_bench PRIVATE ${lesson}_references ${fast_code} ${cuda_code} CUDA::cublas)
    set_target_properties(${lesson}_gpu_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
    if(cuda_solution_code)
      add_executable(${lesson}_gpu_bench_solution ${bench_sources})
      course_cuda_sources(${lesson}_gpu_bench_solution ${bench_cuda})
      target_link_libraries(${lesson}_gpu_bench_solution PRIVATE ${lesson}_references ${fast_code} ${cuda_solution_code} CUDA::cublas)
      set_target_properties(${lesson}_gpu_bench_solution PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
    endif()
  endif()

  # Checks of the lesson's content (e.g. the figures in its notes): not graded.
  file(GLOB check_sources ${glob_mode} "${lesson_dir}/checks/*.cpp")
  if(check_sources AND NOT arg_GRADING AND COURSE_BUILD_TESTS)
    add_executable(${lesson}_checks ${check_sources})
    # nlohmann/json: checks may read inputs they share with the figure scripts (figures/*.json).
    target_link_libraries(${lesson}_checks PRIVATE course_testing nlohmann_json::nlohmann_json)
    target_compile_definitions(${lesson}_checks PRIVATE LESSON_DIR="${lesson_dir}")
    set_target_properties(${lesson}_checks PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
    add_test(NAME ${lesson}.checks COMMAND ${lesson}_checks)
  endif()

  # Figures drawn by a script (lessons/<lesson>/figures/make_figures.py, Python's standard
  # library only): <lesson>.figures_fresh draws them all into a temporary folder and fails,
  # naming the file and the command to regenerate, when a checked-in SVG differs.
  file(GLOB figure_script ${glob_mode} "${lesson_dir}/figures/make_figures.py")
  if(figure_script AND NOT arg_GRADING AND COURSE_BUILD_TESTS)
    find_package(Python3 COMPONENTS Interpreter QUIET)
    if(Python3_FOUND)
      add_test(NAME ${lesson}.figures_fresh COMMAND "${Python3_EXECUTABLE}" -B "${figure_script}" --check)
    endif()
  endif()

  file(WRITE "${CMAKE_BINARY_DIR}/manifests/${lesson}.exercises" "${exercise_lines}")
  if(NOT arg_GRADING AND COURSE_BUILD_TESTS AND TARGET grader)
    add_test(NAME ${lesson}.manifest_as_grader
             COMMAND sh -c "'$<TARGET_FILE:grader>' dev manifest ${lesson} --root '${PROJECT_SOURCE_DIR}' | \
               diff - '${CMAKE_BINARY_DIR}/manifests/${lesson}.exercises'")
  endif()
  # What follows grades the solutions: not in a student release.
  if(NOT arg_GRADING AND COURSE_BUILD_TESTS AND TARGET grader AND solutions_dir)
    add_test(NAME ${lesson}.exercises_in_sync COMMAND grader dev sync ${lesson} --check --root "${PROJECT_SOURCE_DIR}")
    add_test(NAME ${lesson}.dev_check COMMAND grader dev check ${lesson} --root "${PROJECT_SOURCE_DIR}")
    set_tests_properties(${lesson}.dev_check PROPERTIES TIMEOUT 1800)
    # The JSON report of a failing and of a passing submission obeys docs/report.schema.json.
    find_package(Python3 COMPONENTS Interpreter QUIET)
    if(Python3_FOUND)
      set(reports "${CMAKE_BINARY_DIR}/reports/${lesson}")
      add_test(NAME ${lesson}.report_schema
               COMMAND sh -c "mkdir -p '${reports}' && \
                 { '$<TARGET_FILE:grader>' ${lesson} --root '${PROJECT_SOURCE_DIR}' --json '${reports}/exercises.json' >/dev/null; test $? -eq 1; } && \
                 '$<TARGET_FILE:grader>' ${lesson} --answers --root '${PROJECT_SOURCE_DIR}' --json '${reports}/answers.json' >/dev/null && \
                 '${Python3_EXECUTABLE}' '${PROJECT_SOURCE_DIR}/cmake/validate_json.py' \
                   '${PROJECT_SOURCE_DIR}/docs/report.schema.json' '${reports}/exercises.json' '${reports}/answers.json'")
    endif()
  endif()
endfunction()
