# CMake package of envpool's env SDK (docs/cpp_sdk.md).
#
#   execute_process(COMMAND "${Python_EXECUTABLE}" -m envpool --cmake-dir
#                   OUTPUT_VARIABLE envpool_DIR OUTPUT_STRIP_TRAILING_WHITESPACE)
#   find_package(envpool CONFIG REQUIRED)
#   envpool_add_plugin(mysim SOURCES mysim.cc)
#
# Provides
#   envpool::sdk            INTERFACE target: the SDK headers' include dir and C++20
#   envpool_add_plugin(name SOURCES src...)
#                           a MODULE library `name.so` linking envpool::sdk, with hidden
#                           visibility (only the ENVPOOL_PLUGIN entry points are exported) and
#                           -ffp-contract=off, the core's floating-point setting (no fused
#                           multiply-add, so float results match the core's and Python's)
#   envpool_VERSION, envpool_INCLUDE_DIR
#
# This file serves both the installed wheel (<site-packages>/envpool/share/cmake/envpool/, the
# headers in <site-packages>/envpool/include) and a source checkout (cmake/, headers in cpp/).
# A plugin runs only with the exact envpool version it was built against (core/plugin.h).
if(EXISTS "${CMAKE_CURRENT_LIST_DIR}/../../../include/core/plugin.h")
  get_filename_component(envpool_INCLUDE_DIR "${CMAKE_CURRENT_LIST_DIR}/../../../include" ABSOLUTE)
elseif(EXISTS "${CMAKE_CURRENT_LIST_DIR}/../cpp/core/plugin.h")
  get_filename_component(envpool_INCLUDE_DIR "${CMAKE_CURRENT_LIST_DIR}/../cpp" ABSOLUTE)
else()
  set(envpool_FOUND FALSE)
  string(CONCAT envpool_NOT_FOUND_MESSAGE "envpool's SDK headers are missing next to ${CMAKE_CURRENT_LIST_FILE}: "
         "reinstall it (`pip install --force-reinstall --no-deps envpool-ng`; PyPI's `envpool` is another project)")
  return()
endif()

file(STRINGS "${envpool_INCLUDE_DIR}/core/version.h" _envpool_version_line REGEX "^#define ENVPOOL_VERSION ")
string(REGEX MATCH "[0-9]+\\.[0-9]+\\.[0-9]+" envpool_VERSION "${_envpool_version_line}")

if(NOT TARGET envpool::sdk)
  add_library(envpool::sdk INTERFACE IMPORTED)
  set_target_properties(envpool::sdk PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${envpool_INCLUDE_DIR}"
    INTERFACE_COMPILE_FEATURES cxx_std_20)
endif()

function(envpool_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES")
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "envpool_add_plugin(${name}): give the sources, e.g. envpool_add_plugin(${name} SOURCES ${name}.cc)")
  endif()
  add_library(${name} MODULE ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE envpool::sdk)
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${name} PRIVATE -ffp-contract=off)
  endif()
  if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
    # An env plugin built without optimization steps several times slower than the core.
    target_compile_options(${name} PRIVATE -O2)
  endif()
endfunction()
