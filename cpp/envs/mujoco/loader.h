// MuJoCo, loaded at run time.
//
// The extension is compiled against the headers of the `mujoco-core` package (a build
// requirement) but does not link libmujoco: the first MuJoCo task made dlopen()s the
// libmujoco.so shipped inside the installed `mujoco` Python package and resolves the few
// functions the envs call into a table. Without MuJoCo installed the non-MuJoCo tasks work
// as before and making a MuJoCo task raises an error that says what to install.
//
// Never call an mj_* function directly from env code (that would reintroduce a link-time
// dependency): go through Mj().
#pragma once

#include <mujoco/mujoco.h>

#include <memory>
#include <string>

namespace envpool::mujoco {

// The libmujoco functions the envs use.
struct MjApi {
  decltype(&::mj_loadXML) loadXML;
  decltype(&::mj_makeData) makeData;
  decltype(&::mj_deleteData) deleteData;
  decltype(&::mj_resetData) resetData;
  decltype(&::mj_step) step;
  decltype(&::mj_forward) forward;
  decltype(&::mj_rnePostConstraint) rnePostConstraint;
  decltype(&::mj_name2id) name2id;
  decltype(&::mj_version) version;
  // dm_control's suite (dmc/): its legacy step (mj_step2 .. mj_step1), a model per env (tasks
  // move targets in the model), models built from XML text with includes (mjVFS).
  decltype(&::mj_step1) step1;
  decltype(&::mj_step2) step2;
  decltype(&::mj_copyModel) copyModel;
  decltype(&::mj_deleteModel) deleteModel;
  decltype(&::mj_defaultVFS) defaultVFS;
  decltype(&::mj_addBufferVFS) addBufferVFS;
  decltype(&::mj_deleteVFS) deleteVFS;
  decltype(&::mju_axisAngle2Quat) axisAngle2Quat;
  decltype(&::mj_objectVelocity) objectVelocity;
  // gymnasium-robotics' site velocities (robotics/fetch/): a site's Jacobian times qvel.
  decltype(&::mj_jacSite) jacSite;
  // Rendering (render/): named after the MuJoCo function without its "mj" ("v_updateScene" is
  // mjv_updateScene). Resolved with the rest; only a frame calls them (GL is loaded then).
  decltype(&::mjv_defaultCamera) v_defaultCamera;
  decltype(&::mjv_defaultFreeCamera) v_defaultFreeCamera;
  decltype(&::mjv_defaultOption) v_defaultOption;
  decltype(&::mjv_defaultPerturb) v_defaultPerturb;
  decltype(&::mjv_defaultScene) v_defaultScene;
  decltype(&::mjv_makeScene) v_makeScene;
  decltype(&::mjv_freeScene) v_freeScene;
  decltype(&::mjv_updateScene) v_updateScene;
  decltype(&::mjr_defaultContext) r_defaultContext;
  decltype(&::mjr_makeContext) r_makeContext;
  decltype(&::mjr_freeContext) r_freeContext;
  decltype(&::mjr_setBuffer) r_setBuffer;
  decltype(&::mjr_render) r_render;
  decltype(&::mjr_readPixels) r_readPixels;
  decltype(&::mjr_uploadHField) r_uploadHField;
  std::string library_path;
};

// MuJoCo releases the extension runs with: those whose headers declare the same mjModel,
// mjData and mjOption layouts, enums and signatures of the functions in MjApi as the headers it
// is compiled with. Checked by diffing the include/ folders of the mujoco-core wheels (4.0.0 ->
// 4.0.1: only mjVERSION_HEADER, a new mjs_getInStringVec and the Filament renderer's structs
// differ); MuJoCo 3.x lays out mjModel and mjData differently. Keep in step with the
// mujoco-core range in pyproject.toml, README.md and docs/tasks.md.
inline constexpr int kMinMujocoVersion = 4000000;  // 4.0.0 (mj_version()'s encoding)
inline constexpr int kMaxMujocoVersion = 4000001;  // 4.0.1
static_assert(mjVERSION_HEADER >= kMinMujocoVersion && mjVERSION_HEADER <= kMaxMujocoVersion,
              "MuJoCo headers of a version envpool has not been checked against (see kMinMujocoVersion)");

// "4.0.1" for 4000001.
std::string MujocoVersionName(int version);

// The loaded library (loads it on first use; thread-safe). Throws std::runtime_error saying
// how to install MuJoCo when it cannot be found, or when its version is outside
// [kMinMujocoVersion, kMaxMujocoVersion] (struct layouts might not match).
//
// Where the library is looked for, in order: $ENVPOOL_MUJOCO_LIB (a path to libmujoco.so*);
// the `mujoco` package importlib finds in the running Python interpreter; a `mujoco` folder
// next to the `envpool` package.
const MjApi& Mj();

// gymnasium's expand_model_path: "/..." and "./..." as given, "~..." expanded, anything else
// relative to gymnasium's envs/mujoco/assets folder (found through importlib). Throws
// std::invalid_argument when the file does not exist.
std::string ResolveModelPath(const std::string& xml_file);

// The compiled model of `xml_file` (resolved as above). Models are compiled once per process
// and per resolved path, then shared read-only by every env and pool that uses them.
std::shared_ptr<const mjModel> LoadModel(const std::string& xml_file);

// A body's id by name, or by number when `name` is all digits (gymnasium's data.body(x)
// accepts both). Throws std::invalid_argument naming the body when there is none.
int BodyId(const mjModel* m, const std::string& name);

}  // namespace envpool::mujoco
