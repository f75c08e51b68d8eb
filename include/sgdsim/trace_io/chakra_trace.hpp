// Chakra execution traces (MLCommons Chakra, the workload format of ASTRA-sim 2.0) of one rank of
// data-parallel training, to and from workloads. Times in an ET are whole microseconds, so a
// workload written and read back keeps its layers, tensors and sizes exactly and its times
// rounded to the nearest microsecond; per-tensor ready offsets, the optimizer step and the
// measured iteration time are not carried.
//
// Reading. Nodes are taken in dependency order (data and control dependencies; ties by node id).
// A COMP_NODE's phase and layer come from its name, the convention of Chakra's text converter
// (ASTRA-sim's "DATA" text workloads) and of write_chakra_trace:
//   [COMP_NODE_]<layer>_FWD                       forward of <layer>
//   [COMP_NODE_]<layer>_BWD, _BWD_WG or _BWD_IG   backward of <layer> (weight / input gradient)
// Layers come in the order of their first forward node; durations of nodes of one layer add up.
// Backward nodes run one after another in dependency order (one compute stream). Each ALL_REDUCE
// COMM_COLL_NODE with comm_size > 0 is one gradient tensor of comm_size / bytes-per-element
// elements, belonging to the layer of the latest backward node it depends on, and ready when that
// node ends: ready_offset is set where this is earlier than the end of the layer's backward (an
// ALL_REDUCE after _BWD_WG but before _BWD_IG). Its name is the node name without
// "COMM_COLL_NODE_" and "_ALLREDUCE". An ALL_REDUCE of 0 bytes (the converter's "NONE") and
// METADATA_NODEs are skipped. The first forward node after a backward node starts a second
// iteration (the converter's --num-passes), which is skipped. Other collectives, send/recv and
// memory nodes (model-, hybrid- or pipeline-parallel ETs) are refused. The GlobalMetadata
// attributes model, device, framework, gradient_dtype (fp32: 4 bytes; fp16, bf16: 2) and
// batch_size are used when present (write_chakra_trace writes them); otherwise the model is the
// file name without its extension, the dtype fp32 and the batch size 1.
//
// Writing: forward nodes chained in layer order, then one _BWD node per layer in reverse order,
// each followed by one ALL_REDUCE per gradient tensor that depends on it (comm_type and
// comm_size, in bytes, as int64 attributes, as Chakra's converters write them).
#pragma once

#include <filesystem>
#include <ostream>
#include <string_view>

#include "sgdsim/workload/workload.hpp"

namespace sgdsim {

// The picoseconds of one duration_micros unit: microseconds as Chakra names them, or the 1 ns
// cycles ASTRA-sim 2.0's analytical runs take them for (its system layer schedules a compute
// node for duration ticks of 1 ns: the published totals of its ResNet-50 example count them so).
inline constexpr std::int64_t chakra_microseconds = 1'000'000;
inline constexpr std::int64_t chakra_nanoseconds = 1'000;

// InputError naming the file and what is wrong for a file that cannot be read, is not an
// uncompressed Chakra ET, is cut short, or does not follow the convention above.
Workload read_chakra_trace(const std::filesystem::path& path,
                           std::int64_t ps_per_tick = chakra_microseconds);
// The same from the bytes of an ET; `source` names it in messages and is the default model name.
Workload read_chakra_trace(std::string_view bytes, std::string_view source,
                           std::int64_t ps_per_tick = chakra_microseconds);

// InputError, naming `source` (the workload's file) and the layer's path, when two layers share
// a name (they would be merged on reading) or a time or size does not fit the format.
void write_chakra_trace(const Workload& workload, std::ostream& out,
                        std::string_view source = "workload");

}  // namespace sgdsim
