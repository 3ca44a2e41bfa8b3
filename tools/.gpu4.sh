set -u
O=/tmp/o; mkdir -p $O
tar xzf gpu-bundle.tar.gz
export LD_LIBRARY_PATH=$PWD/gpu-bundle/lib
B=gpu-bundle/warpdex-bench
T=gpu-bundle/tests
C=$(cat gpu-bundle/COMMIT)
save() { tar czf $OUT/o.tgz -C /tmp o; }
nvidia-smi -L > $O/gpu.txt; echo $C >> $O/gpu.txt
timeout 120 $T/warpdex_tests_graph --gtest_brief=1 > $O/graph.log 2>&1; echo "graph rc=$?"
for s in core search graph; do
  for tool in memcheck synccheck; do
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 1 $T/warpdex_tests_$s --gtest_brief=1 --gtest_filter='-*Huge*' > $O/$s.$tool.log 2>&1; echo "$s $tool rc=$?"; save
  done
done
for tool in memcheck synccheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 1 $T/warpdex_tests_dpp --gtest_brief=1 --gtest_filter='*cuda*:dpp_at_scale.*' > $O/dpp.$tool.log 2>&1; echo "dpp $tool rc=$?"; save
done
timeout 150 $B --size-log2 28 --filter '^(hashfight/(build|find_present|find_absent)/k32/n=268435456/lf=1\.5(/chunk=(auto|off|512MiB|1GiB|4GiB))?|dedup/(hash|sort|unique|counts|counts_only)/(u32/n=268435456|tri/n=134217728)/dup=0\.5)$' --commit $C --output $O/dpp28.json > $O/dpp28.log 2>&1; echo "dpp28 rc=$?"; save
grep -E "^(hashfight|dedup)/" $O/dpp28.log | cut -c1-200
timeout 150 $B --size-log2 30 --filter '^hashfight/(build|find_present|find_absent)/k32/n=1073741824/lf=1\.5(/chunk=(auto|off|1GiB|4GiB))?$' --commit $C --output $O/dpp30.json > $O/dpp30.log 2>&1; echo "dpp30 rc=$?"; save
grep -E "^hashfight/" $O/dpp30.log | cut -c1-200
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
timeout 60 ncu --clock-control none --csv --metrics $M --launch-count 2000 $B --filter '^sssp/bellman-ford/grid/v=[0-9]+/e=[0-9]*$' --size-log2 20 --repetitions 10 --warmup 1 --no-record > $O/sssp_ncu.csv 2> $O/sssp_ncu.err; echo "ncu rc=$?"
timeout 30 $B --filter '^sssp/(bellman-ford|delta-stepping)/grid/v=[0-9]+/e=[0-9]*$' --size-log2 20 --no-record > $O/sssp20.log 2>&1; save
grep -E "^sssp|rounds" $O/sssp20.log | cut -c1-160
