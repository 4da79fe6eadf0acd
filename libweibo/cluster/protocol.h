// The frames between the broker's backend and its nodes (man/weibod.1, CLUSTER PROTOCOL):
// the verbs and how many frames follow each, the job and acknowledgement bodies. The
// broker (cluster/broker.cc) and the nodes (cluster/node.cc) read and write them only
// through these functions, so both ends and the document agree.
//
// A node's DEALER sends and receives [verb, args...]; the broker's ROUTER sees the
// node's routing id first, [node, verb, args...], and sends to a node the same way.
#ifndef WEIBO_CLUSTER_PROTOCOL_H_
#define WEIBO_CLUSTER_PROTOCOL_H_

#include <cstddef>
#include <string>
#include <zmq.hpp>

#include "net/frames.h"
#include "tables/outbox.h"

namespace weibo::cluster {

enum class Verb {
  kNone,       // not a verb, or fewer frames than the verb carries
  kHeartbeat,  // HB registration
  kBye,        // BYE
  kReq,        // REQ tag client body
  kRep,        // REP tag reply
  kRedirect,   // REDIRECT tag shard
  kJob,        // JOB tag job
  kAck,        // ACK tag ack
  kRefused,    // REFUSED refusal (broker to a node's heartbeat socket)
  kEvent,      // EVT frame (node to broker: an event for the broker's --events socket)
};

// The verb at frames[at] when at least the frames it carries follow it (a message may
// carry more: they are ignored); kNone otherwise.
Verb ReadVerb(const net::Frames& frames, size_t at);

// Sends [verb, args...] without blocking (net::SendFrames); false when it could not.
bool SendVerb(zmq::socket_t& socket, Verb verb, net::Frames args);
// Sends [to, verb, args...] on a ROUTER: to node `to`.
bool SendVerbTo(zmq::socket_t& socket, const std::string& to, Verb verb, net::Frames args);

// A job as it travels in a JOB frame, and back (DecodeJob throws on a malformed one).
std::string EncodeJob(const JobRow& job);
JobRow DecodeJob(const std::string& body);
// The target shard of a job body, read leniently (the broker routes by it); -1 when the
// body has none.
int JobTarget(const std::string& body);

// ACK bodies: the owner's applied one, and a refusal (by the owner, or by the broker for
// an owner that is down).
std::string AckApplied(bool applied);
std::string AckRefused(const std::string& why);
// Whether an ACK body says the job was applied (now or before).
bool AckOk(const std::string& body);

// REFUSED bodies: why the broker will not give a registering node its shards, and whether
// the node should heartbeat on (retry: a live process holds its name) or give up.
std::string EncodeRefusal(const std::string& reason, bool retry);
// false when body is not a refusal.
bool DecodeRefusal(const std::string& body, std::string* reason, bool* retry);

}  // namespace weibo::cluster

#endif  // WEIBO_CLUSTER_PROTOCOL_H_
