// Python placement policies in the placement table (sim/placement/registry.h): a Python class
// whose place(job, candidates) picks the GPUs, run through sim/placement/callback_placement.h.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

namespace gpumux::python {

// Registers `factory` (a class or any callable returning an object with a method
// place(job, candidates) -> list of GPU indices, or None to leave the job queued) as the
// placement policy `name`: one object per run. Raises ValueError for a name already taken.
void register_python_placement(const std::string& name, const std::string& summary,
                               pybind11::object factory);

// The classes a policy's place() receives: Job (the job asking) and Candidate (a GPU that
// admits it now).
void bind_placement_types(pybind11::module_& m);

}  // namespace gpumux::python
