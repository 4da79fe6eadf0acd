#include "cluster/protocol.h"

#include <utility>

#include "weibo/request.h"

namespace weibo::cluster {
namespace {

struct VerbSpec {
  Verb verb;
  const char* name;
  size_t args;  // frames that follow the verb
};

constexpr VerbSpec kVerbs[] = {
    {Verb::kHeartbeat, "HB", 1}, {Verb::kBye, "BYE", 0},           {Verb::kReq, "REQ", 3},
    {Verb::kRep, "REP", 2},      {Verb::kRedirect, "REDIRECT", 2}, {Verb::kJob, "JOB", 2},
    {Verb::kAck, "ACK", 2},      {Verb::kRefused, "REFUSED", 1},   {Verb::kEvent, "EVT", 1},
};

const char* NameOf(Verb verb) {
  for (const VerbSpec& spec : kVerbs)
    if (spec.verb == verb) return spec.name;
  return "";
}

}  // namespace

Verb ReadVerb(const net::Frames& frames, size_t at) {
  if (frames.size() <= at) return Verb::kNone;
  for (const VerbSpec& spec : kVerbs)
    if (frames[at] == spec.name) return frames.size() > at + spec.args ? spec.verb : Verb::kNone;
  return Verb::kNone;
}

bool SendVerb(zmq::socket_t& socket, Verb verb, net::Frames args) {
  args.insert(args.begin(), NameOf(verb));
  return net::SendFrames(socket, args);
}

bool SendVerbTo(zmq::socket_t& socket, const std::string& to, Verb verb, net::Frames args) {
  args.insert(args.begin(), {to, NameOf(verb)});
  return net::SendFrames(socket, args);
}

std::string EncodeJob(const JobRow& job) {
  return Json{{"source", job.source_shard}, {"local_id", job.local_id},
              {"target", job.target_shard}, {"kind", job.kind},
              {"payload", job.payload},     {"created", job.created}}
      .dump();
}

JobRow DecodeJob(const std::string& body) {
  const Json j = Json::parse(body);
  JobRow row;
  row.source_shard = j.at("source").get<int>();
  row.local_id = j.at("local_id").get<int64_t>();
  row.target_shard = j.at("target").get<int>();
  row.kind = j.at("kind").get<std::string>();
  row.payload = j.at("payload").get<std::string>();
  row.created = j.at("created").get<int64_t>();
  return row;
}

int JobTarget(const std::string& body) {
  Json job = Json::parse(body, nullptr, false);
  return job.is_object() ? job.value("target", -1) : -1;
}

std::string AckApplied(bool applied) { return Json{{"ok", true}, {"applied", applied}}.dump(); }

std::string AckRefused(const std::string& why) {
  return Json{{"ok", false}, {"error", why}}.dump();
}

bool AckOk(const std::string& body) {
  Json ack = Json::parse(body, nullptr, false);
  return ack.is_object() && ack.value("ok", false);
}

std::string EncodeRefusal(const std::string& reason, bool retry) {
  return Json{{"reason", reason}, {"retry", retry}}.dump();
}

bool DecodeRefusal(const std::string& body, std::string* reason, bool* retry) {
  Json why = Json::parse(body, nullptr, false);
  if (!why.is_object()) return false;
  *reason = why.value("reason", std::string("no reason given"));
  *retry = why.value("retry", false);
  return true;
}

}  // namespace weibo::cluster
