// Bounded whole-file reads (input_file.hpp) and the UTF-8 check names need before JSON output.
#include "sgdsim/core/input_file.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

std::string read_input_file(const std::filesystem::path& path, std::string_view what,
                            std::uint64_t max_bytes) {
  // Inputs are named in the JSON outputs (provenance, a trace's default model name), and JSON
  // holds only UTF-8 text.
  if (!valid_utf8(path.string())) {
    throw InputError(fmt::format(
        "{}: expected a file name in UTF-8 text (sgdsim records its inputs' names in JSON), found "
        "other bytes; rename the file",
        path.string()));
  }
  const auto too_large = [&] {
    return InputError(fmt::format("{}: larger than the {} MiB a {} may hold", path.string(),
                                  max_bytes >> 20, what));
  };
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw InputError(fmt::format("{}: is a folder, not a {}", path.string(), what));
  }
  // A regular file's size is known: refused before a byte is read.
  if (std::filesystem::is_regular_file(path, error)) {
    const std::uintmax_t size = std::filesystem::file_size(path, error);
    if (!error && size > max_bytes) {
      throw too_large();
    }
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    // open() left the reason in errno: no such file, permission denied, name too long, ...
    const int reason = errno;
    throw InputError(fmt::format("{}: cannot open {}: {}", path.string(), what,
                                 reason == ENOENT ? "no such file" : std::strerror(reason)));
  }
  std::string text;
  constexpr std::size_t block = 1 << 16;
  while (file) {
    const std::size_t at = text.size();
    if (at > max_bytes) {
      throw too_large();
    }
    text.resize(at + block);
    file.read(text.data() + at, block);
    text.resize(at + static_cast<std::size_t>(file.gcount()));
  }
  if (text.size() > max_bytes) {
    throw too_large();
  }
  if (file.bad()) {
    throw InputError(
        fmt::format("{}: cannot read {}: {}", path.string(), what, std::strerror(errno)));
  }
  return text;
}

std::string gunzipped_if_gzip(std::string bytes, std::string_view source) {
  if (bytes.size() < 2 || static_cast<unsigned char>(bytes[0]) != 0x1f ||
      static_cast<unsigned char>(bytes[1]) != 0x8b) {
    return bytes;
  }
  z_stream stream{};
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) {  // 16: a gzip header, not zlib's
    throw InputError(fmt::format("{}: cannot start gzip decompression", source));
  }
  const std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&stream, inflateEnd);
  std::string out;
  stream.next_in = reinterpret_cast<Bytef*>(bytes.data());
  stream.avail_in = static_cast<uInt>(bytes.size());
  std::array<char, 1 << 16> buffer{};
  for (int status = Z_OK; status != Z_STREAM_END;) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer.data());
    stream.avail_out = static_cast<uInt>(buffer.size());
    status = inflate(&stream, Z_NO_FLUSH);
    if (status != Z_OK && status != Z_STREAM_END) {
      throw InputError(fmt::format("{}: not a readable gzip file ({})", source,
                                   status == Z_BUF_ERROR ? "truncated" : "corrupt"));
    }
    out.append(buffer.data(), buffer.size() - stream.avail_out);
    if (out.size() > max_input_file_bytes) {
      throw InputError(
          fmt::format("{}: larger than the {} MiB an input may hold once "
                      "decompressed",
                      source, max_input_file_bytes >> 20));
    }
  }
  return out;
}

bool valid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    // Continuation bytes and the smallest code point each length may carry (RFC 3629).
    int more = 0;
    std::uint32_t smallest = 0;
    if (lead < 0x80) {
      ++i;
      continue;
    } else if ((lead & 0xE0) == 0xC0) {
      more = 1, smallest = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
      more = 2, smallest = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
      more = 3, smallest = 0x10000;
    } else {
      return false;
    }
    if (i + static_cast<std::size_t>(more) >= text.size()) return false;  // cut short
    std::uint32_t code = lead & (0x3F >> more);
    for (int k = 1; k <= more; ++k) {
      const auto next = static_cast<unsigned char>(text[i + static_cast<std::size_t>(k)]);
      if ((next & 0xC0) != 0x80) return false;
      code = (code << 6) | (next & 0x3F);
    }
    if (code < smallest || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
    i += static_cast<std::size_t>(more) + 1;
  }
  return true;
}

}  // namespace sgdsim
