// A taken batch as the front ends get it (see results.h).
#include "bindings/results.h"

#include <cstdint>
#include <string>

#include "bindings/final_obs.h"

namespace envpool::bindings {

namespace {

// Same-step autoreset, as gymnasium's SyncVectorEnv: when some env finished, info gets
// final_obs / final_info (the finished episodes' last obs and info) with _final_obs /
// _final_info masks; an env that failed (`errors`) has none. Native pools' final_obs is
// gymnasium's object array (final_obs.h); process pools' stays dense, one array per field,
// for envpool.process.results to nest with the variable-size values it alone knows.
void AddFinalInfo(const EnvPool& pool, py::dict& info, const ArraySet& out, bool with_ids, bool final_obs_objects,
                  const EnvErrors& errors) {
  const BatchLayout& layout = pool.layout();
  const auto rows = static_cast<py::ssize_t>(out[layout.terminated].size());
  py::array_t<bool> mask(rows);
  const bool* term = static_cast<const bool*>(out[layout.terminated].data());
  const bool* trunc = static_cast<const bool*>(out[layout.truncated].data());
  const int32_t* ids = static_cast<const int32_t*>(out[layout.env_id].data());
  bool any = false;
  for (py::ssize_t i = 0; i < rows; ++i) {
    bool ended = term[i] || trunc[i];
    for (const auto& error : errors) ended = ended && error.first != ids[i];
    mask.mutable_data()[i] = ended;
    any = any || ended;
  }
  if (!any) return;
  std::vector<py::array> finals(out.begin() + static_cast<std::ptrdiff_t>(layout.first_final_obs),
                                out.begin() + static_cast<std::ptrdiff_t>(layout.first_final_obs + layout.num_obs));
  if (final_obs_objects) {
    info["final_obs"] = FinalObsObjects(pool.spec(), finals, mask.data(), rows);
  } else if (layout.num_obs == 1) {
    info["final_obs"] = finals[0];
  } else {
    py::dict d;
    for (std::size_t f = 0; f < layout.num_obs; ++f) d[py::str(layout.fields[f].name)] = finals[f];
    info["final_obs"] = d;
  }
  info["_final_obs"] = mask;
  py::dict final_info;
  if (with_ids) {
    final_info["env_id"] = out[layout.env_id];
    final_info["_env_id"] = mask;
    final_info["elapsed_step"] = out[layout.final_elapsed_step];
    final_info["_elapsed_step"] = mask;
  }
  for (std::size_t f = 0; f < layout.num_info; ++f) {
    const std::string name = layout.fields[layout.first_info + f].name;
    final_info[py::str(name)] = out[layout.first_final_info + f];
    final_info[py::str("_" + name)] = mask;
  }
  info["final_info"] = final_info;
  info["_final_info"] = mask;
}

}  // namespace

py::tuple BatchResult(const EnvPool& pool, const ArraySet& out, bool with_ids, bool final_obs_objects,
                      const EnvErrors& errors) {
  const BatchLayout& layout = pool.layout();
  py::object obs;
  if (layout.num_obs == 1) {
    obs = out[0];
  } else if (pool.spec().obs_is_tuple) {
    py::tuple t(layout.num_obs);
    for (std::size_t f = 0; f < layout.num_obs; ++f) t[f] = out[f];
    obs = t;
  } else {
    py::dict d;
    for (std::size_t f = 0; f < layout.num_obs; ++f) d[py::str(layout.fields[f].name)] = out[f];
    obs = d;
  }
  py::dict info;
  if (with_ids) {
    // Made once: a key from a C string is a new str per call, hashed anew (~1.2k instructions of
    // a one-env step(); callgrind). Never destroyed: a py::object must not outlive the interpreter.
    static const py::handle env_id_key = py::str("env_id").release();
    static const py::handle elapsed_step_key = py::str("elapsed_step").release();
    info[env_id_key] = out[layout.env_id];
    info[elapsed_step_key] = out[layout.elapsed_step];
  }
  for (std::size_t f = layout.first_info; f < layout.first_info + layout.num_info; ++f) {
    info[py::str(layout.fields[f].name)] = out[f];
  }
  if (layout.has_final) AddFinalInfo(pool, info, out, with_ids, final_obs_objects, errors);
  return py::make_tuple(obs, out[layout.reward], out[layout.terminated], out[layout.truncated], info);
}

namespace {

template <typename Int>
void DmStepTypes(const Int* elapsed, const bool* term, const bool* trunc, int32_t* step_type, double* discount,
                 py::ssize_t rows) {
  for (py::ssize_t i = 0; i < rows; ++i) {
    step_type[i] = elapsed[i] == 0 ? 0 : (term[i] || trunc[i] ? 2 : 1);  // dm_env.StepType
    discount[i] = term[i] ? 0.0 : 1.0;
  }
}

bool Is1d(const py::array& a, py::ssize_t rows) {
  return a.ndim() == 1 && a.shape(0) == rows && (a.flags() & py::array::c_style) != 0;
}

}  // namespace

py::object DmStepFields(const py::array& elapsed_step, const py::array& terminated, const py::array& truncated,
                        const py::object& env_discount) {
  const py::ssize_t rows = elapsed_step.ndim() == 1 ? elapsed_step.shape(0) : -1;
  const auto is_bool = [](const py::array& a) { return a.dtype().kind() == 'b' && a.itemsize() == 1; };
  const bool int32 = elapsed_step.dtype().is(py::dtype::of<int32_t>());
  const bool int64 = elapsed_step.dtype().is(py::dtype::of<int64_t>());
  if (rows < 0 || !(int32 || int64) || !Is1d(elapsed_step, rows) || !is_bool(terminated) || !is_bool(truncated) ||
      !Is1d(terminated, rows) || !Is1d(truncated, rows)) {
    return py::none();
  }
  py::array_t<int32_t> step_type(rows);
  py::array_t<double> discount(rows);
  const bool* term = static_cast<const bool*>(terminated.data());
  const bool* trunc = static_cast<const bool*>(truncated.data());
  if (int32) {
    DmStepTypes(static_cast<const int32_t*>(elapsed_step.data()), term, trunc, step_type.mutable_data(),
                discount.mutable_data(), rows);
  } else {
    DmStepTypes(static_cast<const int64_t*>(elapsed_step.data()), term, trunc, step_type.mutable_data(),
                discount.mutable_data(), rows);
  }
  if (!env_discount.is_none()) {
    // numpy.minimum(discount, env): env's value where discount < env is false (equal values:
    // the second, so -0.0 beside 0.0 stays -0.0; NaN: NaN), the env's row cast to float64.
    const auto env = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(env_discount);
    if (!env || env.ndim() != 1 || env.shape(0) != rows) return py::none();
    double* d = discount.mutable_data();
    const double* e = env.data();
    for (py::ssize_t i = 0; i < rows; ++i) d[i] = d[i] < e[i] ? d[i] : e[i];
  }
  return py::make_tuple(step_type, discount);
}

void RaiseEnvError(const EnvErrors& errors, const py::tuple& result) {
  py::list ids, messages;
  for (const auto& [id, what] : errors) {
    ids.append(id);
    messages.append(what);
  }
  py::object error = py::module_::import("envpool.errors").attr("EnvError")(ids, messages, result);
  PyErr_SetObject(py::type::handle_of(error).ptr(), error.ptr());
  throw py::error_already_set();
}

}  // namespace envpool::bindings
