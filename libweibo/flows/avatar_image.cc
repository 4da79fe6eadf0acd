#include "flows/avatar_image.h"

#include <sodium.h>
#include <vips/vips.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>

#include "storage/failure.h"

namespace weibo {
namespace {

// libvips starts once per process. Its operation cache is off: it would keep decoded
// pictures of strangers in memory between requests, for nothing (each is seen once).
void StartVips() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (vips_init("weibo") != 0) Fail(Code::kStorageError, "libvips failed to start");
    vips_block_untrusted_set(TRUE);
    vips_cache_set_max(0);
  });
}

struct Unref {
  void operator()(VipsImage* image) const { g_object_unref(image); }
};
using Image = std::unique_ptr<VipsImage, Unref>;

// libvips' last error, cleared, for the message of a refusal.
std::string VipsError() {
  std::string text = vips_error_buffer();
  vips_error_clear();
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text.empty() ? "libvips failed" : text;
}

[[noreturn]] void Damaged() {
  Fail(Code::kInvalidArgument, "the picture is damaged or truncated (" + VipsError() + ")");
}

// The formats avatars are taken in, by the name of the loader libvips picks from the
// bytes ("jpegload_buffer", "pngload_buffer", ...).
bool AcceptedLoader(const char* loader) {
  if (loader == nullptr) return false;
  std::string name = loader;
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* accepted : {"jpeg", "png", "webp", "gif"})
    if (name.find(accepted) != std::string::npos) return true;
  return false;
}

// One square thumbnail of side pixels (the centre of the picture), or the whole picture
// when side is 0; upright, in sRGB, flattened on white, as JPEG.
std::string Jpeg(VipsImage* in, int side) {
  VipsImage* raw = nullptr;
  // The whole picture fits a box of its longer side, whichever way EXIF turns it.
  const int box = side > 0 ? side : std::max(vips_image_get_width(in), vips_image_get_height(in));
  if (vips_thumbnail_image(in, &raw, box, "height", box, "crop",
                           side > 0 ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE, "size",
                           side > 0 ? VIPS_SIZE_BOTH : VIPS_SIZE_DOWN, nullptr) != 0)
    Damaged();
  Image thumb(raw);
  if (vips_image_hasalpha(thumb.get())) {
    VipsArrayDouble* white = vips_array_double_newv(1, 255.0);
    int rc = vips_flatten(thumb.get(), &raw, "background", white, nullptr);
    vips_area_unref(VIPS_AREA(white));
    if (rc != 0) Damaged();
    thumb.reset(raw);
  }
  void* buffer = nullptr;
  size_t length = 0;
  if (vips_jpegsave_buffer(thumb.get(), &buffer, &length, "Q", 85, "strip", TRUE, nullptr) != 0)
    Damaged();
  std::string out(static_cast<const char*>(buffer), length);
  g_free(buffer);
  return out;
}

}  // namespace

AvatarImages MakeAvatarImages(const std::string& bytes) {
  if (bytes.empty()) Fail(Code::kInvalidArgument, "the picture is empty (0 bytes)");
  StartVips();
  const char* loader = vips_foreign_find_load_buffer(bytes.data(), bytes.size());
  vips_error_clear();
  if (!AcceptedLoader(loader))
    Fail(Code::kInvalidArgument, "not a picture: only JPEG, PNG, WebP and GIF are taken");
  // Only the header is read here: libvips decodes pixels when an operation needs them.
  Image in(vips_image_new_from_buffer(bytes.data(), bytes.size(), "", "fail_on", VIPS_FAIL_ON_ERROR,
                                      nullptr));
  if (!in) Damaged();
  const int64_t width = vips_image_get_width(in.get());
  const int64_t height = vips_image_get_height(in.get());
  if (width * height > kMaxAvatarPixels)
    Fail(Code::kInvalidArgument, "the picture is " + std::to_string(width) + "x" +
                                     std::to_string(height) + " pixels, more than the " +
                                     std::to_string(kMaxAvatarPixels) + " taken");
  return AvatarImages{Jpeg(in.get(), 0), Jpeg(in.get(), 180), Jpeg(in.get(), 48)};
}

std::string EncodeBase64(const std::string& bytes) {
  const int variant = sodium_base64_VARIANT_ORIGINAL;
  std::string out(sodium_base64_ENCODED_LEN(bytes.size(), variant), '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(bytes.data()),
                    bytes.size(), variant);
  out.pop_back();  // the terminating NUL sodium writes
  return out;
}

std::optional<std::string> DecodeBase64(const std::string& text) {
  std::string out(text.size() / 4 * 3 + 3, '\0');
  size_t length = 0;
  const char* end = nullptr;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), text.data(),
                        text.size(), nullptr, &length, &end, sodium_base64_VARIANT_ORIGINAL) != 0 ||
      end != text.data() + text.size())
    return std::nullopt;
  out.resize(length);
  return out;
}

}  // namespace weibo
