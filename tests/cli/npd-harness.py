#!/usr/bin/env python3
"""Runs the rules of a node-problem-detector custom plugin config as npd's
custom plugin monitor does, and prints one JSON line per rule:
{"reason", "status": "OK"|"NonOK"|"Unknown", "exit", "message", "raw"}.

npd runs `path args...` with the rule's timeout (else the plugin's), takes
exit 0 as OK, 1 as NonOK and anything else (a timeout too) as Unknown, and
keeps the first max_output_length bytes of stdout, trimmed, as the message.

  npd-harness.py CONFIG --path BINARY [--arg WORD ...]

--path replaces each rule's path (the installed /usr/bin/gpuscope); each
--arg is appended to the rule's args (the test's fake NVML and host tree).
"""
import argparse
import json
import re
import subprocess
import sys


def seconds(text):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|m)", text)
    if not m:
        sys.exit(f"npd-harness: bad duration {text!r}")
    return float(m.group(1)) * {"ms": 0.001, "s": 1, "m": 60}[m.group(2)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("config")
    ap.add_argument("--path", required=True)
    ap.add_argument("--arg", action="append", default=[])
    a = ap.parse_args()
    with open(a.config) as f:
        cfg = json.load(f)
    if cfg.get("plugin") != "custom":
        sys.exit("npd-harness: not a custom plugin config")
    pc = cfg["pluginConfig"]
    max_len = int(pc.get("max_output_length", 80))
    conditions = {c["type"] for c in cfg.get("conditions", [])}
    for rule in cfg["rules"]:
        if rule["type"] == "permanent" and rule["condition"] not in conditions:
            sys.exit(f"npd-harness: rule {rule['reason']} names an undeclared condition")
        timeout = seconds(rule.get("timeout", pc.get("timeout", "5s")))
        try:
            p = subprocess.run([a.path] + rule.get("args", []) + a.arg, capture_output=True,
                               timeout=timeout)
            code, raw = p.returncode, p.stdout
        except subprocess.TimeoutExpired as e:
            code, raw = None, e.stdout or b""
        status = {0: "OK", 1: "NonOK"}.get(code, "Unknown")
        message = raw[:max_len].decode("utf-8", "replace").strip()
        print(json.dumps({"reason": rule["reason"], "status": status, "exit": code,
                          "message": message, "raw": raw.decode("utf-8", "replace"),
                          "max_output_length": max_len}))


main()
