// storage/id_map.h: the growing map by id that indexes a server's held deliveries by reader
// and a page's rows by message, checked against std::map under random inserts, with keys
// that crowd one home and keys at the ends of the range.
#include "storage/id_map.h"

#include <catch2/catch.hpp>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>

namespace weibo {
namespace {

TEST_CASE("id map: keeps the first value of a key, and finds it after growing", "[id map]") {
  IdMap map;
  CHECK(map.empty());
  CHECK(map.Find(7) == nullptr);
  int64_t& seven = map.Emplace(7, 70);
  CHECK(seven == 70);
  seven = 71;                       // the reference is the stored value
  CHECK(map.Emplace(7, 99) == 71);  // an existing key keeps its value
  CHECK(*map.Find(7) == 71);
  CHECK(map.size() == 1);
  // Growing (64 pairs, doubled at half full) moves every pair, and loses none.
  for (int64_t k = 1; k <= 1000; ++k) map.Emplace(k * 16, k);  // a shard's stride
  CHECK(map.size() == 1001);
  for (int64_t k = 1; k <= 1000; ++k) {
    REQUIRE(map.Find(k * 16) != nullptr);
    CHECK(*map.Find(k * 16) == k);
  }
  CHECK(*map.Find(7) == 71);
  CHECK(map.Find(8) == nullptr);
  // The ends of the range are keys like any other, but the free mark is refused.
  map.Emplace(std::numeric_limits<int64_t>::max(), 1);
  map.Emplace(std::numeric_limits<int64_t>::min() + 1, 2);
  map.Emplace(0, 3);
  CHECK(*map.Find(std::numeric_limits<int64_t>::max()) == 1);
  CHECK(*map.Find(std::numeric_limits<int64_t>::min() + 1) == 2);
  CHECK(*map.Find(0) == 3);
  CHECK(map.Find(IdMap::kFree) == nullptr);
  CHECK_THROWS_AS(map.Emplace(IdMap::kFree, 1), std::out_of_range);
  CHECK(map.size() == 1004);
}

TEST_CASE("id map: agrees with std::map under random inserts", "[id map]") {
  std::mt19937_64 rng(47);
  for (int64_t range : {int64_t{50}, int64_t{5000}, std::numeric_limits<int64_t>::max()}) {
    IdMap map;
    std::map<int64_t, int64_t> model;
    std::uniform_int_distribution<int64_t> key(1, range);
    for (int64_t i = 0; i < 20000; ++i) {
      const int64_t k = key(rng);
      map.Emplace(k, i) += 1;
      model.emplace(k, i).first->second += 1;
      const int64_t probe = key(rng);
      const int64_t* found = map.Find(probe);
      auto expected = model.find(probe);
      REQUIRE((found == nullptr) == (expected == model.end()));
      if (found != nullptr) CHECK(*found == expected->second);
    }
    CHECK(map.size() == model.size());
    for (const auto& [k, v] : model) {
      REQUIRE(map.Find(k) != nullptr);
      CHECK(*map.Find(k) == v);
    }
  }
}

}  // namespace
}  // namespace weibo
