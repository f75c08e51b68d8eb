// Models the convergence engine trains, each with its parameters as one flat vector so that
// averaging, compression and variance act on the same thing a real allreduce moves (the
// networks, convergence/networks.hpp, are libtorch modules seen the same way):
//   softmax regression  d x C weights and C biases, cross-entropy;
//   mlp                 d -> h (ReLU) -> C, cross-entropy (He initialisation);
//   logistic            binary, d weights, l2-regularised: mean log(1 + exp(-y x.w)) +
//                       lambda/2 |w|^2 with y in {-1, +1}: lambda-strongly convex and
//                       (lambda + max eig(X'X)/(4m))-smooth, so gradient descent's rate is known.
#pragma once

#include <Eigen/Dense>

#include <memory>
#include <string>
#include <vector>

#include "sgdsim/core/rng.hpp"

namespace sgdsim::convergence {

struct Evaluation {
  double loss = 0.0;
  double accuracy = 0.0;
};

// One instance per worker (replica()): a model may keep state between calls beyond its
// parameters, as a network's batch-norm running statistics, which its training calls update.
class Model {
 public:
  virtual ~Model() = default;
  virtual std::string name() const = 0;
  virtual Eigen::Index parameters() const = 0;
  // Initial parameters drawn from `rng`.
  virtual Eigen::VectorXd initial(Rng& rng) const = 0;
  // A fresh instance of the same model with this one's state, for another worker.
  virtual std::unique_ptr<Model> replica() const = 0;
  // The state kept beside the parameters, flat (empty for the models here); the engine averages
  // it wherever it averages parameters, and evaluates with the mean.
  virtual Eigen::VectorXd state() const { return {}; }
  virtual void set_state(const Eigen::VectorXd& /*state*/) {}
  // The mean loss over the examples and its gradient (written to `gradient`), in training mode.
  virtual double loss_gradient(const Eigen::VectorXd& w, const Eigen::MatrixXd& x,
                               const std::vector<int>& y, Eigen::VectorXd& gradient) = 0;
  virtual double loss(const Eigen::VectorXd& w, const Eigen::MatrixXd& x,
                      const std::vector<int>& y) = 0;
  // Fraction of the examples whose most likely class is their label.
  virtual double accuracy(const Eigen::VectorXd& w, const Eigen::MatrixXd& x,
                          const std::vector<int>& y) = 0;
  // Both, in inference mode (a network passes over the examples once).
  virtual Evaluation evaluate(const Eigen::VectorXd& w, const Eigen::MatrixXd& x,
                              const std::vector<int>& y) {
    return {loss(w, x, y), accuracy(w, x, y)};
  }
};

std::unique_ptr<Model> softmax_regression(Eigen::Index dimensions, int classes);
std::unique_ptr<Model> mlp(Eigen::Index dimensions, Eigen::Index hidden, int classes);
std::unique_ptr<Model> logistic_regression(Eigen::Index dimensions, double l2);

// The smoothness constant of the logistic loss on these examples: lambda + max eig(X'X)/(4m).
double logistic_smoothness(const Eigen::MatrixXd& x, double l2);

}  // namespace sgdsim::convergence
