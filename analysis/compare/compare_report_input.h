// A compare folder as `gpumux report` reads it (report_inputs.h): its runs as variants and
// compare.json's table, each cell the text `gpumux compare` prints in the terminal
// (compare_cell_text), so the page and the terminal show the same digits.
#pragma once

#include <filesystem>
#include <string>

#include "analysis/report/report_inputs.h"

namespace gpumux {

// Adds the variants of the compare folder `dir` (each labelled `prefix` + its model) and its
// table to `inputs`. `shown`: the folder as the page names it. A metric compare.json names that
// `gpumux compare` does not have (a hand-made file) is printed with 3 decimals. Throws
// InputError as read_compare does.
void read_compare_folder(const std::filesystem::path& dir, const std::string& shown,
                         const std::string& prefix, ReportInputs& inputs);

}  // namespace gpumux
