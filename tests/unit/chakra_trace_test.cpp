// Tests for trace_io/chakra_trace.hpp: round trips, ETs built by hand with the generated Chakra
// classes, the ResNet-50 ET of ASTRA-sim's text converter (tests/data/README.md), bad input.
#include <doctest/doctest.h>

#include "printers.hpp"

#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <initializer_list>
#include <sstream>

#include "chakra_et.pb.h"
#include "sgdsim/core/error.hpp"
#include "sgdsim/trace_io/chakra_trace.hpp"
#include "test_support.hpp"

using namespace sgdsim;

namespace {

// An ET assembled node by node: ids count from 0 in the order nodes are added.
class EtBuilder {
 public:
  std::uint64_t compute(const std::string& name, std::uint64_t duration_us,
                        std::initializer_list<std::uint64_t> deps) {
    chakra::Node& node = add(name, chakra::COMP_NODE, deps);
    node.set_duration_micros(duration_us);
    return node.id();
  }
  std::uint64_t collective(const std::string& name, std::int64_t comm_type, std::int64_t bytes,
                           std::initializer_list<std::uint64_t> deps) {
    chakra::Node& node = add(name, chakra::COMM_COLL_NODE, deps);
    for (const auto& [key, value] :
         {std::pair<std::string, std::int64_t>{"comm_type", comm_type}, {"comm_size", bytes}}) {
      chakra::AttributeProto& attr = *node.add_attr();
      attr.set_name(key);
      attr.set_int64_val(value);
    }
    return node.id();
  }
  chakra::Node& add(const std::string& name, chakra::NodeType type,
                    std::initializer_list<std::uint64_t> deps) {
    chakra::Node& node = nodes_.emplace_back();
    node.set_id(nodes_.size() - 1);
    node.set_name(name);
    node.set_type(type);
    for (const std::uint64_t dep : deps) node.add_data_deps(dep);
    return node;
  }
  std::string bytes() const {
    std::ostringstream out;
    google::protobuf::util::SerializeDelimitedToOstream(chakra::GlobalMetadata(), &out);
    for (const chakra::Node& node : nodes_) {
      google::protobuf::util::SerializeDelimitedToOstream(node, &out);
    }
    return out.str();
  }

 private:
  std::vector<chakra::Node> nodes_;
};

// Two layers a, b laid out as Chakra's text converter lays out a DATA workload:
//   id 0 a_FWD 100 us; 1 b_FWD 200 us; 2 b_BWD_WG 30 us; 3 b's ALLREDUCE of 4000 bytes;
//   4 b_BWD_IG 50 us; 5 a_BWD_WG 70 us; 6 a's ALLREDUCE of 400 bytes (a, the first layer, has
//   no input gradient).
EtBuilder converter_shaped() {
  EtBuilder et;
  et.compute("COMP_NODE_a_FWD", 100, {});
  et.compute("COMP_NODE_b_FWD", 200, {0});
  et.compute("COMP_NODE_b_BWD_WG", 30, {1});
  et.collective("COMM_COLL_NODE_b_ALLREDUCE", chakra::ALL_REDUCE, 4000, {2});
  et.compute("COMP_NODE_b_BWD_IG", 50, {2});
  et.compute("COMP_NODE_a_BWD_WG", 70, {4});
  et.collective("COMM_COLL_NODE_a_ALLREDUCE", chakra::ALL_REDUCE, 400, {5});
  return et;
}

std::string error_reading(const std::string& bytes, const std::string& source = "t.et") {
  return test::input_error_of([&] { read_chakra_trace(bytes, source); });
}

Workload three_layers() {
  Workload workload;
  workload.model = "tiny";
  workload.device = "V100";
  workload.framework = "PyTorch 2.1";
  workload.batch_size = 32;
  workload.gradient_dtype = "fp16";
  workload.bytes_per_element = 2;
  workload.provenance = {"estimated", "by hand", "", {}};
  workload.layers = {
      {"conv", Time::from_us(1234.5), Time::from_us(2000.0004), {{"conv.weight", 864, {}}}},
      {"relu", Time::from_us(10.0), Time::zero(), {}},
      {"fc",
       Time::from_us(40.0),
       Time::from_us(80.0),
       {{"fc.weight", 4'096'000, Time::from_us(3.0)}, {"fc.bias", 1000, {}}}},
  };
  return workload;
}

std::string written(const Workload& workload) {
  std::ostringstream out;
  write_chakra_trace(workload, out);
  return out.str();
}

}  // namespace

