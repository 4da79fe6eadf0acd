#!/usr/bin/env python3
"""Each man page's ENVIRONMENT names exactly the variables its program reads, and every
manual reference of a page exists.

usage: check_environment.py BIN_DIR MAN_DIR SOURCE_DIR

What a program reads is worked out from the program and its sources, not from a list kept
here:

  - an option read from the environment (CLI11's envname) is shown by the program's --help
    as "(Env:NAME)"; --help and `PROGRAM SUB --help` for each subcommand are read. Every
    envname("NAME") in the sources must show up so in some program's --help, else it is
    reported (an option hidden from --help would escape the check).
  - a program that is a script (#!) reads every upper-case $NAME or ${NAME} it names
    outside a comment.
  - every getenv("NAME") / secure_getenv("NAME") in SOURCE_DIR/{libweibo,apps,bench}, and
    every call that searches PATH (execvp, execlp, execvpe, posix_spawnp, popen, system),
    which reads PATH, is a read by the programs that can run it: a program's own main
    source (apps/NAME.cc, bench/NAME.cc) is its alone; a library function is the
    enclosing function F's, read by every program whose binary defines F (nm), narrowed to
    the programs whose main source calls F when nothing in the libraries calls it. When
    that cannot be told (no nm, F inlined away), every program that links the code counts:
    a read is never missed, at worst a page is asked for one variable too many.

A read that code can reach but a program never makes, because a switch the program never
sets guards it, is listed in UNREACHED below with the reason; the entry lapses by itself
once the program's main source sets that switch.

Variables that only the libraries underneath read for themselves (SQLite's temporary
directory, the C library's locale) are not the programs' and are not counted.

Then, for every program, the tags of the ENVIRONMENT section of MAN_DIR/<program>.1 must
be that set, no more and no less (a program that reads none needs no such section), and
the ENVIRONMENT of weibo.7, the overview, must name every variable any program reads.

Every reference name(section) in a page must exist: a weibo* page in MAN_DIR, any other
one where man -w finds it (when man(1) and its own page are installed; otherwise other
pages are only reported as unchecked). Each page must have a SEE ALSO section naming at
least one page.

Exit status 0 when everything agrees; 1 with one line per disagreement otherwise.
"""

import os
import re
import shutil
import subprocess
import sys

from check_synopsis import unescape  # roff escapes to plain text, as that check reads them

NAME_RE = re.compile(r"^[A-Z][A-Z0-9_]*$")
ENV_HELP_RE = re.compile(r"\(Env:([A-Z][A-Z0-9_]*)\)")
ENVNAME_RE = re.compile(r"\benvname\s*\(\s*\"([^\"]*)\"")
GETENV_RE = re.compile(r"\b(?:secure_)?getenv\s*\(\s*(\"([^\"]*)\")?")
PATH_SEARCH_RE = re.compile(r"\b(execvp|execlp|execvpe|posix_spawnp|popen|system)\s*\(")
SOURCE_DIRS = ("libweibo", "apps", "bench")
SCRIPT_READ_RE = re.compile(r"\$\{?([A-Z][A-Z0-9_]*)")
REF_RE = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_.+-]*)\s*\((\d)\)")

# Reads the code above can reach but a program never makes, because a switch it never
# sets guards them. Each entry holds only while the program's main source has no match
# for `sets`: once it sets the switch, the read is counted again (and a stale entry, one
# whose read is gone, is reported).
UNREACHED = [
    {"program": "weibo-sim", "variable": "PATH", "function": "SpawnChild",
     "sets": r"\.(daemon|peer)\s*=",
     "because": "children (weibod, redis-server) are started only for DriverOptions::daemon "
                "and ::peer (weibo-bench --daemon, --peer), which the sim never sets"},
    {"program": "weibo-sim", "variable": "PATH", "function": "RetwisPeer::FindServer",
     "sets": r"\.peer\s*=",
     "because": "redis-server is looked for only for DriverOptions::peer (weibo-bench --peer), "
                "which the sim never sets"},
    # Every table command's binary may hold weibo-explain's copier (libweibo/cli links it
    # into each; an ASan build keeps it where a normal link drops it), but only ExplainMain
    # runs it. "programs" is a pattern; "optional": a build that drops the code sees no read.
    {"programs": r"weibo(-(?!explain$)[a-z-]+)?|weibod", "variable": "TMPDIR",
     "function": "Snapshot::Snapshot", "sets": r"ExplainMain", "optional": True,
     "because": "the copy in $TMPDIR is made only by weibo-explain (cli/explain.cc)"},
]

