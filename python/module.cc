// The extension module gpumux._gpumux: what the Python package (python/gpumux/) calls. Errors
// of input become gpumux.InputError with the file, pointer and field the command line prints.
#include <pybind11/pybind11.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "python/placement_bridge.h"
#include "python/run_binding.h"
#include "sim/base/input_error.h"

namespace py = pybind11;

namespace {

// gpumux.InputError(message, where, field, detail), the package's class (defined in Python so
// that its attributes are plain ones).
void raise_input_error(const std::string& message, const std::string& where,
                       const std::string& field, const std::string& detail) {
  const py::object type = py::module_::import("gpumux").attr("InputError");
  const py::object error = type(message, where, field, detail);
  PyErr_SetObject(type.ptr(), error.ptr());
}

}  // namespace

PYBIND11_MODULE(_gpumux, m) {
  m.doc() = "gpumux's simulator, in this process (use the package gpumux, not this module)";
  m.attr("__version__") = GPUMUX_VERSION;
  gpumux::python::bind_placement_types(m);
  gpumux::python::bind_runs(m);
  m.def("register_placement", &gpumux::python::register_python_placement, py::arg("name"),
        py::arg("summary"), py::arg("factory"));
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const gpumux::InputError& e) {
      raise_input_error(e.what(), e.where(), e.field(), e.detail());
    } catch (const std::filesystem::filesystem_error& e) {
      // A path the file system refuses: the input's fault, named by its path.
      const std::string where = e.path1().string();
      raise_input_error(where + ": " + e.code().message(), where, "", e.code().message());
    } catch (const nlohmann::json::parse_error& e) {
      raise_input_error(std::string("scenario: ") + e.what(), "scenario", "", e.what());
    }
  });
}
