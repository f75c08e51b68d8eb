// Tests for trace_io/node_description_io.hpp.
#include <doctest/doctest.h>
