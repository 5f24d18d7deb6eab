// The text an env error is reported with: the exception's type and message.
#pragma once

#include <cxxabi.h>

#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <typeinfo>

namespace envpool {

// An env failure whose text is complete as it is (e.g. a Python traceback from a worker).
class EnvFailure : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "std::runtime_error: boom" (the dynamic type, demangled, then what()).
inline std::string ExceptionText(const std::exception& e) {
  if (dynamic_cast<const EnvFailure*>(&e) != nullptr) return e.what();
  const char* mangled = typeid(e).name();
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string type = status == 0 && demangled ? demangled : mangled;
  std::free(demangled);
  return type + ": " + e.what();
}

}  // namespace envpool
