# course_add_editor_entries(): compile commands for editors, so that clangd (Debian's
# clangd 14, `apt install clangd`) reads each exercise file with the flags the grader
# compiles it with, and shows no error on a file the grader would build.
#
# Files: for every code exercise (kind cpp or cu) of lessons/*/manifest.json, its file in
# exercises/<lesson>/ and in solutions/<lesson>/ (but a solution that this tree compiles
# itself, in a COURSE_BUILD_TESTS tree, keeps that entry).
#
# Where: in CMake's own <build>/compile_commands.json (CMAKE_EXPORT_COMPILE_COMMANDS),
# through <lesson>_editor_cpp and <lesson>_editor_cu, OBJECT libraries that are never
# built (EXCLUDE_FROM_ALL; building one by name runs `cmake -E true` instead of the
# compiler). The student's tree is build/ (the default preset), and clangd looks for
# build/compile_commands.json in every parent folder of a file it opens, so it finds them
# with no setting. Why not a file of our own:
#   - written at configure time, it would be overwritten: CMake writes compile_commands.json
#     at each generate step, which comes after configure;
#   - merged into CMake's file at build time, the entries would vanish at each re-configure
#     until the next build;
#   - a .clangd file naming another folder (CompilationDatabase:) would not reach students:
#     a student release (grader dev release) leaves top-level dot-files behind.
# As targets, the entries are CMake's, written with the rest after a configure alone, with
# this checkout's absolute paths and the build type's flags (-O3 -DNDEBUG in Release, as in
# a grading tree).
#
# Flags, as a grading tree (cmake/course_lesson.cmake, cmake/course_cuda.cmake) compiles the
# student's file, less what applies to the compiled copy only (diagnostics' format, and for
# a .cu file the emulator's instrumentation, -fsanitize=thread and the -fno-tree-* flags),
# and without the course's warnings, as there:
#   cpp: -std=c++20 -O1 (with COURSE_SANITIZE: ASan and UBSan, -g1), the lesson's include/
#        and grader/testing/include, the same precompiled standard headers (clangd reads
#        the generated cmake_pch.hxx as a plain header);
#   cu:  the file as it is, not the copy whose <<<>>> launches the build rewrites: clang's
#        CUDA mode for the host side only, with no CUDA installation (-x cuda
#        --cuda-host-only -nocudainc -nocudalib; -fcuda-allow-variadic-functions for printf
#        and the C library's other variadic functions on the device side), the emulator's
#        headers for CUDA's API, and instead of the grading tree's precompiled
#        cuda_emu/cuda.hpp and course/blank.hpp the editor-only
#        grader/emulator/include_editor/cuda_emu_editor.hpp, which includes them as clang's
#        CUDA mode needs (its folder comes first, for its <cooperative_groups.h>).
# The course.clangd test (grader/tests/clangd_test.sh) runs clangd on every such file.

# Adds <name>, an editor-only OBJECT library of the sources given, never built, with only
# the options added to it later (not the directory's warnings).
function(course_editor_target name)
  add_library(${name} OBJECT EXCLUDE_FROM_ALL ${ARGN})
  set_property(TARGET ${name} PROPERTY COMPILE_OPTIONS "")
  set_property(TARGET ${name} PROPERTY CXX_COMPILER_LAUNCHER "${CMAKE_COMMAND};-E;true")
endfunction()

function(course_add_editor_entries)
  set(root "${PROJECT_SOURCE_DIR}")
  set(editor_include "${root}/grader/emulator/include_editor")
  file(GLOB manifests CONFIGURE_DEPENDS "${root}/lessons/*/manifest.json")
  foreach(manifest IN LISTS manifests)
    get_filename_component(lesson_dir "${manifest}" DIRECTORY)
    get_filename_component(lesson "${lesson_dir}" NAME)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${manifest}")
    file(READ "${manifest}" manifest_json)
    set(cpp_files "")
    set(cu_files "")
    string(JSON n_exercises LENGTH "${manifest_json}" exercises)
    math(EXPR last "${n_exercises} - 1")
    foreach(i RANGE ${last})
      string(JSON kind GET "${manifest_json}" exercises ${i} kind)
      if(NOT (kind STREQUAL "cpp" OR kind STREQUAL "cu"))
        continue()
      endif()
      string(JSON file GET "${manifest_json}" exercises ${i} file)
      foreach(dir exercises solutions)
        set(path "${root}/${dir}/${lesson}/${file}")
        if(NOT EXISTS "${path}")
          continue()  # a student release has no solutions/
        endif()
        # A solution that this tree compiles itself (<lesson>_<id>_code) keeps that entry;
        # so does a .cu file nvcc compiles (COURSE_CUDA), whose LANGUAGE must stay CUDA.
        if(dir STREQUAL "solutions" AND COURSE_BUILD_TESTS AND (kind STREQUAL "cpp" OR COURSE_CUDA))
          continue()
        endif()
        list(APPEND ${kind}_files "${path}")
      endforeach()
    endforeach()

    if(cpp_files)
      course_editor_target(${lesson}_editor_cpp ${cpp_files})
      target_include_directories(${lesson}_editor_cpp PRIVATE "${lesson_dir}/include"
                                 "${root}/grader/testing/include")
      target_compile_options(${lesson}_editor_cpp PRIVATE -O1)
      if(COURSE_SANITIZE)
        target_compile_options(${lesson}_editor_cpp PRIVATE ${course_sanitize_flags} -g1)
      endif()
      target_precompile_headers(${lesson}_editor_cpp PRIVATE ${course_exercise_pch_headers})
    endif()
    if(cu_files)
      course_editor_target(${lesson}_editor_cu ${cu_files})
      # SHELL: keeps each pair whole through CMake's de-duplication of options.
      target_compile_options(${lesson}_editor_cu PRIVATE
        "SHELL:-x cuda" --cuda-host-only -nocudainc -nocudalib
        "SHELL:-Xclang -fcuda-allow-variadic-functions" -O1
        "SHELL:-include ${editor_include}/cuda_emu_editor.hpp")
      target_include_directories(${lesson}_editor_cu PRIVATE "${editor_include}"
                                 "${root}/grader/emulator/include" "${lesson_dir}/include"
                                 "${root}/grader/testing/include")
      foreach(cu IN LISTS cu_files)
        # The .cu file's folder, as the grading tree gives the rewritten copy; C++ to CMake
        # (its -x c++ comes first, and -x cuda after it wins).
        get_filename_component(cu_dir "${cu}" DIRECTORY)
        set_source_files_properties("${cu}" PROPERTIES LANGUAGE CXX INCLUDE_DIRECTORIES "${cu_dir}")
      endforeach()
    endif()
  endforeach()
endfunction()
