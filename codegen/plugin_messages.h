// Protocol 2's server messages (docs/format.md section 5): the checks of a reply, each giving "" when it
// is what the protocol says, else what is wrong with it (the server client then kills the process: a
// protocol error). One home for what a reply may hold, apart from the process handling around it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codegen/plugin.h"
#include "codegen/plugin_run.h"
#include "codegen/runtime/native.h"
#include "core/program.h"

namespace uf {

// `line` as a JSON object replying to request `id`, parsed into `j`.
std::string check_id(const std::string& line, uint64_t id, nlohmann::json& j);
// The reply's optional `used` list, into `used`.
// A reply's `used` (switches), and its coverage beyond them into `features`: its own `features` list, then
// `opts:applied` when its `opts_applied` is not empty and `opts:skipped:ACTION` per `opts_skipped` entry.
std::string read_used(const nlohmann::json& j, std::vector<std::string>& used, std::vector<std::string>& features);
// Exactly one of the keys `key` and `error` (a string); has_key says which.
std::string check_one_of(const nlohmann::json& j, const char* key, bool& has_key);
// An error reply's optional `bucket` (one line of at most 160 printable characters), into `bucket`.
std::string read_bucket(const nlohmann::json& j, std::string& bucket);
// A render or export reply, read into `out`.
std::string check_reply(const nlohmann::json& j, PluginResult& out);
// A reach reply (`reachable`: "kernel" or `level`; `detail`: one line), read into `out`: its source the
// level, its message the detail.
std::string check_reach(const nlohmann::json& j, const std::string& level, PluginResult& out);
// One data set's entry of a run reply's `outputs` for `p` run on `input`, read into `out`.
std::string check_outcome(const nlohmann::json& entry, const Program& p, const std::vector<NativeBuffer>& input,
                          PluginRunOutcome& out);
// A run request's `inputs`: each data set's buffers by slot, base64.
nlohmann::json run_inputs(const Program& p, const std::vector<std::vector<NativeBuffer>>& inputs);

}  // namespace uf
