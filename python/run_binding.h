// The module's runs and listings: one scenario run in this process, any gpumux command line in
// this process, and the tables `gpumux models` and `gpumux metrics` print.
#pragma once

#include <pybind11/pybind11.h>

namespace gpumux::python {

void bind_runs(pybind11::module_& m);

}  // namespace gpumux::python
