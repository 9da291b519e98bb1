#!/usr/bin/env python3
"""Renders deploy/helm/gpuscope the way `helm template` does, for the subset
of Go templates the chart uses (helm itself is not in Debian):

    {{ .Values.a.b }}  {{ .Release.Name }}  {{ .Release.Namespace }}  {{ .Chart.AppVersion }}
    {{ X | quote }}    {{ toYaml X | nindent N }}
    {{- if X }} ... {{- end }}    {{- range .Values.list }} {{ . }} {{- end }}

    render-chart.py CHART_DIR [--set key.path=value ...] [--name NAME] [--namespace NS]

Anything else in a template is an error, so the chart cannot drift into
syntax this renderer does not check.  Prints the manifests, '---' between
templates, in file-name order.
"""
import os
import re
import sys

import yaml

TOKEN = re.compile(r"(\{\{-?\s*(.*?)\s*-?\}\})", re.S)


def lookup(ctx, expr):
    expr = expr.strip()
    if expr == ".":
        return ctx["."]
    if not expr.startswith("."):
        raise SyntaxError(f"unsupported expression '{expr}'")
    cur = ctx
    for part in expr[1:].split("."):
        if not isinstance(cur, dict) or part not in cur:
            raise KeyError(f"{expr}: no '{part}'")
        cur = cur[part]
    return cur


def evaluate(ctx, expr):
    parts = [p.strip() for p in expr.split("|")]
    head = parts[0]
    if head.startswith("toYaml "):
        val = yaml.safe_dump(lookup(ctx, head[len("toYaml "):]), default_flow_style=False, sort_keys=True).rstrip("\n")
    else:
        val = lookup(ctx, head)
    for f in parts[1:]:
        if f == "quote":
            val = '"' + str(val).replace('"', '\\"') + '"'
        elif f.startswith("nindent "):
            n = int(f.split()[1])
            val = "\n" + "\n".join(" " * n + ln for ln in str(val).split("\n"))
        else:
            raise SyntaxError(f"unsupported function '{f}'")
    if isinstance(val, bool):
        return "true" if val else "false"
    return str(val)


def render(text, ctx):
    # parse into a tree of text / expr / if / range nodes
    pos, stack, root = 0, [], []
    cur = root
    for m in TOKEN.finditer(text):
        raw, body = m.group(1), m.group(2)
        chunk = text[pos:m.start()]
        if raw.startswith("{{-"):
            chunk = chunk.rstrip(" \t\n")
        cur.append(("text", chunk))
        pos = m.end()
        if body.startswith("if "):
            node = ("if", body[3:], [])
            cur.append(node)
            stack.append(cur)
            cur = node[2]
        elif body.startswith("range "):
            node = ("range", body[6:], [])
            cur.append(node)
            stack.append(cur)
            cur = node[2]
        elif body == "end":
            cur = stack.pop()
        else:
            cur.append(("expr", body))
    cur.append(("text", text[pos:]))
    if stack:
        raise SyntaxError("unterminated if/range")

    def walk(nodes, c):
        out = []
        for n in nodes:
            if n[0] == "text":
                out.append(n[1])
            elif n[0] == "expr":
                out.append(evaluate(c, n[1]))
            elif n[0] == "if":
                if lookup(c, n[1]):
                    out.append(walk(n[2], c))
            elif n[0] == "range":
                for item in lookup(c, n[1]) or []:
                    out.append(walk(n[2], dict(c, **{".": item})))
        return "".join(out)

    return walk(root, ctx)


def set_value(values, path, raw):
    keys = path.split(".")
    cur = values
    for k in keys[:-1]:
        cur = cur.setdefault(k, {})
    cur[keys[-1]] = yaml.safe_load(raw)


def main(argv):
    chart, name, ns, sets = argv[0], "gpuscope", "gpuscope", []
    i = 1
    while i < len(argv):
        if argv[i] == "--set":
            sets.append(argv[i + 1])
            i += 2
        elif argv[i] == "--name":
            name = argv[i + 1]
            i += 2
        elif argv[i] == "--namespace":
            ns = argv[i + 1]
            i += 2
        else:
            raise SystemExit(f"render-chart: unknown argument {argv[i]}")
    with open(os.path.join(chart, "values.yaml")) as f:
        values = yaml.safe_load(f)
    with open(os.path.join(chart, "Chart.yaml")) as f:
        meta = yaml.safe_load(f)
    for s in sets:
        k, v = s.split("=", 1)
        set_value(values, k, v)
    ctx = {"Values": values, "Release": {"Name": name, "Namespace": ns},
           "Chart": {"Name": meta["name"], "Version": meta["version"], "AppVersion": meta["appVersion"]}, ".": None}
    tdir = os.path.join(chart, "templates")
    docs = []
    for fn in sorted(os.listdir(tdir)):
        if not fn.endswith(".yaml"):
            continue
        with open(os.path.join(tdir, fn)) as f:
            out = render(f.read(), ctx).strip("\n")
        if out.strip():
            docs.append(f"# Source: {meta['name']}/templates/{fn}\n{out}\n")
    sys.stdout.write("---\n".join(docs))


if __name__ == "__main__":
    main(sys.argv[1:])