problems = []


def problem(where, message):
    problems.append(f"{where}: {message}")


# --- what each program reads ---------------------------------------------------------------

def run(argv):
    env = {k: v for k, v in os.environ.items() if not k.startswith("WEIBO_")}
    env["COLUMNS"] = "200"
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                       timeout=60, text=True)
    return p.returncode, p.stdout


def help_env(path):
    """Variables the program's options read, as its --help shows them."""
    rc, out = run([path, "--help"])
    if rc != 0:
        problem(os.path.basename(path), f"--help exited {rc}")
        return set()
    names = set(ENV_HELP_RE.findall(out))
    section = None
    for line in out.splitlines():
        heading = re.match(r"^([A-Z][a-z]+):$", line.strip())
        if heading and not line.startswith(" "):
            section = heading.group(1)
            continue
        entry = re.match(r"^  (\S+)", line)
        if section == "Subcommands" and entry:
            rc, sub_out = run([path, entry.group(1), "--help"])
            if rc != 0:
                problem(os.path.basename(path), f"'{entry.group(1)} --help' exited {rc}")
            names |= set(ENV_HELP_RE.findall(sub_out))
    return names


def code_lines(path):
    """The file's lines with // comments blanked (string literals kept)."""
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f.read().splitlines():
            stripped = line.lstrip()
            if stripped.startswith("//") or stripped.startswith("*") or stripped.startswith("/*"):
                out.append("")
                continue
            # A // outside a string literal starts a comment.
            in_string, i = False, 0
            while i < len(line):
                c = line[i]
                if c == "\\" and in_string:
                    i += 2
                    continue
                if c == '"':
                    in_string = not in_string
                elif not in_string and line.startswith("//", i):
                    line = line[:i]
                    break
                i += 1
            out.append(line)
    return out


def source_files(src):
    for top in SOURCE_DIRS:
        for root, _, files in os.walk(os.path.join(src, top)):
            for name in sorted(files):
                if name.endswith((".cc", ".h", ".cpp", ".hpp")):
                    yield os.path.join(root, name)


def main_source(src, program):
    for path in (os.path.join(src, "apps", program + ".cc"),
                 os.path.join(src, "bench", program.replace("-", "_") + ".cc")):
        if os.path.exists(path):
            return path
    return None


DEFINITION_SKIP = ("namespace", "#", "}", "struct", "class", "using", "template",
                   "static_assert", "enum", "typedef", "extern")


def enclosing_function(lines, index):
    """The qualified name of the function defined around lines[index] (definitions start
    in column 0 in this tree), or None."""
    for j in range(index, -1, -1):
        line = lines[j]
        if not line or not re.match(r"^[A-Za-z_]", line) or line.startswith(DEFINITION_SKIP):
            continue
        if line.rstrip().endswith(";"):
            continue
        m = re.search(r"([A-Za-z_~][\w:~]*)\s*\(", line)
        if m:
            return m.group(1)
    return None


