// The programs' allocator options (CMakeLists.txt, WEIBO_MIMALLOC): linked into every
// program that links mimalloc, set before main() runs.
//
// mimalloc 2.0 gives memory back to the kernel 25 ms after it is freed
// (mi_option_decommit_delay), with madvise(MADV_DONTNEED), and then takes the page faults
// again when it reuses that memory. A server that builds a page of JSON per request does
// this all the time. Each madvise also flushes the TLB of the other CPUs (an IPI), and
// that is dear in a VM. Under perf, on the retwis trace at 10 000 users (bench, hybrid),
// madvise was 5.5% of the samples and the page faults that followed it about 4%.
//
// Decommit is off, so freed memory stays with the process for mimalloc to reuse. Its
// resident size then stays near its peak, as Redis's does (weibod(1), LIMITS). The
// measurements are in the README, session 37. mimalloc reads its MIMALLOC_* variables
// when it is loaded, before this runs, so MIMALLOC_ALLOW_DECOMMIT cannot turn decommit
// back on; a build with -DWEIBO_MIMALLOC=OFF uses glibc's malloc.
#include <mimalloc.h>

namespace {

struct AllocatorOptions {
  AllocatorOptions() { mi_option_disable(mi_option_allow_decommit); }
};

const AllocatorOptions allocator_options;

}  // namespace
