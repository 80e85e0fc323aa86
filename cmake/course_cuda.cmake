# course_cuda_sources(<target> <file.cu>...)
#
# Adds CUDA C++ files to a target, unchanged:
#   COURSE_CUDA=OFF (default, no GPU needed): the build rewrites each file's
#     <<<>>> launches (cuda_emu_rewrite), and g++ compiles the result for the CPU
#     emulator, with the instrumentation flags on that file only;
#   COURSE_CUDA=ON: nvcc compiles the file for the GPU (CMAKE_CUDA_ARCHITECTURES).
option(COURSE_CUDA "Compile .cu files with nvcc for a real GPU instead of the CPU emulator" OFF)

set(COURSE_EMU_FLAGS
    -include cuda_emu/cuda.hpp
    # Every load and store calls the emulator (__tsan_read4 ...); libtsan is never linked.
    -fsanitize=thread --param=tsan-instrument-func-entry-exit=0
    # One access per lane per instruction, as on the GPU; no SRA, so a float2/float4
    # load stays one 8/16-byte access (nvcc's LDG.E.64/.128), not two/four floats.
    -fno-tree-vectorize -fno-tree-sra
    # `#pragma unroll` is nvcc's and means nothing to g++: no warning for a student's report.
    -Wno-unknown-pragmas
    # Line tables only (a report's file:line); no variable locations, so no var-tracking
    # pass: 10-15 % of the larger kernel files' compile (docs/benchmarks.md).
    -O1 -g1 -fno-var-tracking
    -gdwarf-4)  # DWARF 4: binutils 2.40 addr2line misreads #line files in DWARF 5

# A kernel's fmaf() is then one instruction, not a libm call through the PLT (11 % of lab 3
# part 2's emulated tests, docs/benchmarks.md). Only where this machine's CPU has FMA (x86-64
# since 2013): a grading tree runs where it is built. The result is the same fused multiply-add
# either way, and with -std=c++20 g++ contracts no a * b + c of its own, so no verdict moves.
if(NOT COURSE_CUDA)
  include(CheckCXXSourceRuns)
  set(CMAKE_REQUIRED_FLAGS -mfma)
  set(CMAKE_REQUIRED_QUIET ON)
  check_cxx_source_runs(
    "int main(int argc, char**) { volatile float x = 1.0f + argc;
       return __builtin_cpu_supports(\"fma\") && __builtin_fmaf(x, x, x) == 6.0f ? 0 : 1; }"
    COURSE_HOST_FMA)
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_QUIET)
endif()
if(COURSE_HOST_FMA)
  list(APPEND COURSE_EMU_FLAGS -mfma)
endif()

# With PCH_FROM <owner> (a target whose only sources are .cu files, such as a lesson's
# exercise): the emulator's header comes precompiled from <owner> (course_emu_pch below),
# and the flags apply to the whole target so that header matches them: a re-grade compiles
# the student's file about 0.2 s sooner.
function(course_cuda_sources target)
  cmake_parse_arguments(arg "" "PCH_FROM" "" ${ARGN})
  set(emu_flags ${COURSE_EMU_FLAGS})
  if(arg_PCH_FROM AND NOT COURSE_CUDA)
    list(REMOVE_ITEM emu_flags -include cuda_emu/cuda.hpp)
    target_compile_options(${target} PRIVATE ${emu_flags})
    target_precompile_headers(${target} REUSE_FROM ${arg_PCH_FROM})
    set(emu_flags "")
  endif()
  set(rewritten "")
  foreach(cu IN LISTS arg_UNPARSED_ARGUMENTS)
    get_filename_component(abs "${cu}" ABSOLUTE)
    get_filename_component(dir "${abs}" DIRECTORY)
    get_filename_component(name "${abs}" NAME)
    if(COURSE_CUDA)
      target_sources(${target} PRIVATE "${abs}")
      set_source_files_properties("${abs}" PROPERTIES LANGUAGE CUDA)
    else()
      set(out "${CMAKE_CURRENT_BINARY_DIR}/cuda_emu/${target}/${name}.cpp")
      # The depfile names the file really rewritten: for the grader's one-line
      # #include wrappers, the student's own file.
      add_custom_command(
        OUTPUT "${out}"
        COMMAND cuda_emu_rewrite "${abs}" "${out}" --depfile "${out}.d"
        DEPENDS "${abs}" cuda_emu_rewrite
        DEPFILE "${out}.d"
        COMMENT "Rewriting <<<>>> launches in ${name} for the CPU emulator"
        VERBATIM)
      target_sources(${target} PRIVATE "${out}")
      list(APPEND rewritten "${out}")
      set_source_files_properties("${out}" PROPERTIES
        COMPILE_OPTIONS "${emu_flags}"
        INCLUDE_DIRECTORIES "${dir}")
      target_link_libraries(${target} PRIVATE cuda_emu)
    endif()
  endforeach()
  # The rewrites also belong to a target that depends on the tool alone: with Ninja, a command
  # that several targets use waits only for what all of them wait for, so the files are not
  # held back until everything <target> links (Catch2's 16 s compile, in a fresh tree).
  if(rewritten)
    add_custom_target(${target}_rewrite DEPENDS ${rewritten})
    add_dependencies(${target} ${target}_rewrite)
  endif()
endfunction()

# course_emu_pch(<owner> <include dir> <header>...): a target of no code of its own that owns
# the kernel files' precompiled header (<cuda_emu/cuda.hpp>, then the headers given), built
# with their flags and usage requirements. Every exercise's code reuses it (PCH_FROM): one
# header compiled per tree instead of one per lab, about 1 s of CPU each in a fresh tree.
function(course_emu_pch owner include_dir)
  set(emu_flags ${COURSE_EMU_FLAGS})
  list(REMOVE_ITEM emu_flags -include cuda_emu/cuda.hpp)
  file(CONFIGURE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/${owner}.cpp"
       CONTENT "// Owns the kernel files' precompiled header: no code.\n")
  add_library(${owner} OBJECT "${CMAKE_CURRENT_BINARY_DIR}/${owner}.cpp")
  target_include_directories(${owner} PRIVATE "${include_dir}")
  target_link_libraries(${owner} PRIVATE cuda_emu)
  target_compile_options(${owner} PRIVATE ${emu_flags})
  target_precompile_headers(${owner} PRIVATE <cuda_emu/cuda.hpp> ${ARGN})
endfunction()
