// GPU implementations of the compressors, timed with CUDA events: top-k by CUB radix sort of
// magnitudes (keys) with indices (values), random-k from a shared cuRAND seed, natural
// compression, natural and standard (QSGD) dithering after a CUB norm reduction, fp16 casts,
// scaled sign, sparse pack (gather) and unpack (scatter-add), and pinned host<->device copies.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <curand.h>
#include <cub/cub.cuh>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "probe.hpp"

namespace sgdsim::probe {

namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
  }
}

__device__ float uniform_hash(unsigned long long i, unsigned long long seed) {
  unsigned long long z = i * 0x9E3779B97F4A7C15ULL + seed;
  z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
  return static_cast<float>((z ^ (z >> 31U)) >> 40U) * (1.0F / 16777216.0F);
}

__global__ void magnitudes(const float* x, float* keys, unsigned* index, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) {
    keys[i] = fabsf(x[i]);
    index[i] = static_cast<unsigned>(i);
  }
}

__global__ void gather(const float* x, const unsigned* index, float* values, long long k) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < k) values[i] = x[index[i]];
}

__global__ void scatter_add(float* dense, const unsigned* index, const float* values, long long k) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < k) atomicAdd(dense + index[i], values[i]);
}

__global__ void indices_from_uniform(const float* uniform, unsigned* index, long long k,
                                     long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < k) index[i] = static_cast<unsigned>(uniform[i] * static_cast<float>(n - 1));
}

__global__ void natural_encode(const float* x, unsigned char* codes, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float magnitude = fabsf(x[i]);
  const int exponent = magnitude > 0 ? static_cast<int>(floorf(log2f(magnitude))) : -127;
  const float low = ldexpf(1.0F, exponent);
  const int up = uniform_hash(i, 11) < (magnitude - low) / low ? 1 : 0;
  codes[i] = static_cast<unsigned char>(((exponent + up + 127) & 0x7F) | (x[i] < 0 ? 0x80 : 0));
}

__global__ void natural_decode(const unsigned char* codes, float* dense, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float value = ldexpf(1.0F, (codes[i] & 0x7F) - 127);
  dense[i] = (codes[i] & 0x80) ? -value : value;
}

__global__ void square(const float* x, float* out, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = x[i] * x[i];
}

__global__ void dither_encode(const float* x, const float* squared_norm, unsigned char* codes,
                              long long n, int levels, bool natural_levels) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float r = fabsf(x[i]) / sqrtf(*squared_norm);
  float level = 0;
  if (natural_levels) {
    const float e = r > 0 ? floorf(log2f(r)) : -static_cast<float>(levels);
    level = fmaxf(e, -static_cast<float>(levels - 1)) + (uniform_hash(i, 13) < r ? 1.0F : 0.0F);
  } else {
    const float scaled = r * static_cast<float>(levels);
    level = floorf(scaled) + (uniform_hash(i, 17) < scaled - floorf(scaled) ? 1.0F : 0.0F);
  }
  codes[i] = static_cast<unsigned char>((static_cast<int>(level) & 0x7F) | (x[i] < 0 ? 0x80 : 0));
}

__global__ void dither_decode(const unsigned char* codes, const float* squared_norm, float* dense,
                              long long n, int levels, bool natural_levels) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float norm = sqrtf(*squared_norm);
  const float level = static_cast<float>(static_cast<signed char>((codes[i] & 0x7F) << 1) >> 1);
  const float value =
      natural_levels ? ldexpf(norm, static_cast<int>(level)) : norm * level / levels;
  dense[i] = (codes[i] & 0x80) ? -value : value;
}

__global__ void to_half(const float* x, __half* out, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = __float2half(x[i]);
}

__global__ void from_half(const __half* in, float* dense, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) dense[i] = __half2float(in[i]);
}

__global__ void sign_encode(const float* x, unsigned char* codes, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) codes[i] = x[i] < 0 ? 1 : 0;
}

__global__ void sign_decode(const unsigned char* codes, const float* scale, float* dense,
                            long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) dense[i] = codes[i] ? -*scale : *scale;
}

unsigned blocks(long long n) {
  return static_cast<unsigned>((n + 255) / 256);
}

class Timer {
 public:
  Timer() {
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~Timer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  template <class Work>
  double median_us(int repeats, Work&& work) {
    std::vector<float> samples;
    for (int r = 0; r < repeats; ++r) {
      check(cudaEventRecord(start_), "cudaEventRecord");
      work();
      check(cudaEventRecord(stop_), "cudaEventRecord");
      check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
      samples.push_back(ms * 1e3F);
    }
    std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
    return samples[samples.size() / 2];
  }

 private:
  cudaEvent_t start_{};
  cudaEvent_t stop_{};
};

template <class T>
T* device_alloc(std::size_t count) {
  T* pointer = nullptr;
  check(cudaMalloc(&pointer, count * sizeof(T)), "cudaMalloc");
  return pointer;
}

}  // namespace

bool cuda_available() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

