#!/bin/bash
# Lifecycle: plan leaves out parts past their end of sale and GPUs whose
# architecture current CUDA and PyTorch dropped, and says so; --include-eol
# searches them again, marked; estimate warns and still answers; catalog
# marks them.
. "$TESTS/cli/lib.sh"

# the default search: no V100, B100 or A40 anywhere in what it lists, and the header names them with why
expect_rc 0 plan --no-explain --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
listed = d["ranked"] + d["front"]
assert listed, "nothing ranked"
for c in listed:
    assert not c["gpu"].startswith(("v100", "b100", "a40")), c["hardware"]
    assert c["lifecycle"] is None, (c["hardware"], c["lifecycle"])
assert d["request"]["include_eol"] is False
lo = d["search"]["left_out"]
for want in ("past their end of sale (--include-eol keeps them): ", "b100-sxm-192gb (2024-08)",
             "a40-48gb (2022-10)", "dgx-a100-320gb, dgx-a100-640gb (2023-03)",
             "dropped by current CUDA or PyTorch releases (--include-eol keeps them): ",
             "v100-sxm2-16gb", "v100s-pcie-32gb, p3.2xlarge", "dgx-1",
             "gpu-8x-v100 (volta: the last CUDA 12, PyTorch 2.14)"):
    assert want in lo, (want, lo)
# a rented instance is not bought: its end of sale keeps none out, only its GPU dropped by CUDA/PyTorch
eos = lo.split("past their end of sale (--include-eol keeps them): ")[1].split(";")[0]
assert eos == "dgx-a100-320gb, dgx-a100-640gb (2023-03), a40-48gb (2022-10), a100-pcie-40gb (2021-06), " \
    "b100-sxm-192gb (2024-08)", eos
assert not any(c["lifecycle"] for c in listed)
' || fail "the default plan lists a part past its end of sale or dropped by CUDA/PyTorch"

# the same GPUs asked for by name: left out too, and --include-eol brings each back, marked
G=v100-sxm2-32gb,b100-sxm-192gb,a40-48gb,h100-sxm5-80gb
expect_rc 0 plan --buy onprem --gpu $G --max-gpus 8 --top 20 --no-explain --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
gpus = {c["gpu"] for c in d["ranked"]}
assert gpus == {"h100-sxm5-80gb"}, gpus
' || fail "plan --gpu ranks a part left out by its lifecycle"
expect_rc 0 plan --buy onprem --gpu $G --max-gpus 8 --top 20 --include-eol --no-explain --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
life = {c["gpu"]: c["lifecycle"] for c in d["ranked"]}
assert life == {"b100-sxm-192gb": "eos", "a40-48gb": "eos", "v100-sxm2-32gb": "sw", "h100-sxm5-80gb": None}, life
for c in d["ranked"]:
    assert c["label"].endswith(" (%s)" % c["lifecycle"]) if c["lifecycle"] else "(" not in c["label"], c["label"]
assert d["search"]["left_out"] is None, d["search"]["left_out"]
# B100 8-GPU, the fastest of the four: first by cost too
assert d["ranked"][0]["gpu"] == "b100-sxm-192gb", d["ranked"][0]["hardware"]
' || fail "plan --include-eol does not rank the parts back, marked"
expect_rc 0 plan --gpu $G --max-gpus 8 --include-eol --no-explain
expect_out "(eos)"
expect_out "(sw)"
expect_out "kept by --include-eol: (eos) past its end of sale; (sw) its GPU's architecture"
expect_width 80

# estimate answers on a V100 with one line on stderr: the fact and its source
expect_rc 0 estimate --model llama2-7b --gpu v100-sxm2-32gb --task lora
expect_out "step"
[ "$(printf '%s\n' "$ERR" | wc -l)" -eq 1 ] || fail "estimate on a V100 wrote more than one line to stderr: $ERR"
expect_err "warning: v100-sxm2-32gb: volta: CUDA 12 and PyTorch 2.14 were the last releases to support it"
expect_err "CUDA Toolkit 13.0 release notes"
expect_rc 0 estimate --model llama2-7b --gpu h100-sxm5-80gb --task lora
[ -z "$ERR" ] || fail "estimate on an H100 warns: $ERR"

# catalog: the life column and the JSON's lifecycle and price_stale
expect_rc 0 catalog servers
expect_width 80
printf '%s\n' "$OUT" | grep -q '^dgx-a100-320~.* eos\$$' || fail "catalog servers does not mark dgx-a100-320gb eos, stale price"
printf '%s\n' "$OUT" | grep -q '^dgx-h100 .* -$' || fail "catalog servers marks dgx-h100"
expect_rc 0 catalog gpus --json
printf '%s' "$OUT" | python3 -c '
import json, sys
g = {r["key"]: r for r in json.load(sys.stdin)}
assert g["v100-sxm2-16gb"]["cuda_last"] == 12 and g["v100-sxm2-16gb"]["pytorch_last"] == "2.14"
assert "CUDA 12 and PyTorch 2.14" in g["v100-sxm2-16gb"]["lifecycle"]
assert g["b100-sxm-192gb"]["lifecycle"] == "end of sale 2024-08"
assert g["h100-sxm5-80gb"]["lifecycle"] is None and g["h100-sxm5-80gb"]["end_of_sale"] is None
' || fail "catalog gpus --json lifecycle"
finish
