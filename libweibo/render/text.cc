// The stable human format. Ids print as plain numbers; one message is a block:
//
//   #<id> @<name> <time> <type>[ of #<ref id> page <page_index>][ edited <time> (<n> edits)]
//     <content>
//     version <n> <time>: <text>                   (show --history: each text an edit replaced)
//     > #<root id> @<name>: <root content>        (or: > #<root id> deleted by its author)
//     comments C/CC reposts R/RR likes L views V  (kept/ever)
//     link=<value> title=<value>                  (its attributes, --attr, when it has any)
//
// and blocks are separated by an empty line.
#include "render/text.h"

#include <sstream>

namespace weibo {
namespace render {
namespace {

std::string CountLine(const Json& c) {
  std::ostringstream out;
  out << "comments " << c.at("comments").get<int64_t>() << "/" << c.at("commented").get<int64_t>()
      << " reposts " << c.at("reposts").get<int64_t>() << "/" << c.at("reposted").get<int64_t>()
      << " likes " << c.at("likes").get<int64_t>() << " views " << c.at("views").get<int64_t>();
  return out.str();
}

std::string Message(const Json& m) {
  std::ostringstream out;
  std::string type = m.at("type").get<std::string>();
  out << "#" << m.at("id").get<std::string>() << " @" << m.at("user_name").get<std::string>() << " "
      << m.at("time").get<std::string>() << " " << type;
  if (!m.at("ref").is_null()) {
    out << (type == "comment" ? " on #" : " of #") << m.at("ref").at("id").get<std::string>();
    if (!m.at("page_index").is_null()) out << " page " << m.at("page_index").get<int64_t>();
  }
  if (m.contains("edited")) {
    int64_t edits = m.at("edits").get<int64_t>();
    out << " edited " << m.at("edited").get<std::string>() << " (" << edits
        << (edits == 1 ? " edit)" : " edits)");
  }
  out << "\n";
  if (!m.at("content").get<std::string>().empty())
    out << "  " << m.at("content").get<std::string>() << "\n";
  if (m.contains("history"))
    for (const Json& h : m.at("history"))
      out << "  version " << h.at("version").get<int64_t>() << " "
          << h.at("time").get<std::string>() << ": " << h.at("content").get<std::string>() << "\n";
  const Json& root = m.at("root");
  if (!root.is_null()) {
    if (root.value("deleted", false))
      out << "  > #" << root.at("id").get<std::string>() << " deleted by its author\n";
    else
      out << "  > #" << root.at("id").get<std::string>() << " @"
          << root.at("user_name").get<std::string>() << ": "
          << root.at("content").get<std::string>() << "\n";
  }
  out << "  " << CountLine(m.at("counts")) << "\n";
  if (m.contains("attrs") && !m.at("attrs").empty()) {
    out << " ";
    for (const auto& [key, value] : m.at("attrs").items())
      out << " " << key << "=" << (value.is_string() ? value.get<std::string>() : value.dump());
    out << "\n";
  }
  return out.str();
}

}  // namespace

std::string User(const Json& u) {
  std::ostringstream out;
  out << u.at("id").get<std::string>() << " @" << u.at("name").get<std::string>() << " messages "
      << u.at("msg_count").get<int64_t>() << " fans " << u.at("fans_count").get<int64_t>()
      << " following " << u.at("follow_count").get<int64_t>() << "\n";
  return out.str();
}

std::string Fsck(const Json& r) {
  std::ostringstream out;
  for (const auto& v : r.at("violations"))
    out << v.at("check").get<std::string>() << ": " << v.at("detail").get<std::string>()
        << (v.value("repaired", false) ? " (repaired)" : "") << "\n";
  out << r.at("violations").size() << " violation(s) in " << r.at("shards").get<int64_t>()
      << " shard(s)";
  if (r.value("repair", false)) out << ", repaired";
  out << "\n";
  return out.str();
}

std::string Init(const Json& r) {
  return "initialised " + std::to_string(r.at("shards").get<int>()) + " shards in " +
         r.at("data").get<std::string>() + " (feed " + r.at("feed").get<std::string>() +
         ", page size " + std::to_string(r.at("page_size").get<int>()) + ")\n";
}

std::string Users(const Json& list) {
  std::string out;
  for (const auto& u : list) out += User(u);
  return out;
}

std::string Follow(const Json& r) {
  if (r.contains("users"))  // --from-file
    return "@" + r.at("user").at("name").get<std::string>() + " followed " +
           std::to_string(r.at("followed").get<int64_t>()) + " of " +
           std::to_string(r.at("users").get<int64_t>()) + " users (" +
           std::to_string(r.at("existing").get<int64_t>()) + " existing)\n";
  return "@" + r.at("user").at("name").get<std::string>() +
         (r.at("following").get<bool>() ? " follows @" : " no longer follows @") +
         r.at("target").at("name").get<std::string>() + "\n";
}

std::string Deleted(const Json& r) { return "deleted #" + r.at("id").get<std::string>() + "\n"; }

std::string Counts(const Json& list) {
  std::string out;
  for (const auto& c : list)
    out += "#" + c.at("id").get<std::string>() + " " + CountLine(c.at("counts")) + "\n";
  return out;
}

std::string Drain(const Json& r) {
  std::string out = "applied " + std::to_string(r.at("applied").get<int64_t>()) + " job(s), " +
                    std::to_string(r.at("pending").get<int64_t>()) + " pending";
  if (r.contains("expired"))
    out += ", " + std::to_string(r.at("expired").get<int64_t>()) + " last-seen id(s) expired";
  return out + "\n";
}

std::string Likes(const Json& list) {
  std::string out;
  for (const auto& l : list)
    out += l.at("user_id").get<std::string>() + " @" + l.at("user_name").get<std::string>() + " " +
           l.at("time").get<std::string>() + "\n";
  return out;
}

std::string Notification(const Json& n) {
  return "#" + n.at("id").get<std::string>() + " " + n.at("time").get<std::string>() + "\n  " +
         n.at("content").get<std::string>() + "\n";
}

std::string Notifications(const Json& list) {
  std::string out;
  for (const auto& n : list) out += Notification(n);
  return out;
}

std::string Unread(const Json& r) { return std::to_string(r.at("unread").get<int64_t>()) + "\n"; }

std::string Avatar(const Json& r) {
  if (r.contains("url")) return r.at("url").get<std::string>() + "\n";
  if (r.contains("removed"))
    return "removed the pictures of user " + r.at("user_id").get<std::string>() + "\n";
  std::string out;
  for (const char* size : {"48", "180", "original"})
    out += std::string(size) + " " + r.at("urls").at(size).get<std::string>() + "\n";
  return out;
}

std::string Timeline(const Json& r) {
  if (r.is_object() && r.contains("badge")) return r.at("badge").get<std::string>() + "\n";
  return Default(r);
}

std::string Import(const Json& r) {
  return "followed " + std::to_string(r.at("followed").get<int64_t>()) + " of " +
         std::to_string(r.at("edges").get<int64_t>()) + " edges (" +
         std::to_string(r.at("existing").get<int64_t>()) + " existing)\n";
}

std::string Search(const Json& r) {
  if (r.is_object() && r.contains("rebuilt"))
    return "rebuilt the search index: " + std::to_string(r.at("indexed").get<int64_t>()) +
           " messages on " + std::to_string(r.at("shards").get<int64_t>()) + " shards\n";
  return Default(r);
}

std::string Default(const Json& r) {
  if (r.is_array()) {
    std::string out;
    for (size_t i = 0; i < r.size(); ++i) out += (i ? "\n" : "") + Message(r[i]);
    return out;
  }
  if (r.is_object() && r.contains("type")) return Message(r);
  return r.dump(2) + "\n";
}

}  // namespace render

}  // namespace weibo
