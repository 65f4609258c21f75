// Linked into every test executable: every run a test makes, in the process or through the
// gpumux binary it starts, checks the simulation's invariants (RunOptions::check_invariants,
// docs/testing.md "Invariant checks"). A test that needs them off unsets the variable itself.
#include <cstdlib>

namespace {

const bool kInvariantsOn = [] { return ::setenv("GPUMUX_CHECK_INVARIANTS", "1", 0) == 0; }();

}  // namespace
