// Counts global operator new calls while armed (allocation_counter.cc replaces operator new for
// the mig_test binary), to check that a model's compute_rates does not allocate.
#pragma once

namespace gpumux::mig_test {

void arm_allocation_counter();
// Disarms and returns the allocations since arm_allocation_counter().
long disarm_allocation_counter();

}  // namespace gpumux::mig_test
