// flows/avatar.cc, avatar_image.cc and avatar_fsck.cc: weibo-avatar(1). The pictures are
// made here by libvips itself, in memory; the refused ones are built byte by byte.
#include <sys/stat.h>
#include <vips/vips.h>
#include <zlib.h>

#include "flows/avatar_image.h"
#include "flows/flows.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;

enum Format { kPng, kJpeg };

// A black width x height picture.
std::string Picture(int width, int height, Format format) {
  REQUIRE(vips_init("weibo-test") == 0);  // again: no change
  VipsImage* black = nullptr;
  REQUIRE(vips_black(&black, width, height, "bands", 3, nullptr) == 0);
  void* buffer = nullptr;
  size_t length = 0;
  REQUIRE((format == kPng ? vips_pngsave_buffer(black, &buffer, &length, nullptr)
                          : vips_jpegsave_buffer(black, &buffer, &length, nullptr)) == 0);
  g_object_unref(black);
  std::string out(static_cast<const char*>(buffer), length);
  g_free(buffer);
  return out;
}

std::string Big32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

std::string Chunk(const std::string& type, const std::string& data) {
  std::string body = type + data;
  uLong crc = crc32(0, reinterpret_cast<const Bytef*>(body.data()), body.size());
  return Big32(static_cast<uint32_t>(data.size())) + body + Big32(static_cast<uint32_t>(crc));
}

// A PNG whose header says width x height grey pixels, with a few bytes of data: what a
// decompression bomb looks like before it is decoded.
std::string PngHeaderOnly(uint32_t width, uint32_t height) {
  std::string ihdr = Big32(width) + Big32(height) + std::string("\x08\x00\x00\x00\x00", 5);
  std::string zeros(64, '\0');
  std::string idat(128, '\0');
  uLongf length = idat.size();
  REQUIRE(compress(reinterpret_cast<Bytef*>(idat.data()), &length,
                   reinterpret_cast<const Bytef*>(zeros.data()), zeros.size()) == Z_OK);
  idat.resize(length);
  return std::string("\x89PNG\r\n\x1a\n", 8) + Chunk("IHDR", ihdr) + Chunk("IDAT", idat) +
         Chunk("IEND", "");
}

// The width and height of a JPEG, checking that it is one.
std::pair<int, int> JpegSize(const std::string& bytes) {
  REQUIRE(bytes.substr(0, 3) == std::string("\xff\xd8\xff", 3));
  VipsImage* image = vips_image_new_from_buffer(bytes.data(), bytes.size(), "", nullptr);
  REQUIRE(image != nullptr);
  std::pair<int, int> size{vips_image_get_width(image), vips_image_get_height(image)};
  g_object_unref(image);
  return size;
}

std::string Refusal(const std::string& bytes) {
  try {
    MakeAvatarImages(bytes);
  } catch (const Failure& f) {
    REQUIRE(f.status().code() == Code::kInvalidArgument);
    return f.status().message();
  }
  FAIL("the picture was taken");
  return "";
}

TEST_CASE("avatar: a user's directory is the id in five pairs of digits") {
  CHECK(AvatarDir(1234) == "heads/00/00/00/12/34");
  CHECK(AvatarDir(1) == "heads/00/00/00/00/01");
  CHECK(AvatarDir(4294967295LL) == "heads/42/94/96/72/95");
}

TEST_CASE("avatar: a PNG becomes a whole JPEG and 180 and 48 pixel squares") {
  AvatarImages images = MakeAvatarImages(Picture(300, 200, kPng));
  CHECK(JpegSize(images.original) == std::pair<int, int>{300, 200});
  CHECK(JpegSize(images.large) == std::pair<int, int>{180, 180});
  CHECK(JpegSize(images.small) == std::pair<int, int>{48, 48});
  // A picture smaller than a size is enlarged to it.
  CHECK(JpegSize(MakeAvatarImages(Picture(20, 30, kJpeg)).large) == std::pair<int, int>{180, 180});
}

TEST_CASE("avatar: what is not a picture, a bomb or a truncated file is refused by name") {
  CHECK(Refusal("") == "the picture is empty (0 bytes)");
  CHECK(Refusal("hello, weibo\n").find("not a picture") == 0);
  CHECK(Refusal("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'/>")
            .find("not a picture") == 0);
  // 10^10 pixels announced by a 100-byte file: refused from the header, before decoding.
  std::string bomb = PngHeaderOnly(100000, 100000);
  CHECK(bomb.size() < 200);
  CHECK(Refusal(bomb) == "the picture is 100000x100000 pixels, more than the 25000000 taken");
  CHECK(Refusal(PngHeaderOnly(5001, 5000)).find("5001x5000") != std::string::npos);
  std::string jpeg = Picture(400, 300, kJpeg);
  CHECK(Refusal(jpeg.substr(0, jpeg.size() / 2)).rfind("the picture is damaged or truncated", 0) ==
        0);
}

