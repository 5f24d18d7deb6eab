// A library that looks like an envpool plugin built for another envpool or C++ ABI: it exports
// the entry points with a hand-written ABI description (FAKE_* defines), to test that the core
// refuses it before calling anything else. Its registration function must never run.
#include <cstdio>
#include <cstdlib>

#include "core/plugin.h"

#ifndef FAKE_VERSION
#define FAKE_VERSION ENVPOOL_VERSION
#endif
#ifndef FAKE_ABI_VERSION
#define FAKE_ABI_VERSION ENVPOOL_ABI_VERSION
#endif

ENVPOOL_PLUGIN_EXPORT const envpool_plugin_abi* envpool_plugin_abi_info() {
  static envpool_plugin_abi abi = [] {
    envpool_plugin_abi a = envpool::CurrentPluginAbi("fake");
    a.envpool_version = FAKE_VERSION;
    a.abi_version = FAKE_ABI_VERSION;
#ifdef FAKE_CXX11_ABI
    a.cxx11_abi = FAKE_CXX11_ABI;
#endif
    return a;
  }();
  return &abi;
}

ENVPOOL_PLUGIN_EXPORT void envpool_plugin_register(envpool::PluginRegistry* /*registry*/) {
  std::fputs("fake plugin: the core called register despite the ABI mismatch\n", stderr);
  std::abort();
}
