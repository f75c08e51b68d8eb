// The engine's convolutional networks on libtorch (the header says what they are), built as a
// module of their own (libsgdsim_networks.so) that convergence/networks_loader.cpp loads on use.
#include "sgdsim/convergence/networks.hpp"

#include <dlfcn.h>
#include <omp.h>
#include <torch/torch.h>

#include <cmath>
#include <mutex>
#include <set>

#include "sgdsim/core/error.hpp"

namespace sgdsim::convergence {

namespace {

namespace nn = torch::nn;

// Conv 3x3 - BN - ReLU - conv 3x3 - BN, plus the input (through a 1x1 convolution and batch
// norm where the block changes width or side), then ReLU: He et al. 2016's basic block.
struct BasicBlockImpl : nn::Module {
  BasicBlockImpl(int in, int out, int stride)
      : conv1(register_module(
            "conv1",
            nn::Conv2d(nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false)))),
        bn1(register_module("bn1", nn::BatchNorm2d(out))),
        conv2(register_module("conv2",
                              nn::Conv2d(nn::Conv2dOptions(out, out, 3).padding(1).bias(false)))),
        bn2(register_module("bn2", nn::BatchNorm2d(out))) {
    if (stride != 1 || in != out) {
      shortcut = register_module(
          "shortcut",
          nn::Sequential(nn::Conv2d(nn::Conv2dOptions(in, out, 1).stride(stride).bias(false)),
                         nn::BatchNorm2d(out)));
    }
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor out = torch::relu(bn1(conv1(x)));
    out = bn2(conv2(out));
    return torch::relu(out + (shortcut.is_empty() ? x : shortcut->forward(x)));
  }
  nn::Conv2d conv1;
  nn::BatchNorm2d bn1;
  nn::Conv2d conv2;
  nn::BatchNorm2d bn2;
  nn::Sequential shortcut{nullptr};
};
TORCH_MODULE(BasicBlock);

nn::Sequential lenet(int side, int classes) {
  // Two 5x5 convolutions, the first padded: side -> side/2 -> (side/2 - 4)/2.
  const int last = (side / 2 - 4) / 2;
  return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(1, 6, 5).padding(2)),
                        nn::Functional(torch::relu), nn::MaxPool2d(2), nn::Conv2d(6, 16, 5),
                        nn::Functional(torch::relu), nn::MaxPool2d(2), nn::Flatten(),
                        nn::Linear(16 * last * last, 120), nn::Functional(torch::relu),
                        nn::Linear(120, 84), nn::Functional(torch::relu), nn::Linear(84, classes));
}

nn::Sequential resnet(int classes) {
  return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(1, 8, 3).stride(2).padding(1).bias(false)),
                        nn::BatchNorm2d(8), nn::Functional(torch::relu), BasicBlock(8, 8, 1),
                        BasicBlock(8, 16, 2), BasicBlock(16, 32, 2),
                        nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions(1)), nn::Flatten(),
                        nn::Linear(32, classes));
}

// An OpenBLAS function by name, where OpenBLAS is the BLAS libtorch loaded (Debian picks it
// with update-alternatives); null otherwise.
template <class Function>
Function openblas(const char* name) {
  return reinterpret_cast<Function>(dlsym(RTLD_DEFAULT, name));
}

// libtorch on the calling thread alone. at::set_num_threads changes process-wide pools and is
// not safe to call while other threads compute, so it runs once, with OpenBLAS's own threads;
// OpenMP's team size is each thread's own setting (a new thread starts with OpenMP's default),
// set on every call.
void one_thread() {
  static std::once_flag process;
  std::call_once(process, [] {
    at::set_num_threads(1);
    if (const auto set = openblas<void (*)(int)>("openblas_set_num_threads")) set(1);
  });
  omp_set_num_threads(1);
}

