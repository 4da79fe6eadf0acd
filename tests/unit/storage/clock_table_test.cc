// storage/clock_table.h: the slots, index and CLOCK eviction the server caches share,
// checked against a plain map under random operations, with keys that crowd one home.
#include "storage/clock_table.h"

#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <random>
#include <set>

namespace weibo {
namespace {

TEST_CASE("clock table: finds what was inserted, forgets what was erased", "[clock table]") {
  ClockTable<int64_t> table(100);
  CHECK(table.Find(7) == nullptr);
  table.Erase(7);  // erasing from an empty table is nothing
  table.Insert(7).value = 70;
  table.Insert(8).value = 80;
  REQUIRE(table.Find(7) != nullptr);
  CHECK(table.Find(7)->value == 70);
  CHECK(table.Find(7)->key == 7);
  CHECK(table.Find(7)->referenced == false);
  CHECK(table.size() == 2);
  table.Erase(table.Find(7));
  CHECK(table.Find(7) == nullptr);
  CHECK(table.Find(8)->value == 80);
  table.Erase(int64_t{8});
  CHECK(table.size() == 0);
  // A freed slot's value is reset at once, and is the next Insert's.
  auto shared = std::make_shared<int>(1);
  ClockTable<std::shared_ptr<int>> rows(4);
  rows.Insert(1).value = shared;
  CHECK(shared.use_count() == 2);
  rows.Erase(int64_t{1});
  CHECK(shared.use_count() == 1);
  rows.Insert(2).value = shared;
  rows.Clear();
  CHECK(shared.use_count() == 1);
  CHECK(rows.size() == 0);
  CHECK(rows.Find(2) == nullptr);
}

TEST_CASE("clock table: Peek and the prefetch hints find without changing", "[clock table]") {
  ClockTable<int64_t> table(4);
  table.PrefetchIndex(1);  // an empty table has no index yet: a hint is nothing
  table.PrefetchItem(1);
  CHECK(table.Peek(1) == nullptr);
  for (int64_t k = 1; k <= 4; ++k) table.Insert(k * 16).value = k;
  for (int64_t k = 0; k <= 5; ++k) {
    table.PrefetchIndex(k * 16);
    table.PrefetchItem(k * 16);
    const auto* peeked = table.Peek(k * 16);
    CHECK(peeked == table.Find(k * 16));
    if (peeked != nullptr) CHECK(peeked->value == k);
  }
  // No bit was set: the first Insert into the full table evicts the first slot's item.
  table.Insert(99);
  CHECK(table.Peek(16) == nullptr);
  CHECK(table.size() == 4);
}

TEST_CASE("clock table: a referenced item outlives a sweep, a clear one goes", "[clock table]") {
  ClockTable<int> table(4);
  for (int64_t k = 1; k <= 4; ++k) table.Insert(k);
  table.Find(1)->referenced = true;
  table.Find(3)->referenced = true;
  std::vector<int64_t> evicted;
  auto note = [&](ClockTable<int>::Item& item) { evicted.push_back(item.key); };
  table.Insert(5, note);  // the hand passes 1 (clearing it) and takes 2
  table.Insert(6, note);  // passes 3 and takes 4
  CHECK(evicted == std::vector<int64_t>{2, 4});
  CHECK(table.size() == 4);
  for (int64_t k : {1, 3, 5, 6}) CHECK(table.Find(k) != nullptr);
  table.Insert(7, note);  // every bit is clear now: the hand's next, 1
  CHECK(evicted.back() == 1);
  CHECK(table.Find(1) == nullptr);
}

TEST_CASE("clock table: random operations agree with a map", "[clock table]") {
  // Keys in strides of 2^k land on few homes in a small index: long probe chains, and
  // deletions in their middle, which the backward shift must mend.
  for (int64_t stride : {int64_t{1}, int64_t{16}, int64_t{1} << 40}) {
    const size_t capacity = 64;
    ClockTable<int64_t> table(capacity);
    std::map<int64_t, int64_t> model;
    std::mt19937_64 rng(static_cast<uint64_t>(stride) + 45);
    for (int step = 0; step < 50000; ++step) {
      const int64_t key = static_cast<int64_t>(rng() % 200) * stride + 1;
      switch (rng() % 4) {
        case 0:
        case 1: {
          table.Erase(key);
          model.erase(key);
          std::vector<int64_t> gone;
          table.Insert(key, [&](ClockTable<int64_t>::Item& item) { gone.push_back(item.key); })
              .value = step;
          for (int64_t g : gone) {
            REQUIRE(model.count(g) == 1);  // only what was there is evicted
            model.erase(g);
          }
          model[key] = step;
          break;
        }
        case 2:
          table.Erase(key);
          model.erase(key);
          break;
        default: {
          auto* item = table.Find(key);
          auto it = model.find(key);
          REQUIRE((item != nullptr) == (it != model.end()));
          if (item != nullptr) {
            CHECK(item->value == it->second);
            item->referenced = rng() % 2 == 0;
          }
        }
      }
      REQUIRE(table.size() == model.size());
      REQUIRE(table.size() <= capacity);
    }
    std::set<int64_t> seen;
    table.ForEach([&](ClockTable<int64_t>::Item& item) {
      CHECK(model.at(item.key) == item.value);
      seen.insert(item.key);
    });
    CHECK(seen.size() == model.size());
    for (const auto& [key, value] : model) CHECK(table.Find(key)->value == value);
  }
}

}  // namespace
}  // namespace weibo
