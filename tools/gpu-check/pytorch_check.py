#!/usr/bin/env python3
"""Check gpuscope's estimate against real PyTorch on this machine's GPU.

Builds models from their configurations alone (random weights, nothing
downloaded, no transformers/torchvision needed): a Llama-style decoder of
about 1.1 B parameters (TinyLlama's shape), BERT-Large and ResNet-50.  For
each it runs real bf16 training steps and a few inference steps, measures
peak memory (torch.cuda.max_memory_allocated) and the median step time, and
prints them beside what `gpuscope estimate --json` predicts for the same
configuration.

  tools/gpu-check/pytorch_check.py [--gpuscope PATH] [--gpu NAME] [--steps N]
                                   [--quick] [--json] [--cases FILE.csv]

--cases writes the measurements in the validation-case format, so that
`gpuscope validate FILE.csv` can score the model against this machine.

Exit status: 0 when the checks ran, 1 when a prediction missed by more than
--tolerance, 3 when there is no CUDA GPU, no PyTorch or no gpuscope binary.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

EXIT_OK, EXIT_FINDINGS, EXIT_ENV = 0, 1, 3

# TinyLlama-1.1B's published shape (config.json of TinyLlama/TinyLlama-1.1B-intermediate):
# 22 layers, 2048 wide, 32 heads with 4 KV heads, SwiGLU 5632, vocabulary 32000.
LLAMA_1B = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_act": "silu",
    "hidden_size": 2048,
    "intermediate_size": 5632,
    "num_hidden_layers": 22,
    "num_attention_heads": 32,
    "num_key_value_heads": 4,
    "vocab_size": 32000,
    "max_position_embeddings": 2048,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}

# BERT-Large (Devlin et al. 2019), as gpuscope's bert-large preset.
BERT_LARGE = {"layers": 24, "hidden": 1024, "heads": 16, "ffn": 4096, "vocab": 30522,
              "max_pos": 512, "dropout": 0.1}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Models, in plain PyTorch.  Imported lazily so the file compiles without torch.

def build_models(torch):
    nn = torch.nn
    F = torch.nn.functional

    class RMSNorm(nn.Module):
        def __init__(self, dim, eps=1e-5):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(dim))
            self.eps = eps

        def forward(self, x):
            var = x.float().pow(2).mean(-1, keepdim=True)
            return (x.float() * torch.rsqrt(var + self.eps)).to(x.dtype) * self.weight

    def rotary(x, cos, sin):
        x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
        return x * cos + torch.cat((-x2, x1), dim=-1) * sin

    class LlamaBlock(nn.Module):
        def __init__(self, c):
            super().__init__()
            h, a, kv = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"]
            self.a, self.kv, self.d = a, kv, h // a
            self.q = nn.Linear(h, a * self.d, bias=False)
            self.k = nn.Linear(h, kv * self.d, bias=False)
            self.v = nn.Linear(h, kv * self.d, bias=False)
            self.o = nn.Linear(a * self.d, h, bias=False)
            f = c["intermediate_size"]
            self.gate = nn.Linear(h, f, bias=False)
            self.up = nn.Linear(h, f, bias=False)
            self.down = nn.Linear(f, h, bias=False)
            self.n1, self.n2 = RMSNorm(h), RMSNorm(h)

        def forward(self, x, cos, sin, cache=None):
            b, s, _ = x.shape
            y = self.n1(x)
            q = self.q(y).view(b, s, self.a, self.d).transpose(1, 2)
            k = self.k(y).view(b, s, self.kv, self.d).transpose(1, 2)
            v = self.v(y).view(b, s, self.kv, self.d).transpose(1, 2)
            q, k = rotary(q, cos, sin), rotary(k, cos, sin)
            if cache is not None:
                if cache.get("k") is not None:
                    k = torch.cat((cache["k"], k), dim=2)
                    v = torch.cat((cache["v"], v), dim=2)
                cache["k"], cache["v"] = k, v
            rep = self.a // self.kv
            k2 = k.repeat_interleave(rep, dim=1)
            v2 = v.repeat_interleave(rep, dim=1)
            causal = cache is None or s > 1
            o = F.scaled_dot_product_attention(q, k2, v2, is_causal=causal)
            x = x + self.o(o.transpose(1, 2).reshape(b, s, -1))
            y = self.n2(x)
            return x + self.down(F.silu(self.gate(y)) * self.up(y))

    class Llama(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.c = c
            self.embed = nn.Embedding(c["vocab_size"], c["hidden_size"])
            self.blocks = nn.ModuleList(LlamaBlock(c) for _ in range(c["num_hidden_layers"]))
            self.norm = RMSNorm(c["hidden_size"])
            self.head = nn.Linear(c["hidden_size"], c["vocab_size"], bias=False)

        def rope(self, start, s, device, dtype):
            d = self.c["hidden_size"] // self.c["num_attention_heads"]
            inv = 1.0 / (10000 ** (torch.arange(0, d, 2, device=device).float() / d))
            t = torch.arange(start, start + s, device=device).float()
            f = torch.outer(t, inv)
            e = torch.cat((f, f), dim=-1)
            return e.cos().to(dtype), e.sin().to(dtype)

        def forward(self, ids, caches=None, start=0):
            x = self.embed(ids)
            dtype = torch.bfloat16 if torch.is_autocast_enabled() else x.dtype
            cos, sin = self.rope(start, ids.shape[1], ids.device, dtype)
            for i, blk in enumerate(self.blocks):
                x = blk(x, cos, sin, None if caches is None else caches[i])
            return self.head(self.norm(x))

    class BertLayer(nn.Module):
        def __init__(self, c):
            super().__init__()
            h = c["hidden"]
            self.a, self.d = c["heads"], h // c["heads"]
            self.qkv = nn.Linear(h, 3 * h)
            self.o = nn.Linear(h, h)
            self.n1, self.n2 = nn.LayerNorm(h), nn.LayerNorm(h)
            self.fc1, self.fc2 = nn.Linear(h, c["ffn"]), nn.Linear(c["ffn"], h)
            self.p = c["dropout"]

        def forward(self, x):
            b, s, h = x.shape
            q, k, v = self.qkv(x).view(b, s, 3, self.a, self.d).permute(2, 0, 3, 1, 4)
            o = F.scaled_dot_product_attention(q, k, v, dropout_p=self.p if self.training else 0.0)
            x = self.n1(x + F.dropout(self.o(o.transpose(1, 2).reshape(b, s, h)), self.p, self.training))
            return self.n2(x + F.dropout(self.fc2(F.gelu(self.fc1(x))), self.p, self.training))

    class Bert(nn.Module):
        def __init__(self, c):
            super().__init__()
            h = c["hidden"]
            self.tok = nn.Embedding(c["vocab"], h)
            self.pos = nn.Embedding(c["max_pos"], h)
            self.typ = nn.Embedding(2, h)
            self.norm = nn.LayerNorm(h)
            self.layers = nn.ModuleList(BertLayer(c) for _ in range(c["layers"]))
            self.transform = nn.Linear(h, h)
            self.tnorm = nn.LayerNorm(h)
            self.bias = nn.Parameter(torch.zeros(c["vocab"]))
            self.pooler = nn.Linear(h, h)
            self.p = c["dropout"]

        def forward(self, ids):
            pos = torch.arange(ids.shape[1], device=ids.device)
            x = self.norm(self.tok(ids) + self.pos(pos)[None] + self.typ.weight[0])
            x = F.dropout(x, self.p, self.training)
            for layer in self.layers:
                x = layer(x)
            self.pooler(x[:, 0]).tanh()
            y = self.tnorm(F.gelu(self.transform(x)))
            # MLM head on every position, tied to the token embedding
            return F.linear(y, self.tok.weight, self.bias)

    class Bottleneck(nn.Module):
        def __init__(self, cin, mid, stride):
            super().__init__()
            cout = mid * 4
            self.c1 = nn.Conv2d(cin, mid, 1, bias=False)
            self.b1 = nn.BatchNorm2d(mid)
            self.c2 = nn.Conv2d(mid, mid, 3, stride, 1, bias=False)
            self.b2 = nn.BatchNorm2d(mid)
            self.c3 = nn.Conv2d(mid, cout, 1, bias=False)
            self.b3 = nn.BatchNorm2d(cout)
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            y = F.relu(self.b1(self.c1(x)))
            y = F.relu(self.b2(self.c2(y)))
            y = self.b3(self.c3(y))
            return F.relu(y + (x if self.down is None else self.down(x)))

    class ResNet50(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                      nn.MaxPool2d(3, 2, 1))
            blocks, cin = [], 64
            for mid, n, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
                for i in range(n):
                    blocks.append(Bottleneck(cin, mid, stride if i == 0 else 1))
                    cin = mid * 4
            self.blocks = nn.Sequential(*blocks)
            self.fc = nn.Linear(2048, 1000)

        def forward(self, x):
            return self.fc(self.blocks(self.stem(x)).mean((2, 3)))

    return Llama, Bert, ResNet50


# ---------------------------------------------------------------------------

def gpuscope_estimate(binary, args):
    cmd = [binary, "estimate", "--json"] + args
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, "%s: %s" % (" ".join(cmd), e)
    if out.returncode != 0:
        return None, out.stderr.strip() or "exit %d" % out.returncode
    try:
        return json.loads(out.stdout), None
    except ValueError as e:
        return None, "bad JSON from gpuscope: %s" % e


def timed_steps(torch, step, n, warmup):
    """Runs step() warmup + n times; returns the median seconds of the last n."""
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


class Report:
    def __init__(self):
        self.rows = []

    def add(self, workload, metric, measured, predicted, note="", case=None):
        err = None
        if measured is not None and predicted is not None and measured:
            err = (predicted - measured) / measured
        self.rows.append({"workload": workload, "metric": metric, "measured": measured,
                          "predicted": predicted, "error": err, "note": note, "case": case})

    def print_table(self):
        print("%-22s %-20s %12s %12s %8s  %s" % ("workload", "metric", "measured", "predicted", "error", "note"))
        print("-" * 80)
        for r in self.rows:
            def f(v):
                return "-" if v is None else "%.4g" % v
            e = "-" if r["error"] is None else "%+.1f%%" % (100 * r["error"])
            print("%-22s %-20s %12s %12s %8s  %s" % (r["workload"][:22], r["metric"][:20], f(r["measured"]),
                                                   f(r["predicted"]), e, r["note"][:30]))


def gib(b):
    return None if b is None else b / 2.0 ** 30


def oom_types(torch):
    t = [RuntimeError]
    if hasattr(torch.cuda, "OutOfMemoryError"):
        t.insert(0, torch.cuda.OutOfMemoryError)
    return tuple(t)


def check_training(torch, name, model_fn, batch_fn, loss_fn, est_args, report, opts, case):
    """One training configuration: measure memory and step time, compare."""
    dev = torch.device("cuda")
    est, why = gpuscope_estimate(opts.gpuscope, est_args)
    pred_mem = pred_step = None
    fits = None
    if est:
        # max_memory_allocated excludes the CUDA context and allocator reserve
        pred_mem = est["memory"]["allocated_bytes"]
        pred_step = est["time"]["step_s"]
        fits = est["memory"]["fits"]
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    model = opt = None
    try:
        model = model_fn().to(dev)
        model.train()
        try:
            opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
        except (TypeError, RuntimeError):
            opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
        inputs = batch_fn(dev)

        def step():
            opt.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                out = model(inputs[0])
            loss = loss_fn(out, inputs[1])
            loss.backward()
            opt.step()

        step_s = timed_steps(torch, step, opts.steps, 2)
        peak = torch.cuda.max_memory_allocated()
        note = "" if est else "estimate: " + (why or "")[:60]
        report.add(name, "memory_gib_per_gpu", gib(peak), gib(pred_mem), note,
                   dict(case, metric="memory_gib_per_gpu", value=gib(peak), unit="GiB"))
        report.add(name, "step_time_s", step_s, pred_step, "",
                   dict(case, metric="step_time_s", value=step_s, unit="s"))
        if est and case.get("tokens"):
            tps = case["tokens"] / step_s
            report.add(name, "tokens_per_s", tps, est["throughput"]["tokens_per_s"], "",
                       dict(case, metric="tokens_per_s", value=tps, unit="tokens/s"))
    except oom_types(torch) as e:
        if "out of memory" not in str(e).lower():
            raise
        report.add(name, "memory_gib_per_gpu", None, gib(pred_mem),
                   "OOM; estimate says %s" % ("fits" if fits else "does not fit"))
    finally:
        del model, opt
        torch.cuda.empty_cache()


def check_llm_inference(torch, Llama, cfg, cfg_path, batch, prompt, output, report, opts, gpu_args):
    dev = torch.device("cuda")
    name = "llama-1.1b infer b%d" % batch
    est, why = gpuscope_estimate(opts.gpuscope, ["--model", cfg_path, "--task", "infer", "--batch", str(batch),
                                                 "--prompt-len", str(prompt), "--output-len", str(output),
                                                 "--precision", "bf16"] + gpu_args)
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    model = Llama(cfg).to(dev, dtype=torch.bfloat16).eval()
    ids = torch.randint(0, cfg["vocab_size"], (batch, prompt), device=dev)
    ttfts, tpots = [], []
    with torch.inference_mode():
        for rep in range(opts.steps + 1):
            caches = [dict() for _ in model.blocks]
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            logits = model(ids, caches, 0)
            nxt = logits[:, -1].argmax(-1, keepdim=True)
            torch.cuda.synchronize()
            t1 = time.perf_counter()
            for i in range(output - 1):
                logits = model(nxt, caches, prompt + i)
                nxt = logits[:, -1].argmax(-1, keepdim=True)
            torch.cuda.synchronize()
            t2 = time.perf_counter()
            if rep:  # the first round warms up
                ttfts.append(t1 - t0)
                tpots.append((t2 - t1) / max(1, output - 1))
    peak = torch.cuda.max_memory_allocated()
    case = {"model": "llama2-7b", "task": "infer", "infer_batch": batch, "prompt_len": prompt,
            "output_len": output}
    case.update(LLM_DIMS)
    case.update(opts.case_hw)
    pm = est["memory"]["allocated_bytes"] if est else None
    report.add(name, "memory_gib_per_gpu", gib(peak), gib(pm), "" if est else (why or "")[:60])
    report.add(name, "first_token_ms", 1e3 * statistics.median(ttfts),
               1e3 * est["inference"]["first_token_s"] if est else None, "",
               dict(case, metric="first_token_ms", value=1e3 * statistics.median(ttfts), unit="ms"))
    report.add(name, "token_latency_ms", 1e3 * statistics.median(tpots),
               1e3 * est["inference"]["token_s"] if est else None, "eager PyTorch (no CUDA Graphs)",
               dict(case, metric="token_latency_ms", value=1e3 * statistics.median(tpots), unit="ms"))
    del model
    torch.cuda.empty_cache()


# the 1.1 B decoder as a validation case: the llama2-7b preset (SwiGLU, RoPE, untied) with these dimensions
LLM_DIMS = {"layers": 22, "hidden": 2048, "heads": 32, "kv_heads": 4, "ffn_hidden": 5632, "vocab": 32000}

CASE_COLUMNS = ["id", "source", "model", "layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab", "seq_len",
                "task", "global_batch", "micro_batch", "precision", "tp", "pp", "dp", "zero", "recompute", "gpu",
                "gpus", "gpus_per_node", "infer_batch", "prompt_len", "output_len", "metric", "value", "unit",
                "notes"]


def write_cases(path, report, gpu_name):
    import csv
    n = 0
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CASE_COLUMNS, extrasaction="ignore")
        w.writeheader()
        for r in report.rows:
            c = r.get("case")
            if not c or c.get("value") is None:
                continue
            n += 1
            row = dict(c)
            row["id"] = "PT-%03d" % n
            row["source"] = "tools/gpu-check/pytorch_check.py on %s" % gpu_name
            row["value"] = "%.6g" % c["value"]
            row["notes"] = "measured with torch.cuda.max_memory_allocated and a median of timed steps"
            w.writerow(row)
    log("wrote %d cases to %s" % (n, path))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpuscope", default=None, help="gpuscope binary (default: on PATH or ./build*/gpuscope)")
    ap.add_argument("--gpu", default=None, help="catalog name of the GPU (default: the CUDA device name)")
    ap.add_argument("--steps", type=int, default=5, help="timed steps per configuration (median)")
    ap.add_argument("--quick", action="store_true", help="smaller batches, fewer configurations")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    ap.add_argument("--cases", default=None, help="also write the measurements as validation cases (CSV)")
    ap.add_argument("--tolerance", type=float, default=0.0,
                    help="exit 1 when a prediction misses by more than this fraction (0: never)")
    opts = ap.parse_args()
    if opts.steps < 1:
        ap.error("--steps must be at least 1")

    if not opts.gpuscope:
        here = os.path.dirname(os.path.abspath(__file__))
        root = os.path.dirname(os.path.dirname(here))
        cands = [shutil.which("gpuscope")] + sorted(
            os.path.join(root, d, "gpuscope") for d in os.listdir(root) if d.startswith("build"))
        opts.gpuscope = next((c for c in cands if c and os.access(c, os.X_OK)), None)
    if not opts.gpuscope or not os.access(opts.gpuscope, os.X_OK):
        log("pytorch_check: no gpuscope binary found; build it or pass --gpuscope PATH")
        return EXIT_ENV
    try:
        import torch
    except ImportError:
        log("pytorch_check: PyTorch is not installed (pip install torch)")
        return EXIT_ENV
    if not torch.cuda.is_available():
        log("pytorch_check: no CUDA GPU visible to PyTorch %s" % torch.__version__)
        return EXIT_ENV
    if not torch.cuda.is_bf16_supported():
        log("pytorch_check: this GPU has no bf16 support; the checks train in bf16")
        return EXIT_ENV

    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    torch.backends.cudnn.benchmark = True
    dev_name = torch.cuda.get_device_name(0)
    gpu = opts.gpu or dev_name
    gpu_args = ["--gpu", gpu, "--gpus", "1"]
    probe, why = gpuscope_estimate(opts.gpuscope, ["--model", "resnet50"] + gpu_args)
    if not probe:
        log("pytorch_check: gpuscope does not know GPU '%s' (%s); pass --gpu NAME" % (gpu, why))
        return EXIT_ENV
    catalog_gpu = probe["config"]["gpu"]
    opts.case_hw = {"gpu": catalog_gpu, "gpus": 1, "gpus_per_node": 1, "tp": 1, "pp": 1, "dp": 1,
                    "precision": "bf16"}
    log("pytorch_check: %s (catalog: %s), PyTorch %s, CUDA %s" % (dev_name, catalog_gpu, torch.__version__,
                                                                 torch.version.cuda))
    Llama, Bert, ResNet50 = build_models(torch)
    report = Report()
    F = torch.nn.functional
    tmp = tempfile.mkdtemp(prefix="gpuscope-check-")
    cfg_path = os.path.join(tmp, "config.json")
    with open(cfg_path, "w") as f:
        json.dump(LLAMA_1B, f)

    try:
        # 1. Llama-style decoder, ~1.1 B parameters, bf16 autocast + AdamW
        for mb, seq in ((1, 2048), (4, 2048)) if not opts.quick else ((1, 1024),):
            case = {"model": "llama2-7b", "task": "pretrain", "seq_len": seq, "global_batch": mb,
                    "micro_batch": mb, "recompute": "none", "zero": 0, "tokens": mb * seq}
            case.update(LLM_DIMS)
            case.update(opts.case_hw)
            check_training(
                torch, "llama-1.1b mb%d s%d" % (mb, seq), lambda: Llama(LLAMA_1B),
                lambda d, mb=mb, seq=seq: (torch.randint(0, 32000, (mb, seq), device=d),
                                           torch.randint(0, 32000, (mb, seq), device=d)),
                lambda out, y: F.cross_entropy(out.float().view(-1, out.shape[-1]), y.view(-1)),
                ["--model", cfg_path, "--task", "pretrain", "--micro-batch", str(mb), "--global-batch", str(mb),
                 "--seq-len", str(seq), "--precision", "bf16"] + gpu_args, report, opts, case)

        # 2. BERT-Large, MLM on every position, sequence 512
        mb = 8 if opts.quick else 16
        case = {"model": "bert-large", "task": "pretrain", "seq_len": 512, "global_batch": mb, "micro_batch": mb,
                "recompute": "none", "zero": 0, "tokens": mb * 512}
        case.update(opts.case_hw)
        check_training(
            torch, "bert-large mb%d s512" % mb, lambda: Bert(BERT_LARGE),
            lambda d: (torch.randint(0, 30522, (mb, 512), device=d), torch.randint(0, 30522, (mb, 512), device=d)),
            lambda out, y: F.cross_entropy(out.float().view(-1, out.shape[-1]), y.view(-1)),
            ["--model", "bert-large", "--micro-batch", str(mb), "--global-batch", str(mb), "--seq-len", "512",
             "--precision", "bf16"] + gpu_args, report, opts, case)

        # 3. ResNet-50, 224x224, synthetic images (no data loading)
        mb = 64 if opts.quick else 256
        case = {"model": "resnet50", "task": "pretrain", "global_batch": mb, "micro_batch": mb, "zero": 0}
        case.update(opts.case_hw)
        check_training(
            torch, "resnet50 mb%d" % mb, lambda: ResNet50().to(memory_format=torch.channels_last),
            lambda d: (torch.randn(mb, 3, 224, 224, device=d).to(memory_format=torch.channels_last),
                       torch.randint(0, 1000, (mb,), device=d)),
            lambda out, y: F.cross_entropy(out.float(), y),
            ["--model", "resnet50", "--micro-batch", str(mb), "--global-batch", str(mb),
             "--precision", "bf16"] + gpu_args, report, opts, case)
        # ResNet-50 throughput, the metric of the calibration cases
        last = [r for r in report.rows if r["workload"] == "resnet50 mb%d" % mb and r["metric"] == "step_time_s"]
        if last and last[0]["measured"]:
            r = last[0]
            report.add(r["workload"], "samples_per_s", mb / r["measured"],
                       mb / r["predicted"] if r["predicted"] else None, "",
                       dict(case, metric="samples_per_s", value=mb / r["measured"], unit="samples/s"))

        # 4. inference: prefill + eager decode with a KV cache
        for b in (1, 8) if not opts.quick else (1,):
            check_llm_inference(torch, Llama, LLAMA_1B, cfg_path, b, 512 if opts.quick else 1024,
                                16 if opts.quick else 64, report, opts, gpu_args)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    if opts.json:
        print(json.dumps({"gpu": dev_name, "catalog_gpu": catalog_gpu, "torch": torch.__version__,
                          "rows": [{k: v for k, v in r.items() if k != "case"} for r in report.rows]}, indent=2))
    else:
        report.print_table()
    if opts.cases:
        write_cases(opts.cases, report, dev_name)
    if opts.tolerance > 0:
        bad = [r for r in report.rows if r["error"] is not None and abs(r["error"]) > opts.tolerance]
        if bad:
            log("pytorch_check: %d predictions off by more than %.0f%%" % (len(bad), 100 * opts.tolerance))
            return EXIT_FINDINGS
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
