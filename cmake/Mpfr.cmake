# MPFR (and GMP under it): the correctly rounded reference of approximate ops (interp/approx.h), from
# Debian's libmpfr-dev; one imported target, MPFR::mpfr, for the main build and the nested libFuzzer build.
if(TARGET MPFR::mpfr)
  return()
endif()
find_path(MPFR_INCLUDE_DIR mpfr.h REQUIRED)
find_library(MPFR_LIBRARY mpfr REQUIRED)
find_library(GMP_LIBRARY gmp REQUIRED)
add_library(MPFR::mpfr INTERFACE IMPORTED)
target_include_directories(MPFR::mpfr INTERFACE ${MPFR_INCLUDE_DIR})
target_link_libraries(MPFR::mpfr INTERFACE ${MPFR_LIBRARY} ${GMP_LIBRARY})
