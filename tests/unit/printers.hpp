// doctest printers so that failed checks show times and sizes instead of {?}.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "sgdsim/core/units.hpp"

namespace doctest {
template <>
struct StringMaker<sgdsim::Time> {
  static String convert(const sgdsim::Time& time) {
    return (std::to_string(time.ps()) + " ps").c_str();
  }
};
template <>
struct StringMaker<sgdsim::Bytes> {
  static String convert(const sgdsim::Bytes& bytes) {
    return (std::to_string(bytes.count()) + " B").c_str();
  }
};
}  // namespace doctest
