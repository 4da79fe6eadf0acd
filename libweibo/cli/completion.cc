// `weibo completion bash|zsh|fish`: completion scripts made from the operation table, so
// that a new operation completes with no change here. Each command of the table is built
// as it runs (BuildCommand) and described: its subcommands, its options (the common ones
// too) and which of them take a value, and the kind of each value — a user (completed
// with the @names of the cluster, from `weibo user list`), a feed mode, a directory. The
// other weibo-* programs beside weibo (cluster, sql, bench, ...) are not in the table:
// the scripts complete their options from their --help when asked, as bash-completion's
// _longopt does.
#include <algorithm>
#include <iostream>
#include <sstream>
#include <tuple>

#include "cli/table_command.h"
#include "weibo/cli.h"

namespace weibo::cli {
namespace {

// One command line to complete: "post", or "user add" of a command of subcommands.
struct Key {
  std::string name;     // "post", "user add"
  std::string summary;  // the op's
  std::vector<std::string> options, valued, users, feeds, dirs;
  bool user_positional = false;
  // For fish: each option's short and long name, whether it takes a value, its help.
  std::vector<std::tuple<std::string, std::string, bool, std::string>> described;
};

struct Described {
  std::vector<Key> keys;
  std::vector<std::string> commands;  // the first words: table commands, then programs
  std::vector<std::pair<std::string, std::vector<std::string>>> subcommands;  // "user": add..
  std::vector<std::string> common_valued;  // values of common options, skipped before COMMAND
  std::vector<std::string> common;         // the common options
};

// The first name the command line spells an argument with: "-u" of "-u,--user".
std::string SpecFlag(const ArgSpec& spec) {
  if (spec.flag != nullptr)
    return std::string(spec.flag).substr(0, std::string(spec.flag).find(','));
  std::string flag = std::string("--") + spec.name;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

void AddOptions(const CLI::App& app, const std::vector<const ArgSpec*>& specs, Key* key) {
  for (const CLI::Option* o : app.get_options()) {
    if (!o->nonpositional()) continue;
    const bool valued = o->get_items_expected_max() != 0;
    std::vector<std::string> names;
    for (const std::string& s : o->get_snames()) names.push_back("-" + s);
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
    for (const std::string& n : names) {
      key->options.push_back(n);
      if (valued) key->valued.push_back(n);
    }
    const ArgSpec* spec = nullptr;
    for (const ArgSpec* s : specs)
      if (o->check_name(SpecFlag(*s))) spec = s;
    std::vector<std::string>* kind = nullptr;
    if (o->check_name("--data"))
      kind = &key->dirs;
    else if (spec != nullptr && spec->type == ArgType::kUser)
      kind = &key->users;
    else if (spec != nullptr && std::string(spec->name) == "feed")
      kind = &key->feeds;
    if (kind != nullptr) kind->insert(kind->end(), names.begin(), names.end());
    key->described.emplace_back(o->get_snames().empty() ? "" : o->get_snames()[0],
                                o->get_lnames().empty() ? "" : o->get_lnames()[0], valued,
                                o->get_description());
  }
}

Described Describe() {
  Described d;
  for (const std::string& command : TableCommands()) {
    d.commands.push_back(command);
    std::unique_ptr<TableCommand> built = BuildCommand(command);
    CLI::App& top = built->cmd->app();
    std::vector<std::string> subs;
    for (const OpOptions& options : built->options) {
      Key key;
      std::vector<const ArgSpec*> specs;
      for (const ArgSpec& s : options.op().args) {
        specs.push_back(&s);
        if (s.type == ArgType::kUser && s.flag != nullptr && s.flag[0] != '-')
          key.user_positional = true;
      }
      key.name = options.op().command;
      key.summary = options.op().summary;
      AddOptions(top, specs, &key);
      if (options.app() != &top) {
        AddOptions(*options.app(), specs, &key);
        subs.push_back(options.app()->get_name());
      }
      d.keys.push_back(std::move(key));
    }
    if (!subs.empty()) d.subcommands.emplace_back(command, subs);
    if (d.common.empty())
      for (const CLI::Option* o : top.get_options())
        if (o->get_group() == "Common options")
          for (const std::string& l : o->get_lnames()) {
            d.common.push_back("--" + l);
            if (o->get_items_expected_max() != 0) d.common_valued.push_back("--" + l);
          }
  }
  // The other programs beside this one (weibo-cluster, weibo-sql, ...).
  for (const std::string& other : OtherPrograms()) d.commands.push_back(other);
  return d;
}

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// The table as shell assignments, the same in bash and zsh: _weibo_key sets, for one key
// ("post", "user add"), the options, which take a value and of which kind.
std::string KeyFunction(const Described& d) {
  std::ostringstream out;
  out << "_weibo_key() {\n  case \"$1\" in\n";
  for (const Key& k : d.keys) {
    out << "    '" << k.name << "') opts='" << Join(k.options) << "' valued='" << Join(k.valued)
        << "' users='" << Join(k.users) << "' feeds='" << Join(k.feeds) << "' dirs='"
        << Join(k.dirs) << "' user_positional=" << (k.user_positional ? 1 : 0) << " ;;\n";
  }
  out << "    *) return 1 ;;\n  esac\n}\n";
  out << "_weibo_subcommands() {\n  case \"$1\" in\n";
  for (const auto& [command, subs] : d.subcommands)
    out << "    '" << command << "') echo '" << Join(subs) << "' ;;\n";
  out << "  esac\n}\n";
  out << "_weibo_commands='" << Join(d.commands) << " help completion'\n";
  out << "_weibo_common='" << Join(d.common) << " --help --version'\n";
  out << "_weibo_common_valued='" << Join(d.common_valued) << "'\n";
  return out.str();
}

// What the scripts share, in the syntax bash and zsh both read: after the words before
// the cursor are in the array w (w[0] the program) and cur is the word at the cursor,
// _weibo_candidates prints the candidates, one a line, and returns 2 for directories.
const char* kCandidates = R"SH(
# The @names of the cluster this command line names (its --data, else weibo's own search).
_weibo_users() {
  local data=() i
  for ((i = 0; i < ${#w[@]}; i++)); do
    [[ ${w[i]} == --data ]] && data=(--data "${w[i+1]}")
    [[ ${w[i]} == --data=* ]] && data=("${w[i]}")
  done
  weibo "${data[@]}" user list --jq '.[] | "@" + .name' 2>/dev/null
}
# Options and subcommands of a program the table does not describe, from its --help.
_weibo_help_words() {
  "$@" --help 2>/dev/null | awk '
    /^Subcommands:/ { sub_ = 1; next }  /^[A-Z][a-z ]*:$/ { sub_ = 0 }
    sub_ && /^  [a-z]/ { print $1 }
    { for (i = 1; i <= NF; i++) if ($i ~ /^--?[a-z]/) { split($i, p, ","); for (j in p) if (p[j] ~ /^--?[a-z][a-z-]*$/) print p[j] } }'
}
_weibo_candidates() {
  local n=${#w[@]} i=1 cmd= sub= prev=${w[${#w[@]}-1]} opts valued users feeds dirs user_positional
  if [[ ${w[0]##*/} == weibo-* ]]; then
    cmd=${w[0]##*/}
    cmd=${cmd#weibo-}
    i=0  # the words after the program's name follow
  else
    while ((i < n)); do
      case " $_weibo_common_valued " in *" ${w[i]} "*) ((i += 2)); continue ;; esac
      case ${w[i]} in -*) ((i++)); continue ;; esac
      cmd=${w[i]}
      break
    done
    if [[ -z $cmd ]]; then
      [[ $cur == -* ]] && echo $_weibo_common || echo $_weibo_commands
      return
    fi
  fi
  ((i++))
  case $cmd in
    help) ((i == n)) && echo $_weibo_commands; return ;;
    completion) ((i == n)) && echo bash zsh fish; return ;;
  esac
  local subs
  subs=$(_weibo_subcommands "$cmd")
  if [[ -n $subs ]]; then
    while ((i < n)); do
      case ${w[i]} in -*) ((i++)) ;; *) sub=${w[i]}; break ;; esac
    done
    if [[ -z $sub && $cur != -* ]]; then echo $subs; return; fi
  fi
  if ! _weibo_key "$cmd${sub:+ $sub}"; then
    # Not in the table: weibo-cluster, weibo-sql, weibo-bench, ...
    local words
    words=$(_weibo_help_words "weibo-$cmd")
    if [[ -z $sub && $cur != -* ]]; then
      _weibo_help_words "weibo-$cmd" | grep -v '^-'
      [[ $prev == --data ]] && return 2
      return
    fi
    [[ $prev == --data ]] && return 2
    [[ $cur == -* ]] && { _weibo_help_words "weibo-$cmd" ${sub:+"$sub"} | grep '^-'; }
    return
  fi
  case " $users " in *" $prev "*) _weibo_users; return ;; esac
  case " $feeds " in *" $prev "*) echo push pull hybrid; return ;; esac
  case " $dirs " in *" $prev "*) return 2 ;; esac
  case " $valued " in *" $prev "*) return ;; esac
  if [[ $cur == -* ]]; then echo $opts; return; fi
  ((user_positional)) && _weibo_users
}
)SH";

void Bash(const Described& d, std::ostream& out) {
  out << "# bash completion for weibo and its weibo-* programs, made by `weibo completion "
         "bash`\n# from weibo's operation table. Load it with: source <(weibo completion bash)\n";
  out << KeyFunction(d) << kCandidates;
  out << R"SH(_weibo() {
  # The words as typed: bash itself breaks a word at '@' (COMP_WORDBREAKS), which @names
  # would not survive.
  local line=${COMP_LINE:0:COMP_POINT} w cur candidates rc
  read -ra w <<<"$line"
  [[ $line == *[[:space:]] || ${#w[@]} -eq 0 ]] && w+=("")
  cur=${w[${#w[@]}-1]}
  unset 'w[${#w[@]}-1]'
  candidates=$(_weibo_candidates)
  rc=$?
  if ((rc == 2)); then
    COMPREPLY=($(compgen -d -- "$cur"))
    return
  fi
  COMPREPLY=($(compgen -W "$candidates" -- "$cur"))
  # Where bash breaks words at '@' (COMP_WORDBREAKS), it replaces only what follows it.
  if [[ $cur == *@* && $COMP_WORDBREAKS == *@* ]]; then
    COMPREPLY=("${COMPREPLY[@]#"${cur%@*}@"}")
  fi
}
)SH";
  out << "complete -F _weibo weibo";
  for (const std::string& c : d.commands) out << " weibo-" << c;
  out << "\n";
}

void Zsh(const Described& d, std::ostream& out) {
  out << "#compdef weibo";
  for (const std::string& c : d.commands) out << " weibo-" << c;
  out << "\n# zsh completion for weibo and its weibo-* programs, made by `weibo completion "
         "zsh` from\n# weibo's operation table. Install it as _weibo in a directory of "
         "$fpath.\n";
  out << R"SH(local -a w candidates
local cur rc
w=("${(@)words[1,CURRENT-1]}")
cur=${words[CURRENT]}
# The functions below are bash's too: 0-based arrays, words split on expansion.
emulate -L zsh -o ksh_arrays -o sh_word_split
)SH";
  out << KeyFunction(d) << kCandidates;
  out << R"SH(candidates=($(_weibo_candidates))
rc=$?
if ((rc == 2)); then
  _files -/
else
  compadd -- "${candidates[@]}"
fi
)SH";
}

std::string FishQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("\\'") : std::string(1, c);
  return out + "'";
}

void Fish(const Described& d, std::ostream& out) {
  out << "# fish completion for weibo and its weibo-* programs, made by `weibo completion "
         "fish`\n# from weibo's operation table. Install it as weibo.fish in "
         "~/.config/fish/completions.\n";
  out << "function __weibo_users\n  weibo user list --jq '.[] | \"@\" + .name' 2>/dev/null\n"
         "end\n";
  out << "complete -c weibo -f\n";
  out << "complete -c weibo -n __fish_use_subcommand -a " << FishQuote(Join(d.commands))
      << "\ncomplete -c weibo -n __fish_use_subcommand -a 'help completion'\n";
  out << "complete -c weibo -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n";
  for (const Key& k : d.keys) {
    const std::string first = k.name.substr(0, k.name.find(' '));
    const std::string sub =
        k.name.find(' ') == std::string::npos ? "" : k.name.substr(first.size() + 1);
    std::vector<std::string> targets;
    std::string seen = "__fish_seen_subcommand_from " + first;
    if (!sub.empty()) seen += "; and __fish_seen_subcommand_from " + sub;
    targets.push_back("-c weibo -n " + FishQuote(seen));
    targets.push_back(
        "-c weibo-" + first +
        (sub.empty() ? "" : " -n " + FishQuote("__fish_seen_subcommand_from " + sub)));
    if (!sub.empty()) {
      out << "complete -c weibo -n " << FishQuote("__fish_seen_subcommand_from " + first) << " -a "
          << sub << " -d " << FishQuote(k.summary) << "\n";
      out << "complete -c weibo-" << first << " -f -n __fish_use_subcommand -a " << sub << " -d "
          << FishQuote(k.summary) << "\n";
    }
    for (const std::string& target : targets) {
      for (const auto& [s, l, valued, help] : k.described) {
        out << "complete " << target;
        if (!s.empty()) out << " -s " << s;
        if (!l.empty()) out << " -l " << l;
        const std::string name = l.empty() ? "-" + s : "--" + l;
        auto has = [&](const std::vector<std::string>& v) {
          return std::find(v.begin(), v.end(), name) != v.end();
        };
        if (has(k.users))
          out << " -x -a '(__weibo_users)'";
        else if (has(k.feeds))
          out << " -x -a 'push pull hybrid'";
        else if (has(k.dirs))
          out << " -x -a '(__fish_complete_directories)'";
        else if (valued)
          out << " -x";
        out << " -d " << FishQuote(help.substr(0, help.find('(')));
        out << "\n";
      }
      if (k.user_positional) out << "complete " << target << " -f -a '(__weibo_users)'\n";
    }
  }
}

}  // namespace

int PrintCompletion(const std::string& shell, std::ostream& out) {
  if (shell != "bash" && shell != "zsh" && shell != "fish") {
    std::cerr << "weibo: error: invalid_argument: no completion for '" << shell
              << "': bash, zsh or fish\n";
    return 2;
  }
  const Described d = Describe();
  if (shell == "bash") Bash(d, out);
  if (shell == "zsh") Zsh(d, out);
  if (shell == "fish") Fish(d, out);
  return 0;
}

}  // namespace weibo::cli
