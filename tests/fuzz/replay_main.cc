// fuzz_replay: the fuzz target's entry point (fuzz_service.cc) run once on every file of
// the given files and directories — the committed corpus in the normal (and sanitizer)
// build, where libFuzzer is not available. Exits 0 when every input ran; a crash, a
// sanitizer report or an abort from the target fails the test.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    std::filesystem::path p(argv[i]);
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(p))
        if (e.is_regular_file() && e.path().filename() != "README") files.push_back(e.path());
    } else {
      files.push_back(p);
    }
  }
  if (files.empty()) {
    fprintf(stderr, "usage: fuzz_replay FILE|DIR...  (no input found)\n");
    return 2;
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  printf("fuzz_replay: %zu inputs ran\n", files.size());
  return 0;
}
