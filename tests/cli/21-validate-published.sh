#!/bin/bash
# validate: the published cases beyond the calibration set stay covered and
# close, class by class, fit and holdout apart; no case off by 3x or more.
. "$TESTS/cli/lib.sh"

expect_rc 0 validate "$SRCDIR/data/cases/published.csv" --json
expect_json
printf '%s' "$OUT" | CASES="$SRCDIR/data/cases/published.csv" python3 -c '
import csv, json, os, statistics, sys
d = json.load(sys.stdin)
s = d["summary"]
assert s["coverage"] == 1.0, s["coverage"]
assert s["cases"] >= 146, s["cases"]
rows = {r["id"]: r for r in csv.DictReader(open(os.environ["CASES"]))}
# every case counts: the nnU-Net 3D U-Net rows with XLA (P11-) and the TransformerEngine FP8
# threads (P12- MI300X, P13- H100/H200) too
# the weight-only quantised decoding rows (class quant-decode) are judged in cli/97-quant-kernel
cs = [c for c in d["cases"] if rows[c["id"]]["class"] != "quant-decode"]
assert sum(c["id"].startswith(("P11-", "P12-", "P13-")) for c in cs) == 48
def med(sel):
    e = [abs(c["error"]) for c in sel]
    return statistics.median(e) if e else None
assert med(cs) < 0.10, med(cs)
thr = [c for c in cs if rows[c["id"]]["metric"] in ("tokens_per_s", "samples_per_s", "mfu_tflops_per_gpu")]
# 0.104 since the 20 BERT fine-tuning rows of P38, held aside whole, came in at 19.4 %
assert len(thr) >= 110 and med(thr) < 0.11, (len(thr), med(thr))
for c in d["cases"]:
    r = c["predicted"] / c["measured"]
    # held aside whole: the conda build of PyTorch 1.7.1 on an A100, 1.63 s a step where its own build of
    # the same release took 0.37; the legacy share prices it at 0.30 (docs/validation.md)
    if c["id"] == "P20-002":
        assert 0.1 < r < 0.3, r
        continue
    assert 1 / 3 < r < 3, (c["id"], r)
def where(k, st):
    return [c for c in cs if rows[c["id"]]["class"] == k and rows[c["id"]]["set"] == st]
for k in ("serving", "eager", "memory-bound", "non-nvidia-train"):
    assert where(k, "fit") and where(k, "holdout"), k
    assert med(where(k, "fit")) < 0.20, (k, med(where(k, "fit")))
for k in ("serving", "eager", "memory-bound", "non-nvidia-train", "train"):
    assert med(where(k, "holdout")) < 0.20, (k, med(where(k, "holdout")))
# 3D U-Net: channels-last convolutions (P11-, XLA) against channels-first (P8-)
mb = where("memory-bound", "holdout")
assert len(mb) >= 12 and any(c["id"].startswith("P11-") for c in mb), len(mb)
# eager ResNet-50 at batch 1 is bound by its module calls on the host, whatever the GPU
e5 = [c for c in d["cases"] if c["id"].startswith("E5-")]
assert len(e5) >= 20, len(e5)
for c in e5:
    assert abs(c["predicted"] / c["measured"] - 1) < 0.5, (c["id"], c["predicted"], c["measured"])
assert med([c for c in cs if rows[c["id"]]["set"] == "holdout"]) < 0.20
# non-NVIDIA training: Gaudi 2 Megatron-DeepSpeed runs of several releases, judged on the held-aside rows
nv = [c for c in cs if rows[c["id"]]["class"] == "non-nvidia-train"]
assert len(nv) >= 18, len(nv)
assert len(where("non-nvidia-train", "holdout")) >= 5
assert med(where("non-nvidia-train", "holdout")) < 0.20, med(where("non-nvidia-train", "holdout"))
# the summary counts every class by set, the late rows too
cl = s["classes"]
assert cl["memory-bound"]["fit"]["cases"] + cl["memory-bound"]["holdout"]["cases"] == 62, cl["memory-bound"]
assert cl["non-nvidia-train"]["fit"]["cases"] + cl["non-nvidia-train"]["holdout"]["cases"] == 26, cl["non-nvidia-train"]
assert cl["train"]["fit"]["cases"] + cl["train"]["holdout"]["cases"] == 20, cl["train"]
# sources held aside whole: BERT pre-training runs (P17-, P39-) and the TransformerEngine
# tutorial step times (P18-), no constant fitted to them
for p in ("P17-", "P18-", "P38-", "P39-"):
    assert all(rows[i]["set"] == "holdout" for i in rows if i.startswith(p)), p
