#!/usr/bin/env python3
"""Attacks a running `gpuscope export` while a scraper from a fifth address
measures what Prometheus would see.

    attack.py MODE --port PORT [options]

MODE:
  none       only the scraper (the baseline)
  slowloris  64 half-open connections from 127.0.0.2-5, one header line
             every --line-every seconds, reopened when the server closes them
  authflood  16 connections from 127.0.0.2-5 sending random wrong passwords
  reload     rewrites --web-config with --alt files in turn and sends SIGHUP
             to --pid every --reload-every seconds (TLS certificate reloads)
  second     --conns connections from 127.0.0.2-5 that each get one whole
             answer, then trickle a partial second request (a header line
             every --line-every seconds), reopened when the server closes them
  slowread   --conns connections from 127.0.0.2-5 with a 2 KB receive window
             (SO_RCVBUF) that send 20 pipelined /metrics requests and read
             --read-bytes every --read-every seconds, reopened when closed
  authspray  --flooders threads sending one wrong password per connection,
             each from the next of --spray-addrs addresses 127.0.1.1 onwards
             (127.0.X.Y, Y 1-250); each --fresh USER:PASSWORD, never checked
             before, is tried once from --fresh-ip during the flood; with
             --pid, a SIGHUP (same file) at half time, after which the
             scraper's credentials must still be cached

The scraper (from --scraper-ip, 127.0.0.6) opens a connection per scrape,
fetches /metrics and /health in turn every --scrape-every seconds and checks
each answer is 200 with the whole body (Content-Length).  Prints one JSON
object: scrapes, failures, p50/p99/max latency in ms, and the attack's own
counts.
"""
import argparse
import base64
import json
import os
import random
import shutil
import signal
import socket
import ssl
import sys
import threading
import time

ATTACKERS = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"]
stop = threading.Event()
fail_idx = set()       # indexes into the latencies of the failed scrapes
lock = threading.Lock()
counts = {}


def bump(key, n=1):
    with lock:
        counts[key] = counts.get(key, 0) + n


TLS = None


def connect(args, src, timeout=5.0):
    global TLS
    s = socket.create_connection(("127.0.0.1", args.port), timeout=timeout,
                                 source_address=(src, 0))
    if args.tls:
        if TLS is None:
            TLS = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            TLS.check_hostname = False
            TLS.verify_mode = ssl.CERT_NONE
        s = TLS.wrap_socket(s)
    return s


def read_response(s):
    """Reads one HTTP/1.1 response; returns (status, body_ok)."""
    data = b""
    while b"\r\n\r\n" not in data:
        b = s.recv(65536)
        if not b:
            return 0, False
        data += b
    head, body = data.split(b"\r\n\r\n", 1)
    lines = head.split(b"\r\n")
    status = int(lines[0].split()[1])
    length = None
    for l in lines[1:]:
        k, _, v = l.partition(b":")
        if k.strip().lower() == b"content-length":
            length = int(v.strip())
    if length is None:
        return status, False
    while len(body) < length:
        b = s.recv(65536)
        if not b:
            return status, False
        body += b
    return status, len(body) == length


def request(path, auth=None, close=True):
    h = "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n" % path
    if auth:
        h += "Authorization: Basic %s\r\n" % base64.b64encode(auth.encode()).decode()
    if close:
        h += "Connection: close\r\n"
    return (h + "\r\n").encode()


def scraper(args, lat, fails, once=False):
    i = 0
    while True:
        path = "/metrics" if i % 2 == 0 else "/health"
        i += 1
        t0 = time.monotonic()
        ok = False
        try:
            s = connect(args, args.scraper_ip)
            s.sendall(request(path, args.auth))
            status, whole = read_response(s)
            ok = status == 200 and whole
            if not ok:
                bump("scrape_%d%s" % (status, "" if whole else "_cut"))
            s.close()
        except (OSError, ValueError, IndexError) as e:
            bump("scrape_" + type(e).__name__)
        dt = time.monotonic() - t0
        with lock:
            lat.append(dt)
            if not ok:
                fails.append(path)
                fail_idx.add(len(lat) - 1)
        if once or stop.wait(args.scrape_every):
            break