TEST_CASE(
    "a workload written as a Chakra ET reads back with its layers, tensors and microseconds") {
  const Workload original = three_layers();
  const Workload read = read_chakra_trace(written(original), "tiny.et");
  CHECK(read.model == "tiny");
  CHECK(read.device == "V100");
  CHECK(read.framework == "PyTorch 2.1");
  CHECK(read.batch_size == 32);
  CHECK(read.gradient_dtype == "fp16");
  CHECK(read.bytes_per_element == 2);
  CHECK(read.provenance.method == "imported");
  REQUIRE(read.layers.size() == 3);
  CHECK(read.layers[0].name == "conv");
  CHECK(read.layers[0].forward == Time::from_us(1235.0));   // 1234.5 us, halves round up
  CHECK(read.layers[0].backward == Time::from_us(2000.0));  // 2000.0004 us to the microsecond
  CHECK(read.layers[1].name == "relu");
  CHECK(read.layers[1].gradients.empty());
  CHECK(read.layers[2].forward == Time::from_us(40.0));
  REQUIRE(read.layers[2].gradients.size() == 2);
  CHECK(read.layers[2].gradients[0].name == "fc.weight");
  CHECK(read.layers[2].gradients[0].elements == 4'096'000);  // 8,192,000 bytes / 2 (fp16)
  CHECK(read.layers[2].gradients[1].name == "fc.bias");
  CHECK(read.layers[2].gradients[1].elements == 1000);
  // Ready offsets are not carried: fc.weight is ready at the end of fc's backward again.
  CHECK_FALSE(read.layers[2].gradients[0].ready_offset.has_value());
  CHECK(total_gradient_bytes(read) == total_gradient_bytes(original));  // 2 x 4,097,864
}

TEST_CASE(
    "the written ET chains forward nodes, then one backward node and its allreduces a layer") {
  std::istringstream in(written(three_layers()));
  google::protobuf::io::IstreamInputStream stream(&in);
  chakra::GlobalMetadata metadata;
  bool clean_eof = false;
  REQUIRE(google::protobuf::util::ParseDelimitedFromZeroCopyStream(&metadata, &stream, &clean_eof));
  CHECK(metadata.attr(0).name() == "schema");
  CHECK(metadata.attr(0).string_val() == "sgdsim-chakra-et 1");
  std::vector<chakra::Node> nodes;
  while (google::protobuf::util::ParseDelimitedFromZeroCopyStream(&nodes.emplace_back(), &stream,
                                                                  &clean_eof)) {
  }
  nodes.pop_back();  // the failed read at the end
  CHECK(clean_eof);
  // 3 forward + 3 backward + 3 allreduces (conv.weight, fc.weight, fc.bias).
  REQUIRE(nodes.size() == 9);
  CHECK(nodes[0].name() == "COMP_NODE_conv_FWD");
  CHECK(nodes[0].duration_micros() == 1235);
  CHECK(nodes[2].name() == "COMP_NODE_fc_FWD");
  CHECK(nodes[2].data_deps(0) == 1);
  CHECK(nodes[3].name() == "COMP_NODE_fc_BWD");
  CHECK(nodes[3].data_deps(0) == 2);  // backward starts after the last forward
  CHECK(nodes[4].name() == "COMM_COLL_NODE_fc.weight_ALLREDUCE");
  CHECK(nodes[4].type() == chakra::COMM_COLL_NODE);
  CHECK(nodes[4].data_deps(0) == 3);
  CHECK(nodes[4].attr(0).name() == "comm_type");
  CHECK(nodes[4].attr(0).int64_val() == chakra::ALL_REDUCE);
  CHECK(nodes[4].attr(1).name() == "comm_size");
  CHECK(nodes[4].attr(1).int64_val() == 8'192'000);  // 4,096,000 fp16 elements x 2 bytes
  CHECK(nodes[6].name() == "COMP_NODE_relu_BWD");
  CHECK(nodes[6].data_deps(0) == 3);  // after fc's backward, not after its allreduces
  CHECK(nodes[7].name() == "COMP_NODE_conv_BWD");
  CHECK(nodes[8].data_deps(0) == 7);
}

