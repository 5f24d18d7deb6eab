// Procgen's compiled games, loaded at run time.
//
// The `procgen-mirror` wheel (or upstream `procgen` where it has a wheel) ships the 16 games as
// one shared library, procgen/data/prebuilt/libenv.so, with its Qt libraries beside the package
// (procgen_mirror.libs, found through the library's RPATH), and the sprites in
// procgen/data/assets/. The library exports gym3's C API (libenv_*) plus get_state/set_state.
// Nothing of Procgen or Qt is compiled into or linked by this extension: the first Procgen task
// made dlopen()s the library of the installed package and resolves the functions into a table.
// Without the package every other task works, and making a Procgen task raises an error that
// says what to install.
//
// The declarations below are the C ABI of gym3's libenv.h (LIBENV_VERSION 1), written out here
// so that the build needs neither gym3 nor Procgen.
#pragma once

#include <cstdint>
#include <string>

namespace envpool::procgen {

inline constexpr int kLibenvVersion = 1;
inline constexpr int kLibenvMaxNameLen = 128;
inline constexpr int kLibenvMaxNdim = 16;

// enum libenv_dtype
enum LibenvDtype : int { kDtypeUnused = 0, kDtypeUInt8 = 1, kDtypeInt32 = 2, kDtypeFloat32 = 3 };
// enum libenv_space_name
enum LibenvSpace : int { kSpaceObservation = 1, kSpaceAction = 2, kSpaceInfo = 3 };

union LibenvValue {
  uint8_t uint8;
  int32_t int32;
  float float32;
};

struct LibenvTensorType {
  char name[kLibenvMaxNameLen];
  int scalar_type;  // enum libenv_scalar_type
  int dtype;        // enum libenv_dtype
  int shape[kLibenvMaxNdim];
  int ndim;
  LibenvValue low;
  LibenvValue high;
};

struct LibenvOption {
  char name[kLibenvMaxNameLen];
  int dtype;  // enum libenv_dtype
  int count;
  void* data;
};

struct LibenvOptions {
  LibenvOption* items;
  int count;
};

// Per space, one pointer per (array of the space, env): [space_index * num + env_index].
struct LibenvBuffers {
  void** ob;
  float* rew;
  uint8_t* first;
  void** info;
  void** ac;
};

using LibenvHandle = void;

// The library's functions and where it was found.
struct ProcgenApi {
  int (*version)();
  LibenvHandle* (*make)(int num, LibenvOptions options);
  int (*get_tensortypes)(LibenvHandle* env, int space, LibenvTensorType* out);
  void (*set_buffers)(LibenvHandle* env, LibenvBuffers* buffers);
  void (*observe)(LibenvHandle* env);
  void (*act)(LibenvHandle* env);
  void (*close)(LibenvHandle* env);
  // Procgen's own additions (procgen/env.py declares them for cffi): the serialized game.
  int (*get_state)(LibenvHandle* env, int env_index, char* data, int length);
  void (*set_state)(LibenvHandle* env, int env_index, char* data, int length);
  std::string package_dir;    // the `procgen` package folder
  std::string library_path;   // .../data/prebuilt/libenv.so
  std::string resource_root;  // .../data/assets/ (Procgen appends sprite paths to it)
  std::string version_text;   // the package's version.txt ("0.10.7"), "" if absent
};

// What a missing or broken installation is told to do.
inline constexpr const char* kInstallHint =
    "Procgen tasks need Procgen's compiled games: `pip install envpool-ng[procgen]` (the procgen-mirror "
    "package), or `pip install --no-deps procgen-mirror==0.10.7` to keep numpy 2 (envpool uses none of its "
    "Python dependencies)";

// The loaded library (loads it on first use; thread-safe; a failed load is retried next time).
// Throws std::runtime_error with kInstallHint when it cannot be found or loaded.
//
// Where the `procgen` package is looked for, in order: $ENVPOOL_PROCGEN_DIR (a folder holding
// data/prebuilt/libenv.so and data/assets/); the package importlib finds in the running
// interpreter; a `procgen` folder next to the `envpool` package.
const ProcgenApi& Procgen();

}  // namespace envpool::procgen
