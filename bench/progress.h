// Progress: the bar of the bench's long runs is the one every weibo program draws
// (weibo/cli.h, weibo::cli::Progress): on a terminal, or forced with --progress.
#ifndef WEIBO_BENCH_PROGRESS_H_
#define WEIBO_BENCH_PROGRESS_H_

#include "weibo/cli.h"

namespace weibo::bench {

using Progress = weibo::cli::Progress;

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_PROGRESS_H_