// Debian's serial OpenBLAS (libopenblas0-serial) must not be called from two threads at once:
// built without locks, it shares its buffers, and two workers' gradients computed on two threads
// came out different from run to run. Its pthread and OpenMP builds, and the reference BLAS,
// may. With the serial one the networks take turns (a lock around every call).
std::unique_lock<std::mutex> blas_turn() {
  static std::mutex turn;
  static const bool shared = [] {
    const auto parallel = openblas<int (*)()>("openblas_get_parallel");
    return parallel != nullptr && parallel() == 0;
  }();
  return shared ? std::unique_lock<std::mutex>(turn) : std::unique_lock<std::mutex>();
}

class Network final : public Model {
 public:
  Network(std::string name, int side, int classes)
      : name_(std::move(name)), side_(side), classes_(classes) {
    one_thread();
    module_ = name_ == "lenet" ? lenet(side, classes) : resnet(classes);
    for (const torch::Tensor& p : module_->parameters()) parameters_.push_back(p);
    for (const auto& item : module_->named_buffers()) {
      // Running means and variances; the batch counter only matters for momentum-free BN.
      if (item.key().find("num_batches_tracked") == std::string::npos) {
        buffers_.push_back(item.value());
      }
    }
    for (const torch::Tensor& p : parameters_) size_ += p.numel();
    for (const torch::Tensor& b : buffers_) state_size_ += b.numel();
  }

  std::string name() const override { return name_; }
  Eigen::Index parameters() const override { return size_; }

  Eigen::VectorXd initial(Rng& rng) const override {
    // PyTorch's defaults: kaiming_uniform_(a = sqrt(5)) for weights, a bound of
    // sqrt(6 / ((1 + 5) fan_in)) = 1 / sqrt(fan_in), and biases uniform within the same bound;
    // batch norm's scale 1 and shift 0.
    Eigen::VectorXd w(size_);
    Eigen::Index at = 0;
    std::int64_t fan_in = 1;
    std::set<std::string> scales;  // batch norm's parameters: the scale 1, the shift 0
    std::set<std::string> shifts;
    for (const auto& item : module_->named_modules()) {
      if (item.value()->as<nn::BatchNorm2dImpl>() != nullptr) {
        scales.insert(item.key() + ".weight");
        shifts.insert(item.key() + ".bias");
      }
    }
    for (const auto& item : module_->named_parameters()) {
      const torch::Tensor& p = item.value();
      if (p.dim() > 1) fan_in = p.numel() / p.size(0);  // a bias follows its weight
      const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
      for (std::int64_t k = 0; k < p.numel(); ++k) {
        w(at++) = scales.contains(item.key())   ? 1.0
                  : shifts.contains(item.key()) ? 0.0
                                                : (2.0 * rng.next_unit() - 1.0) * bound;
      }
    }
    return w;
  }

  std::unique_ptr<Model> replica() const override {
    auto copy = std::make_unique<Network>(name_, side_, classes_);
    copy->set_state(state());
    return copy;
  }

  Eigen::VectorXd state() const override {
    Eigen::VectorXd s(state_size_);
    Eigen::Index at = 0;
    for (const torch::Tensor& b : buffers_) {
      const float* data = b.data_ptr<float>();
      for (std::int64_t k = 0; k < b.numel(); ++k) s(at++) = data[k];
    }
    return s;
  }

  void set_state(const Eigen::VectorXd& state) override {
    SGDSIM_ASSERT(state.size() == state_size_, "a network's state has its own size");
    Eigen::Index at = 0;
    for (torch::Tensor& b : buffers_) {
      float* data = b.data_ptr<float>();
      for (std::int64_t k = 0; k < b.numel(); ++k) data[k] = static_cast<float>(state(at++));
    }
  }

  double loss_gradient(const Eigen::VectorXd& w, const Eigen::MatrixXd& x,
                       const std::vector<int>& y, Eigen::VectorXd& gradient) override {
    one_thread();
    const auto turn = blas_turn();
    load(w);
    module_->train();
    for (torch::Tensor& p : parameters_) p.mutable_grad() = torch::Tensor();
    const torch::Tensor loss = torch::nn::functional::cross_entropy(
        module_->forward(images(x, 0, x.rows())), labels(y, 0, x.rows()));
    loss.backward();
    gradient.resize(size_);
    Eigen::Index at = 0;
    for (const torch::Tensor& p : parameters_) {
      const float* data = p.grad().data_ptr<float>();
      for (std::int64_t k = 0; k < p.numel(); ++k) gradient(at++) = data[k];
    }
    return loss.item<double>();
  }

