#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_service (tests/fuzz/corpus/): one valid request for
every op of the operation table, against the fuzz target's seed cluster (users 1 alice,
2 bob, 3 carol; alice's posts SEED_MSG and DELETED_MSG), and the edge cases of hostile input. Rerun after
adding an op: python3 tests/fuzz/make_corpus.py tests/fuzz/corpus"""
import json
import os
import sys

SEED_MSG = "794354201395200001"  # alice's posts at 2026-01-01T00:00:00Z (fuzz_service.cc)
DELETED_MSG = "794354201395200257"

valid = {
    "user_add": {"name": "dave"},
    "user_show": {"user": "@alice"},
    "user_list": {},
    "follow": {"user": "1", "target": "@bob"},
    "unfollow": {"user": "@bob", "target": "1"},
    "post": {"user": "@alice", "content": "hello 你好 🌏"},
    "repost": {"user": "@carol", "msg": SEED_MSG, "content": "look"},
    "comment": {"user": "@bob", "msg": SEED_MSG, "content": "nice"},
    "delete": {"user": "@alice", "msg": DELETED_MSG},
    "timeline": {"user": "@bob", "count": 5, "max_id": "9" * 18, "since_id": "1", "page": 0},
    "show": {"msg": SEED_MSG},
    "comments": {"msg": SEED_MSG, "page": 0},
    "reposts": {"msg": SEED_MSG, "page": 1},
    "count": {"msgs": [SEED_MSG, "42"]},
    "drain": {},
    "fsck": {"repair": True},
    "init": {"shards": 2, "force": True},
}

files = {}
for op, args in valid.items():
    files["op-" + op] = json.dumps({"id": "v-" + op, "op": op, "args": args})
files["timeline-posts"] = json.dumps({"id": "t", "op": "timeline",
                                      "args": {"user": 2, "posts": True}})
files["explain"] = json.dumps({"id": "e", "op": "user_show", "args": {"user": 1},
                               "explain": True})
files["async-now-token"] = json.dumps({"id": "a", "op": "post", "async": True,
                                       "now": "2026-02-01T00:00:00Z", "token": "t0k",
                                       "args": {"user": 3, "content": "later"}})
files["now-epoch"] = '{"id":"n","op":"user_list","now":1767225600}'
# Found by the fuzzer: a clock past the 41 bits of an id's milliseconds (refused now).
files["now-4052"] = json.dumps({"id": "a", "op": "post", "async": True,
                                "now": "4052-02-01T00:00:00Z", "token": "t0k",
                                "args": {"user": 3, "content": "later"}})
files["now-early"] = '{"id":"n","op":"user_list","now":0}'
files["args-null"] = '{"id":"x","op":"user_list","args":null}'
files["no-id"] = '{"op":"user_list"}'
files["dedup-twice"] = '{"id":"d","op":"post","args":{"user":1,"content":"once"}}'
files["deep-32"] = '{"id":"d","op":"user_list","args":{"x":' + "[" * 30 + "]" * 30 + "}}"
files["deep-33"] = '{"id":"d","op":"user_list","args":{"x":' + "[" * 31 + "]" * 31 + "}}"
files["deep-5000-arrays"] = "[" * 5000 + "]" * 5000
files["deep-2000-objects"] = '{"a":' * 2000 + "1" + "}" * 2000
files["deep-in-string"] = '{"id":"s","op":"post","args":{"user":1,"content":"' + "[" * 100 + '"}}'
files["unbalanced"] = "]]]]}}}}{{{{[[[["
files["invalid-utf8"] = b'{"id":"u","op":"user_add","args":{"name":"\xff\xfe"}}'
files["overlong-utf8"] = b'{"id":"u","op":"user_add","args":{"name":"\xc0\xaf"}}'
files["utf8-in-key"] = b'{"id":"u","op":"user_list","args":{"\xed\xa0\x80":1}}'
files["lone-surrogate"] = '{"id":"s","op":"user_add","args":{"name":"\\ud800"}}'
files["nul-in-content"] = '{"id":"z","op":"post","args":{"user":1,"content":"a\\u0000b"}}'
files["control-in-name"] = '{"id":"z","op":"user_add","args":{"name":"a\\u0007"}}'
files["content-141"] = json.dumps({"id": "l", "op": "post", "args": {"user": 1,
                                                                     "content": "字" * 141}})
files["name-21"] = json.dumps({"id": "l", "op": "user_add", "args": {"name": "n" * 21}})
files["huge-numbers"] = ('{"id":"h","op":"timeline","args":{"user":18446744073709551616,'
                         '"count":1e400,"page":-1}}')
files["huge-msg"] = '{"id":"h","op":"show","args":{"msg":"99999999999999999999999999"}}'
files["negative-msg"] = '{"id":"h","op":"show","args":{"msg":-5}}'
files["float-user"] = '{"id":"h","op":"user_show","args":{"user":1.5}}'
files["int64-max"] = '{"id":"h","op":"comments","args":{"msg":"9223372036854775807","page":9223372036854775807}}'
files["wrong-types"] = ('{"id":"w","op":"post","args":{"user":["1"],"content":{"a":1}}}')
files["count-not-list"] = '{"id":"w","op":"count","args":{"msgs":"1"}}'
files["count-huge-list"] = json.dumps({"id": "w", "op": "count",
                                       "args": {"msgs": [str(i) for i in range(3000)]}})
files["flag-as-string"] = '{"id":"w","op":"fsck","args":{"repair":"yes"}}'
files["unknown-op"] = '{"id":"o","op":"drop_tables","args":{}}'
files["op-not-string"] = '{"id":"o","op":7}'
files["empty-op"] = '{"id":"o","op":""}'
files["missing-args"] = '{"id":"m","op":"follow","args":{"user":"1"}}'
files["unknown-arg"] = '{"id":"m","op":"user_list","args":{"all":true}}'
files["unknown-field"] = '{"id":"f","op":"user_list","sudo":true}'
files["duplicate-keys"] = '{"id":"a","id":"b","op":"user_list","op":"fsck"}'
files["id-long"] = json.dumps({"id": "x" * 129, "op": "user_list"})
files["id-number"] = '{"id":7,"op":"user_list"}'
files["user-at-unknown"] = '{"id":"u","op":"user_show","args":{"user":"@nobody"}}'
files["user-at-only"] = '{"id":"u","op":"user_show","args":{"user":"@"}}'
files["self-follow"] = '{"id":"s","op":"follow","args":{"user":1,"target":"@alice"}}'
files["not-json"] = '{"id":"a","op":'
files["array"] = "[1,2,3]"
files["empty"] = ""
files["garbage"] = b"\x00\x01\x02garbage\xff"
files["bom"] = b'\xef\xbb\xbf{"id":"b","op":"user_list"}'
files["oversize-70k"] = json.dumps({"id": "big", "op": "post", "args": {"user": 1, "content": "a" * 70000}})
files["trailing"] = '{"id":"t","op":"user_list"} {"op":"fsck"}'

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
os.makedirs(out, exist_ok=True)
for name, body in files.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(body if isinstance(body, bytes) else body.encode())
print("%d files in %s" % (len(files), out))
