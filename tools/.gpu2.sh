set -u
O=/tmp/o; mkdir -p $O
trap 'tar czf $OUT/o.tgz -C /tmp o' EXIT
tar xzf gpu-bundle.tar.gz
export LD_LIBRARY_PATH=$PWD/gpu-bundle/lib
B=gpu-bundle/warpdex-bench
T=gpu-bundle/tests
nvidia-smi -L > $O/gpu.txt; cat gpu-bundle/COMMIT >> $O/gpu.txt
timeout 120 $T/warpdex_tests_search > $O/search.log 2>&1; echo "search rc=$?"
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 1 $T/warpdex_tests_search --gtest_brief=1 --gtest_filter='*line_match*:*grep_test*' > $O/search.memcheck.log 2>&1; echo "search memcheck rc=$?"
timeout 300 $B --filter '^grep/' --commit $(cat gpu-bundle/COMMIT) --output $O/grep.json > $O/grep.log 2>&1; echo "grep bench rc=$?"
grep -E "^grep/" $O/grep.log | cut -c1-400
timeout 280 $B --filter '^sssp/' --size-log2 28 --commit $(cat gpu-bundle/COMMIT) --output $O/sssp.json > $O/sssp.log 2>&1; echo "sssp bench rc=$?"
grep -E "^sssp/|delta" $O/sssp.log | cut -c1-300
