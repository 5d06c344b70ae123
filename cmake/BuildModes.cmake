# Compiler flags for our own code and the sanitizer build modes.
set(SLIPSTREAM_WARNINGS -Wall -Wextra -Wno-unused-parameter)
# GCC 12 reports false -Wrestrict errors inside libstdc++'s std::string at -O2/-O3 (GCC bug 105329).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  list(APPEND SLIPSTREAM_WARNINGS -Wno-restrict)
endif()
if(SLIPSTREAM_WERROR)
  list(APPEND SLIPSTREAM_WARNINGS -Werror)
endif()

if(SLIPSTREAM_SANITIZE)
  string(REPLACE ";" "," _san "${SLIPSTREAM_SANITIZE}")
  add_compile_options(-fsanitize=${_san} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${_san})
  if("undefined" IN_LIST SLIPSTREAM_SANITIZE)
    # UBSan's vptr check reads vtables through a pipe; with every fd in use (the EMFILE tests) it reports live
    # objects as "invalid vptr". ASan still catches a destroyed object's vptr load as heap-use-after-free.
    add_compile_options(-fno-sanitize=vptr)
  endif()
endif()

if(SLIPSTREAM_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "SLIPSTREAM_FUZZ needs clang (CXX=clang++)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