def trickle(args, s, mode):
    """Sends a request line and a header line every --line-every seconds,
    never the end; raises OSError when the server answers or closes."""
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
    while not stop.is_set():
        if stop.wait(args.line_every):
            break
        s.sendall(b"X-Slow: %d\r\n" % random.randrange(10**6))
        s.settimeout(0.001)
        try:
            if s.recv(4096) == b"":
                raise OSError("closed")
            bump(mode + "_answered")
            raise OSError("answered")
        except socket.timeout:
            pass
        s.settimeout(args.line_every + 5)


def slowloris(args, idx, mode="slowloris"):
    """A half-open request; mode "second": after one whole answer."""
    src = ATTACKERS[idx % len(ATTACKERS)]
    while not stop.is_set():
        try:
            s = connect(args, src, timeout=args.line_every + 5)
            bump(mode + "_opened")
            if mode == "second":
                s.sendall(request("/metrics", close=False))
                status, whole = read_response(s)
                if status != 200 or not whole:
                    raise OSError("first answer %d" % status)
                bump("second_first_answered")
            trickle(args, s, mode)
            s.close()
        except OSError:
            bump(mode + "_closed")
            stop.wait(0.05)


def authflood(args, idx):
    src = ATTACKERS[idx % len(ATTACKERS)]
    user = (args.auth or "prometheus:x").split(":", 1)[0]
    while not stop.is_set():
        try:
            s = connect(args, src)
            while not stop.is_set():
                pw = "%x" % random.getrandbits(64)
                s.sendall(request("/metrics", "%s:%s" % (user, pw), close=False))
                status, _ = read_response(s)
                if status == 0:
                    break
                bump("authflood_%d" % status)
            s.close()
        except (OSError, ValueError, IndexError):
            bump("authflood_errors")
            stop.wait(0.01)


def slowread(args, idx):
    src = ATTACKERS[idx % len(ATTACKERS)]
    while not stop.is_set():
        s = None
        try:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
            s.bind((src, 0))
            s.settimeout(5)
            s.connect(("127.0.0.1", args.port))
            bump("slowread_opened")
            s.sendall(request("/metrics", close=False) * 20)
            while not stop.wait(args.read_every):
                b = s.recv(args.read_bytes)
                if not b:
                    raise OSError("closed")
                bump("slowread_bytes", len(b))
        except OSError:
            bump("slowread_closed")
            stop.wait(0.05)
        finally:
            if s:
                s.close()


