#!/usr/bin/env python3
"""The man pages agree with the programs (git's t0450 idea: SYNOPSIS matches -h).

usage: check_synopsis.py BIN_DIR MAN_DIR

For every program in BIN_DIR named weibo or weibo-* there must be MAN_DIR/<name>.1, and
for every MAN_DIR/weibo*.1 a program. For each pair, the page is compared with what the
program prints for --help (and, for a program with subcommands, `<program> SUB --help`):

  - every option of --help has an entry (a .TP tag) in OPTIONS; options that are not
    common to every command (all but --data, --json, ...) are in the SYNOPSIS too, under
    one of their names (-u or --user);
  - every positional of --help (MSG, TEXT, TARGET, NAME, ...) is in the SYNOPSIS and has
    an OPTIONS entry, and every subcommand name is in the SYNOPSIS;
  - every option and positional of the SYNOPSIS, and every option tagged in OPTIONS,
    exists in --help; an option that takes a value is written with one (--count N);
  - the page has the sections NAME, SYNOPSIS, DESCRIPTION, OPTIONS, OUTPUT, EXIT STATUS,
    EXAMPLES and SEE ALSO, in that order, and its .TH and NAME line name the program.

-h, --help and --version need not be listed by --help (the dispatcher's usage text does
not list them); when a page names one that --help does not, the program is run with it and
must exit 0 and print something.

Exit status 0 when everything agrees; 1 with one line per disagreement otherwise.
"""

import os
import re
import shlex
import subprocess
import sys

REQUIRED_SECTIONS = ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "OUTPUT", "EXIT STATUS",
                     "EXAMPLES", "SEE ALSO"]
STANDARD_OPTIONS = {"-h", "--help", "--version"}
OPTION_RE = re.compile(r"^(--[A-Za-z][A-Za-z0-9-]*|-[A-Za-z])$")
WORD_RE = re.compile(r"^[A-Z][A-Z0-9_]*$")
# Words of a usage line that name no positional.
USAGE_NOISE = {"OPTIONS", "SUBCOMMAND", "SUBCOMMANDS"}

problems = []


def problem(page, message):
    problems.append(f"{page}: {message}")


# --- the program's side ------------------------------------------------------------------

class Help:
    """What one --help output says: options (and whether each takes a value), positionals,
    subcommands."""

    def __init__(self):
        self.options = {}  # "--count" -> True when it takes a value
        self.aliases = {}  # "--user" -> {"-u", "--user"}: names of one option
        self.positionals = set()
        self.subcommands = []


def run(argv):
    env = dict(os.environ, COLUMNS="200")
    for var in ("WEIBO_DATA", "WEIBO_USER", "WEIBO_NOW", "WEIBO_TOKEN", "WEIBO_CONNECT"):
        env.pop(var, None)
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                       timeout=60, text=True)
    return p.returncode, p.stdout


def parse_help(text, into):
    section = None
    for line in text.splitlines():
        stripped = line.strip()
        if re.match(r"^(usage|Usage):", stripped):
            # "Usage: weibo-comment [OPTIONS] MSG TEXT", "usage: weibo COMMAND [ARGS...]"
            for word in re.split(r"[\s\[\]|]+", stripped.split(":", 1)[1])[2:]:
                word = word.rstrip(".")
                if WORD_RE.match(word) and word not in USAGE_NOISE:
                    into.positionals.add(word)
                elif OPTION_RE.match(word):
                    into.options.setdefault(word, False)
            continue
        heading = re.match(r"^([A-Z][a-z]+(?: [a-z]+)?):$", stripped)
        if heading and not line.startswith(" "):
            # "Common options:" (weibo/cli.h) holds options as "Options:" does.
            section = "Options" if heading.group(1) == "Common options" else heading.group(1)
            continue
        entry = re.match(r"^  (\S.*)$", line)  # entries are indented by two, wraps by more
        if not entry:
            continue
        # "-u,--user TEXT REQUIRED (Env:WEIBO_USER)   the acting user" -> names and type
        head = re.split(r"\s{2,}", entry.group(1))[0].split()
        if section == "Options" and head[0].startswith("-"):
            takes_value = len(head) > 1 and re.match(r"^[A-Z]+(=|:|$)", head[1]) is not None
            names = {n for n in head[0].split(",") if OPTION_RE.match(n)}
            for name in names:
                into.options[name] = takes_value
                into.aliases[name] = names
        elif section == "Positionals":
            into.positionals.add(head[0])
        elif section == "Subcommands":
            into.subcommands.append(head[0])


