// The text renderers of the operation table's rows (OpSpec::render); RenderText
// (weibo/render.h) picks one by op name.
#ifndef WEIBO_RENDER_TEXT_H_
#define WEIBO_RENDER_TEXT_H_

#include <string>

#include "weibo/storage.h"

namespace weibo::render {

std::string Init(const Json& result);
std::string User(const Json& user);      // user_add, user_show
std::string Users(const Json& list);     // user_list
std::string Follow(const Json& result);  // follow, unfollow
std::string Deleted(const Json& result);
std::string Counts(const Json& list);  // count
std::string Fsck(const Json& report);
std::string Drain(const Json& result);
// render/entities.cc: weibo-index(1) and weibo-cleaner(1)
std::string Index(const Json& index);          // index_add
std::string Indexes(const Json& list);         // index_list
std::string IndexDropped(const Json& result);  // index_drop
std::string Cleaner(const Json& result);
std::string Archive(const Json& result);  // render/entities.cc: weibo-archive(1)
// render/tokens.cc: weibo-app(1) and weibo-token(1)
std::string App(const Json& app);             // app_register (with its secret, once)
std::string Apps(const Json& list);           // app_list
std::string AppEvents(const Json& list);      // app_events
std::string Token(const Json& token);         // token_issue (with the token, once), revoke, check
std::string Tokens(const Json& list);         // token_list
std::string Likes(const Json& list);          // likes: who liked a message
std::string Notification(const Json& item);   // notify_send
std::string Notifications(const Json& list);  // notify_list
std::string Unread(const Json& result);       // notify_read, notify_unread
// avatar_set (one line a size), avatar_url (the url), avatar_rm
std::string Avatar(const Json& result);
// timeline: the messages (Default), or with --unread the red dot's badge.
std::string Timeline(const Json& result);
std::string Import(const Json& result);  // import: "followed N of M edges (K existing)"
// search: the messages found (Default), or what --rebuild indexed.
std::string Search(const Json& result);
// Ops without a renderer of their own: a message or a list of them as blocks, anything
// else as indented JSON.
std::string Default(const Json& result);

}  // namespace weibo::render

#endif  // WEIBO_RENDER_TEXT_H_
