// Data for the convergence engine: Fashion-MNIST from Debian's dataset-fashion-mnist package
// (60,000 training and 10,000 test images of 28 x 28 pixels in 10 classes, the IDX files of
// Xiao, Rasul & Vollgraf 2017, gzip-compressed), and a synthetic binary classification problem
// for l2-regularised logistic regression, whose optimum theory describes exactly.
#pragma once

#include <Eigen/Dense>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace sgdsim::convergence {

// One row per example, stored row by row: a batch gathers whole rows, each contiguous (stored
// column by column, a batch's 784 pixels of an example lay 60,000 doubles apart).
using ExampleRows = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct Dataset {
  ExampleRows features;     // one row per example
  std::vector<int> labels;  // 0 .. classes-1
  int classes = 0;

  Eigen::Index examples() const { return features.rows(); }
};

struct TrainTest {
  Dataset train;
  Dataset test;
  std::string source;  // where it came from, for reports
};

// Where Debian installs the package.
std::filesystem::path default_fashion_mnist_folder();

// Pixels scaled to [0, 1]. An InputError names the package to install when a file is missing,
// and the file and what was wrong when one is not an IDX file of the expected shape.
TrainTest load_fashion_mnist(const std::filesystem::path& folder = default_fashion_mnist_folder());

// `examples` points of `dimensions` standard normal features, half for training and half for
// testing, labelled 1 with probability sigmoid(x . w*) for a planted w* drawn from the seed
// (unit norm times `signal`). Deterministic for a seed.
TrainTest synthetic_logistic(int examples, int dimensions, double signal, std::uint64_t seed);

}  // namespace sgdsim::convergence
