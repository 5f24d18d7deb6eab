// The text an env's error is reported with (core/exception_text.h): the exception's own type,
// demangled, then its message, so a user sees which error an env raised; an EnvFailure (a
// worker's Python traceback) is passed on as it is.
#include <stdexcept>
#include <string>

#include "check.h"
#include "core/exception_text.h"

using envpool::EnvFailure;
using envpool::ExceptionText;

namespace game {
struct OutOfFuel : std::runtime_error {
  using std::runtime_error::runtime_error;
};
}  // namespace game

namespace {

void TheDynamicTypeIsNamedDemangled() {
  CHECK_EQ(ExceptionText(std::runtime_error("boom")), std::string("std::runtime_error: boom"));
  // Through a base reference: the type thrown, not the one caught.
  const std::exception& e = game::OutOfFuel("tank empty");
  CHECK_EQ(ExceptionText(e), std::string("game::OutOfFuel: tank empty"));
}

void AnEnvFailureIsPassedOnAsItIs() {
  const std::string traceback = "Traceback (most recent call last):\n  ...\nValueError: bad action";
  CHECK_EQ(ExceptionText(EnvFailure(traceback)), traceback);
}

}  // namespace

int main() {
  return RunTests({
      {"the dynamic type is named, demangled", TheDynamicTypeIsNamedDemangled},
      {"an EnvFailure is passed on as it is", AnEnvFailureIsPassedOnAsItIs},
  });
}
