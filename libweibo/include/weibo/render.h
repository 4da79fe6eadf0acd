// Rendering of results: the stable human format of every op, in one place.
#ifndef WEIBO_RENDER_H_
#define WEIBO_RENDER_H_

#include <string>

#include "weibo/request.h"

namespace weibo {

// The text output of op's result, ending with a newline (empty lists print nothing).
std::string RenderText(const std::string& op, const Json& result);

}  // namespace weibo

#endif  // WEIBO_RENDER_H_
