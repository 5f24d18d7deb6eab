// The checks of the C++ unit tests: CTest runs each test executable and reports it (see
// CMakeLists.txt here); a test is a function, a failed check throws with its file and line,
// and RunTests reports every test's outcome and returns the exit status.
#pragma once

#include <cstdio>
#include <exception>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#define CHECK(cond)                                                                                             \
  do {                                                                                                          \
    if (!(cond)) throw std::runtime_error(std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": " #cond); \
  } while (0)

#define CHECK_EQ(a, b)                                                                                         \
  do {                                                                                                         \
    const auto& check_a = (a);                                                                                 \
    const auto& check_b = (b);                                                                                 \
    if (!(check_a == check_b)) {                                                                               \
      std::ostringstream check_s;                                                                              \
      check_s << __FILE__ << ":" << __LINE__ << ": " #a " == " #b " (" << check_a << " vs " << check_b << ")"; \
      throw std::runtime_error(check_s.str());                                                                 \
    }                                                                                                          \
  } while (0)

// Checks that `expr` throws `Exception` (and returns its message).
#define CHECK_THROWS(Exception, expr)                                                 \
  [&] {                                                                               \
    try {                                                                             \
      expr;                                                                           \
    } catch (const Exception& e) {                                                    \
      return std::string(e.what());                                                   \
    }                                                                                 \
    throw std::runtime_error(std::string(__FILE__) + ":" + std::to_string(__LINE__) + \
                             ": " #expr " did not throw " #Exception);                \
  }()

inline int RunTests(const std::vector<std::pair<const char*, std::function<void()>>>& tests) {
  int failed = 0;
  for (const auto& [name, test] : tests) {
    try {
      test();
      std::printf("ok    %s\n", name);
    } catch (const std::exception& e) {
      ++failed;
      std::printf("FAIL  %s: %s\n", name, e.what());
    }
  }
  std::printf("%zu tests, %d failed\n", tests.size(), failed);
  return failed == 0 ? 0 : 1;
}
