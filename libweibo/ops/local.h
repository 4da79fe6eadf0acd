// The operations that run on a data directory with no cluster open (OpSpec::local).
#ifndef WEIBO_OPS_LOCAL_H_
#define WEIBO_OPS_LOCAL_H_

#include <string>

#include "weibo/request.h"

namespace weibo {

// ops/init.cc
Json Init(const std::string& data_dir, const Json& args);

}  // namespace weibo

#endif  // WEIBO_OPS_LOCAL_H_
