// Converts an ASTRA-sim text workload of the "DATA" (data-parallel) kind into the Chakra ET of one
// rank, node for node as Chakra's text converter (src/converter/text_converter.py) lays it out
// with --num-passes 1: so sgdsim's tests can hold a real converter-shaped ET without Python.
// Usage: astra_text_to_chakra WORKLOAD.txt OUTPUT.et
#include <google/protobuf/util/delimited_message_util.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "chakra_et.pb.h"

namespace {

namespace chakra = sgdsim::chakra;

// One line: name, reserved, then (compute time, comm type, comm size) for forward, input
// gradient and weight gradient, then the update time.
struct TextLayer {
  std::string name;
  std::int64_t forward_us = 0;
  std::int64_t input_gradient_us = 0;
  std::int64_t weight_gradient_us = 0;
  std::string weight_gradient_comm;
  std::int64_t weight_gradient_bytes = 0;
};

bool parse_layer(const std::string& line, TextLayer& layer) {
  std::istringstream fields(line);
  std::string reserved, forward_comm, input_comm, update;
  std::int64_t forward_bytes = 0, input_bytes = 0;
  return static_cast<bool>(fields >> layer.name >> reserved >> layer.forward_us >> forward_comm >>
                           forward_bytes >> layer.input_gradient_us >> input_comm >> input_bytes >>
                           layer.weight_gradient_us >> layer.weight_gradient_comm >>
                           layer.weight_gradient_bytes >> update);
}

// The converter's mapping of the text's comm types; any other (NONE) becomes 0, ALL_REDUCE.
std::int64_t comm_type(const std::string& text) {
  if (text == "ALLTOALL") return chakra::ALL_TO_ALL;
  if (text == "ALLGATHER") return chakra::ALL_GATHER;
  if (text == "REDUCESCATTER") return chakra::REDUCE_SCATTER;
  return chakra::ALL_REDUCE;
}

class Writer {
 public:
  explicit Writer(std::ostream& out) : out_(out) {}

  chakra::Node node(const std::string& name, chakra::NodeType type) {
    chakra::Node node;
    node.set_id(next_id_++);
    node.set_name(name);
    node.set_type(type);
    return node;
  }
  void write(const google::protobuf::MessageLite& message) {
    google::protobuf::util::SerializeDelimitedToOstream(message, &out_);
  }

 private:
  std::ostream& out_;
  std::uint64_t next_id_ = 0;
};

void add_attr(chakra::Node& node, const std::string& name, std::int64_t value) {
  chakra::AttributeProto& attr = *node.add_attr();
  attr.set_name(name);
  attr.set_int64_val(value);
}

void convert(const std::string& text, const std::vector<TextLayer>& layers, std::ostream& out) {
  Writer writer(out);
  chakra::GlobalMetadata metadata;
  chakra::AttributeProto& schema = *metadata.add_attr();
  schema.set_name("schema");
  schema.set_string_val("1.0.2-chakra.1.0.0");
  chakra::AttributeProto& input = *metadata.add_attr();
  input.set_name("input_file");
  input.set_string_val(text);
  writer.write(metadata);

  std::vector<std::uint64_t> forward_id(layers.size());
  for (std::size_t l = 0; l < layers.size(); ++l) {
    chakra::Node node = writer.node("COMP_NODE_" + layers[l].name + "_FWD", chakra::COMP_NODE);
    node.set_duration_micros(static_cast<std::uint64_t>(layers[l].forward_us));
    if (l > 0) node.add_data_deps(forward_id[l - 1]);
    forward_id[l] = node.id();
    writer.write(node);
  }
  // Backward, last layer first: weight gradient, its collective, then the input gradient (none
  // for the first layer); each weight gradient waits for the previous layer's input gradient.
  std::uint64_t previous = forward_id.back();
  for (std::size_t l = layers.size(); l-- > 0;) {
    const TextLayer& layer = layers[l];
    chakra::Node weight = writer.node("COMP_NODE_" + layer.name + "_BWD_WG", chakra::COMP_NODE);
    weight.set_duration_micros(static_cast<std::uint64_t>(layer.weight_gradient_us));
    weight.add_data_deps(previous);
    writer.write(weight);
    chakra::Node comm = writer.node(
        "COMM_COLL_NODE_" + layer.name + "_" + layer.weight_gradient_comm, chakra::COMM_COLL_NODE);
    add_attr(comm, "comm_type", comm_type(layer.weight_gradient_comm));
    add_attr(comm, "comm_size", layer.weight_gradient_bytes);
    comm.add_data_deps(weight.id());
    writer.write(comm);
    if (l > 0) {
      chakra::Node input_gradient =
          writer.node("COMP_NODE_" + layer.name + "_BWD_IG", chakra::COMP_NODE);
      input_gradient.set_duration_micros(static_cast<std::uint64_t>(layer.input_gradient_us));
      input_gradient.add_data_deps(weight.id());
      previous = input_gradient.id();
      writer.write(input_gradient);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: astra_text_to_chakra WORKLOAD.txt OUTPUT.et\n";
    return 2;
  }
  std::ifstream file(argv[1]);
  std::stringstream whole;
  whole << file.rdbuf();
  // Line ends as Python's text mode reads them (the converter stores the text it read):
  // "\r\n" and a lone "\r" become "\n".
  std::string text;
  const std::string raw = whole.str();
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\r') {
      text += raw[i];
    } else if (i + 1 == raw.size() || raw[i + 1] != '\n') {
      text += '\n';
    }
  }
  std::istringstream lines(text);
  std::string line, kind, count;
  std::getline(lines, line);
  std::istringstream(line) >> kind;
  std::getline(lines, count);
  if (!file || kind != "DATA") {
    std::cerr << argv[1] << ": expected an ASTRA-sim text workload whose first line is DATA\n";
    return 2;
  }
  std::vector<TextLayer> layers;
  int line_number = 2;
  while (std::getline(lines, line)) {
    ++line_number;
    if (!parse_layer(line, layers.emplace_back())) {
      std::cerr << argv[1] << ":" << line_number
                << ": expected a layer line of 12 fields (name, reserved, then time, comm type "
                   "and size for forward, input and weight gradient, then update time)\n";
      return 2;
    }
  }
  if (layers.empty()) {
    std::cerr << argv[1] << ": expected layer lines after the layer count, found none\n";
    return 2;
  }
  std::ofstream out(argv[2], std::ios::binary);
  convert(text, layers, out);
  if (!out.flush()) {
    std::cerr << argv[2] << ": cannot write\n";
    return 1;
  }
  return 0;
}
