// Varint-length-delimited protobuf messages, decoded with bounds checks so that a cut-off or
// foreign file is reported with the message index and byte offset where it goes wrong.
#include "et_stream.hpp"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <algorithm>

#include "sgdsim/core/error.hpp"

namespace sgdsim::detail {

namespace {

// 2^20 messages: a data-parallel ET has a few per layer (ASTRA-sim's ResNet-50 ET: 216 for 54
// layers), and each decoded Node takes about 200 bytes, so the bound keeps a foreign file (20 MB of
// zero bytes reads as 20 M empty messages) under about 200 MB.
constexpr std::size_t max_et_messages = std::size_t{1} << 20;

constexpr std::string_view expected_et =
    "a Chakra execution trace (a GlobalMetadata message, then Node messages, each preceded by "
    "its length as a varint)";

// One message's bytes after its length prefix; `offset` advances past both.
std::string_view next_message(std::string_view bytes, std::size_t& offset, std::size_t index,
                              std::string_view source) {
  const std::string where = fmt::format("message {} at byte {}", index, offset);
  google::protobuf::io::CodedInputStream input(
      reinterpret_cast<const std::uint8_t*>(bytes.data() + offset),
      static_cast<int>(bytes.size() - offset));
  // Read as 64 bits: ReadVarint32 keeps only the low 32 bits of a longer varint, so a length of
  // 2^32 + 31 would pass as 31.
  std::uint64_t length = 0;
  if (!input.ReadVarint64(&length)) {
    // A varint is at most 10 bytes, each but the last with its high bit set.
    const std::string_view rest = bytes.substr(offset);
    const bool at_end = rest.size() < 10 && std::all_of(rest.begin(), rest.end(), [](char byte) {
                          return (static_cast<unsigned char>(byte) & 0x80) != 0;
                        });
    throw value_error(source, where, "a varint message length",
                      at_end ? "the end of the file inside it (is the file truncated?)"
                             : "an over-long varint (is this a Chakra ET?)");
  }
  offset += static_cast<std::size_t>(input.CurrentPosition());
  const std::size_t left = bytes.size() - offset;
  if (length > left) {
    throw value_error(source, where, fmt::format("{} bytes, as its length says", length),
                      fmt::format("{} bytes left in the file (is the file truncated?)", left));
  }
  const std::string_view message = bytes.substr(offset, static_cast<std::size_t>(length));
  offset += static_cast<std::size_t>(length);
  return message;
}

}  // namespace

EtMessages decode_et_stream(std::string_view bytes, std::string_view source) {
  if (bytes.empty()) throw value_error(source, "byte 0", expected_et, "an empty file");
  if (bytes.size() >= 2 && bytes[0] == '\x1f' && bytes[1] == '\x8b') {
    throw value_error(source, "byte 0", "an uncompressed Chakra ET",
                      "gzip data (decompress it first with gunzip)");
  }
  EtMessages messages;
  std::size_t offset = 0;
  std::size_t index = 0;
  while (offset < bytes.size()) {
    if (index == max_et_messages) {
      throw value_error(source, fmt::format("message {} at byte {}", index, offset),
                        fmt::format("at most {} messages in an ET", max_et_messages),
                        "more (is this a Chakra ET of one data-parallel rank?)");
    }
    const std::size_t start = offset;
    const std::string_view body = next_message(bytes, offset, index, source);
    const std::string where = fmt::format("message {} at byte {}", index, start);
    if (index == 0) {
      const bool parsed =
          messages.metadata.ParseFromArray(body.data(), static_cast<int>(body.size()));
      // A Node where the metadata belongs parses too, but only into fields GlobalMetadata lacks.
      if (!parsed ||
          !messages.metadata.GetReflection()->GetUnknownFields(messages.metadata).empty()) {
        throw value_error(source, where, "a Chakra GlobalMetadata message (version, attr)",
                          parsed ? "a message with other fields (an ET from a Chakra older than "
                                   "0.0.4, which had no metadata, or not an ET)"
                                 : "bytes that are not a protobuf message (is this a Chakra ET?)");
      }
    } else {
      chakra::Node& node = messages.nodes.emplace_back();
      if (!node.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
        throw value_error(source, where, "a Chakra Node message",
                          "bytes that are not a protobuf message (is this a Chakra ET?)");
      }
    }
    ++index;
  }
  return messages;
}

void write_et_message(const google::protobuf::MessageLite& message, std::ostream& out) {
  google::protobuf::util::SerializeDelimitedToOstream(message, &out);
}

}  // namespace sgdsim::detail
