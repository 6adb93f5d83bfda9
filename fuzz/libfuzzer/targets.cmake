# The nested build (UOPFUZZ_TARGETS=libfuzzer-only): the libraries the targets need, compiled with
# coverage and sanitizer instrumentation, and the targets. ClusterFuzzLite's build.sh uses it directly,
# with its own flags: UOPFUZZ_FUZZ_FLAGS="" (the flags come in CXXFLAGS) and
# UOPFUZZ_FUZZ_ENGINE=$LIB_FUZZING_ENGINE.
set(UOPFUZZ_FUZZ_FLAGS "-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
    CACHE STRING "compile flags of every object in the nested build")
set(UOPFUZZ_FUZZ_ENGINE "-fsanitize=fuzzer,address,undefined" CACHE STRING "link flags of the targets")
# -O1 compiles markedly faster than -O2 under ASan and is what OSS-Fuzz uses.
set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-O1 -gline-tables-only")
separate_arguments(fuzz_flags UNIX_COMMAND "${UOPFUZZ_FUZZ_FLAGS}")
separate_arguments(fuzz_engine UNIX_COMMAND "${UOPFUZZ_FUZZ_ENGINE}")
add_compile_options(${fuzz_flags})

find_package(Boost REQUIRED)
find_package(Threads REQUIRED)
find_package(OpenSSL REQUIRED)
include(${PROJECT_SOURCE_DIR}/cmake/Mpfr.cmake)
find_package(nlohmann_json REQUIRED)  # codegen's plug-in handshake, fuzz's policy and summaries
add_subdirectory(${PROJECT_SOURCE_DIR}/core ${PROJECT_BINARY_DIR}/core)
add_subdirectory(${PROJECT_SOURCE_DIR}/interp ${PROJECT_BINARY_DIR}/interp)
add_subdirectory(${PROJECT_SOURCE_DIR}/codegen ${PROJECT_BINARY_DIR}/codegen)
add_subdirectory(${PROJECT_SOURCE_DIR}/fuzz ${PROJECT_BINARY_DIR}/fuzz)

foreach(t parse_target diff_target)
  add_executable(${t} ${CMAKE_CURRENT_SOURCE_DIR}/${t}.cpp)
  target_link_options(${t} PRIVATE ${fuzz_flags} ${fuzz_engine})
  set_target_properties(${t} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
endforeach()
target_link_libraries(parse_target PRIVATE uf_interp uf_core)
target_sources(diff_target PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/mutator.cpp)
target_link_libraries(diff_target PRIVATE uf_campaign)

# The seed corpora, staged at build time into seeds/<target>/ of this build tree (CTest and
# .clusterfuzzlite/build.sh take them from there) from their sources in the repository: the example
# programs (tests/programs), generated programs (seeds/programs), and for parse_target alone the golden
# programs (tests/golden/programs) and malformed files (seeds/malformed). diff_target compiles every
# input it has not seen, so it starts from the small set.
file(GLOB examples CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/programs/*.uop)
file(GLOB golden CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/golden/programs/*.uop)
file(GLOB generated CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/seeds/programs/*.uop)
file(GLOB malformed CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/seeds/malformed/*.uop)
set(parse_seeds ${examples} ${generated} ${golden} ${malformed})
set(diff_seeds ${examples} ${generated})
set(seeds ${PROJECT_BINARY_DIR}/seeds)
add_custom_command(OUTPUT ${seeds}/staged
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${seeds}/parse_target ${seeds}/diff_target
  COMMAND ${CMAKE_COMMAND} -E make_directory ${seeds}/parse_target ${seeds}/diff_target
  COMMAND ${CMAKE_COMMAND} -E copy ${parse_seeds} ${seeds}/parse_target
  COMMAND ${CMAKE_COMMAND} -E copy ${diff_seeds} ${seeds}/diff_target
  COMMAND ${CMAKE_COMMAND} -E touch ${seeds}/staged
  DEPENDS ${parse_seeds}
  COMMENT "Staging the libFuzzer seed corpora in ${seeds}")
add_custom_target(seed_corpora ALL DEPENDS ${seeds}/staged)
