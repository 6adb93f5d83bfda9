# UOPFUZZ_GIT_COMMIT: the commit the tree was configured at ("unknown" outside a git checkout).
# Configure re-runs when HEAD or the branch it names moves, so `uopfuzz --version` follows commits
# without touching anything else in a rebuild.
set(UOPFUZZ_GIT_COMMIT "unknown")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${PROJECT_SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --short=12 HEAD
                  WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}" OUTPUT_VARIABLE head
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(rc EQUAL 0)
    set(UOPFUZZ_GIT_COMMIT "${head}")
  endif()
  execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --git-dir WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
                  OUTPUT_VARIABLE git_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  get_filename_component(git_dir "${git_dir}" ABSOLUTE BASE_DIR "${PROJECT_SOURCE_DIR}")
  set(watched "${git_dir}/HEAD")
  file(READ "${git_dir}/HEAD" head_file)
  if(head_file MATCHES "^ref: ([^\n]+)")
    list(APPEND watched "${git_dir}/${CMAKE_MATCH_1}")
  endif()
  foreach(f ${watched} "${git_dir}/packed-refs")
    if(EXISTS "${f}")
      set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${f}")
    endif()
  endforeach()
endif()
configure_file("${PROJECT_SOURCE_DIR}/cmake/version.h.in" "${PROJECT_BINARY_DIR}/generated/uopfuzz_version.h" @ONLY)
