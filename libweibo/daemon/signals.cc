#include "daemon/signals.h"

namespace weibo::daemon {
namespace {

volatile std::sig_atomic_t g_stopped = 0;

extern "C" void OnStopSignal(int sig) {
  if (g_stopped) {  // the second signal: end now
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
  g_stopped = 1;
}

}  // namespace

StopSignals::StopSignals() {
  g_stopped = 0;
  struct sigaction sa {};
  sa.sa_handler = OnStopSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, &old_term_);
  sigaction(SIGINT, &sa, &old_int_);
}

StopSignals::~StopSignals() {
  sigaction(SIGTERM, &old_term_, nullptr);
  sigaction(SIGINT, &old_int_, nullptr);
}

bool StopSignals::Stopped() { return g_stopped != 0; }

}  // namespace weibo::daemon
