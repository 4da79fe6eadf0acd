// What a cluster holds on disk, read from outside the library: file sizes, row counts and
// database sizes through read-only SQLite connections, and the bytes this process wrote.
#ifndef WEIBO_BENCH_DISK_H_
#define WEIBO_BENCH_DISK_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "weibo/status.h"

namespace weibo::bench {

// fdatasync of every shard-*.db and shard-*.db-wal in dir. A setup loaded without fsyncs
// leaves megabytes of its pages in the page cache; flushed before a measured phase, they are
// not written out by its first syncs and charged to it (the baselines start on fresh files).
void FlushShards(const std::string& dir);
// Copies every shard-*.db-wal of dir back into its database and empties it (a TRUNCATE
// checkpoint), as the library does after its own writes once a WAL is 4 MB
// (ShardSet::CheckpointOpened). A bulk load written outside the library leaves its WAL
// whole; the first connection to open such a shard rebuilds the WAL's index by reading all
// of it, a cost of the load's size that would otherwise land in the measured phase.
Status CheckpointShards(const std::string& dir);
// Sum of the sizes of every shard-*.db and shard-*.db-wal in dir.
int64_t ClusterBytes(const std::string& dir);
// Sums an integer query over every shard-*.db in dir, read-only (WAL readers never block
// the writer, and a read-only connection never checkpoints). sql is a constant.
Result<int64_t> SumOverShards(const std::string& dir, const char* sql);
// Runs sql (one or more statements) in one transaction on every shard-*.db in dir, read-
// write, outside the library (a bench's own setup). Each statement's ?1, ?2, ... are bound
// to params(index) of the shard whose file it is, when params is given.
Status ExecOnShards(const std::string& dir, const char* sql,
                    const std::function<std::vector<int64_t>(int index)>& params = nullptr);
// The SQL for SumOverShards. kStoredBytes: bytes in use inside the databases' pages (the
// dbstat table: page size minus unused bytes), read through the WAL, so a checkpoint does
// not change it; kPagesInUse is the coarser fallback for an SQLite built without dbstat.
extern const char kCountInboxRows[];
extern const char kStoredBytes[];
extern const char kPagesInUse[];
// Bytes passed to write(2) and pwrite(2) by this process so far (Linux /proc/self/io
// "wchar"); -1 where that is not available.
int64_t WrittenBytes();

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_DISK_H_