TEST_CASE("an ET in the text converter's layout makes gradients ready after the weight gradient") {
  const Workload workload = read_chakra_trace(converter_shaped().bytes(), "two.et");
  CHECK(workload.model == "two.et");
  CHECK(workload.batch_size == 1);  // not in the ET
  CHECK(workload.provenance.description ==
        "Chakra execution trace two.et (7 nodes, schema not stated): layers from COMP_NODE names, "
        "gradients from ALL_REDUCE comm_size; times in whole microseconds; the batch size is not "
        "in the ET and is set to 1");
  REQUIRE(workload.layers.size() == 2);
  CHECK(workload.layers[0].name == "a");
  CHECK(workload.layers[0].forward == Time::from_us(100.0));
  CHECK(workload.layers[0].backward == Time::from_us(70.0));  // a_BWD_WG only
  CHECK(workload.layers[1].backward == Time::from_us(80.0));  // b_BWD_WG 30 + b_BWD_IG 50
  REQUIRE(workload.layers[1].gradients.size() == 1);
  CHECK(workload.layers[1].gradients[0].name == "b");
  CHECK(workload.layers[1].gradients[0].elements == 1000);  // 4000 bytes / 4 (fp32)
  // b's allreduce waits for b_BWD_WG only: ready 30 us into backward, before b's end at 80 us.
  CHECK(workload.layers[1].gradients[0].ready_offset == Time::from_us(30.0));
  // a's waits for a_BWD_WG, ending at 30 + 50 + 70 = 150 us, which is a's end of backward
  // (80 + 70 us), so no offset is needed.
  CHECK(workload.layers[0].gradients[0].elements == 100);
  CHECK_FALSE(workload.layers[0].gradients[0].ready_offset.has_value());
}

TEST_CASE("a second iteration, as the converter writes for --num-passes 2, is skipped") {
  EtBuilder et = converter_shaped();
  et.compute("COMP_NODE_a_FWD", 100, {5, 6});  // id 7: the next iteration waits for a's gradient
  et.compute("COMP_NODE_b_FWD", 200, {7});
  et.compute("COMP_NODE_b_BWD_WG", 30, {8});
  et.collective("COMM_COLL_NODE_b_ALLREDUCE", chakra::ALL_REDUCE, 4000, {9});
  const Workload workload = read_chakra_trace(et.bytes(), "two.et");
  CHECK(workload.layers[0].forward == Time::from_us(100.0));  // not 200
  CHECK(total_gradient_elements(workload) == 1100);           // 1000 + 100, once
  CHECK(workload.provenance.description.find(
            "first iteration only (3 compute nodes of later ones skipped)") != std::string::npos);
}

TEST_CASE("a 0-byte collective (the converter's NONE) and a metadata node add nothing") {
  EtBuilder et = converter_shaped();
  et.collective("COMM_COLL_NODE_a_NONE", chakra::ALL_REDUCE, 0, {5});  // id 7
  et.add("METADATA", chakra::METADATA_NODE, {});
  const Workload workload = read_chakra_trace(et.bytes(), "two.et");
  CHECK(workload.layers[0].gradients.size() == 1);   // a's 400-byte allreduce only
  CHECK(total_gradient_elements(workload) == 1100);  // 1000 + 100
}

