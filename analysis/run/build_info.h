// The build that wrote an output (the `build` key of every output's provenance, provenance.h):
// two builds of different trees may write different results from the same scenario, so each
// result names the build it came from.
#pragma once

#include <string_view>

namespace gpumux {

// `git describe --always --dirty` of the source tree, taken when the binary was built (not when
// it was configured): a tag or commit, with "-dirty" when files differed from it. Empty when git
// was missing or the sources were not a git checkout. Defined in a source generated at build
// time (cmake/build_info.cmake), the only file that recompiles when it changes.
std::string_view build_git_describe();

}  // namespace gpumux