assert cl["encoder-train"]["holdout"]["cases"] == 23, cl["encoder-train"]
# the Hugging Face BertForMaskedLM rows run the head over every position (mlm_head all)
assert all(rows[i].get("mlm_head") == "all" for i in rows if i.startswith(("P17-", "P39-"))), "mlm_head"
# BERT fine-tuning on ten GPUs (P38, held aside whole): eager code, unfused attention with its
# scale and mask apart; the consumer Ampere and Ada parts predicted slow, the rest fast
p38 = [c for c in cs if c["id"].startswith("P38-")]
assert len(p38) == 20 and med(p38) < 0.20, (len(p38), med(p38))
assert all(0.8 < c["predicted"] / c["measured"] < 1.65 for c in p38), [(c["id"], c["error"]) for c in p38]
p18 = [c for c in cs if c["id"].startswith("P18-")]
assert len(p18) == 6 and med(p18) < 0.20, p18
# runs on 1,000 GPUs and more: the fit rows (Megatron-LM README P16-006..009, which fixed the TP
# overlap, and Nemotron-4 340B P21, which with them fixed the straggler spread at 0) within 10 %;
# the held-aside sources apart: Nemotron-4 15B (P22, 768-2,304 H100) within 20 %, InternEvo
# ZeRO-1 over every rank (P23, to 1,024 A100) still predicted fast, more so the more ranks
at = [c for c in cs if rows[c["id"]]["class"] == "at-scale" and int(rows[c["id"]]["gpus"]) >= 1000]
assert len(at) == 11, len(at)
fit = [c for c in at if rows[c["id"]]["set"] == "fit"]
assert len(fit) == 7 and all(abs(c["error"]) < 0.10 for c in fit), [(c["id"], c["error"]) for c in fit]
by = {c["id"]: c for c in cs}
n15 = [by["P22-%03d" % i] for i in (1, 2, 3)]
assert all(abs(c["error"]) < 0.20 for c in n15), [(c["id"], c["error"]) for c in n15]
ie = [by["P23-%03d" % i]["error"] for i in range(1, 9)]
assert ie[-1] > 0.5 and ie[-1] > ie[3] > 0, ie
# FSDP2 with torch.compile and torchao float8 (P30 fit, P31 held aside as a whole source):
# the compiled rows within 8 %, the held-aside ones within 7 % at the median (18 % as
# Transformer Engine casts with the output layer in fp8)
fc = [c for c in cs if rows[c["id"]]["class"] == "fsdp2-compile" and rows[c["id"]]["engine"] == "compile"]
assert len(fc) == 9 and all(abs(c["error"]) < 0.08 for c in fc), [(c["id"], c["error"]) for c in fc]
assert len(where("fsdp2-compile", "holdout")) == 4 and med(where("fsdp2-compile", "holdout")) < 0.07
' || fail "published cases drifted"

# the human summary reports classes by set
expect_rc 0 validate "$SRCDIR/data/cases/published.csv"
expect_out "serving (holdout)"
expect_out "all holdout"

# a column value the model cannot express is a skip reason, not ignored
printf 'id,model,task,gpu,precision,engine,metric,value\nX1,llama2-7b,pretrain,a100-sxm4-80gb,bf16,tensorrt,tokens_per_s,1000\nX2,llama2-7b,infer,a100-sxm4-80gb,bf16,warp,tokens_per_s,1000\n' >"$TMP/bad.csv"
expect_rc 0 validate "$TMP/bad.csv" --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
r = {c["id"]: c.get("reason", "") for c in d["cases"]}
assert "inference only" in r["X1"], r
assert "unknown engine" in r["X2"], r
' || fail "bad engine columns not reported"
finish