def program_help(path):
    rc, out = run([path, "--help"])
    help_ = Help()
    if rc != 0 or not out.strip():
        problem(os.path.basename(path), f"--help exited {rc} with {len(out)} bytes of output")
        return help_, False
    parse_help(out, help_)
    cli11 = "Options:" in out
    for sub in list(help_.subcommands):
        rc, out = run([path, sub, "--help"])
        if rc != 0:
            problem(os.path.basename(path), f"'{sub} --help' exited {rc}")
            continue
        parse_help(out, help_)
    return help_, cli11


# --- the page's side ---------------------------------------------------------------------

def unescape(text):
    """Plain text of roff text: font changes and zero-width escapes gone, \\- a hyphen."""
    text = re.sub(r"\\f(\[[^\]]*\]|\(..|.)", "", text)
    text = re.sub(r"\\\((em|en|hy)", "-", text)
    text = re.sub(r"\\\(..", " ", text)
    text = text.replace("\\-", "-").replace("\\&", "").replace("\\|", "").replace("\\^", "")
    text = text.replace("\\~", " ").replace("\\ ", " ").replace("\\e", "\\")
    return text


def macro_text(line):
    """The text a source line puts on the page (.OP becomes [opt arg])."""
    if not line.startswith((".", "'")):
        return unescape(line)
    try:
        parts = shlex.split(line[1:].replace("\\", "\\\\"))
    except ValueError:
        parts = line[1:].split()
    if not parts:
        return ""
    name, args = parts[0], [unescape(a) for a in parts[1:]]
    if name == "OP":
        return "[ " + " ".join(args) + " ]"
    if name in ("B", "I", "SM", "SB", "SY"):
        return " ".join(args)
    if name in ("BR", "RB", "BI", "IB", "IR", "RI"):
        return "".join(args)  # alternating fonts join their arguments
    return ""  # .TP, .PP, .YS, .RS, .br, ... put no words


def page_sections(path):
    """[(name, [source lines])] in page order, and the .TH arguments."""
    sections, th = [], None
    with open(path, encoding="utf-8") as f:
        for line in f.read().splitlines():
            if line.startswith(".TH"):
                th = shlex.split(line[3:])
            elif line.startswith(".SH"):
                sections.append((unescape(line[3:].strip().strip('"')), []))
            elif sections:
                sections[-1][1].append(line)
    return sections, th


def tokens(text):
    return [t for t in re.split(r"\s+|([\[\]|{}])", text) if t]


def synopsis_words(lines, help_):
    """Options, positionals and all words a SYNOPSIS shows, and its tokens; metavars (the
    N of --count N, known from --help) are not positionals."""
    text = " ".join(macro_text(line) for line in lines)
    toks = tokens(text)
    options, positionals, words = set(), set(), set()
    for i, tok in enumerate(toks):
        bare = tok.split("=", 1)[0]
        if OPTION_RE.match(bare):
            options.add(bare)
            continue
        word = tok.rstrip(".")
        words.add(word)
        if not WORD_RE.match(word):
            continue
        prev = toks[i - 1] if i > 0 else ""
        if OPTION_RE.match(prev) and help_.options.get(prev, False):
            continue  # the value of the option before it
        positionals.add(word)
    return options, positionals, words, toks


def option_tags(lines):
    """Options and positionals named by the tags of .TP entries."""
    options, words = set(), set()
    for i, line in enumerate(lines):
        if line.startswith(".TP") and i + 1 < len(lines):
            for tok in tokens(macro_text(lines[i + 1]).replace(",", " ")):
                bare = tok.split("=", 1)[0]
                if OPTION_RE.match(bare):
                    options.add(bare)
                elif WORD_RE.match(tok.rstrip(".")):
                    words.add(tok.rstrip("."))
    return options, words


# --- comparing them ----------------------------------------------------------------------

standard_ok = {}


def standard_option_works(path, option):
    key = (path, option)
    if key not in standard_ok:
        rc, out = run([path, option])
        standard_ok[key] = rc == 0 and out.strip() != ""
    return standard_ok[key]


