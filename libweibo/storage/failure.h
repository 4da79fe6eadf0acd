// Inside the library, a rule that refuses a request throws Failure; the executor catches it
// at the boundary and returns its Status. No exception leaves libweibo's public API.
#ifndef WEIBO_STORAGE_FAILURE_H_
#define WEIBO_STORAGE_FAILURE_H_

#include <exception>
#include <string>

#include "weibo/status.h"

namespace weibo {

class Failure : public std::exception {
 public:
  explicit Failure(Status status) : status_(std::move(status)) {}
  const char* what() const noexcept override { return status_.message().c_str(); }
  const Status& status() const { return status_; }

 private:
  Status status_;
};

[[noreturn]] inline void Fail(Code code, std::string message) {
  throw Failure(Status(code, std::move(message)));
}

// Runs body (returning a Status) at an edge that must not throw: a Failure becomes its own
// Status, any other exception (SQLite, a file, ZeroMQ) storage_error with its text.
template <typename Body>
Status StatusOf(Body&& body) {
  try {
    return body();
  } catch (const Failure& f) {
    return f.status();
  } catch (const std::exception& e) {
    return Status(Code::kStorageError, e.what());
  }
}

}  // namespace weibo

#endif  // WEIBO_STORAGE_FAILURE_H_
