# Box2D 2.3 (the physics of gymnasium's Box2D envs) as a static library, built from a pinned
# sdist and cached per user, so that it is compiled once per compiler, not on every build.
#
#   include(${PROJECT_SOURCE_DIR}/cmake/box2d.cmake)  -> BOX2D_FOUND; when TRUE, the imported target box2d::box2d
#                                       (static library and its headers) and BOX2D_LICENSE_FILE
#
# Which source: gymnasium[box2d] installs PyPI's `box2d` 2.3.10, which ships wheels only. The
# C++ sources of Box2D in pybox2d's tags 2.3.2 and 2.3.10 are identical (`git diff 2.3.2 2.3.10
# -- Box2D/` changes only the SWIG file Box2D_world.i), and PyPI's `box2d` 2.3.2 sdist carries
# exactly those files; so the library here is built from that sdist, checked against its sha256.
# It comes through pip (`pip download --no-deps --no-binary :all: box2d==2.3.2`, from pip's
# configured index, as plugins/atari/cmake/ale.cmake fetches the ALE), or from the file named by
# ENVPOOL_BOX2D_SDIST for offline builds. Without it the Box2D tasks are left out (a warning, and
# the tests skip); -DENVPOOL_BOX2D=OFF leaves them out on purpose.
#
# pip inside pip's own build: `pip wheel .` / `pip install .` run this build with PYTHONPATH
# pointing at their isolated environment (which hides the interpreter's site-packages, pip among
# them) and PYTHONNOUSERSITE set, so pip runs here with both unset: the interpreter's own pip, its
# configuration and index. `python -m build` builds in a virtual environment without pip; there
# the first `pip` on PATH (the one that environment was made from) does the download.
#
# The one change to the sources: pybox2d's b2Settings.h includes <Python.h> so that a failed
# b2Assert raises Python's AssertionError before throwing b2AssertException. Here the exception
# becomes a std::logic_error carrying the failed condition (the pool reports it as an error of
# the env), and no Python header is needed. Asserts stay on, as in the wheel; they only test.
#
# Flags: -O2 without -ffast-math and with -ffp-contract=off (no fused multiply-add), x86-64's
# baseline instruction set (SSE2), as the manylinux wheel of box2d 2.3.10 was compiled (GCC,
# -O3, no -march): IEEE float arithmetic in the source's order, so the results are the wheel's
# bit for bit (tests/envs/box2d/test_box2d.py compares whole episodes). No sanitizer flags: the
# sanitized builds link the same uninstrumented library (it is third-party code; the envs that
# call it are instrumented).
#
# The cache: ${ENVPOOL_BOX2D_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/envpool-ng}/
#   box2d-<sha256 of the sdist>-<compiler id>-<compiler version>-<flags hash>/{include,lib,LICENSE}
# A build goes to a temporary folder beside it and is renamed into place when complete, so an
# interrupted or concurrent build never leaves a half-filled entry; a missing entry is rebuilt.
option(ENVPOOL_BOX2D "Build the Box2D tasks (LunarLander, BipedalWalker)" ON)
set(BOX2D_FOUND FALSE)
set(BOX2D_VERSION "2.3.2")
set(BOX2D_SDIST_SHA256 "d1557dffdf9c1d6c796ec5df53e3d93227bb026c14b8411d22c295edaa2fb225")
set(BOX2D_SDIST_NAME "Box2D-${BOX2D_VERSION}.tar.gz")
set(BOX2D_CXX_FLAGS -O2 -DNDEBUG -fPIC -ffp-contract=off -fno-fast-math -w)

