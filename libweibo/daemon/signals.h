// Stop on SIGTERM/SIGINT for weibod, the broker and a node: the
// first signal sets a flag the loop polls; the second ends the process.
#ifndef WEIBO_DAEMON_SIGNALS_H_
#define WEIBO_DAEMON_SIGNALS_H_

#include <csignal>

namespace weibo::daemon {

class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  static bool Stopped();

 private:
  struct sigaction old_term_, old_int_;
};

}  // namespace weibo::daemon

#endif  // WEIBO_DAEMON_SIGNALS_H_
