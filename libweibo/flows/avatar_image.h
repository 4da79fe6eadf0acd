// Pictures for weibo-avatar(1) (seed 001, "头像文件的处理与保存"): an uploaded file becomes
// the three JPEGs the site serves, by libvips — no codec is written here.
//
// What is refused, before any pixel is decoded: anything but a JPEG, PNG, WebP or GIF (by
// its bytes, not its name; libvips' untrusted loaders — ImageMagick, PDF, SVG, matlab — are
// blocked besides), and a picture of more than kMaxAvatarPixels (a decompression bomb: a
// 40-byte PNG header may announce 100 000 x 100 000 pixels, 30 GB once decoded). The header
// is all libvips reads until the pixels are asked for, so the size check costs nothing.
// Then decoding fails on any error, a truncated file included (fail_on=error), rather than
// making a grey half-picture.
#ifndef WEIBO_FLOWS_AVATAR_IMAGE_H_
#define WEIBO_FLOWS_AVATAR_IMAGE_H_

#include <cstdint>
#include <optional>
#include <string>

namespace weibo {

// 25 megapixels: a 12-megapixel phone photo passes; decoded as RGB it is 75 MB at most.
constexpr int64_t kMaxAvatarPixels = 25'000'000;

struct AvatarImages {
  std::string original;  // the whole picture, upright (EXIF orientation applied), as JPEG,
                         // its metadata (GPS position, camera) stripped
  std::string large;     // 180x180 JPEG, the centre of the picture
  std::string small;     // 48x48 JPEG
};

// Decodes, checks and resizes a picture; Failure(invalid_argument) naming what is wrong
// (empty, not a picture of an accepted format, too many pixels, damaged or truncated).
AvatarImages MakeAvatarImages(const std::string& bytes);

// base64 with padding (RFC 4648 §4) by libsodium: how a kFile argument travels.
std::string EncodeBase64(const std::string& bytes);
// nullopt when text is not exactly that (no spaces or newlines either).
std::optional<std::string> DecodeBase64(const std::string& text);

}  // namespace weibo

#endif  // WEIBO_FLOWS_AVATAR_IMAGE_H_
