# The ALE (Arcade Learning Environment) C++ emulator as a static library, built from the pinned
# ale-py sdist and cached per user, so that rebuilding this plugin costs seconds, not the half
# minute (2 cores; measured 2026-11-26: 32 s) of compiling the emulator each time.
#
#   include(cmake/ale.cmake)      -> imported target ale::ale (static library, its headers, zlib)
#                                    and ALE_SOURCE_DIR (the unpacked sdist, for the ROM list)
#
# Where the source comes from: `pip download --no-deps --no-binary :all: ale-py==<version>` through
# pip's configured index (or the file named by ENVPOOL_ATARI_ALE_SDIST, for offline builds),
# checked against ALE_SDIST_SHA256 before anything of it is used. No copy of the ALE is kept in
# this repository.
#
# The cache: ${ENVPOOL_ATARI_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/envpool-ng-atari}/
#   ale-<sha256 of the sdist>-<compiler id>-<compiler version>/{include,lib,sdist}
# A build goes to a temporary folder beside it and is renamed into place when complete, so an
# interrupted or concurrent build never leaves a half-filled entry behind; a missing entry is
# simply built again.
set(ALE_VERSION "0.12.1")
set(ALE_SDIST_SHA256 "c503d574c5983e1063b451201ccb779d935919c0f6bf116fb0f4f8aa4c86d249")
set(ALE_SDIST_NAME "ale_py-${ALE_VERSION}.tar.gz")

if(DEFINED ENV{ENVPOOL_ATARI_CACHE_DIR})
  set(_ale_cache_root "$ENV{ENVPOOL_ATARI_CACHE_DIR}")
