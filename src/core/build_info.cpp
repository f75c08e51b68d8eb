// Version, commit and digests: see build_info.hpp.
#include "sgdsim/core/build_info.hpp"

#include <openssl/evp.h>

#include <array>
#include <memory>

#include "build_commit.hpp"  // generated: SGDSIM_COMMIT
#include "sgdsim/core/error.hpp"

namespace sgdsim {

std::string_view sgdsim_version() {
  return SGDSIM_VERSION;
}

std::string_view sgdsim_commit() {
  return SGDSIM_COMMIT;
}

std::string sha256_hex(std::string_view bytes) {
  const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                        &EVP_MD_CTX_free);
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  const bool done = context != nullptr &&
                    EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) == 1 &&
                    EVP_DigestUpdate(context.get(), bytes.data(), bytes.size()) == 1 &&
                    EVP_DigestFinal_ex(context.get(), digest.data(), &length) == 1;
  SGDSIM_ASSERT(done && length == 32, "OpenSSL's SHA-256 failed");
  static constexpr std::string_view hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

}  // namespace sgdsim
