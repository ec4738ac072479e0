#!/usr/bin/env python3
"""Instructions of one k-step of each tsi_gemm_kernel besides the FMAs and the
memory instructions (global loads, shared loads and stores, the barrier),
along the full-tile path of the k-loop: the table gemm_other_per_step() of
bench/model_validate.cu.

    cuobjdump -sass libtessera.so | scripts/gemm-sass-counts.py

The k-loop is the longest backward branch of the kernel. The walk starts at
its head, follows unconditional branches and the two-predicate branches that
pick the unguarded (full-tile) loads, and falls through every other
conditional branch (the guarded loads, the skipped prefetch of the last
step), until the branch back to the head.
"""
import collections
import re
import sys

INSTRUCTION = re.compile(r"\s*/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")
NAME = re.compile(r"_Z15tsi_gemm_kernelI([fd])Li(\d+)ELi(\d+)ELi(\d+)ELi\d+ELi\d+ELi\d+ELi\d+ELi(\d+)E")


def k_step_counts(body):
    code = []
    for line in body.split("\n"):
        m = INSTRUCTION.match(line)
        if m:
            code.append((int(m.group(1), 16), m.group(3), m.group(4), (m.group(2) or "").strip()))
    index = {address: i for i, (address, _, _, _) in enumerate(code)}
    loops = []
    for i, (address, op, args, _) in enumerate(code):
        target = re.search(r"0x([0-9a-f]+)", args) if op.startswith("BRA") else None
        if target and int(target.group(1), 16) < address and int(target.group(1), 16) in index:
            head = index[int(target.group(1), 16)]
            loops.append((i - head, head, i))
    if not loops:
        return None
    _, head, back = max(loops)
    path, i = [], head
    while i <= back and len(path) < 100000:
        _, op, args, guard = code[i]
        path.append(op.split(".")[0])
        if i == back:
            break
        if op.startswith("BRA") and (not guard or re.match(r"\s*!?U?P\d+\s*,", args)):
            i = index[int(re.search(r"0x([0-9a-f]+)", args).group(1), 16)]
            continue
        i += 1
    return collections.Counter(path), len(path)


def main():
    text = sys.stdin.read()
    for body in re.split(r"\n\s*Function : ", text)[1:]:
        name = body.split("\n", 1)[0].strip()
        m = NAME.match(name)
        if not m:
            continue
        counted = k_step_counts(body)
        if counted is None:
            continue
        c, length = counted
        dtype, bm, bn, bk, blocks = m.groups()
        fma = c["FFMA"] + c["DFMA"]
        memory = c["LDG"] + c["LDS"] + c["STS"] + c["BAR"]
        label = "%s%sx%sx%s-%s" % ("s" if dtype == "f" else "d", bm, bn, bk, blocks)
        print("%-16s k-step %5d  FMA %5d  memory %4d  other %4d" % (label, length, fma, memory, length - fma - memory))


if __name__ == "__main__":
    main()
