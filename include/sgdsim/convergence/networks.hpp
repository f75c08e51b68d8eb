// Convolutional networks for the convergence engine, trained with libtorch (PyTorch's C++ API,
// Debian's libtorch-dev) on the CPU in float32, their parameters seen by the engine as one flat
// vector of doubles (copied in before and out after every call, in module registration order):
//   lenet   LeNet-5 as LeCun et al. 1998 lay it out, with ReLU and max pooling as modern
//           implementations do: conv 5x5 (6, padding 2) - pool - conv 5x5 (16) - pool -
//           fc 120 - fc 84 - fc 10; 61,706 parameters on 28 x 28 images.
//   resnet  a residual network in the family of He et al. 2016 (section 4.2, 6n+2 layers with
//           n = 1: ResNet-8) at half its width (8, 16, 32 channels) behind a stride-2 stem, so
//           that 28 x 28 images cost about what LeNet costs: conv 3x3 (8, stride 2) - BN - ReLU,
//           one basic block per stage (the second and third halve the side, a 1x1 convolution
//           with batch norm on the shortcut), global average pooling, fc 10; 19,786 parameters
//           and 128 batch-norm statistics (running means and variances, the model's state).
// Initialisation is PyTorch's default for each layer (weights and biases uniform in
// +-1/sqrt(fan-in); batch norm: scale 1, shift 0, mean 0, variance 1), drawn from the engine's
// generator, so a run depends on its seed only. Every call runs libtorch on one thread of its
// own (at::set_num_threads(1) in the calling thread), so results do not depend on how many
// workers share a thread.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sgdsim/convergence/model.hpp"

namespace sgdsim::convergence {

// Whether this build has libtorch (the meson option `torch`).
bool networks_available();

// The network's names, as convergence tasks spell them after "fashion_mnist_".
const std::vector<std::string>& network_names();

// The network a convergence task trains ("fashion_mnist_lenet" -> "lenet"), or nothing for the
// tasks that are not networks.
std::optional<std::string> task_network(const std::string& task);

// `name` from network_names(), for square single-channel images of `side` pixels and `classes`
// classes. Throws InputError naming the package where this build has no libtorch.
std::unique_ptr<Model> network(const std::string& name, int side, int classes);

}  // namespace sgdsim::convergence
