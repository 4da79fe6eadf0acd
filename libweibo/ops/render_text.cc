// RenderText (weibo/render.h): the text output of an op's result, by the renderer its row
// of the operation table names (render/text.h), or the default one.
#include "render/text.h"
#include "weibo/ops.h"
#include "weibo/render.h"

namespace weibo {

std::string RenderText(const std::string& op, const Json& result) {
  const OpSpec* spec = FindOperation(op);
  return spec != nullptr && spec->render != nullptr ? spec->render(result)
                                                    : render::Default(result);
}

}  // namespace weibo
