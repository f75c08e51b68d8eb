// Losses and gradients of the engine's models, written out with Eigen.
#include "sgdsim/convergence/model.hpp"

#include <cmath>

#include "sgdsim/convergence/networks.hpp"
#include "sgdsim/core/error.hpp"

namespace sgdsim::convergence {

namespace {

// Row-wise softmax of `logits` in place, and the mean cross-entropy against `y`.
double softmax_cross_entropy(Eigen::MatrixXd& logits, const std::vector<int>& y) {
  double total = 0.0;
  for (Eigen::Index row = 0; row < logits.rows(); ++row) {
    const double top = logits.row(row).maxCoeff();
    logits.row(row).array() = (logits.row(row).array() - top).exp();
    const double sum = logits.row(row).sum();
    logits.row(row) /= sum;
    total -= std::log(std::max(logits(row, y[static_cast<std::size_t>(row)]), 1e-300));
  }
  return total / static_cast<double>(logits.rows());
}

// Probabilities minus one-hot labels, over the batch size: the gradient at the logits.
void subtract_labels(Eigen::MatrixXd& probabilities, const std::vector<int>& y) {
  for (Eigen::Index row = 0; row < probabilities.rows(); ++row) {
    probabilities(row, y[static_cast<std::size_t>(row)]) -= 1.0;
  }
  probabilities /= static_cast<double>(probabilities.rows());
}

double argmax_accuracy(const Eigen::MatrixXd& scores, const std::vector<int>& y) {
  Eigen::Index hits = 0;
  for (Eigen::Index row = 0; row < scores.rows(); ++row) {
    Eigen::Index best = 0;
    scores.row(row).maxCoeff(&best);
    hits += best == y[static_cast<std::size_t>(row)] ? 1 : 0;
  }
  return static_cast<double>(hits) / static_cast<double>(scores.rows());
}

class Softmax final : public Model {
 public:
  std::unique_ptr<Model> replica() const override { return std::make_unique<Softmax>(*this); }
  Softmax(Eigen::Index d, int c) : d_(d), c_(c) {}
  std::string name() const override { return "softmax"; }
  Eigen::Index parameters() const override { return d_ * c_ + c_; }
  Eigen::VectorXd initial(Rng& /*rng*/) const override {
    return Eigen::VectorXd::Zero(parameters());
  }
  double loss_gradient(const Eigen::VectorXd& w, const Eigen::MatrixXd& x,
                       const std::vector<int>& y, Eigen::VectorXd& gradient) override {
    Eigen::MatrixXd p = logits(w, x);
    const double loss = softmax_cross_entropy(p, y);
    subtract_labels(p, y);
    gradient.resize(parameters());
    Eigen::Map<Eigen::MatrixXd>(gradient.data(), d_, c_).noalias() = x.transpose() * p;
    gradient.tail(c_) = p.colwise().sum().transpose();
    return loss;
  }
  double loss(const Eigen::VectorXd& w, const Eigen::MatrixXd& x,
              const std::vector<int>& y) override {
    Eigen::MatrixXd p = logits(w, x);
    return softmax_cross_entropy(p, y);
  }
  double accuracy(const Eigen::VectorXd& w, const Eigen::MatrixXd& x,
                  const std::vector<int>& y) override {
    return argmax_accuracy(logits(w, x), y);
  }

 private:
  Eigen::MatrixXd logits(const Eigen::VectorXd& w, const Eigen::MatrixXd& x) const {
    const Eigen::Map<const Eigen::MatrixXd> weights(w.data(), d_, c_);
    Eigen::MatrixXd out = x * weights;
    out.rowwise() += w.tail(c_).transpose();
    return out;
  }
  Eigen::Index d_;
  Eigen::Index c_;
};

class Mlp final : public Model {
 public:
  std::unique_ptr<Model> replica() const override { return std::make_unique<Mlp>(*this); }
  Mlp(Eigen::Index d, Eigen::Index h, int c) : d_(d), h_(h), c_(c) {}
  std::string name() const override { return "mlp"; }
  Eigen::Index parameters() const override { return d_ * h_ + h_ + h_ * c_ + c_; }
  Eigen::VectorXd initial(Rng& rng) const override {
    Eigen::VectorXd w = Eigen::VectorXd::Zero(parameters());
    const double first = std::sqrt(2.0 / static_cast<double>(d_));
    const double second = std::sqrt(2.0 / static_cast<double>(h_));
    for (Eigen::Index i = 0; i < d_ * h_; ++i) w(i) = first * rng.next_normal();
    for (Eigen::Index i = 0; i < h_ * c_; ++i) w(d_ * h_ + h_ + i) = second * rng.next_normal();
    return w;
  }
  double loss_gradient(const Eigen::VectorXd& w, const Eigen::MatrixXd& x,
                       const std::vector<int>& y, Eigen::VectorXd& gradient) override {
    const Layers l = layers(w);
    Eigen::MatrixXd hidden = x * l.w1;
    hidden.rowwise() += l.b1.transpose();
    hidden = hidden.cwiseMax(0.0);
    Eigen::MatrixXd p = hidden * l.w2;
    p.rowwise() += l.b2.transpose();
    const double loss = softmax_cross_entropy(p, y);
    subtract_labels(p, y);
    gradient.resize(parameters());
    Eigen::Map<Eigen::MatrixXd>(gradient.data() + d_ * h_ + h_, h_, c_).noalias() =
        hidden.transpose() * p;
    gradient.tail(c_) = p.colwise().sum().transpose();
    Eigen::MatrixXd back = p * l.w2.transpose();
    back = back.cwiseProduct((hidden.array() > 0.0).cast<double>().matrix());
    Eigen::Map<Eigen::MatrixXd>(gradient.data(), d_, h_).noalias() = x.transpose() * back;
    gradient.segment(d_ * h_, h_) = back.colwise().sum().transpose();
    return loss;
  }
  double loss(const Eigen::VectorXd& w, const Eigen::MatrixXd& x,
              const std::vector<int>& y) override {
    Eigen::MatrixXd p = scores(w, x);
    return softmax_cross_entropy(p, y);
  }
  double accuracy(const Eigen::VectorXd& w, const Eigen::MatrixXd& x,
                  const std::vector<int>& y) override {
    return argmax_accuracy(scores(w, x), y);
  }