TEST_CASE("ASTRA-sim's ResNet-50 data-parallel workload, converted to an ET, imports") {
  // tests/data/astra_resnet50_data_parallel.et: the converter's ET of
  // astra_resnet50_data_parallel.txt (54 layer lines; times in us, sizes in bytes).
  const Workload workload =
      read_chakra_trace(std::filesystem::path(test::data_path("astra_resnet50_data_parallel.et")));
  CHECK(workload.model == "astra_resnet50_data_parallel");
  // conv1 + stage 64 (4 + 3 + 3) + stage 128 (4 + 3 x 3) + stage 256 (4 + 5 x 3)
  // + stage 512 (4 + 2 x 3) + fc1000 = 1 + 10 + 13 + 19 + 10 + 1.
  REQUIRE(workload.layers.size() == 54);
  // Weight-gradient ALLREDUCE bytes (column 11), summed by stage:
  //   conv1 37,632
  //   64:  (65,536 + 16,384 + 147,456 + 65,536) + 2 x (65,536 + 147,456 + 65,536)   =    851,968
  //   128: (524,288 + 131,072 + 589,824 + 262,144) + 3 x (262,144 + 589,824 + 262,144) = 4,849,664
  //   256: (2,097,152 + 524,288 + 2,359,296 + 1,048,576)
  //        + 5 x (1,048,576 + 2,359,296 + 1,048,576)                                 = 28,311,552
  //   512: (8,388,608 + 2,097,152 + 9,437,184 + 4,194,304)
  //        + 2 x (4,194,304 + 9,437,184 + 4,194,304)                                 = 59,768,832
  //   fc1000 8,192,000
  // total 102,011,648 bytes = 25,502,912 fp32 elements (ResNet-50's conv and fc weights).
  CHECK(total_gradient_bytes(workload) == Bytes(102'011'648));
  CHECK(total_gradient_elements(workload) == 25'502'912);
  // Forward: the sum of column 3. Backward: the sums of columns 9 (weight gradient, 337,813 us)
  // and 6 (input gradient, 377,463 us) less conv1's 12,864 us, which the converter leaves out as
  // the first layer has no input gradient to pass on.
  CHECK(total_forward(workload) == Time::from_us(380'038.0));
  CHECK(total_backward(workload) == Time::from_us(702'412.0));  // 337,813 + 377,463 - 12,864
  const Layer& fc = workload.layers.back();
  CHECK(fc.name == "fc1000");
  CHECK(fc.forward == Time::from_us(16'416.0));
  CHECK(fc.backward == Time::from_us(36'928.0));  // 9,220 + 27,708
  // fc1000 is first in backward; its allreduce waits for its weight gradient alone.
  CHECK(fc.gradients[0].ready_offset == Time::from_us(9'220.0));
  // layer_512_3_conv3 is next: fc1000's 36,928 us, then its own weight gradient of 6,536 us.
  CHECK(workload.layers[52].gradients[0].ready_offset == Time::from_us(43'464.0));
  const Layer& conv1 = workload.layers.front();
  CHECK(conv1.backward == Time::from_us(32'291.0));
  CHECK_FALSE(conv1.gradients[0].ready_offset.has_value());  // its weight gradient ends backward
}

TEST_CASE("files that are not whole uncompressed Chakra ETs are refused with the place and fix") {
  CHECK(error_reading("", "empty.et") ==
        "empty.et: byte 0: expected a Chakra execution trace (a GlobalMetadata message, then Node "
        "messages, each preceded by its length as a varint), found an empty file");
  CHECK(error_reading(std::string{"\x1f\x8b\x08\x00", 4}, "t.et.gz") ==
        "t.et.gz: byte 0: expected an uncompressed Chakra ET, found gzip data (decompress it "
        "first with gunzip)");
  // An empty GlobalMetadata (length 0), then the node {id 1, name "a_FWD", type COMP_NODE}:
  // 08 01 | 12 05 'a_FWD' | 18 04 = 2 + 7 + 2 = 11 bytes after its length byte. Cut 4 bytes
  // from the 13-byte file: 9 - 2 = 7 of the node's 11 bytes are left.
  const std::string node{
      "\x08\x01\x12\x05"
      "a_FWD\x18\x04",
      11};
  const std::string whole = std::string{"\x00\x0b", 2} + node;
  CHECK(error_reading(whole.substr(0, 9)) ==
        "t.et: message 1 at byte 1: expected 11 bytes, as its length says, found 7 bytes left in "
        "the file (is the file truncated?)");
  CHECK(error_reading(std::string{"\x00\x8b", 2}) ==
        "t.et: message 1 at byte 1: expected a varint message length, found the end of the file "
        "inside it (is the file truncated?)");
  // Random bytes: a length of 3, then three bytes that start a tag and never end it.
  CHECK(error_reading("\x03\xff\xff\xff") ==
        "t.et: message 0 at byte 0: expected a Chakra GlobalMetadata message (version, attr), "
        "found bytes that are not a protobuf message (is this a Chakra ET?)");
  // A node where the metadata belongs, as in ETs written before Chakra had metadata:
  // {id 1, type COMP_NODE, duration 7 us} = 08 01 | 18 04 | 38 07, 6 bytes.
  CHECK(error_reading(std::string{"\x06\x08\x01\x18\x04\x38\x07", 7}) ==
        "t.et: message 0 at byte 0: expected a Chakra GlobalMetadata message (version, attr), "
        "found a message with other fields (an ET from a Chakra older than 0.0.4, which had no "
        "metadata, or not an ET)");
  const std::string cut = converter_shaped().bytes();
  CHECK(error_reading(cut.substr(0, cut.size() - 1)).find("(is the file truncated?)") !=
        std::string::npos);
  // A JSON file: '{' reads as a length of 123, and the 123 bytes after it do not parse.
  CHECK(test::input_error_of([] {
          read_chakra_trace(std::filesystem::path(test::data_path("four_layers.json")));
        }) == test::data_path("four_layers.json") +
                  ": message 0 at byte 0: expected a Chakra GlobalMetadata message (version, "
                  "attr), found bytes that are not a protobuf message (is this a Chakra ET?)");
  CHECK(test::input_error_of([] { read_chakra_trace(std::filesystem::path("missing.et")); }) ==
        "missing.et: cannot open file: no such file");
}

TEST_CASE("ETs of other parallelism, node kinds or naming are refused with what was expected") {
  EtBuilder send = converter_shaped();
  send.add("send", chakra::COMM_SEND_NODE, {2});
  CHECK(error_reading(send.bytes()) ==
        "t.et: node 7 \"send\": expected a COMP_NODE, COMM_COLL_NODE or METADATA_NODE (sgdsim "
        "reads data-parallel ETs), found COMM_SEND_NODE");
  EtBuilder unknown = converter_shaped();
  unknown.add("new", static_cast<chakra::NodeType>(42), {});
  CHECK(error_reading(unknown.bytes()) ==
        "t.et: node 7 \"new\": expected a COMP_NODE, COMM_COLL_NODE or METADATA_NODE (sgdsim "
        "reads data-parallel ETs), found node type 42");
  EtBuilder model_parallel;
  model_parallel.compute("COMP_NODE_a_FWD", 100, {});
  model_parallel.collective("COMM_COLL_NODE_a_ALLGATHER", chakra::ALL_GATHER, 4000, {0});
  CHECK(error_reading(model_parallel.bytes()) ==
        "t.et: node 1 \"COMM_COLL_NODE_a_ALLGATHER\": attribute comm_type: expected ALL_REDUCE, "
        "the collective of gradients in a data-parallel ET, found ALL_GATHER (a model- or "
        "hybrid-parallel ET?)");
  EtBuilder forward_allreduce;
  forward_allreduce.compute("COMP_NODE_a_FWD", 100, {});
  forward_allreduce.collective("COMM_COLL_NODE_a_ALLREDUCE", chakra::ALL_REDUCE, 4000, {0});
  CHECK(error_reading(forward_allreduce.bytes()) ==
        "t.et: node 1 \"COMM_COLL_NODE_a_ALLREDUCE\": expected an ALL_REDUCE of gradients that "
        "depends on a backward compute node, found a dependency on forward node 0 "
        "\"COMP_NODE_a_FWD\" only (a model-parallel ET?)");
  EtBuilder communication_only;  // like ASTRA-sim's all_reduce microbenchmark ETs
  communication_only.collective("COMM_COLL_NODE_ALLREDUCE", chakra::ALL_REDUCE, 1'048'576, {});
  CHECK(error_reading(communication_only.bytes()) ==
        "t.et: nodes: expected compute nodes (COMP_NODE) for the layers, found none (a "
        "communication-only ET, such as an ASTRA-sim microbenchmark?)");
  EtBuilder operators;  // names of a PyTorch-collected ET
  operators.compute("aten::mm", 12, {});
  CHECK(error_reading(operators.bytes()) ==
        "t.et: node 0 \"aten::mm\": expected a compute node name ending in _FWD, _BWD, _BWD_WG "
        "or _BWD_IG (the convention of Chakra's text converter; see chakra_trace.hpp), found "
        "\"aten::mm\"");
  EtBuilder dangling = converter_shaped();
  dangling.compute("COMP_NODE_c_FWD", 1, {99});
  CHECK(error_reading(dangling.bytes()) ==
        "t.et: node 7 \"COMP_NODE_c_FWD\": expected dependencies on nodes in the file, found a "
        "dependency on node 99, which is not there (is the file truncated?)");
  EtBuilder cycle;
  cycle.compute("COMP_NODE_a_FWD", 1, {1});
  cycle.compute("COMP_NODE_a_BWD", 1, {0});
  CHECK(error_reading(cycle.bytes()) ==
        "t.et: nodes: expected an acyclic dependency graph, found 2 nodes, node 0 "
        "\"COMP_NODE_a_FWD\" among them, waiting on a dependency cycle");
  EtBuilder backward_only;
  backward_only.compute("COMP_NODE_a_BWD", 1, {});
  CHECK(error_reading(backward_only.bytes()) ==
        "t.et: node 0 \"COMP_NODE_a_BWD\": expected a _FWD node of layer \"a\" before its "
        "backward, found none");
  EtBuilder no_gradients;
  no_gradients.compute("COMP_NODE_a_FWD", 1, {});
  no_gradients.compute("COMP_NODE_a_BWD", 1, {0});
  CHECK(error_reading(no_gradients.bytes()) ==
        "t.et: nodes: expected ALL_REDUCE nodes with comm_size > 0 (the gradients), found none");
}

TEST_CASE("a workload with two layers of one name is not written, as they would merge") {
  Workload workload = three_layers();
  workload.layers[2].name = "conv";
  CHECK(test::input_error_of([&] {
          std::ostringstream out;
          write_chakra_trace(workload, out, "tiny.json");
        }) ==
        "tiny.json: layers[2].name: expected a name no earlier layer has (an ET names a "
        "layer's nodes after it), found \"conv\"");
}
