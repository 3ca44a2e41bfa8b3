set -u
O=/tmp/o; mkdir -p $O
trap 'tar czf $OUT/o.tgz -C /tmp o' EXIT
tar xzf gpu-bundle.tar.gz
export LD_LIBRARY_PATH=$PWD/gpu-bundle/lib
B=gpu-bundle/warpdex-bench
T=gpu-bundle/tests
C=$(cat gpu-bundle/COMMIT)
nvidia-smi -L > $O/gpu.txt; echo $C >> $O/gpu.txt
timeout 60 $T/warpdex_tests_core --gtest_brief=1 > $O/core.log 2>&1; echo "core rc=$?"
tar czf $OUT/o.tgz -C /tmp o
timeout 90 $T/warpdex_tests_search --gtest_brief=1 > $O/search.log 2>&1; echo "search rc=$?"
tar czf $OUT/o.tgz -C /tmp o
timeout 120 $T/warpdex_tests_graph --gtest_brief=1 > $O/graph.log 2>&1; echo "graph rc=$?"
tar czf $OUT/o.tgz -C /tmp o
timeout 150 $T/warpdex_tests_dpp --gtest_brief=1 > $O/dpp.log 2>&1; echo "dpp rc=$?"; tail -3 $O/dpp.log
tar czf $OUT/o.tgz -C /tmp o
timeout 60 $T/warpdex_tests_lsm --gtest_brief=1 > $O/lsm.log 2>&1; echo "lsm rc=$?"
tar czf $OUT/o.tgz -C /tmp o
timeout 180 $B --filter '^grep/' --commit $C --output $O/grep.json > $O/grep.log 2>&1; echo "grep bench rc=$?"
tar czf $OUT/o.tgz -C /tmp o
grep -E "^grep/" $O/grep.log | cut -c1-330
timeout 170 $B --filter '^sssp/' --size-log2 28 --commit $C --output $O/sssp.json > $O/sssp.log 2>&1; echo "sssp bench rc=$?"
tar czf $OUT/o.tgz -C /tmp o
grep -E "^sssp/(delta|near|bell)" $O/sssp.log | cut -c1-140
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
timeout 80 ncu --clock-control none --csv --metrics $M --launch-count 2500 $B --filter '^sssp/delta-stepping/rmat/v=[0-9]+/e=[0-9]+$' --size-log2 26 --repetitions 10 --warmup 1 --no-record > $O/sssp_ncu.csv 2> $O/sssp_ncu.err; echo "ncu rc=$?"
tar czf $OUT/o.tgz -C /tmp o