def defined_symbols(path):
    """Demangled names of the functions the binary defines, or None without nm."""
    if not shutil.which("nm"):
        return None
    p = subprocess.run(["nm", "-C", "--defined-only", path], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    if p.returncode != 0:
        return None
    return p.stdout


def calls(lines, short, skip_index=None, header=False):
    """Whether lines call (or name) the function short: a reference that is not its
    definition line, nor a declaration in a header."""
    word = re.compile(r"(?<![\w])" + re.escape(short) + r"\b")
    declaration = re.compile(r"^\s*[\w:<>,*&\s]+\s[*&]?" + re.escape(short) + r"\s*\(.*\)\s*"
                             r"(const)?\s*(override)?\s*;\s*$")
    for i, line in enumerate(lines):
        if i == skip_index or not word.search(line):
            continue
        if header and declaration.match(line) and "return" not in line and "=" not in line:
            continue
        return True
    return False


def raw_reads(src, bin_dir, programs):
    """{program: {variable: [where, ...]}} for getenv and PATH searches."""
    mains = {p: main_source(src, p) for p in programs}
    main_of = {os.path.realpath(m): p for p, m in mains.items() if m}
    files = list(source_files(src))
    texts = {f: code_lines(f) for f in files}
    symbols = {p: defined_symbols(os.path.join(bin_dir, p)) for p in programs}
    reads = {p: {} for p in programs}

    def linking(path):
        # Programs that link the code of this file: the bench library is the bench's and
        # the sim's; libweibo is everyone's.
        rel = os.path.relpath(path, src)
        if rel.startswith("bench" + os.sep):
            return {p for p, m in mains.items()
                    if m and os.path.relpath(m, src).startswith("bench" + os.sep)}
        return set(programs)

    for path in files:
        lines = texts[path]
        rel = os.path.relpath(path, src)
        for i, line in enumerate(lines):
            found = []
            for m in GETENV_RE.finditer(line):
                if m.group(2) is None:
                    problem(f"{rel}:{i + 1}", "getenv with a name that is not a string literal: "
                                              "the check cannot tell what it reads")
                else:
                    found.append(m.group(2))
            if PATH_SEARCH_RE.search(line):
                found.append("PATH")
            if not found:
                continue
            where = f"{rel}:{i + 1}"
            owner = main_of.get(os.path.realpath(path))
            function = None
            if owner:
                readers = {owner}
            else:
                readers = linking(path)
                function = enclosing_function(lines, i)
                if function:
                    pattern = re.compile(r"(?:^|\s|::)" + re.escape(function) + r"\(", re.M)
                    defining = {p for p in readers
                                if symbols[p] is not None and pattern.search(symbols[p])}
                    if defining:
                        readers = defining
                    short = function.split("::")[-1]
                    # Called from library code: whoever defines it may run it. Called only
                    # from main sources: only those programs.
                    from_library = any(
                        calls(texts[f], short,
                              skip_index=(None if f != path else _definition_index(lines, i)),
                              header=f.endswith((".h", ".hpp")))
                        for f in files if os.path.realpath(f) not in main_of)
                    if not from_library:
                        direct = {p for p in readers
                                  if mains[p] and calls(texts[mains[p]], short)}
                        if direct:
                            readers = direct
                where += f" ({function or 'outside any function'})"
            for p in readers:
                for var in found:
                    if unreached(src, mains, p, var, owner, function if not owner else None):
                        continue
                    reads[p].setdefault(var, []).append(where)
    # A program that is a script (weibo-golden) is its own source: every $NAME or ${NAME
    # of an upper-case variable outside a comment is a read.
    for p in programs:
        path = os.path.join(bin_dir, p)
        with open(path, "rb") as f:
            if f.read(2) != b"#!":
                continue
        with open(path, encoding="utf-8", errors="replace") as f:
            for i, line in enumerate(f.read().splitlines()):
                if line.lstrip().startswith("#"):
                    continue
                for var in SCRIPT_READ_RE.findall(line):
                    reads[p].setdefault(var, []).append(f"{p}:{i + 1}")
    for entry in UNREACHED:
        if not entry.get("seen") and not entry.get("optional"):
            problem("check_environment.py", f"UNREACHED entry for {entry.get('program')} "
                                            f"{entry['variable']} in {entry['function']} "
                                            "matches no read any more: remove it")
    return reads


def unreached(src, mains, program, var, owner, function):
    for entry in UNREACHED:
        if (entry["variable"], entry["function"]) != (var, function):
            continue
        if "programs" in entry:
            if not re.fullmatch(entry["programs"], program):
                continue
        elif entry["program"] != program:
            continue
        entry["seen"] = True
        main = mains.get(program)
        if main and re.search(entry["sets"], "\n".join(code_lines(main))):
            continue  # the program sets the switch now: the read counts
        return True
    return False


def _definition_index(lines, index):
    for j in range(index, -1, -1):
        line = lines[j]
        if (line and re.match(r"^[A-Za-z_]", line) and not line.startswith(DEFINITION_SKIP)
                and not line.rstrip().endswith(";") and "(" in line):
            return j
    return None


def envname_literals(src):
    out = {}
    for path in source_files(src):
        for i, line in enumerate(code_lines(path)):
            for name in ENVNAME_RE.findall(line):
                out.setdefault(name, f"{os.path.relpath(path, src)}:{i + 1}")
    return out


# --- what the pages say ----------------------------------------------------------------------

def plain(line):
    """The words a source line puts on the page, fonts and quotes dropped."""
    if line.startswith((".", "'")):
        parts = line.split(None, 1)
        if parts[0] in (".TP", ".PP", ".IP", ".RS", ".RE", ".SH", ".SS", ".TH", ".EX",
                        ".EE", ".br", ".YS", ".hy", ".nh", ".ad", ".na", ".\\\""):
            return ""
        line = parts[1] if len(parts) > 1 else ""
        if parts[0] in ("BR", ".BR", ".RB", ".BI", ".IB", ".IR", ".RI"):
            line = re.sub(r'"([^"]*)"', r"\1", line)
            line = "".join(line.split(" ")) if parts[0] in (".BR", ".RB", ".IR", ".RI",
                                                              ".BI", ".IB") else line
        line = line.replace('"', "")
    return unescape(line)


def sections(path):
    out, current = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f.read().splitlines():
            if line.startswith(".SH"):
                current = unescape(line[3:].strip().strip('"'))
                out.setdefault(current, [])
            elif current is not None:
                out[current].append(line)
    return out


def environment_tags(lines):
    tags = []
    for i, line in enumerate(lines):
        if line.startswith(".TP") and i + 1 < len(lines):
            tag = plain(lines[i + 1]).strip()
            if NAME_RE.match(tag):
                tags.append(tag)
            else:
                problem("ENVIRONMENT", f"tag '{tag}' is not a variable name")
    return tags


def references(path):
    """Every name(section) of the page, with the section of the page it is in."""
    refs = []
    for name, lines in sections(path).items():
        for line in lines:
            if line.startswith(".\\\""):
                continue
            for m in REF_RE.finditer(plain(line)):
                refs.append((name, m.group(1), m.group(2)))
    return refs


# --- comparing them --------------------------------------------------------------------------

def main():
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        return 2
    bin_dir, man_dir, src = sys.argv[1:]
    programs = sorted(f for f in os.listdir(bin_dir)
                      if re.match(r"^weibo(d|-[a-z0-9-]+)?$", f)
                      and os.access(os.path.join(bin_dir, f), os.X_OK))
    if not programs:
        problem(bin_dir, "no weibo programs found")

    reads = {p: {v: ["--help (Env:)"] for v in help_env(os.path.join(bin_dir, p))}
             for p in programs}
    shown = set().union(*reads.values()) if reads else set()
    for name, where in sorted(envname_literals(src).items()):
        if name not in shown:
            problem(where, f"envname(\"{name}\") shows in no program's --help, so no page can be "
                           "checked for it")
    for p, found in raw_reads(src, bin_dir, programs).items():
        for var, wheres in found.items():
            reads[p].setdefault(var, []).extend(wheres)

    every = set()
    for p in programs:
        page = os.path.join(man_dir, p + ".1")
        if not os.path.exists(page):
            continue  # check_synopsis.py reports a program without a page
        expected = set(reads[p])
        every |= expected
        env = sections(page).get("ENVIRONMENT")
        named = set(environment_tags(env)) if env is not None else set()
        for var in sorted(expected - named):
            problem(f"{p}.1", f"ENVIRONMENT does not name {var}, which {p} reads "
                              f"({'; '.join(reads[p][var][:3])})")
        for var in sorted(named - expected):
            problem(f"{p}.1", f"ENVIRONMENT names {var}, which {p} does not read")
    overview = os.path.join(man_dir, "weibo.7")
    if os.path.exists(overview):
        env = sections(overview).get("ENVIRONMENT")
        named = set(environment_tags(env)) if env is not None else set()
        for var in sorted(every - named):
            readers = ", ".join(p for p in programs if var in reads[p])
            problem("weibo.7", f"ENVIRONMENT does not name {var} (read by {readers})")
        for var in sorted(named - every):
            problem("weibo.7", f"ENVIRONMENT names {var}, which no program reads")

    pages = sorted(f for f in os.listdir(man_dir) if re.match(r"^weibo.*\.[1-8]$", f))
    man_ok = shutil.which("man") is not None and run(["man", "-w", "1", "man"])[0] == 0
    unchecked = set()
    checked_refs = 0
    for page in pages:
        path = os.path.join(man_dir, page)
        if not sections(path).get("SEE ALSO") or not [r for r in references(path)
                                                        if r[0] == "SEE ALSO"]:
            problem(page, "no SEE ALSO section naming a page")
        for where, name, sect in references(path):
            checked_refs += 1
            if name.startswith("weibo"):
                if not os.path.exists(os.path.join(man_dir, f"{name}.{sect}")):
                    problem(page, f"{where} names {name}({sect}), which is not in {man_dir}")
            elif man_ok:
                if run(["man", "-w", sect, name])[0] != 0:
                    problem(page, f"{where} names {name}({sect}), which man -w does not find")
            else:
                unchecked.add(f"{name}({sect})")

    for line in problems:
        print(line)
    if unchecked:
        print("not checked (no manual installed here): " + ", ".join(sorted(unchecked)))
    print(f"checked the ENVIRONMENT of {len(programs)} program(s) and weibo.7, and "
          f"{checked_refs} reference(s) in {len(pages)} page(s): {len(problems)} problem(s)"
          + ("" if problems else ", all agree"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
