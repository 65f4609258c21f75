// Kept in its own file: GCC warns (-Wmismatched-new-delete) when it sees a replacement operator
// delete inlined next to new-expressions of the same translation unit.
#include "tests/mig/allocation_counter.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<bool> g_armed{false};
std::atomic<long> g_count{0};
}  // namespace

// The whole unaligned family is replaced, so that every new and delete pairs malloc with free:
// replacing only some of them mixes the library's (or a sanitizer's) allocator with free.
namespace {
void* counted_malloc(std::size_t n) noexcept {
  if (g_armed.load(std::memory_order_relaxed)) g_count.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n == 0 ? 1 : n);
}
}  // namespace

void* operator new(std::size_t n) {
  if (void* p = counted_malloc(n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  if (void* p = counted_malloc(n)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted_malloc(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted_malloc(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace gpumux::mig_test {

void arm_allocation_counter() {
  g_count = 0;
  g_armed = true;
}

long disarm_allocation_counter() {
  g_armed = false;
  return g_count.load();
}

}  // namespace gpumux::mig_test
