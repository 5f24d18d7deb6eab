// envpool's version and the version of its C++ env interface (the SDK headers).
//
// Part of the installed SDK (see cpp/core/plugin.h). ENVPOOL_VERSION must equal the package
// version in pyproject.toml and envpool.__version__ (tests/registry/test_plugins.py checks); the CMake
// package config reads it from here too.
//
// ENVPOOL_ABI_VERSION is bumped whenever an installed header changes in a way that changes the
// layout or meaning of anything a plugin and the core share (TaskSpec, Config, EnvSpec, Env's
// virtual functions, Action / Output, Rng, the plugin entry points).
#pragma once

#define ENVPOOL_VERSION "0.1.0"
#define ENVPOOL_ABI_VERSION 5