  double loss(const Eigen::VectorXd& w, const Eigen::MatrixXd& x,
              const std::vector<int>& y) override {
    return evaluate(w, x, y).loss;
  }
  double accuracy(const Eigen::VectorXd& w, const Eigen::MatrixXd& x,
                  const std::vector<int>& y) override {
    return evaluate(w, x, y).accuracy;
  }

  Evaluation evaluate(const Eigen::VectorXd& w, const Eigen::MatrixXd& x,
                      const std::vector<int>& y) override {
    one_thread();
    const auto turn = blas_turn();
    load(w);
    module_->eval();
    const torch::NoGradGuard no_gradient;
    double loss_sum = 0.0;
    std::int64_t hits = 0;
    constexpr Eigen::Index chunk = 1000;  // examples per forward pass
    for (Eigen::Index begin = 0; begin < x.rows(); begin += chunk) {
      const Eigen::Index count = std::min(chunk, x.rows() - begin);
      const torch::Tensor target = labels(y, begin, count);
      const torch::Tensor logits = module_->forward(images(x, begin, count));
      loss_sum += torch::nn::functional::cross_entropy(
                      logits, target,
                      torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                      .item<double>();
      hits += logits.argmax(1).eq(target).sum().item<std::int64_t>();
    }
    const auto examples = static_cast<double>(x.rows());
    return {loss_sum / examples, static_cast<double>(hits) / examples};
  }

 private:
  void load(const Eigen::VectorXd& w) {
    SGDSIM_ASSERT(w.size() == size_, "parameters of the network's size");
    const torch::NoGradGuard no_gradient;
    Eigen::Index at = 0;
    for (torch::Tensor& p : parameters_) {
      float* data = p.data_ptr<float>();
      for (std::int64_t k = 0; k < p.numel(); ++k) data[k] = static_cast<float>(w(at++));
    }
  }

  // Rows [begin, begin + count) of x as a float batch of 1 x side x side images.
  torch::Tensor images(const Eigen::MatrixXd& x, Eigen::Index begin, Eigen::Index count) const {
    torch::Tensor batch = torch::empty({count, 1, side_, side_}, torch::kFloat32);
    float* data = batch.data_ptr<float>();
    const Eigen::Index pixels = x.cols();
    for (Eigen::Index row = 0; row < count; ++row) {
      for (Eigen::Index col = 0; col < pixels; ++col) {
        data[row * pixels + col] = static_cast<float>(x(begin + row, col));
      }
    }
    return batch;
  }

  static torch::Tensor labels(const std::vector<int>& y, Eigen::Index begin, Eigen::Index count) {
    torch::Tensor target = torch::empty({count}, torch::kInt64);
    auto* data = target.data_ptr<std::int64_t>();
    for (Eigen::Index k = 0; k < count; ++k) data[k] = y[static_cast<std::size_t>(begin + k)];
    return target;
  }

  std::string name_;
  int side_;
  int classes_;
  nn::Sequential module_{nullptr};
  std::vector<torch::Tensor> parameters_;
  std::vector<torch::Tensor> buffers_;
  Eigen::Index size_ = 0;
  Eigen::Index state_size_ = 0;
};

}  // namespace

}  // namespace sgdsim::convergence

// The module's one entry point (convergence/networks_loader.cpp finds it by name).
extern "C" __attribute__((visibility("default"))) sgdsim::convergence::Model* sgdsim_create_network(
    const char* name, int side, int classes) {
  const std::string network(name);
  SGDSIM_ASSERT(network == "lenet" || network == "resnet", "a network this file defines");
  SGDSIM_ASSERT(side >= 12, "images large enough for LeNet's two 5x5 convolutions");
  return new sgdsim::convergence::Network(network, side, classes);
}
