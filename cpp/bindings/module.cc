// envpool._core: the C++ core as a Python extension. Definitions only: the pools are in
// py_pool.h (result memory in array_ring.h, actions in actions.h, result shaping in
// results.h), conversions in convert.h, the per-env generator in rng_binding.cc and the XLA
// handlers' table in xla_bridge.h.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include "bindings/convert.h"
#include "bindings/py_pool.h"
#include "bindings/results.h"
#include "bindings/xla_bridge.h"
#include "core/plugin_loader.h"
#include "core/process_channel.h"
#include "core/registry.h"
#include "core/version.h"
#include "envs/builtin_tasks.h"
#ifdef ENVPOOL_WITH_MUJOCO
#include "envs/mujoco/render/gl_context.h"
#endif

namespace py = pybind11;
using namespace envpool;
using namespace envpool::bindings;

namespace envpool {
void BindRng(py::module_& m);  // rng_binding.cc
}  // namespace envpool

PYBIND11_MODULE(_core, m) {
  m.doc() = "envpool's C++ core: the task registry and the thread-pool env pool.";

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputTypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const PoolClosedError& e) {
      PyErr_SetString(py::module_::import("envpool.errors").attr("ClosedError").ptr(), e.what());
    } catch (const ProtocolError& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (const PluginError& e) {
      PyErr_SetString(PyExc_ImportError, e.what());
    }
  });

  RegisterBuiltinTasks();

  m.attr("version") = ENVPOOL_VERSION;
  m.attr("abi_version") = ENVPOOL_ABI_VERSION;
  BindRng(m);
  auto plugin_dict = [](const LoadedPlugin& p) {
    py::dict d;
    d["name"] = p.name;
    d["path"] = p.path;
    d["task_ids"] = p.task_ids;
    return d;
  };
  m.def(
      "load_plugin",
      [plugin_dict](const std::string& path) {
        LoadedPlugin p;
        {
          py::gil_scoped_release release;  // a plugin's static initializers may take a while
          p = LoadPlugin(path);
        }
        return plugin_dict(p);
      },
      py::arg("path"),
      "Loads an env plugin (a shared library built with core/plugin.h) and registers its tasks; "
      "ImportError if it is refused. Returns {name, path, task_ids}.");
  m.def(
      "plugins",
      [plugin_dict] {
        py::list out;
        for (const auto& p : LoadedPlugins()) out.append(plugin_dict(p));
        return out;
      },
      "The plugins loaded so far: [{name, path, task_ids}].");

  m.def("dm_step_fields", &DmStepFields, py::arg("elapsed_step"), py::arg("terminated"), py::arg("truncated"),
        py::arg("env_discount") = py::none(),
        "The dm front end's (step_type, discount) of a batch, or None for inputs a pool does not give "
        "(bindings/results.h).");
  m.def(
      "tasks",
      [] {
        py::list out;
        for (const TaskSpec* t : AllTasks()) {
          py::dict d;
          d["id"] = t->id;
          d["max_episode_steps"] = t->max_episode_steps;
          d["reward_threshold"] =
              std::isnan(t->reward_threshold) ? py::object(py::none()) : py::object(py::float_(t->reward_threshold));
          d["defaults"] = ConfigToDict(t->defaults);
          d["origin"] = t->origin;
          d["aliases"] = t->aliases;
          out.append(d);
        }
        return out;
      },
      "All registered tasks: id, max_episode_steps, reward_threshold, default kwargs, origin and aliases.");

  m.def(
      "env_spec",
      [](const std::string& task_id, const py::dict& kwargs) {
        const TaskSpec& task = FindTask(task_id);
        auto configs = MakeConfigs(task, 1, ToKwargs(kwargs));
        py::dict d = EnvSpecToDict(task.spec(configs[0]));
        d["config"] = ConfigToDict(configs[0]);
        return d;
      },
      py::arg("task_id"), py::arg("kwargs"),
      "Arrays of one env of `task_id` built with `kwargs` ({key: [value]}), and the full config.");

  // The pool options (core/pool_options.h). The keywords' defaults are read from a default
  // PoolOptions: each is written there only; Python reads them (envpool._core.PoolOptions()).
  const PoolOptions defaults;
  py::class_<PoolOptions>(m, "PoolOptions",
                          "A pool's own options, apart from the env's kwargs: checked when made, completed (the "
                          "task's time limit, the default threads) by the pool that takes them.")
      .def(py::init([](const py::object& num_envs, const py::object& batch_size, const py::object& num_threads,
                       const py::object& seed, const py::object& max_episode_steps, const py::object& autoreset_mode,
                       const py::object& spin_us, const py::object& thread_affinity_offset) {
             return ToPoolOptions(num_envs, batch_size, num_threads, seed, max_episode_steps, autoreset_mode, spin_us,
                                  thread_affinity_offset);
           }),
           py::kw_only(), py::arg("num_envs") = defaults.num_envs,
           py::arg("batch_size") = py::cast(defaults.batch_size),
           py::arg("num_threads") = py::cast(defaults.num_threads), py::arg("seed") = py::cast(defaults.seed),
           py::arg("max_episode_steps") = py::cast(defaults.max_episode_steps),
           py::arg("autoreset_mode") = AutoresetName(defaults.autoreset), py::arg("spin_us") = defaults.spin_us,
           py::arg("thread_affinity_offset") = defaults.thread_affinity_offset)
      .def_readonly("num_envs", &PoolOptions::num_envs)
      .def_readonly("batch_size", &PoolOptions::batch_size)
      .def_readonly("num_threads", &PoolOptions::num_threads)
      .def_readonly("seed", &PoolOptions::seed)
      .def_readonly("max_episode_steps", &PoolOptions::max_episode_steps)
      .def_property_readonly("autoreset_mode", [](const PoolOptions& o) { return AutoresetName(o.autoreset); })
      .def_readonly("spin_us", &PoolOptions::spin_us)
      .def_readonly("thread_affinity_offset", &PoolOptions::thread_affinity_offset)
      .def("__repr__", [](const PoolOptions& o) {
        return py::str(
                   "PoolOptions(num_envs={}, batch_size={}, num_threads={}, seed={}, max_episode_steps={}, "
                   "autoreset_mode='{}', spin_us={}, thread_affinity_offset={})")
            .format(o.num_envs, o.batch_size, o.num_threads, o.seed, o.max_episode_steps, AutoresetName(o.autoreset),
                    o.spin_us, o.thread_affinity_offset);
      });

  py::class_<ResolvedPoolOptions>(m, "ResolvedPoolOptions",
                                  "The options a pool runs with (pool.options): every value set and checked.")
      .def_readonly("num_envs", &ResolvedPoolOptions::num_envs)
      .def_readonly("batch_size", &ResolvedPoolOptions::batch_size)
      .def_readonly("num_threads", &ResolvedPoolOptions::num_threads)
      .def_readonly("seed", &ResolvedPoolOptions::seed)
      .def_readonly("max_episode_steps", &ResolvedPoolOptions::max_episode_steps)
      .def_property_readonly("autoreset_mode", [](const ResolvedPoolOptions& o) { return AutoresetName(o.autoreset); })
      .def_property_readonly("spin_us", [](const ResolvedPoolOptions& o) { return o.spin.count() / 1000.0; })
      .def_readonly("thread_affinity_offset", &ResolvedPoolOptions::thread_affinity_offset)
      .def_property_readonly("full_batch", &ResolvedPoolOptions::full_batch)
      .def_property_readonly(
          "env_seeds",
          [](const ResolvedPoolOptions& o) -> py::object {
            if (!o.seed) return py::none();
            py::list seeds;
            for (int i = 0; i < o.num_envs; ++i) seeds.append(o.EnvSeed(i));
            return seeds;
          },
          "Each env's seed when the pool was made (None: unseeded).");

  py::class_<PyPool>(m, "Pool", "A pool of a registered native task (envpool.make).")
      .def(py::init<const std::string&, const py::dict&, const PoolOptions&>(), py::arg("task_id"),
           py::arg("kwargs") = py::dict(), py::arg("options") = PoolOptions())
      .def("send_reset", &PyPool::SendReset, py::arg("env_id") = py::none(), py::arg("seeds") = py::none(),
           py::arg("keep") = py::none(), py::arg("wait_follows") = false)
      .def("send", &PyPool::Send, py::arg("actions"), py::arg("env_id") = py::none())
      .def("recv", &PyPool::Recv, py::arg("timeout") = -1.0, py::arg("with_ids") = true)
      .def("step", &PyPool::Step, py::arg("actions"), py::arg("env_id") = py::none(), py::arg("timeout") = -1.0,
           py::arg("with_ids") = true)
      .def("render", &PyPool::Render, py::arg("env_id") = py::none())
      .def("get_state", &PyPool::GetState, py::arg("env_id"))
      .def("set_state", &PyPool::SetState, py::arg("env_id"), py::arg("state"))
      .def("close", &PyPool::Close)
      .def_property_readonly("closed", &PyPool::closed)
      .def_property_readonly("in_flight", &PyPool::in_flight)
      .def_property_readonly(
          "options", [](const PyPool& p) { return p.core().options(); },
          "The options the pool runs with, resolved (a ResolvedPoolOptions).")
      .def_property_readonly("num_envs", [](const PyPool& p) { return p.core().num_envs(); })
      .def_property_readonly("batch_size", [](const PyPool& p) { return p.core().batch_size(); })
      .def_property_readonly("max_episode_steps", [](const PyPool& p) { return p.core().max_episode_steps(); })
      .def_property_readonly("spec", [](const PyPool& p) { return EnvSpecToDict(p.core().spec()); })
      .def("xla_id", &PyPool::XlaId, "This pool's id for the XLA handlers (envs.xla()), registered at the first call.")
      .def_property_readonly("batch_fields", &PyPool::BatchFields)
      .def("goal_compute", &PyPool::GoalCompute, py::arg("which"), py::arg("achieved_goal"), py::arg("desired_goal"),
           py::arg("env_id") = py::none(),
           "A goal-conditioned task's compute_reward / _terminated / _truncated (which: 'reward', 'terminated', "
           "'truncated') over goal rows (..., goal_size), with env env_id's kwargs (None: the kwargs all envs share).");

  py::class_<PyProcessPool, PyPool>(m, "ProcessPool",
                                    "A pool whose envs live in worker processes (envpool.make_python).")
      .def(py::init<const std::string&, const py::dict&, const PoolOptions&, const std::vector<int>&, std::size_t,
                    std::size_t>(),
           py::arg("name"), py::arg("spec"), py::arg("options"), py::arg("worker_start"), py::arg("info_capacity"),
           py::arg("error_capacity"))
      .def_property_readonly("shm_fd", [](PyProcessPool& p) { return p.processes().mapping().fd(); })
      .def_property_readonly("process_layout", [](PyProcessPool& p) { return LayoutToDict(p.processes().layout()); })
      .def(
          "worker_died",
          [](PyProcessPool& p, int worker, const std::string& reason) {
            return p.processes().WorkerDied(worker, reason);
          },
          py::arg("worker"), py::arg("reason"),
          "Reports a dead worker: its unfinished envs complete as error rows at the next recv(). False if already "
          "reported.")
      .def("death_settled", [](PyProcessPool& p, int worker) { return p.processes().DeathSettled(worker); })
      .def("revived", [](PyProcessPool& p, int worker) { p.processes().Revived(worker); })
      .def(
          "wake_worker", [](PyProcessPool& p, int worker) { p.processes().Wake(worker); },
          "Wakes a sleeping worker without a command (a control message waits for it).")
      .def("shm_buffer",
           [](PyProcessPool& p) {
             const auto& map = p.processes().mapping();
             return py::memoryview::from_memory(map.data(), static_cast<py::ssize_t>(map.size()));
           })
      .def("worker_activity", [](PyProcessPool& p, int worker) {
        // (env id it runs, steady-clock ns when it started; -1 and 0 when idle)
        const auto& map = p.processes().mapping();
        const std::size_t block = p.processes().layout().Worker(worker);
        return py::make_tuple(map.Atomic<int32_t>(block + ProcessLayout::kBusyEnv).load(),
                              map.Atomic<int64_t>(block + ProcessLayout::kBusySince).load());
      });

  py::class_<PyExternalPool, PyPool>(m, "ExternalPool",
                                     "A pool of external episodes (envpool.serve, envpool.ExternalEnv).")
      .def(py::init<const std::string&, const py::dict&, const PoolOptions&, double>(), py::arg("name"),
           py::arg("spec"), py::arg("options"), py::arg("wait_ms"))
      .def(
          "ext_acquire", [](PyExternalPool& p) { return p.external().Acquire(); },
          "A free slot for a new episode, or -1 when none is free.")
      .def(
          "ext_release", [](PyExternalPool& p, int slot) { p.external().Release(slot); }, py::arg("slot"))
      .def("ext_complete", &PyExternalPool::Complete, py::arg("slot"), py::arg("obs"), py::arg("info"),
           py::arg("reward"), py::arg("terminated"), py::arg("truncated"))
      .def("ext_take_answers", &PyExternalPool::TakeAnswers)
      .def_property_readonly("ext_event_fd", [](PyExternalPool& p) { return p.external().event_fd(); })
      .def(
          "ext_state", [](PyExternalPool& p, int slot) { return static_cast<int>(p.external().State(slot)); },
          py::arg("slot"));

  m.def(
      "xla_api", [] { return py::capsule(xla::Api(), ENVPOOL_XLA_CAPSULE); },
      "The C function table the XLA FFI handlers call (xla_ffi/envpool_xla_api.h), in a PyCapsule.");

  m.def(
      "gl_renderer",
      []() -> py::object {
#ifdef ENVPOOL_WITH_MUJOCO
        const auto info = mujoco::render::LoadedGlRenderer();
        if (info.renderer.empty()) return py::none();
        py::dict d;
        d["backend"] = info.backend;
        d["renderer"] = info.renderer;
        d["software"] = info.software;
        return d;
#else
        return py::none();
#endif
      },
      "What draws MuJoCo frames in this process ({backend, renderer, software}), or None before a pool with "
      "frames loaded the GL backend (this loads nothing).");

  m.def(
      "steady_clock_ns",
      [] {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
      },
      "The clock worker activity is stamped with.");

  m.def("end_process_group_when_process_exits", &EndProcessGroupWhenProcessExits, py::arg("pid"),
        py::arg("remove_dir") = std::string(),
        "Starts a thread that kills this process (its process group, when it leads one) once process `pid` exits, "
        "after removing directory `remove_dir` (unless empty).");

  py::class_<WorkerChannel>(m, "WorkerChannel", "A worker process's end of a process pool's shared memory.")
      .def(py::init([](const std::string& path, const py::dict& layout, int worker) {
             return std::make_unique<WorkerChannel>(path, LayoutFromDict(layout), worker);
           }),
           py::arg("path"), py::arg("layout"), py::arg("worker"))
      .def(
          "wait",
          [](WorkerChannel& c, double timeout_s, double spin_us) {
            py::gil_scoped_release release;
            return c.Wait(std::chrono::nanoseconds(static_cast<int64_t>(timeout_s * 1e9)),
                          std::chrono::nanoseconds(static_cast<int64_t>(spin_us * 1e3)));
          },
          py::arg("timeout_s"), py::arg("spin_us") = 50.0)
      .def("next", &WorkerChannel::Next)
      .def("done", &WorkerChannel::Done, "Marks the command taken by next() done; False in a fork of the worker.")
      .def("report_fork", &WorkerChannel::ReportFork, py::arg("env_id"),
           "Called in a fork of the worker that reached the worker's loop: the pool writes the worker off.")
      .def(
          "buffer",
          [](WorkerChannel& c) {
            return py::memoryview::from_memory(c.mapping().data(), static_cast<py::ssize_t>(c.mapping().size()));
          },
          "The shared memory as a writable memoryview (for NumPy views).");
}
