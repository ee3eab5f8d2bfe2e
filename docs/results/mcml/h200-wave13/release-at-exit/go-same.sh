#!/bin/bash
# The .mco of both builds, written under the same name (the file echoes its own name).
cd "$(dirname "$0")"
export RECONVERGE_GPU_CUBIN=$PWD/mcml.cubin
for input in skin slab; do for photons in 100000000 1000; do
  for build in old new; do
    mkdir -p /tmp/$build && (cd /tmp/$build && /tmp/run54/$build-mcml --backend cuda --fast-math --builtin $input --photons $photons --output o.mco > /dev/null 2>&1)
  done
  cmp <(grep -v "User time" /tmp/old/o.mco) <(grep -v "User time" /tmp/new/o.mco) && echo "$input, $photons photons: the same .mco but for its User time line" || echo "$input, $photons photons: .mco DIFFERS"
done; done | tee $OUT/same.txt
