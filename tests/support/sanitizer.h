// Whether this test binary (and the CLI under test, built with the same flags) runs under
// AddressSanitizer, whose shadow memory needs far more address space than the program uses, so
// tests that limit the address space skip there.
#pragma once

namespace hcp::testing {

// GCC says __SANITIZE_ADDRESS__; clang (the fuzz build of make test-sanitize) says it through
// __has_feature.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

}  // namespace hcp::testing