 private:
  struct Layers {
    Eigen::Map<const Eigen::MatrixXd> w1;
    Eigen::Map<const Eigen::VectorXd> b1;
    Eigen::Map<const Eigen::MatrixXd> w2;
    Eigen::Map<const Eigen::VectorXd> b2;
  };
  Layers layers(const Eigen::VectorXd& w) const {
    const double* at = w.data();
    return Layers{Eigen::Map<const Eigen::MatrixXd>(at, d_, h_),
                  Eigen::Map<const Eigen::VectorXd>(at + d_ * h_, h_),
                  Eigen::Map<const Eigen::MatrixXd>(at + d_ * h_ + h_, h_, c_),
                  Eigen::Map<const Eigen::VectorXd>(at + d_ * h_ + h_ + h_ * c_, c_)};
  }
  Eigen::MatrixXd scores(const Eigen::VectorXd& w, const Eigen::MatrixXd& x) const {
    const Layers l = layers(w);
    Eigen::MatrixXd hidden = x * l.w1;
    hidden.rowwise() += l.b1.transpose();
    Eigen::MatrixXd out = hidden.cwiseMax(0.0) * l.w2;
    out.rowwise() += l.b2.transpose();
    return out;
  }
  Eigen::Index d_;
  Eigen::Index h_;
  Eigen::Index c_;
};

class Logistic final : public Model {
 public:
  std::unique_ptr<Model> replica() const override { return std::make_unique<Logistic>(*this); }
  Logistic(Eigen::Index d, double l2) : d_(d), l2_(l2) {}
  std::string name() const override { return "logistic"; }
  Eigen::Index parameters() const override { return d_; }
  Eigen::VectorXd initial(Rng& /*rng*/) const override { return Eigen::VectorXd::Zero(d_); }
  double loss_gradient(const Eigen::VectorXd& w, const Eigen::MatrixXd& x,
                       const std::vector<int>& y, Eigen::VectorXd& gradient) override {
    const Eigen::VectorXd margin = signs(y).cwiseProduct(x * w);
    double total = 0.0;
    Eigen::VectorXd weight(margin.size());  // -y sigmoid(-margin) per example
    const Eigen::VectorXd s = signs(y);
    for (Eigen::Index i = 0; i < margin.size(); ++i) {
      total += softplus(-margin(i));
      weight(i) = -s(i) / (1.0 + std::exp(margin(i)));
    }
    const double m = static_cast<double>(margin.size());
    gradient = x.transpose() * weight / m + l2_ * w;
    return total / m + 0.5 * l2_ * w.squaredNorm();
  }
  double loss(const Eigen::VectorXd& w, const Eigen::MatrixXd& x,
              const std::vector<int>& y) override {
    const Eigen::VectorXd margin = signs(y).cwiseProduct(x * w);
    double total = 0.0;
    for (Eigen::Index i = 0; i < margin.size(); ++i) total += softplus(-margin(i));
    return total / static_cast<double>(margin.size()) + 0.5 * l2_ * w.squaredNorm();
  }
  double accuracy(const Eigen::VectorXd& w, const Eigen::MatrixXd& x,
                  const std::vector<int>& y) override {
    const Eigen::VectorXd margin = signs(y).cwiseProduct(x * w);
    return static_cast<double>((margin.array() > 0.0).count()) / static_cast<double>(margin.size());
  }

 private:
  static double softplus(double z) {
    return z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z));
  }
  static Eigen::VectorXd signs(const std::vector<int>& y) {
    Eigen::VectorXd s(static_cast<Eigen::Index>(y.size()));
    for (std::size_t i = 0; i < y.size(); ++i)
      s(static_cast<Eigen::Index>(i)) = y[i] == 1 ? 1.0 : -1.0;
    return s;
  }
  Eigen::Index d_;
  double l2_;
};

}  // namespace

std::unique_ptr<Model> softmax_regression(Eigen::Index dimensions, int classes) {
  return std::make_unique<Softmax>(dimensions, classes);
}

std::unique_ptr<Model> mlp(Eigen::Index dimensions, Eigen::Index hidden, int classes) {
  return std::make_unique<Mlp>(dimensions, hidden, classes);
}

std::unique_ptr<Model> logistic_regression(Eigen::Index dimensions, double l2) {
  return std::make_unique<Logistic>(dimensions, l2);
}

const std::vector<std::string>& network_names() {
  static const std::vector<std::string> names{"lenet", "resnet"};
  return names;
}

std::optional<std::string> task_network(const std::string& task) {
  for (const std::string& name : network_names()) {
    if (task == "fashion_mnist_" + name) return name;
  }
  return std::nullopt;
}

double logistic_smoothness(const Eigen::MatrixXd& x, double l2) {
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(x.transpose() * x,
                                                              Eigen::EigenvaluesOnly);
  return l2 + solver.eigenvalues().maxCoeff() / (4.0 * static_cast<double>(x.rows()));
}

}  // namespace sgdsim::convergence
