# Finds libcmark (Debian: libcmark-dev) as cmark::cmark, for course_require(cmark ...)
# in course_deps.cmake. Not Debian's cmark-config.cmake: it also checks for /usr/bin/cmark,
# which is in the `cmark` package that libcmark-dev does not pull in, and without it
# stops configuration with a FATAL_ERROR that QUIET cannot catch.
find_path(cmark_INCLUDE_DIR cmark.h)
find_library(cmark_LIBRARY NAMES cmark)
if(cmark_INCLUDE_DIR AND EXISTS "${cmark_INCLUDE_DIR}/cmark_version.h")
  file(STRINGS "${cmark_INCLUDE_DIR}/cmark_version.h" cmark_version_line
       REGEX "#define CMARK_VERSION_STRING")
  string(REGEX MATCH "[0-9]+\\.[0-9]+\\.[0-9]+" cmark_VERSION "${cmark_version_line}")
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(cmark REQUIRED_VARS cmark_LIBRARY cmark_INCLUDE_DIR
                                  VERSION_VAR cmark_VERSION)
if(cmark_FOUND AND NOT TARGET cmark::cmark)
  add_library(cmark::cmark UNKNOWN IMPORTED)
  set_target_properties(cmark::cmark PROPERTIES IMPORTED_LOCATION "${cmark_LIBRARY}"
                                                INTERFACE_INCLUDE_DIRECTORIES "${cmark_INCLUDE_DIR}")
endif()
mark_as_advanced(cmark_INCLUDE_DIR cmark_LIBRARY)
