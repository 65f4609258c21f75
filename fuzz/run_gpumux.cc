#include <sstream>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "fuzz/fuzz_support.h"

namespace gpumux::fuzz {

void run_gpumux(const std::vector<std::string>& args) {
  std::vector<std::string> words{"gpumux"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::ostringstream out, err;
  const int code =
      run_command_line(static_cast<int>(words.size()), argv.data(), out, err);
  if (code == 1) finding("exit code 1 from gpumux:\n" + err.str());
}

}  // namespace gpumux::fuzz
