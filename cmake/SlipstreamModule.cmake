# One call per module makes its library; tests, benchmarks and fuzz targets sit beside the code.
#
#   slipstream_module(http_h1 SOURCES parser.cpp DEPS ss_base)
#   slipstream_test(http_h1_parser_test SOURCES parser_test.cpp DEPS ss_http_h1)
#   slipstream_bench(router_bench SOURCES router_bench.cpp DEPS ss_server)
#   slipstream_fuzz(h1_parser SOURCES parser_fuzz.cpp DEPS ss_http_h1)
#
# Libraries are named ss_<name>. Sources include each other as "base/status.h", "http/h1/parser.h";
# scripts/check_layers.py fails the lint on an include or a DEPS entry that reaches a lower layer.

function(slipstream_module name)
  cmake_parse_arguments(M "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(ss_${name} STATIC ${M_SOURCES})
  target_include_directories(ss_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(ss_${name} PUBLIC ${M_DEPS} PRIVATE ${M_PRIVATE_DEPS})
  target_compile_options(ss_${name} PRIVATE ${SLIPSTREAM_WARNINGS})
endfunction()

function(slipstream_test name)
  if(NOT SLIPSTREAM_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(T "" "" "SOURCES;DEPS;ENV" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_DEPS} GTest::gtest GTest::gtest_main GTest::gmock)
  target_compile_options(${name} PRIVATE ${SLIPSTREAM_WARNINGS})
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES
    ENVIRONMENT "SLIPSTREAM_TEST_DATA=$ENV{SLIPSTREAM_TEST_DATA};SLIPSTREAM_SOURCE_DIR=${PROJECT_SOURCE_DIR};${T_ENV}"
    TIMEOUT 300)
endfunction()

function(slipstream_bench name)
  if(NOT SLIPSTREAM_BUILD_BENCH)
    return()
  endif()
  cmake_parse_arguments(B "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${B_SOURCES})
  target_link_libraries(${name} PRIVATE ${B_DEPS} benchmark::benchmark)
  target_compile_options(${name} PRIVATE ${SLIPSTREAM_WARNINGS})
endfunction()

# A fuzz target defines LLVMFuzzerTestOneInput. In the fuzz build it becomes a libFuzzer binary
# (fuzz_<name>); in every build a replay binary runs the committed corpus fuzz/corpus/<name>/ under ctest.
function(slipstream_fuzz name)
  cmake_parse_arguments(F "" "" "SOURCES;DEPS" ${ARGN})
  set(_corpus ${PROJECT_SOURCE_DIR}/fuzz/corpus/${name})
  if(SLIPSTREAM_FUZZ)
    add_executable(fuzz_${name} ${F_SOURCES})
    target_link_libraries(fuzz_${name} PRIVATE ${F_DEPS})
    target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
  endif()
  if(SLIPSTREAM_BUILD_TESTS)
    add_executable(fuzz_${name}_replay ${F_SOURCES} ${PROJECT_SOURCE_DIR}/fuzz/replay_main.cpp)
    target_link_libraries(fuzz_${name}_replay PRIVATE ${F_DEPS})
    target_compile_options(fuzz_${name}_replay PRIVATE ${SLIPSTREAM_WARNINGS})
    add_test(NAME fuzz_${name}_replay COMMAND fuzz_${name}_replay ${_corpus})
    set_tests_properties(fuzz_${name}_replay PROPERTIES TIMEOUT 300)
  endif()
endfunction()
