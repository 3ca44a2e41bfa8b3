#!/usr/bin/env bash
# Runs a command and checks its exit status and what it printed (standard output and error together).
# usage: expect.sh [--status N] [--match REGEX]... [--no-match REGEX]... [--stdout PATH] [--ulimit-v KB]
#                  [--sparse SIZE] -- COMMAND...
#   --stdout PATH   standard output goes to PATH (e.g. /dev/full) instead of being checked
#   --ulimit-v KB   the command runs under this address-space limit
#   --sparse SIZE   creates a sparse file of SIZE (truncate's syntax: 2G, 20G) that costs no disk;
#                   the word @SPARSE@ in COMMAND names it
# Each REGEX is an extended regular expression (grep -E) matched against the whole output.
set -u
status=0
matches=()
absent=()
stdout_to=""
limit=""
sparse=""
while [ $# -gt 0 ]; do
  case "$1" in
    --status) status="$2"; shift 2 ;;
    --match) matches+=("$2"); shift 2 ;;
    --no-match) absent+=("$2"); shift 2 ;;
    --stdout) stdout_to="$2"; shift 2 ;;
    --ulimit-v) limit="$2"; shift 2 ;;
    --sparse) sparse="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "expect.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command=()
for word in "$@"; do
  if [ "$word" = "@SPARSE@" ]; then
    truncate -s "$sparse" "$work/sparse.bin"
    word="$work/sparse.bin"
  fi
  command+=("$word")
done
(
  if [ -n "$limit" ]; then ulimit -v "$limit"; fi
  if [ -n "$stdout_to" ]; then
    exec "${command[@]}" 2>"$work/output" >"$stdout_to"
  else
    exec "${command[@]}" >"$work/output" 2>&1
  fi
)
got=$?
echo "\$ ${command[*]}"
cat "$work/output"
echo "[exit status $got]"
failed=0
if [ "$got" != "$status" ]; then
  echo "FAILED: exit status $got, expected $status"
  failed=1
fi
for regex in ${matches[@]+"${matches[@]}"}; do
  if ! grep -Eq -- "$regex" "$work/output"; then
    echo "FAILED: the output does not match: $regex"
    failed=1
  fi
done
for regex in ${absent[@]+"${absent[@]}"}; do
  if grep -Eq -- "$regex" "$work/output"; then
    echo "FAILED: the output matches: $regex"
    failed=1
  fi
done
exit $failed
