# Compiler warnings for every target of the course's own code.
#   COURSE_WARNINGS=ON (default):  -Wall -Wextra and friends on every target;
#   COURSE_WARNINGS_AS_ERRORS=ON:  and -Werror (the dev preset, so CI fails on a warning).
# Grading trees compile students' files: there warnings stay off, so a student's
# unused variable never fails a build.
option(COURSE_WARNINGS "Warn (-Wall -Wextra ...) on every target of the course's own code" ON)
option(COURSE_WARNINGS_AS_ERRORS "Treat those warnings as errors (-Werror)" OFF)

if(COURSE_WARNINGS AND NOT COURSE_GRADING_LESSON)
  # Directory-wide, so every target added after this include gets them.
  add_compile_options(-Wall -Wextra)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    # GCC 12 reports std::string concatenation at -O3 as overlapping memcpy (GCC bug 105329).
    add_compile_options(-Wno-restrict)
  endif()
  if(COURSE_WARNINGS_AS_ERRORS)
    add_compile_options(-Werror)
  endif()
endif()
