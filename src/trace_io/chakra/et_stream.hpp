// The framing of a Chakra execution trace: a GlobalMetadata message, then Node messages, each
// preceded by its length as a protobuf varint (Chakra's protoio/protolib framing, uncompressed).
// Internal to trace_io; chakra_trace.cpp maps the decoded messages to and from workloads.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "chakra_et.pb.h"

namespace sgdsim::detail {

struct EtMessages {
  chakra::GlobalMetadata metadata;
  std::vector<chakra::Node> nodes;  // file order
};

// InputError "SOURCE: message K at byte B: expected ..., found ..." for an empty, gzip-compressed,
// truncated or non-protobuf file, or a first message that is not a GlobalMetadata.
EtMessages decode_et_stream(std::string_view bytes, std::string_view source);

void write_et_message(const google::protobuf::MessageLite& message, std::ostream& out);

}  // namespace sgdsim::detail