if(ENVPOOL_BOX2D)
  if(DEFINED ENV{ENVPOOL_BOX2D_CACHE_DIR})
    set(_box2d_cache_root "$ENV{ENVPOOL_BOX2D_CACHE_DIR}")
  elseif(DEFINED ENV{XDG_CACHE_HOME} AND NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
    set(_box2d_cache_root "$ENV{XDG_CACHE_HOME}/envpool-ng")
  else()
    set(_box2d_cache_root "$ENV{HOME}/.cache/envpool-ng")
  endif()
  string(MD5 _box2d_flags_hash "${BOX2D_CXX_FLAGS}")
  string(SUBSTRING "${_box2d_flags_hash}" 0 8 _box2d_flags_hash)
  set(BOX2D_CACHE_DIR "${_box2d_cache_root}/box2d-${BOX2D_SDIST_SHA256}-${CMAKE_CXX_COMPILER_ID}-${CMAKE_CXX_COMPILER_VERSION}-${_box2d_flags_hash}")
  set(_box2d_lib "${BOX2D_CACHE_DIR}/lib/libbox2d.a")

  if(NOT EXISTS "${_box2d_lib}")
    string(RANDOM LENGTH 8 _tag)
    set(_tmp "${_box2d_cache_root}/tmp-box2d-${_tag}")
    file(REMOVE_RECURSE "${_tmp}")
    file(MAKE_DIRECTORY "${_tmp}/sdist")
    set(_sdist "${_tmp}/sdist/${BOX2D_SDIST_NAME}")
    set(_box2d_error "")
    if(DEFINED ENV{ENVPOOL_BOX2D_SDIST})
      message(STATUS "Box2D: using the sdist $ENV{ENVPOOL_BOX2D_SDIST}")
      file(COPY_FILE "$ENV{ENVPOOL_BOX2D_SDIST}" "${_sdist}" RESULT _rc)
      if(NOT _rc EQUAL 0)
        set(_box2d_error "cannot copy $ENV{ENVPOOL_BOX2D_SDIST}: ${_rc}")
      endif()
    else()
      # No --no-build-isolation: pip reads the sdist's metadata (setup.py) in an environment of
      # its own, with the setuptools and wheel that need not be installed here.
      message(STATUS "Box2D: downloading ${BOX2D_SDIST_NAME} with pip")
      set(_pip_args download --no-deps --no-binary :all: --disable-pip-version-check -q -d "${_tmp}/sdist"
                    "box2d==${BOX2D_VERSION}")
      execute_process(
        COMMAND "${CMAKE_COMMAND}" -E env --unset=PYTHONPATH --unset=PYTHONNOUSERSITE
                "${Python_EXECUTABLE}" -m pip ${_pip_args}
        RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
      if(NOT _rc EQUAL 0 OR NOT EXISTS "${_sdist}")
        find_program(_box2d_pip NAMES pip3 pip)
        if(_box2d_pip)
          execute_process(
            COMMAND "${CMAKE_COMMAND}" -E env --unset=PYTHONPATH --unset=PYTHONNOUSERSITE "${_box2d_pip}" ${_pip_args}
            RESULT_VARIABLE _rc OUTPUT_VARIABLE _out2 ERROR_VARIABLE _err2)
          string(APPEND _err "\n${_box2d_pip}: ${_out2}${_err2}")
        endif()
        unset(_box2d_pip CACHE)
      endif()
      if(NOT _rc EQUAL 0 OR NOT EXISTS "${_sdist}")
        set(_box2d_error "`pip download box2d==${BOX2D_VERSION}` (sdist) failed: ${_out}${_err}")
      endif()
    endif()
    if(_box2d_error STREQUAL "")
      file(SHA256 "${_sdist}" _sha)
      if(NOT _sha STREQUAL BOX2D_SDIST_SHA256)
        message(FATAL_ERROR "Box2D: ${_sdist} has sha256 ${_sha}, expected ${BOX2D_SDIST_SHA256} (box2d ${BOX2D_VERSION})")
      endif()
      file(ARCHIVE_EXTRACT INPUT "${_sdist}" DESTINATION "${_tmp}/src")
      set(_src "${_tmp}/src/Box2D-${BOX2D_VERSION}")
      # The change described above, checked: the build stops if the sdist's header differs.
      set(_settings "${_src}/Box2D/Common/b2Settings.h")
      file(READ "${_settings}" _text)
      set(_old_class "class b2AssertException {};")
      set(_old_assert "#define b2Assert(A) if (!(A)) { PyErr_SetString(PyExc_AssertionError, #A); throw b2AssertException(); }")
      string(FIND "${_text}" "${_old_assert}" _at_assert)
      string(FIND "${_text}" "#include <Python.h>" _at_include)
      if(_at_assert EQUAL -1 OR _at_include EQUAL -1)
        message(FATAL_ERROR "Box2D: ${_settings} is not the expected pybox2d header")
      endif()
      string(REPLACE "#include <Python.h>" "#include <stdexcept>" _text "${_text}")
      string(REPLACE "${_old_class}"
        "class b2AssertException : public std::logic_error { public: explicit b2AssertException(const char* what) : std::logic_error(what) {} };"
        _text "${_text}")
      string(REPLACE "${_old_assert}"
        "#define b2Assert(A) if (!(A)) { throw b2AssertException(\"Box2D assertion failed: \" #A); }"
        _text "${_text}")
      file(WRITE "${_settings}" "${_text}")
      file(GLOB_RECURSE _cpp RELATIVE "${_src}" "${_src}/Box2D/*.cpp")
      list(SORT _cpp)
      string(REPLACE ";" " " _flags "${BOX2D_CXX_FLAGS}")
      file(WRITE "${_src}/CMakeLists.txt"
        "cmake_minimum_required(VERSION 3.18)\nproject(box2d CXX)\n"
        "add_library(box2d STATIC ${_cpp})\n"
        "target_include_directories(box2d PRIVATE \${CMAKE_CURRENT_SOURCE_DIR})\n"
        "set_target_properties(box2d PROPERTIES CXX_STANDARD 11)\n")
      include(ProcessorCount)
      ProcessorCount(_ncpu)
      if(_ncpu LESS 1)
        set(_ncpu 2)
      endif()
      message(STATUS "Box2D: building the library (static) into ${BOX2D_CACHE_DIR}; once per compiler")
      execute_process(
        COMMAND "${CMAKE_COMMAND}" -S "${_src}" -B "${_tmp}/build" -G "${CMAKE_GENERATOR}"
                "-DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}" -DCMAKE_BUILD_TYPE=None
                "-DCMAKE_CXX_FLAGS=${_flags}"
        RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
      if(_rc EQUAL 0)
        execute_process(COMMAND "${CMAKE_COMMAND}" --build "${_tmp}/build" --parallel ${_ncpu}
                        RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
      endif()
      if(NOT _rc EQUAL 0)
        message(FATAL_ERROR "Box2D: building the library failed:\n${_out}")
      endif()
      file(MAKE_DIRECTORY "${_tmp}/install/lib")
      file(COPY_FILE "${_tmp}/build/libbox2d.a" "${_tmp}/install/lib/libbox2d.a")
      file(COPY "${_src}/Box2D" DESTINATION "${_tmp}/install/include" FILES_MATCHING PATTERN "*.h")
      file(COPY_FILE "${_src}/Box2D/Box2D-License.txt" "${_tmp}/install/LICENSE")
      # Atomic publish: another build may have finished first; then keep that one.
      file(RENAME "${_tmp}/install" "${BOX2D_CACHE_DIR}" RESULT _renamed)
      file(REMOVE_RECURSE "${_tmp}")
      if(NOT EXISTS "${_box2d_lib}")
        message(FATAL_ERROR "Box2D: could not put the built library into ${BOX2D_CACHE_DIR}: ${_renamed}")
      endif()
    else()
      file(REMOVE_RECURSE "${_tmp}")
      message(WARNING "Box2D: ${_box2d_error}\nBuilding without the Box2D tasks. Download ${BOX2D_SDIST_NAME} "
                      "(box2d ${BOX2D_VERSION}'s sdist) by hand and set ENVPOOL_BOX2D_SDIST to its path to build them.")
    endif()
  else()
    message(STATUS "Box2D: using the cached build ${BOX2D_CACHE_DIR}")
  endif()

  if(EXISTS "${_box2d_lib}")
    set(BOX2D_FOUND TRUE)
    set(BOX2D_LICENSE_FILE "${BOX2D_CACHE_DIR}/LICENSE")
    if(NOT TARGET box2d::box2d)
      add_library(box2d::box2d STATIC IMPORTED)
      set_target_properties(box2d::box2d PROPERTIES
        IMPORTED_LOCATION "${_box2d_lib}"
        INTERFACE_INCLUDE_DIRECTORIES "${BOX2D_CACHE_DIR}/include")
    endif()
  endif()
endif()
