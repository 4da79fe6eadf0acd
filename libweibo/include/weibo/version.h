#ifndef WEIBO_VERSION_H_
#define WEIBO_VERSION_H_

namespace weibo {
inline constexpr const char* kVersion = "0.1.0";
}  // namespace weibo

#endif  // WEIBO_VERSION_H_
