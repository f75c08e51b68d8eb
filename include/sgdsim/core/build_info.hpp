// Which sgdsim this is (the version in meson.build and the git commit it was built from, or
// "unknown" outside a git checkout), and the SHA-256 digest that results use to name the exact
// inputs they came from.
#pragma once

#include <string>
#include <string_view>

namespace sgdsim {

std::string_view sgdsim_version();
std::string_view sgdsim_commit();

// Lower-case hexadecimal SHA-256 (FIPS 180-4, by OpenSSL's libcrypto) of `bytes`.
std::string sha256_hex(std::string_view bytes);

}  // namespace sgdsim
