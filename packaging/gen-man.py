#!/usr/bin/env python3
"""Man pages for gpuscope and each of its commands, from the one source of
their help: the option tables the binary prints with --help.

    gen-man.py GPUSCOPE_BINARY OUTDIR

writes OUTDIR/gpuscope.1 and OUTDIR/gpuscope-COMMAND.1 for every command
that `gpuscope --help` lists.
"""
import os
import re
import subprocess
import sys


def run(binary, *args):
    env = dict(os.environ, COLUMNS="80")
    return subprocess.run([binary, *args], capture_output=True, text=True, env=env, check=True).stdout


def esc(s):
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + s if s.startswith((".", "'")) else s


def version(binary):
    out = run(binary, "--version").split()
    return out[-1] if out else "unknown"


def commands(top_help):
    return [m.group(1) for m in re.finditer(r"^  ([a-z]+) {2,}\S", top_help, re.M)
            if not m.group(1).startswith("-")]


def page(name, summary, help_text, ver, see_also):
    lines = help_text.rstrip("\n").split("\n")
    out = [f'.TH {name.upper()} 1 "" "gpuscope {ver}" "gpuscope manual"', ".SH NAME",
           f"{esc(name)} \\- {esc(summary)}"]
    i = 0
    if lines and lines[0].startswith("usage: "):
        out += [".SH SYNOPSIS", ".B " + esc(lines[0][len("usage: "):])]
        i = 1
    section = "DESCRIPTION"
    out.append(".SH DESCRIPTION")
    para = []

    def flush():
        if para:
            out.append(".PP")
            out.extend(esc(p) for p in para)
            para.clear()

    while i < len(lines):
        ln = lines[i]
        i += 1
        if ln.strip() in ("options:", "global options:"):
            flush()
            section = "OPTIONS"
            out.append(".SH OPTIONS")
            continue
        if ln.strip() == "Examples:":
            flush()
            section = "EXAMPLES"
            out.append(".SH EXAMPLES")
            continue
        if section == "EXAMPLES":
            if ln.strip():
                out += [".PP", ".nf", esc(ln.strip()), ".fi"]
            continue
        if section == "OPTIONS":
            m = re.match(r"^  (-\S+(?: [A-Z][A-Z0-9_:,.]*)?)\s{2,}(.*)$", ln)
            if m:
                out += [".TP", "\\fB" + esc(m.group(1)) + "\\fR", esc(m.group(2))]
            elif re.match(r"^[a-z].*:$", ln.strip()) and not ln.startswith("  "):
                out += [".SS " + esc(ln.strip()[:-1])]
            elif ln.startswith("      ") and ln.strip():
                out.append(esc(ln.strip()))
            elif ln.strip():
                out += [".PP", esc(ln.strip())]
            continue
        if not ln.strip():
            flush()
        else:
            para.append(ln.strip())
    flush()
    out += [".SH SEE ALSO", ", ".join(f"\\fB{esc(s)}\\fR(1)" for s in see_also)]
    return "\n".join(out) + "\n"


def main():
    binary, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    ver = version(binary)
    top = run(binary, "--help")
    cmds = commands(top)
    summaries = {m.group(1): m.group(2) for m in re.finditer(r"^  ([a-z]+) {2,}(.*)$", top, re.M)}
    pages = {"gpuscope": page("gpuscope", "plan, check, monitor and measure GPU servers for PyTorch", top, ver,
                              [f"gpuscope-{c}" for c in cmds])}
    for c in cmds:
        pages[f"gpuscope-{c}"] = page(f"gpuscope-{c}", summaries.get(c, c), run(binary, c, "--help"), ver,
                                      ["gpuscope"])
    for name, text in pages.items():
        with open(os.path.join(outdir, name + ".1"), "w") as f:
            f.write(text)
    print(f"{len(pages)} man pages in {outdir}")


if __name__ == "__main__":
    main()