TEST_CASE("avatar: base64 both ways, and nothing but base64 decodes") {
  std::string bytes("\x00\xff\x10 weibo", 9);
  CHECK(EncodeBase64(bytes) == "AP8QIHdlaWJv");
  CHECK(DecodeBase64(EncodeBase64(bytes)) == bytes);
  CHECK(!DecodeBase64("AP8Q IHdlaWJv"));
  CHECK(!DecodeBase64("AP8QIHdlaWJv\n"));
  CHECK(!DecodeBase64("not base64!"));
}

Json SetArgs(int64_t user, const std::string& picture) {
  return {{"user", user}, {"image", EncodeBase64(picture)}};
}

TEST_CASE("avatar: set writes three files, url tells a new t for each new picture, rm") {
  Cluster c;
  int64_t alice = c.AddUser("alice");
  const std::string png = Picture(64, 64, kPng);
  Json set = c.Run("avatar_set", SetArgs(alice, png));
  const int64_t t = test::kNow / 1000;
  CHECK(set.at("t") == t);
  CHECK(set.at("urls").at("48") == "heads/00/00/00/00/01/head_48x48.jpg?t=" + std::to_string(t));
  for (const std::string& name : AvatarFileNames()) {
    struct stat st;
    const std::string path = c.dir() + "/heads/00/00/00/00/01/" + name;
    REQUIRE(stat(path.c_str(), &st) == 0);
    CHECK(st.st_mtim.tv_sec == t);
    CHECK((st.st_mode & 0777) == 0600);
  }
  // Set again under the same clock: one second later still, so no cache keeps the old one.
  CHECK(c.Run("avatar_set", SetArgs(alice, png)).at("t") == t + 1);
  Json url = c.Run("avatar_url", {{"user", "@alice"}, {"size", 180}});
  CHECK(url.at("url") == "heads/00/00/00/00/01/head_180x180.jpg?t=" + std::to_string(t + 1));
  CHECK(c.CodeOf("avatar_url", {{"user", alice}, {"size", 100}}) == Code::kInvalidArgument);
  CHECK(c.Run("avatar_rm", {{"user", alice}}).at("removed") == 3);
  CHECK(c.CodeOf("avatar_url", {{"user", alice}}) == Code::kNotFound);
  CHECK(c.CodeOf("avatar_rm", {{"user", alice}}) == Code::kNotFound);
  CHECK(c.CodeOf("avatar_set", SetArgs(99, png)) == Code::kNotFound);
  CHECK(c.CodeOf("avatar_set", SetArgs(alice, "GIF89a")) == Code::kInvalidArgument);
  // The edge: not base64, or more than kMaxFileBytes.
  CHECK(c.CodeOf("avatar_set", {{"user", alice}, {"image", "a b"}}) == Code::kInvalidArgument);
  CHECK(c.CodeOf("avatar_set", SetArgs(alice, std::string(4 * 1024 * 1024 + 1, 'x'))) ==
        Code::kRequestTooLarge);
}

TEST_CASE("avatar fsck: temporary files, unknown users and sets out of step are repaired") {
  Cluster c;
  int64_t alice = c.AddUser("alice"), bob = c.AddUser("bob");
  const std::string png = Picture(32, 32, kPng);
  c.Run("avatar_set", SetArgs(alice, png));
  c.Run("avatar_set", SetArgs(bob, png));
  CHECK(c.Fsck().at("ok") == true);
  const std::string a = c.dir() + "/" + AvatarDir(alice), b = c.dir() + "/" + AvatarDir(bob);
  std::ofstream(a + "/head_48x48.jpg" + kAvatarTempMark + "123") << "half";
  std::filesystem::remove(b + "/head_180x180.jpg");
  std::filesystem::create_directories(c.dir() + "/" + AvatarDir(77));
  std::ofstream(c.dir() + "/" + AvatarDir(77) + "/head.jpg") << "x";
  std::ofstream(c.dir() + "/heads/README") << "not ours";
  Json report = c.Fsck();
  CHECK(report.at("ok") == false);
  std::vector<std::string> details;
  for (const auto& v : report.at("violations")) {
    CHECK(v.at("check") == "avatars");
    details.push_back(v.at("detail"));
  }
  std::sort(details.begin(), details.end());
  CHECK(details == std::vector<std::string>{
                       "heads/00/00/00/00/01/head_48x48.jpg.tmp.123 is a temporary file a set left",
                       "heads/README is not a file weibo-avatar writes",
                       "the pictures in heads/00/00/00/00/02 lack 1 of the three sizes",
                       "the pictures in heads/00/00/00/00/77 are of user 77, who does not exist"});
  c.Fsck(true);
  Json after = c.Fsck();
  REQUIRE(after.at("violations").size() == 1);  // README is left alone
  CHECK(c.Run("avatar_url", {{"user", alice}}).at("t") == test::kNow / 1000);
  CHECK(c.CodeOf("avatar_url", {{"user", bob}}) == Code::kNotFound);
}

}  // namespace
}  // namespace weibo
