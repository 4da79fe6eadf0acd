// The one test executable's main (Catch2 v2).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
