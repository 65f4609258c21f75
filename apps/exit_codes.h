// The exit codes of every gpumux command, in one place (README.md "Exit codes"):
//   0  success
//   1  internal error (a bug), among them a broken invariant under --check-invariants
//   2  bad input: the message names the file and line or JSON pointer, and the field
//   3  a check failed: a bound of `expect` (check, run --check), objectives met at no size
//      (plan), some run of a sweep failed (sweep, merge)
#pragma once

namespace gpumux {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitCheckFailed = 3;

}  // namespace gpumux
