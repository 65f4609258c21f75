#include "python/placement_bridge.h"

#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sim/base/input_error.h"
#include "sim/core/job.h"
#include "sim/placement/callback_placement.h"
#include "sim/placement/registry.h"

namespace py = pybind11;

namespace gpumux::python {

namespace {

// A Python object held from C++ code that may run without the GIL (a run releases it): the
// last owner takes the GIL to drop the reference.
using SharedObject = std::shared_ptr<py::object>;

SharedObject share(py::object object) {
  return SharedObject(new py::object(std::move(object)), [](py::object* held) {
    // The table outlives the interpreter: at the process's exit its entries go after Python
    // has finalized, when there is no GIL to take and no reference to drop.
    if (!Py_IsInitialized() || _Py_IsFinalizing()) {
      held->release();
      delete held;
      return;
    }
    py::gil_scoped_acquire gil;
    delete held;
  });
}

// One decision: the job and the GPUs that admit it, to the policy's place(); its answer back
// as GPU indices (checked by the callback placement).
bool ask_policy(const std::string& name, const SharedObject& policy, const JobSpec& job,
                std::span<const PlacementCandidate> candidates, std::vector<GpuIndex>& out) {
  py::gil_scoped_acquire gil;
  py::list listed(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) listed[i] = py::cast(candidates[i]);
  const py::object picked = policy->attr("place")(py::cast(job), listed);
  if (picked.is_none()) return false;
  const std::string where = "placement policy '" + name + "'";
  if (!py::isinstance<py::iterable>(picked)) {
    throw InputError(where, "",
                     "place() returned " + std::string(py::repr(picked)) + " for job '" + job.id +
                         "': expected a list of GPU indices "
                         "or None");
  }
  for (const py::handle g : picked) {
    // Any integer type (numpy's too: they define __index__), but not a bool.
    const bool integer = PyIndex_Check(g.ptr()) && !py::isinstance<py::bool_>(g);
    long long index = -1;
    if (integer) {
      const py::object as_int = py::reinterpret_steal<py::object>(PyNumber_Index(g.ptr()));
      if (!as_int) throw py::error_already_set();
      int overflow = 0;
      index = PyLong_AsLongLongAndOverflow(as_int.ptr(), &overflow);
      if (overflow != 0) index = -1;  // far beyond any GPU index
    }
    if (!integer || index < 0 || index > static_cast<long long>(UINT32_MAX)) {
      throw InputError(where, "",
                       "place() returned " + std::string(py::repr(g)) + " for job '" + job.id +
                           "': not a GPU index");
    }
    out.push_back(static_cast<GpuIndex>(index));
  }
  return true;
}

}  // namespace

void register_python_placement(const std::string& name, const std::string& summary,
                               py::object factory) {
  if (!PyCallable_Check(factory.ptr())) {
    throw py::type_error(
        "register_placement: the policy must be a class or a callable that "
        "returns an object with place(job, candidates)");
  }
  SharedObject shared_factory = share(std::move(factory));
  try {
    register_placement_policy(name, summary, [name, shared_factory]() {
      SharedObject policy;
      {
        py::gil_scoped_acquire gil;
        policy = share((*shared_factory)());
        if (!py::hasattr(*policy, "place")) {
          throw std::invalid_argument("placement policy '" + name +
                                      "': the object its factory returned has no place()");
        }
      }
      return make_callback_placement(
          name, [name, policy](const JobSpec& job, std::span<const PlacementCandidate> candidates,
                               std::vector<GpuIndex>& out) {
            return ask_policy(name, policy, job, candidates, out);
          });
    });
  } catch (const std::invalid_argument& e) {
    throw py::value_error(e.what());
  }
}

void bind_placement_types(py::module_& m) {
  py::class_<JobSpec>(m, "Job", "the job a placement policy places (read-only)")
      .def_property_readonly("id", [](const JobSpec& j) { return j.id; })
      .def_property_readonly(
          "gpus", [](const JobSpec& j) { return j.gpus; }, "GPUs asked for (a gang: all at once)")
      .def_property_readonly(
          "memory_mib", [](const JobSpec& j) { return j.memory.mib(); },
          "peak device memory per GPU, MiB")
      .def_property_readonly("submit_s", [](const JobSpec& j) { return j.submit.seconds(); })
      .def_property_readonly(
          "runtime_s", [](const JobSpec& j) { return j.runtime.seconds(); },
          "runtime alone on exclusive GPUs, s")
      .def_property_readonly("sm_util", [](const JobSpec& j) { return j.sm_util; })
      .def_property_readonly("gpu_milli", [](const JobSpec& j) { return j.gpu_milli; })
      .def_property_readonly("cpus", [](const JobSpec& j) { return j.cpus; })
      .def_property_readonly("tenant", [](const JobSpec& j) { return j.tenant; })
      .def_property_readonly("priority", [](const JobSpec& j) { return j.priority; })
      .def_property_readonly("is_service", [](const JobSpec& j) { return j.service != nullptr; })
      .def("__repr__", [](const JobSpec& j) {
        return "Job(id='" + j.id + "', gpus=" + std::to_string(j.gpus) +
               ", memory_mib=" + std::to_string(j.memory.mib()) + ")";
      });
  py::class_<PlacementCandidate>(m, "Candidate", "a GPU that admits the job now (read-only)")
      .def_readonly("gpu", &PlacementCandidate::gpu, "cluster-wide GPU index (as in jobs.csv)")
      .def_readonly("node", &PlacementCandidate::node)
      .def_readonly("rack", &PlacementCandidate::rack)
      .def_readonly("index_in_node", &PlacementCandidate::index_in_node)
      .def_readonly("residents", &PlacementCandidate::residents, "jobs on the GPU now")
      .def_readonly("memory_used_mib", &PlacementCandidate::memory_used_mib)
      .def_readonly("memory_mib", &PlacementCandidate::memory_mib)
      .def("__repr__", [](const PlacementCandidate& c) {
        return "Candidate(gpu=" + std::to_string(c.gpu) + ", node=" + std::to_string(c.node) +
               ", rack=" + std::to_string(c.rack) + ", residents=" + std::to_string(c.residents) +
               ")";
      });
}

}  // namespace gpumux::python