def check_page(page, path, help_, common):
    sections, th = page_sections(page)
    name = os.path.basename(page)
    program = os.path.basename(path)
    order = [s for s, _ in sections if s in REQUIRED_SECTIONS]
    missing = [s for s in REQUIRED_SECTIONS if s not in order]
    if missing:
        problem(name, "missing section(s) " + ", ".join(missing))
    elif order != REQUIRED_SECTIONS:
        problem(name, "sections out of order: " + ", ".join(order))
    if not th or th[0].upper() != program.upper() or th[1:2] != ["1"]:
        problem(name, f".TH should be '.TH {program.upper()} 1 ...', is {th}")
    body = {s: lines for s, lines in sections}
    name_line = " ".join(unescape(l) for l in body.get("NAME", []) if not l.startswith("."))
    if not re.match(rf"^{re.escape(program)} - \S", name_line):
        problem(name, f"NAME should read '{program} \\- summary', reads '{name_line}'")

    syn_opts, syn_pos, syn_words, syn_toks = synopsis_words(body.get("SYNOPSIS", []), help_)
    tag_opts, tag_words = option_tags(body.get("OPTIONS", []))

    for opt in sorted(help_.options):
        if opt not in tag_opts:
            problem(name, f"{opt} (from {program} --help) has no entry in OPTIONS")
        if (not help_.aliases.get(opt, {opt}) & syn_opts and opt not in common
                and opt not in STANDARD_OPTIONS):
            problem(name, f"{opt} is particular to {program} but missing from the SYNOPSIS")
    for pos in sorted(help_.positionals):
        if pos not in syn_pos:
            problem(name, f"positional {pos} (from {program} --help) is not in the SYNOPSIS")
        if pos not in tag_words:
            problem(name, f"positional {pos} (from {program} --help) has no entry in OPTIONS")
    for sub in help_.subcommands:
        if sub not in syn_words:
            problem(name, f"subcommand '{sub}' is not in the SYNOPSIS")

    for where, opts in (("SYNOPSIS", syn_opts), ("OPTIONS", tag_opts)):
        for opt in sorted(opts):
            if opt in help_.options:
                continue
            if opt in STANDARD_OPTIONS and standard_option_works(path, opt):
                continue
            problem(name, f"{opt} in {where} is not an option of {program}")
    for pos in sorted(syn_pos - help_.positionals):
        problem(name, f"{pos} in SYNOPSIS is neither a positional of {program} nor the value "
                      "of the option before it")
    for i, tok in enumerate(syn_toks):
        bare = tok.split("=", 1)[0]
        if help_.options.get(bare) and "=" not in tok:
            nxt = syn_toks[i + 1] if i + 1 < len(syn_toks) else "]"
            if nxt in ("[", "]", "|") or nxt.startswith("-"):
                problem(name, f"{bare} takes a value but the SYNOPSIS shows none")


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    bin_dir, man_dir = sys.argv[1], sys.argv[2]
    programs = sorted(f for f in os.listdir(bin_dir)
                      if re.match(r"^weibo(-[a-z0-9-]+)?$", f)
                      and os.access(os.path.join(bin_dir, f), os.X_OK))
    pages = sorted(f[:-2] for f in os.listdir(man_dir) if re.match(r"^weibo(-.*)?\.1$", f))
    if not programs:
        problem(bin_dir, "no weibo programs found")
    for p in programs:
        if p not in pages:
            problem(p, f"has no man page {man_dir}/{p}.1")
    for p in pages:
        if p not in programs:
            problem(f"{p}.1", f"documents a program that is not in {bin_dir}")

    helps = {p: program_help(os.path.join(bin_dir, p)) for p in programs}
    # The common options are those every command has (--data, --json, ...): the programs
    # built on the command edge (libweibo/cli), which all take --connect. weibo-cluster
    # manages daemons and has options of its own only.
    cli11 = [set(h.options) for h, is_cli11 in helps.values()
             if is_cli11 and "--connect" in h.options]
    common = set.intersection(*cli11) if cli11 else set()
    checked = [p for p in programs if p in pages]
    for p in checked:
        check_page(os.path.join(man_dir, p + ".1"), os.path.join(bin_dir, p), helps[p][0], common)

    for line in problems:
        print(line)
    print(f"checked {len(checked)} page(s) against --help: "
          f"{len(problems)} problem(s)" + ("" if problems else ", all agree"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