def spray_addrs(n):
    return ["127.0.%d.%d" % (1 + i // 250, 1 + i % 250) for i in range(n)]


def authspray(args, idx, addrs):
    user = (args.auth or "prometheus:x").split(":", 1)[0]
    i = idx
    while not stop.is_set():
        src = addrs[i % len(addrs)]
        i += args.flooders
        try:
            s = connect(args, src)
            pw = "%x" % random.getrandbits(64)
            s.sendall(request("/metrics", "%s:%s" % (user, pw)))
            status, _ = read_response(s)
            bump("authspray_%d" % status)
            s.close()
        except (OSError, ValueError, IndexError):
            bump("authspray_errors")
            stop.wait(0.01)


def fresh_try(args, cred, out):
    """One scrape with credentials never checked before: (status, ms)."""
    t0 = time.monotonic()
    status = 0
    try:
        s = connect(args, args.fresh_ip, timeout=10)
        s.sendall(request("/metrics", cred))
        status, whole = read_response(s)
        if not whole:
            status = -status
        s.close()
    except (OSError, ValueError, IndexError) as e:
        bump("fresh_" + type(e).__name__)
    out.append({"user": cred.split(":", 1)[0], "status": status,
                "ms": round((time.monotonic() - t0) * 1000, 1)})


def reloader(args):
    n = 0
    while not stop.is_set():
        shutil.copyfile(args.alt[n % len(args.alt)], args.web_config)
        os.kill(args.pid, signal.SIGHUP)
        n += 1
        bump("reloads")
        stop.wait(args.reload_every)


def pct(xs, p):
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["none", "slowloris", "authflood", "reload", "second",
                                     "slowread", "authspray"])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--tls", action="store_true")
    ap.add_argument("--auth", help="USER:PASSWORD of the scraper")
    ap.add_argument("--duration", type=float, default=10)
    ap.add_argument("--warmup", type=float, default=1.0)
    ap.add_argument("--scraper-ip", default="127.0.0.6")
    ap.add_argument("--scrapers", type=int, default=1)
    ap.add_argument("--scrape-every", type=float, default=0.05)
    ap.add_argument("--conns", type=int, default=64)
    ap.add_argument("--line-every", type=float, default=5.0)
    ap.add_argument("--flooders", type=int, default=16)
    ap.add_argument("--pid", type=int)
    ap.add_argument("--web-config")
    ap.add_argument("--alt", action="append", default=[])
    ap.add_argument("--reload-every", type=float, default=0.2)
    ap.add_argument("--read-every", type=float, default=0.5)
    ap.add_argument("--read-bytes", type=int, default=512)
    ap.add_argument("--spray-addrs", type=int, default=2000)
    ap.add_argument("--fresh", action="append", default=[])
    ap.add_argument("--fresh-ip", default="127.0.0.7")
    args = ap.parse_args()

    # one scrape before the attack: a scraper that was there first (its
    # credentials verified, as Prometheus' are after its first scrape)
    prime_lat, prime_fails = [], []
    scraper(args, prime_lat, prime_fails, once=True)
    counts.clear()
    if prime_fails:
        print("the first scrape failed: is the exporter up?", file=sys.stderr)
        sys.exit(1)
    threads = []
    if args.mode == "slowloris":
        threads = [threading.Thread(target=slowloris, args=(args, i)) for i in range(args.conns)]
    elif args.mode == "authflood":
        threads = [threading.Thread(target=authflood, args=(args, i)) for i in range(args.flooders)]
    elif args.mode == "reload":
        if not (args.pid and args.web_config and args.alt):
            ap.error("reload needs --pid, --web-config and --alt")
        threads = [threading.Thread(target=reloader, args=(args,))]
    elif args.mode == "second":
        threads = [threading.Thread(target=slowloris, args=(args, i, "second"))
                   for i in range(args.conns)]
    elif args.mode == "slowread":
        threads = [threading.Thread(target=slowread, args=(args, i)) for i in range(args.conns)]
    elif args.mode == "authspray":
        addrs = spray_addrs(args.spray_addrs)
        threads = [threading.Thread(target=authspray, args=(args, i, addrs))
                   for i in range(args.flooders)]
    for t in threads:
        t.daemon = True
        t.start()
    time.sleep(args.warmup if args.mode != "none" else 0)
    lat, fails = [], []
    sc = [threading.Thread(target=scraper, args=(args, lat, fails)) for _ in range(args.scrapers)]
    for t in sc:
        t.daemon = True
        t.start()
    fresh, reload_at = [], None
    if args.mode == "authspray":
        # the fresh credentials in the first half, the SIGHUP at half time
        t0 = time.monotonic()
        half = args.duration / 2
        for k, cred in enumerate(args.fresh):
            time.sleep(max(0, t0 + half * (k + 0.5) / len(args.fresh) - time.monotonic()))
            fresh_try(args, cred, fresh)
        time.sleep(max(0, t0 + half - time.monotonic()))
        if args.pid:
            os.kill(args.pid, signal.SIGHUP)
            with lock:
                reload_at = len(lat)
        time.sleep(max(0, t0 + args.duration - time.monotonic()))
    else:
        time.sleep(args.duration)
    stop.set()
    for t in sc:
        t.join(10)
    ms = [x * 1000 for x in lat]
    out = {
        "mode": args.mode,
        "scrapes": len(ms),
        "failed": len(fails),
        "p50_ms": round(pct(ms, 50), 2) if ms else None,
        "p99_ms": round(pct(ms, 99), 2) if ms else None,
        "max_ms": round(max(ms), 2) if ms else None,
        "attack": counts,
    }
    if args.mode == "authspray":
        out["fresh"] = fresh
        out["fresh_ok"] = sum(1 for f in fresh if f["status"] == 200)
        if reload_at is not None:
            out["after_reload_scrapes"] = len(lat) - reload_at
            out["after_reload_failed"] = sum(1 for i in range(reload_at, len(lat))
                                             if i in fail_idx)
    print(json.dumps(out, sort_keys=True))
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
