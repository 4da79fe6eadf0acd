#include "storage/secret_key.h"

#include <fcntl.h>
#include <sodium.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "storage/failure.h"
#include "storage/files.h"

namespace weibo {
namespace {

// The file's bytes, up to limit + 1 of them; false when it cannot be opened (errno set).
bool ReadSmallFile(const std::string& path, size_t limit, std::string* out) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  out->clear();
  char buf[512];
  while (out->size() <= limit) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out->append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return true;
}

bool WriteAll(int fd, const std::string& bytes) {
  for (size_t done = 0; done < bytes.size();) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return fsync(fd) == 0;
}

}  // namespace

std::string LoadSecretKey(const std::string& dir, const char* file, size_t bytes) {
  const std::string path = dir + "/" + file;
  std::string key;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (ReadSmallFile(path, bytes, &key)) {
      if (key.size() != bytes)
        Fail(Code::kStorageError, path + " holds " + std::to_string(key.size()) +
                                      " bytes, not the " + std::to_string(bytes) + " of a key");
      return key;
    }
    if (errno != ENOENT) Fail(Code::kStorageError, "cannot read " + path + ": " + strerror(errno));
    if (sodium_init() < 0) Fail(Code::kStorageError, "libsodium failed to start");
    std::string fresh(bytes, '\0');
    randombytes_buf(fresh.data(), fresh.size());
    const std::string tmp = path + ".tmp." + std::to_string(getpid());
    int fd = OpenPrivate(tmp, O_WRONLY | O_TRUNC);
    if (fd < 0) Fail(Code::kStorageError, "cannot create " + tmp + ": " + strerror(errno));
    bool written = WriteAll(fd, fresh);
    written = close(fd) == 0 && written;
    // link(2) never replaces: of two processes making the key, one links and the other
    // reads the winner's on its second pass.
    int linked = written ? link(tmp.c_str(), path.c_str()) : -1;
    int error = errno;
    unlink(tmp.c_str());
    if (!written || (linked != 0 && error != EEXIST))
      Fail(Code::kStorageError, "cannot create " + path + ": " + strerror(error));
    sodium_memzero(fresh.data(), fresh.size());
  }
  Fail(Code::kStorageError, "cannot read " + path);
}

}  // namespace weibo
