// The text an env error is reported with: the exception's type and message.
#pragma once

#include <cxxabi.h>

#include <cstdlib>
#include <exception>
#include <string>
#include <typeinfo>

namespace envpool {

// "std::runtime_error: boom" (the dynamic type, demangled, then what()).
inline std::string ExceptionText(const std::exception& e) {
  const char* mangled = typeid(e).name();
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string type = status == 0 && demangled ? demangled : mangled;
  std::free(demangled);
  return type + ": " + e.what();
}

}  // namespace envpool