elseif(DEFINED ENV{XDG_CACHE_HOME} AND NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
  set(_ale_cache_root "$ENV{XDG_CACHE_HOME}/envpool-ng-atari")
else()
  set(_ale_cache_root "$ENV{HOME}/.cache/envpool-ng-atari")
endif()
set(ALE_CACHE_DIR
    "${_ale_cache_root}/ale-${ALE_SDIST_SHA256}-${CMAKE_CXX_COMPILER_ID}-${CMAKE_CXX_COMPILER_VERSION}")
set(_ale_lib "${ALE_CACHE_DIR}/lib/libale.a")

# Downloads (or takes from ENVPOOL_ATARI_ALE_SDIST) the sdist into `dest_dir`, checks its sha256.
function(_ale_fetch_sdist dest_dir out_path)
  file(MAKE_DIRECTORY "${dest_dir}")
  set(_path "${dest_dir}/${ALE_SDIST_NAME}")
  if(DEFINED ENV{ENVPOOL_ATARI_ALE_SDIST})
    message(STATUS "ALE: using the sdist $ENV{ENVPOOL_ATARI_ALE_SDIST}")
    file(COPY_FILE "$ENV{ENVPOOL_ATARI_ALE_SDIST}" "${_path}")
  else()
    message(STATUS "ALE: downloading ${ALE_SDIST_NAME} with pip")
    # --no-build-isolation: pip reads the sdist's metadata with the scikit-build-core of this
    # environment instead of installing the sdist's whole build requirements (jax among them).
    execute_process(
      COMMAND "${Python_EXECUTABLE}" -m pip download --no-deps --no-binary :all: --no-build-isolation
              --disable-pip-version-check -q -d "${dest_dir}" "ale-py==${ALE_VERSION}"
      RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
    if(NOT _rc EQUAL 0 OR NOT EXISTS "${_path}")
      message(FATAL_ERROR "ALE: `pip download ale-py==${ALE_VERSION}` (sdist) failed:\n${_out}${_err}\n"
                          "Download ${ALE_SDIST_NAME} from PyPI by hand and set ENVPOOL_ATARI_ALE_SDIST to its path.")
    endif()
  endif()
  file(SHA256 "${_path}" _sha)
  if(NOT _sha STREQUAL ALE_SDIST_SHA256)
    message(FATAL_ERROR "ALE: ${_path} has sha256 ${_sha}, expected ${ALE_SDIST_SHA256} (ale-py ${ALE_VERSION})")
  endif()
  set(${out_path} "${_path}" PARENT_SCOPE)
endfunction()

# Runs a step of the ALE's build. Its output is printed as it comes (what `pip install -v` shows:
# the compile's progress, ninja's [n/m] lines; a cold build takes minutes on a busy machine) and,
# on failure, its tail again in the error.
function(_ale_run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out ECHO_OUTPUT_VARIABLE
                          ECHO_ERROR_VARIABLE)
  if(NOT _rc EQUAL 0)
    string(LENGTH "${_out}" _len)
    if(_len GREATER 6000)
      math(EXPR _from "${_len} - 6000")
      string(SUBSTRING "${_out}" ${_from} 6000 _out)
    endif()
    message(FATAL_ERROR "ALE: ${step} failed:\n${_out}")
  endif()
endfunction()

if(NOT EXISTS "${_ale_lib}")
  string(RANDOM LENGTH 8 _tag)
  set(_tmp "${_ale_cache_root}/tmp-${_tag}")
  file(REMOVE_RECURSE "${_tmp}")
  _ale_fetch_sdist("${_tmp}/sdist" _sdist)
  file(ARCHIVE_EXTRACT INPUT "${_sdist}" DESTINATION "${_tmp}/src")
  set(_src "${_tmp}/src/ale_py-${ALE_VERSION}")
  include(ProcessorCount)
  ProcessorCount(_ncpu)
  if(_ncpu LESS 1)
    set(_ncpu 2)
  endif()
  message(STATUS "ALE: building the emulator (static, no SDL, no Python) into ${ALE_CACHE_DIR}; "
                 "once per compiler; half a minute on 2 idle cores, a quarter of an hour on busy ones")
  # RelWithDebInfo with its flags replaced by -O3: the ALE turns on LTO for every build type but
  # RelWithDebInfo and Debug; LTO objects in a static library make every link of the plugin a
  # long whole-program optimization, so it is off here.
  _ale_run("configuring the ALE"
    "${CMAKE_COMMAND}" -S "${_src}" -B "${_tmp}/build" -G "${CMAKE_GENERATOR}"
    "-DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}"
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O3 -DNDEBUG"
    -DBUILD_CPP_LIB=ON -DBUILD_PYTHON_LIB=OFF -DSDL_SUPPORT=OFF -DBUILD_VECTOR_LIB=OFF
    -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON
    "-DCMAKE_INSTALL_PREFIX=${_tmp}/install")
  _ale_run("building the ALE" "${CMAKE_COMMAND}" --build "${_tmp}/build" --parallel ${_ncpu})
  _ale_run("installing the ALE" "${CMAKE_COMMAND}" --install "${_tmp}/build")
  # What the plugin's build needs later from the sdist: the ROM list and the licence.
  file(COPY "${_src}/src/ale/python/roms/md5.json" "${_src}/LICENSE.md" DESTINATION "${_tmp}/install/sdist")
  file(GLOB _libdirs "${_tmp}/install/lib*")
  foreach(_d IN LISTS _libdirs)
    if(EXISTS "${_d}/libale.a" AND NOT _d STREQUAL "${_tmp}/install/lib")
      file(RENAME "${_d}" "${_tmp}/install/lib")
    endif()
  endforeach()
  if(NOT EXISTS "${_tmp}/install/lib/libale.a")
    message(FATAL_ERROR "ALE: the build installed no lib/libale.a under ${_tmp}/install")
  endif()
  # Atomic publish: another build may have finished first; then keep that one.
  file(RENAME "${_tmp}/install" "${ALE_CACHE_DIR}" RESULT _renamed)
  file(REMOVE_RECURSE "${_tmp}")
  if(NOT EXISTS "${_ale_lib}")
    message(FATAL_ERROR "ALE: could not put the built library into ${ALE_CACHE_DIR}: ${_renamed}")
  endif()
else()
  message(STATUS "ALE: using the cached build ${ALE_CACHE_DIR}")
endif()

set(ALE_SDIST_FILES_DIR "${ALE_CACHE_DIR}/sdist")
find_package(ZLIB REQUIRED)
find_package(Threads REQUIRED)
if(NOT TARGET ale::ale)
  add_library(ale::ale STATIC IMPORTED)
  set_target_properties(ale::ale PROPERTIES
    IMPORTED_LOCATION "${_ale_lib}"
    INTERFACE_INCLUDE_DIRECTORIES "${ALE_CACHE_DIR}/include;${ALE_CACHE_DIR}/include/ale"
    INTERFACE_LINK_LIBRARIES "ZLIB::ZLIB;Threads::Threads")
endif()
