// Reading the gzip-compressed IDX files of Fashion-MNIST, and the synthetic logistic problem.
#include "sgdsim/convergence/dataset.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <memory>

#include "sgdsim/core/error.hpp"
#include "sgdsim/core/input_file.hpp"
#include "sgdsim/core/rng.hpp"

namespace sgdsim::convergence {

namespace {

// The whole decompressed content of a .gz file.
std::vector<unsigned char> read_gzip(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) {
    throw InputError(fmt::format(
        "{}: no such file; Fashion-MNIST comes from Debian's dataset-fashion-mnist package "
        "(apt-get install dataset-fashion-mnist)",
        path.string()));
  }
  const std::string bytes =
      gunzipped_if_gzip(read_input_file(path, "Fashion-MNIST file"), path.string());
  return {bytes.begin(), bytes.end()};
}

std::uint32_t big_endian(const std::vector<unsigned char>& bytes, std::size_t at) {
  return (std::uint32_t{bytes[at]} << 24U) | (std::uint32_t{bytes[at + 1]} << 16U) |
         (std::uint32_t{bytes[at + 2]} << 8U) | std::uint32_t{bytes[at + 3]};
}

// An IDX file of unsigned bytes with the given number of dimensions: its dimensions and the
// offset of its data.
std::vector<std::uint32_t> idx_shape(const std::vector<unsigned char>& bytes,
                                     const std::filesystem::path& path, std::size_t dimensions) {
  const std::size_t header = 4 + 4 * dimensions;
  if (bytes.size() < header || bytes[0] != 0 || bytes[1] != 0 || bytes[2] != 0x08 ||
      bytes[3] != dimensions) {
    throw InputError(fmt::format("{}: expected an IDX file of unsigned bytes with {} dimensions",
                                 path.string(), dimensions));
  }
  std::vector<std::uint32_t> shape;
  std::size_t size = 1;
  for (std::size_t d = 0; d < dimensions; ++d) {
    shape.push_back(big_endian(bytes, 4 + 4 * d));
    size *= shape.back();
  }
  if (bytes.size() != header + size) {
    throw InputError(fmt::format("{}: expected {} bytes of data after its header, found {}",
                                 path.string(), size, bytes.size() - header));
  }
  return shape;
}

Dataset read_split(const std::filesystem::path& images_path,
                   const std::filesystem::path& labels_path) {
  const std::vector<unsigned char> images = read_gzip(images_path);
  const std::vector<unsigned char> labels = read_gzip(labels_path);
  const auto image_shape = idx_shape(images, images_path, 3);
  const auto label_shape = idx_shape(labels, labels_path, 1);
  if (image_shape[0] != label_shape[0]) {
    throw InputError(fmt::format("{}: {} labels for {} images in {}", labels_path.string(),
                                 label_shape[0], image_shape[0], images_path.string()));
  }
  const Eigen::Index count = image_shape[0];
  const Eigen::Index pixels = Eigen::Index{image_shape[1]} * image_shape[2];
  Dataset data;
  data.classes = 10;
  data.features.resize(count, pixels);
  const unsigned char* pixel = images.data() + 16;
  for (Eigen::Index row = 0; row < count; ++row) {
    for (Eigen::Index column = 0; column < pixels; ++column) {
      data.features(row, column) = *pixel++ / 255.0;
    }
  }
  data.labels.assign(labels.begin() + 8, labels.end());
  for (const int label : data.labels) {
    if (label < 0 || label >= data.classes) {
      throw InputError(
          fmt::format("{}: a label of {}, expected 0 to 9", labels_path.string(), label));
    }
  }
  return data;
}

}  // namespace

std::filesystem::path default_fashion_mnist_folder() {
  return "/usr/share/datasets/fashion-mnist";
}

TrainTest load_fashion_mnist(const std::filesystem::path& folder) {
  TrainTest data;
  data.train =
      read_split(folder / "train-images-idx3-ubyte.gz", folder / "train-labels-idx1-ubyte.gz");
  data.test =
      read_split(folder / "t10k-images-idx3-ubyte.gz", folder / "t10k-labels-idx1-ubyte.gz");
  data.source = fmt::format("Fashion-MNIST ({})", folder.string());
  return data;
}

TrainTest synthetic_logistic(int examples, int dimensions, double signal, std::uint64_t seed) {
  SGDSIM_ASSERT(examples >= 2 && dimensions >= 1, "a synthetic problem needs examples");
  Rng rng(seed);
  Eigen::VectorXd planted(dimensions);
  for (Eigen::Index i = 0; i < dimensions; ++i) planted(i) = rng.next_normal();
  planted *= signal / planted.norm();
  const auto make = [&](int count) {
    Dataset data;
    data.classes = 2;
    data.features.resize(count, dimensions);
    for (Eigen::Index row = 0; row < count; ++row) {
      for (Eigen::Index column = 0; column < dimensions; ++column) {
        data.features(row, column) = rng.next_normal();
      }
      const double p = 1.0 / (1.0 + std::exp(-data.features.row(row).dot(planted)));
      data.labels.push_back(rng.next_unit() < p ? 1 : 0);
    }
    return data;
  };
  TrainTest data;
  data.train = make(examples / 2);
  data.test = make(examples - examples / 2);
  data.source = fmt::format("synthetic logistic ({} x {}, seed {})", examples, dimensions, seed);
  return data;
}

}  // namespace sgdsim::convergence
