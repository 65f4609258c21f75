// The SHA-256 compression function over whole 64-byte blocks (FIPS 180-4 section 6.2.2), in two
// implementations that give identical results: a portable one, and one on the x86 SHA
// extensions (about 8x faster; a 100,000-job trace's digest was a tenth of a run's CPU time).
// sha256_blocks() picks the fast one when the processor has it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpumux {

// Updates `state` (a, b, ..., h) with `blocks` consecutive 64-byte blocks read from `data`.
void sha256_blocks(std::uint32_t state[8], const unsigned char* data, std::size_t blocks);

// The two implementations, for the test that compares them. sha256_blocks_hardware must only be
// called when sha256_hardware_available() is true.
void sha256_blocks_portable(std::uint32_t state[8], const unsigned char* data, std::size_t blocks);
bool sha256_hardware_available();
void sha256_blocks_hardware(std::uint32_t state[8], const unsigned char* data, std::size_t blocks);

}  // namespace gpumux
