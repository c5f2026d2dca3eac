#!/bin/sh
# Regenerate the checked-in PTX of the instrumenter's test kernels with NVRTC 12.9 (no GPU needed):
#   sh tests/kernels/regen.sh
# Each .ptx starts with a comment naming the command that produced it.
set -e
cd "$(dirname "$0")"
PROBE=${PROBE:-/work/notes/nvrtc_probe.py}
for f in *.cu; do
    b=${f%.cu}
    {
        echo "// Generated from $f by: python3 nvrtc_probe.py $f --gpu-architecture=compute_80 -lineinfo -std=c++17"
        python3 "$PROBE" "$f" --gpu-architecture=compute_80 -lineinfo -std=c++17
    } > "$b.ptx"
done
