# Shared set-up for the tools/*.sh scripts (sourced, not run): installs what a fresh Debian 12
# machine lacks with apt-get, then configures and builds sgdsim in build/<name>.
# Usage inside a script:
#   source tools/setup.sh
#   SGDSIM_PACKAGES="$SGDSIM_RUN_PACKAGES"   # optional: what this script needs (default: all)
#   sgdsim_build_program NAME                # the sgdsim binary alone (run.sh, study.sh, ...)
#   sgdsim_build NAME [meson options...]     # everything: tests, benchmarks, module (test.sh)
# (sgdsim_configure NAME [options...] sets up build/NAME without building, for partial builds.)

# What each job needs, so that running one scenario installs no test tool:
# - run: the compiler, Meson, and the libraries the binary links (docs/install.md says what
#   each is for); git names the commit in --version and in results.
SGDSIM_RUN_PACKAGES="g++ meson ninja-build pkg-config python3 git libfmt-dev nlohmann-json3-dev
libboost-graph-dev libcli11-dev libprotobuf-dev protobuf-compiler libeigen3-dev zlib1g-dev
libssl-dev libpugixml-dev"
# - figures (sweep --plot, studies, tools/figures.sh): matplotlib.
SGDSIM_PLOT_PACKAGES="python3-matplotlib"
# - scenarios with a convergence section train on Fashion-MNIST.
SGDSIM_DATA_PACKAGES="dataset-fashion-mnist"
# - its convolutional networks train with libtorch, whose matrix products run on the BLAS Debian
#   selects: OpenBLAS's pthread build, several times faster than the reference BLAS and safe to
#   call from several threads (the serial build is not; docs/convergence.md).
SGDSIM_TORCH_PACKAGES="libtorch-dev libopenblas0-pthread"
# - tests: unit tests, benchmarks, the Python module and its pip build, MPI, formatting,
#   sanitizers and fuzzing, valgrind, schema validation, pandas, the capture tools' torch.
SGDSIM_TEST_PACKAGES="$SGDSIM_RUN_PACKAGES $SGDSIM_PLOT_PACKAGES $SGDSIM_DATA_PACKAGES
$SGDSIM_TORCH_PACKAGES doctest-dev
libbenchmark-dev clang-format libopenmpi-dev openmpi-bin python3-jsonschema python3-pandas
python3-torch python3-torchvision pybind11-dev python3-dev python3-mesonpy python3-pip python3-venv
clang libclang-rt-14-dev valgrind"
SGDSIM_PACKAGES=${SGDSIM_PACKAGES:-$SGDSIM_TEST_PACKAGES}

sgdsim_install_missing() {
  local missing=()
  for package in $SGDSIM_PACKAGES; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "sgdsim: installing ${missing[*]}" >&2
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "sgdsim: need root or sudo to install: ${missing[*]}" >&2; return 1; }
    sudo="sudo"
  fi
  $sudo apt-get update -qq >&2 &&
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 &&
    SGDSIM_INSTALLED=1
}

sgdsim_configure() {
  local name=$1
  shift
  # CUDA's compiler, where installed, lets Meson build tools/gpu_probe's kernels.
  if [ -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then
    export PATH="$PATH:/usr/local/cuda/bin"
  fi
  local dir="build/$name"
  sgdsim_install_missing || return 1
  # Release unless the caller chooses its own optimisation (the sanitizer builds do).
  local type=(--buildtype=release)
  case " $* " in *" --buildtype="* | *" -Doptimization="*) type=() ;; esac
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "${type[@]}" "$@" >&2 || return 1
  elif [ -n "${SGDSIM_INSTALLED:-}" ]; then
    # Newly installed libraries (libtorch for a network task) are found on a reconfigure.
    meson setup --reconfigure "$dir" >&2 || return 1
  fi
}

sgdsim_build() {
  sgdsim_configure "$@" || return 1
  ninja -C "build/$1" >&2 || return 1
}

# The sgdsim binary alone, with the networks' module where libtorch is installed: no tests,
# benchmarks or tools (about half the compile time).
sgdsim_build_program() {
  sgdsim_configure "$@" || return 1
  # Regenerated first where meson.build changed, so that the target list is current.
  ninja -C "build/$1" build.ninja >&2 || return 1
  local targets=(src/sgdsim)
  ninja -C "build/$1" -t targets all | grep -q '^src/libsgdsim_networks.so:' &&
    targets+=(src/libsgdsim_networks.so)
  ninja -C "build/$1" "${targets[@]}" >&2 || return 1
}

# sgdsim_count_results TESTLOG: "PASSED SKIPPED FAILED" from a meson-logs/testlog.json (a skip,
# exit 77, is neither passed nor failed).
sgdsim_count_results() {
  python3 - "$1" <<'PY'
import json, sys
results = [json.loads(line)["result"] for line in open(sys.argv[1]) if line.strip()]
passed = sum(r in ("OK", "EXPECTEDFAIL") for r in results)
skipped = results.count("SKIP")
print(passed, skipped, len(results) - passed - skipped)
PY
}
