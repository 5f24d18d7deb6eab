// Where an installed Python package lives, for the families that open a library shipped in
// another wheel at run time (MuJoCo's libmujoco, Procgen's libenv): the running interpreter's
// answer first, then the folder beside the installed `envpool` package (site-packages).
#pragma once

#include <Python.h>
#include <dlfcn.h>

#include <filesystem>
#include <string>

namespace envpool {

// The folder of the top-level package `name` as the running interpreter would import it
// (importlib.util.find_spec, which does not import it); "" if it has none or there is no
// interpreter, as in a process that never started Python.
inline std::string InterpreterPackageDir(const char* name) {
  if (!Py_IsInitialized()) return "";
  const PyGILState_STATE gil = PyGILState_Ensure();
  std::string dir;
  PyObject* util = PyImport_ImportModule("importlib.util");
  PyObject* spec = util ? PyObject_CallMethod(util, "find_spec", "s", name) : nullptr;
  PyObject* paths = spec && spec != Py_None ? PyObject_GetAttrString(spec, "submodule_search_locations") : nullptr;
  if (paths && paths != Py_None) {
    PyObject* iter = PyObject_GetIter(paths);
    PyObject* first = iter ? PyIter_Next(iter) : nullptr;
    if (first && PyUnicode_Check(first)) {
      if (const char* s = PyUnicode_AsUTF8(first)) dir = s;
    }
    Py_XDECREF(first);
    Py_XDECREF(iter);
  }
  Py_XDECREF(paths);
  Py_XDECREF(spec);
  Py_XDECREF(util);
  PyErr_Clear();  // find_spec raises for a broken parent package; that is "not found" here
  PyGILState_Release(gil);
  return dir;
}

// The folder of the shared object this is compiled into (the installed `envpool` package).
inline std::filesystem::path OwnDir() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&OwnDir), &info) && info.dli_fname) {
    return std::filesystem::path(info.dli_fname).parent_path();
  }
  return {};
}

}  // namespace envpool
