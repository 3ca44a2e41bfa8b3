#!/usr/bin/env bash
# Runs a fixed list of `warpdex` commands on the host backend with fixed seeds and prints what they say,
# with every measured time and rate replaced by a placeholder, and a checksum of every file they write.
# Two builds that print the same text behave the same on these commands: run it before and after moving
# code, then diff the two outputs.
#   tools/cli_outputs.sh [path/to/warpdex] > outputs.txt   (default: build/src/cli/warpdex)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
warpdex="$(realpath "${1:-build/src/cli/warpdex}")"
if [[ ! -x "$warpdex" ]]; then
  echo "cli_outputs.sh: no warpdex at $warpdex (build the warpdex_cli target, or pass its path)" >&2
  exit 2
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2
# One host thread: the counts of racy steps (arcs an SSSP round relaxes on several threads) then repeat
# from run to run, and nothing printed depends on the machine's cores.
export OMP_NUM_THREADS=1

# Times ("0.245 ms", "12 s"), rates ("2.21e+06 cells/s", "1.3 Gkeys/s", "0.003 GTEPS"), ratios to a timed
# baseline ("1.85x"), shares of a time ("bucketing 44.4% of the time") and the decimals of a table's timed
# columns (a row of two-space-separated columns, up to its "ok:") change from run to run, and so do the
# widths of the columns they stand in (runs of spaces are shortened to two on a line with a placeholder);
# every other number a command prints must not.
untimed() {
  perl -pe '
    my $n = 0;
    $n += s/\b[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)? ?(ns|us|ms|s|min)\b/<time>/g;
    $n += s/\b[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)? ?([A-Za-z]+ )?[A-Za-z]*\/s\b/<rate>/g;
    $n += s/\b[0-9]+(\.[0-9]+)? GTEPS\b/<rate>/g;
    $n += s/\b[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)?x\b/<ratio>/g;
    $n += s/\b[0-9]+(\.[0-9]+)?% of the time\b/<share> of the time/g;
    if (/^\S.*? {2,}-?[0-9]+\.[0-9]+/) {
      my ($row, $rest) = /^(.*?)( ok:.*)?$/;
      $n += $row =~ s/(?<= )[0-9]+\.[0-9]+(?= |$)/<t>/g;
      $_ = $row . ($rest // "") . "\n";
    }
    s/ {2,}/  /g if $n;
  '
}

# Prints the command line, its output (both streams, untimed), its exit status and the checksums of the
# files it wrote (named with `--writes`).
run() {
  local written=()
  while [[ $1 == --writes ]]; do
    written+=("$2")
    shift 2
  done
  echo "\$ warpdex $*"
  "$warpdex" --backend host "$@" 2>&1 | untimed
  echo "exit ${PIPESTATUS[0]}"
  for file in "${written[@]}"; do
    if [[ -f $file ]]; then
      echo "wrote $file: $(wc -c <"$file") bytes, md5 $(md5sum <"$file" | cut -d' ' -f1)"
    else
      echo "wrote no $file"
    fi
  done
}

# Inputs: text with repeated lines (also read as raw 8-byte records), a small DIMACS graph.
for i in $(seq 1 3000); do
  echo "line $((i * 7919 % 97)) of kind $((i % 5))"
  if ((i % 75 == 0)); then echo "a line of its own, number $i"; fi
done >lines.txt
printf 'needle in a haystack\nno match here\nNEEDLE upper\nneedle twice needle\n' >hay.txt
head -c 24000 lines.txt >records.raw
printf 'p sp 5 6\na 1 2 3\na 2 3 4\na 1 3 9\na 3 4 1\na 4 5 2\na 5 1 7\n' >small.gr

run split --size-log2 16 --seed 1
run split --size-log2 16 --seed 2 --identifier delta -m 7 --pairs
run split --size-log2 16 --seed 3 --identifier splitters -m 33
run hash --size-log2 14 --seed 1
run hash --size-log2 14 --seed 2 --multimap
run hash --size-log2 14 --seed 3 --grow --key-bits 64
run lsm --batch-log2 10 --batches 8 --queries-log2 10 --seed 1
run lsm --batch-log2 8 --batches 40 --queries-log2 8 --erase-fraction 0.5 --range-width 1000 --seed 2
run search --keys-log2 16 --queries-log2 14 --absent 0.3 --seed 1
run dedup --size-log2 16 --dup 0.4 --seed 1
run --writes counts.txt dedup lines.txt --lines --check --output counts.txt
run dedup lines.txt --lines --once
run --writes once.raw dedup records.raw --record-bytes 8 --once --check --output once.raw
run hashfight --size-log2 14 --seed 1 --check
run hashfight --size-log2 12 --key-bytes 8 --load-factor 2 --seed 2 --check
run hashfight --size-log2 14 --leftover-limit 1024 --bucket-bytes 64 --seed 3 --check
run hashfight --size-log2 13 --key-bytes 8 --leftover-limit 512 --bucket-bytes 16 --seed 4 --check
run grep -n -i needle hay.txt lines.txt
run grep -c -v -e kind -e needle hay.txt lines.txt
run --writes d1.txt sssp small.gr -s 1 --algorithm near-far -o d1.txt
run --writes d2.txt sssp rmat:10 --seed 1 --algorithm near-far -o d2.txt
run sssp grid:30x20 --seed 2 --weight-type float --algorithm bellman-ford
run sssp gnp:300:0.02:5 --seed 3 --algorithm delta-stepping --weights skewed
run --writes c1.txt cliques gnp:120:0.2:4 -o c1.txt
run cliques keller:3 --count-only
run cliques small.gr -k 2

# Meshes: every encoding written, read back and faced, each surface format written.
encodings=(ascii binary binary-zlib appended appended-zlib appended-base64)
run --writes mesh.vtk faces --generate 5x4x3 --split mixed --numbering random --seed 1 --save-mesh mesh.vtk
run --writes mesh_ascii.vtk faces --generate 4 --split 5 --save-mesh mesh_ascii.vtk --save-encoding ascii
for encoding in "${encodings[@]}"; do
  run --writes "mesh_$encoding.vtu" faces --generate 4x3x5 --split 6 --numbering random --seed 2 \
    --save-mesh "mesh_$encoding.vtu" --save-encoding "$encoding"
done
run --writes hex.vtu faces --generate 3 --split hex --method hash --save-mesh hex.vtu
for mesh in mesh.vtk mesh_ascii.vtk hex.vtu "mesh_${encodings[2]}.vtu" "mesh_${encodings[5]}.vtu"; do
  for surface in vtp vtk ply; do
    run --writes "surface.$surface" faces "$mesh" --method sort_hash -o "surface.$surface"
  done
done
for encoding in "${encodings[@]}"; do run faces "mesh_$encoding.vtu" --method sort; done
run --writes labels.png segment --generate 48x40 --seed 1 -o labels.png
run --writes stack.raw segment --generate 16x16x8 --seed 2 --labels 3 -o stack.raw