Report probe_gpu(const Settings& settings, Progress progress) {
  cudaDeviceProp properties{};
  check(cudaGetDeviceProperties(&properties, 0), "cudaGetDeviceProperties");
  int driver = 0;
  cudaDriverGetVersion(&driver);
  Report report{std::string(properties.name) + " (CUDA driver " + std::to_string(driver / 1000) +
                    "." + std::to_string((driver % 1000) / 10) + ")",
                {}};
  const std::int64_t largest = *std::max_element(settings.sizes.begin(), settings.sizes.end());
  const auto capacity = static_cast<std::size_t>(largest);
  float* x = device_alloc<float>(capacity);
  float* keys = device_alloc<float>(capacity);
  float* keys_sorted = device_alloc<float>(capacity);
  unsigned* index = device_alloc<unsigned>(capacity);
  unsigned* index_sorted = device_alloc<unsigned>(capacity);
  float* values = device_alloc<float>(capacity);
  float* dense = device_alloc<float>(capacity);
  unsigned char* codes = device_alloc<unsigned char>(capacity);
  __half* half = device_alloc<__half>(capacity);
  float* scalar = device_alloc<float>(1);
  float* host = nullptr;
  check(cudaMallocHost(&host, capacity * sizeof(float)), "cudaMallocHost");
  curandGenerator_t generator{};
  curandCreateGenerator(&generator, CURAND_RNG_PSEUDO_DEFAULT);
  curandSetPseudoRandomGeneratorSeed(generator, 42);
  curandGenerateNormal(generator, x, capacity + (capacity % 2), 0.0F, 1.0F);
  std::size_t sort_bytes = 0;
  cub::DeviceRadixSort::SortPairsDescending(nullptr, sort_bytes, keys, keys_sorted, index,
                                            index_sorted, static_cast<int>(largest));
  std::size_t sum_bytes = 0;
  cub::DeviceReduce::Sum(nullptr, sum_bytes, keys, scalar, static_cast<int>(largest));
  void* scratch = device_alloc<char>(std::max(sort_bytes, sum_bytes));
  Timer timer;
  const int total = static_cast<int>(settings.sizes.size());
  int done = 0;
  for (const std::int64_t d : settings.sizes) {
    progress(done++, total, "gpu");
    const long long n = d;
    const long long k =
        std::max<long long>(1, static_cast<long long>(std::ceil(settings.density * d)));
    auto add = [&](const char* what, bool encode, double us) {
      report.measurements.push_back({what, encode, d, us});
    };
    add("topk", true, timer.median_us(settings.repeats, [&] {
      magnitudes<<<blocks(n), 256>>>(x, keys, index, n);
      std::size_t bytes = sort_bytes;
      cub::DeviceRadixSort::SortPairsDescending(scratch, bytes, keys, keys_sorted, index,
                                                index_sorted, static_cast<int>(n));
      gather<<<blocks(k), 256>>>(x, index_sorted, values, k);
    }));
    add("topk", false, timer.median_us(settings.repeats, [&] {
      cudaMemsetAsync(dense, 0, n * sizeof(float));
      scatter_add<<<blocks(k), 256>>>(dense, index_sorted, values, k);
    }));
    add("randk", true, timer.median_us(settings.repeats, [&] {
      curandSetPseudoRandomGeneratorSeed(generator, 7);  // shared by all workers
      curandGenerateUniform(generator, keys, k);
      indices_from_uniform<<<blocks(k), 256>>>(keys, index, k, n);
      gather<<<blocks(k), 256>>>(x, index, values, k);
    }));
    add("randk", false, timer.median_us(settings.repeats, [&] {
      cudaMemsetAsync(dense, 0, n * sizeof(float));
      scatter_add<<<blocks(k), 256>>>(dense, index, values, k);
    }));
    add("natural", true, timer.median_us(settings.repeats, [&] {
      natural_encode<<<blocks(n), 256>>>(x, codes, n);
    }));
    add("natural", false, timer.median_us(settings.repeats, [&] {
      natural_decode<<<blocks(n), 256>>>(codes, dense, n);
    }));
    for (const bool natural_levels : {false, true}) {
      const char* name = natural_levels ? "natural_dithering" : "standard_dithering";
      add(name, true, timer.median_us(settings.repeats, [&] {
        square<<<blocks(n), 256>>>(x, keys, n);
        std::size_t bytes = sum_bytes;
        cub::DeviceReduce::Sum(scratch, bytes, keys, scalar, static_cast<int>(n));
        dither_encode<<<blocks(n), 256>>>(x, scalar, codes, n, settings.levels, natural_levels);
      }));
      add(name, false, timer.median_us(settings.repeats, [&] {
        dither_decode<<<blocks(n), 256>>>(codes, scalar, dense, n, settings.levels, natural_levels);
      }));
    }
    add("fp16", true,
        timer.median_us(settings.repeats, [&] { to_half<<<blocks(n), 256>>>(x, half, n); }));
    add("fp16", false,
        timer.median_us(settings.repeats, [&] { from_half<<<blocks(n), 256>>>(half, dense, n); }));
    add("sign", true, timer.median_us(settings.repeats, [&] {
      sign_encode<<<blocks(n), 256>>>(x, codes, n);
      std::size_t bytes = sum_bytes;
      cub::DeviceReduce::Sum(scratch, bytes, x, scalar, static_cast<int>(n));
    }));
    add("sign", false, timer.median_us(settings.repeats, [&] {
      sign_decode<<<blocks(n), 256>>>(codes, scalar, dense, n);
    }));
    add("host_to_device", true, timer.median_us(settings.repeats, [&] {
      cudaMemcpyAsync(dense, host, n * sizeof(float), cudaMemcpyHostToDevice);
    }));
    add("device_to_host", true, timer.median_us(settings.repeats, [&] {
      cudaMemcpyAsync(host, dense, n * sizeof(float), cudaMemcpyDeviceToHost);
    }));
    check(cudaGetLastError(), "kernel launch");
  }
  progress(total, total, "gpu");
  curandDestroyGenerator(generator);
  cudaFreeHost(host);
  for (void* pointer :
       {static_cast<void*>(x), static_cast<void*>(keys), static_cast<void*>(keys_sorted),
        static_cast<void*>(index), static_cast<void*>(index_sorted), static_cast<void*>(values),
        static_cast<void*>(dense), static_cast<void*>(codes), static_cast<void*>(half),
        static_cast<void*>(scalar), scratch}) {
    cudaFree(pointer);
  }
  return report;
}

}  // namespace sgdsim::probe
