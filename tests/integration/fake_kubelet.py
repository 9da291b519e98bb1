#!/usr/bin/env python3
"""A stand-in for the kubelet's pod-resources API (v1 List) on a unix socket.

    fake_kubelet.py SOCKET ASSIGNMENTS_FILE

ASSIGNMENTS_FILE holds one assignment a line, re-read on every call:
    namespace pod container resource device-id
A line "slow SECONDS" makes every call wait that long first; "error" makes
it fail with UNAVAILABLE.  The answer is encoded by hand in protobuf's wire
format (k8s.io/kubelet pkg/apis/podresources/v1/api.proto), so no generated
code is needed: Debian's python3-grpcio is enough.
"""
import sys
import time
from concurrent import futures

import grpc


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(num, payload):
    return varint((num << 3) | 2) + varint(len(payload)) + payload


def text(num, s):
    return field(num, s.encode())


def answer(path):
    pods = {}
    slow, error = 0.0, False
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w or w[0].startswith("#"):
                continue
            if w[0] == "slow":
                slow = float(w[1])
                continue
            if w[0] == "error":
                error = True
                continue
            ns, pod, ctr, res, dev = w
            pods.setdefault((ns, pod), {}).setdefault(ctr, {}).setdefault(res, []).append(dev)
    msg = b""
    for (ns, pod), ctrs in pods.items():
        body = text(1, pod) + text(2, ns)
        for ctr, devs in ctrs.items():
            c = text(1, ctr)
            # as the kubelet sends them: one ContainerDevices a resource, all its ids in it
            for res, ids in devs.items():
                c += field(2, text(1, res) + b"".join(text(2, dev) for dev in ids))
            # a field gpuscope does not read (cpu_ids, packed): must be skipped
            c += field(3, varint(4) + varint(5))
            body += field(3, c)
        msg += field(1, body)
    return msg, slow, error


def main():
    sock, path = sys.argv[1], sys.argv[2]

    def list_pods(request, context):
        msg, slow, error = answer(path)
        if slow:
            time.sleep(slow)
        if error:
            context.abort(grpc.StatusCode.UNAVAILABLE, "kubelet is restarting")
        return msg

    class Handler(grpc.GenericRpcHandler):
        def service(self, details):
            if details.method == "/v1.PodResourcesLister/List":
                return grpc.unary_unary_rpc_method_handler(list_pods)
            return None

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers((Handler(),))
    server.add_insecure_port("unix:" + sock)
    server.start()
    print("listening", flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    main()
