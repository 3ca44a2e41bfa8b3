#!/usr/bin/env bash
# Doxygen's INPUT_FILTER (see Doxyfile). The headers open with "#pragma once" and then
# "/// @file <what the header is for>", while doxygen takes the first word after @file as the file's name.
# This moves "/// @file <path>" onto the #pragma line (doxygen does not need it) and leaves the
# description as an ordinary line below: lines keep their numbers, so warnings point at the header.
set -euo pipefail
name=${1#*include/}
awk -v name="$name" '
  NR > 1 && previous == "#pragma once" && /^\/\/\/ @file [^ ]/ {
    print "/// @file " name; sub(/^\/\/\/ @file /, "/// "); previous = $0; next
  }
  NR > 1 { print previous }
  { previous = $0 }
  END { if (NR > 0) print previous }
' "$1"
