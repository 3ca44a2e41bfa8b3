set -u
O=/tmp/o; mkdir -p $O
tar xzf gpu-bundle.tar.gz
export LD_LIBRARY_PATH=$PWD/gpu-bundle/lib
B=gpu-bundle/warpdex-bench
W=gpu-bundle/warpdex
T=gpu-bundle/tests
C=$(cat gpu-bundle/COMMIT)
save() { tar czf $OUT/o.tgz -C /tmp o; }
nvidia-smi -L > $O/gpu.txt; echo $C >> $O/gpu.txt
timeout 150 $T/warpdex_tests_dpp --gtest_brief=1 > $O/dpp.log 2>&1; echo "dpp rc=$?"; tail -2 $O/dpp.log; save
for tool in memcheck synccheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 1 $T/warpdex_tests_dpp --gtest_brief=1 --gtest_filter='external_faces*cuda*:external_faces_at_scale.*:hashfight*cuda*' > $O/faces.$tool.log 2>&1; echo "faces $tool rc=$?"; save
done
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 1 $T/warpdex_tests_dpp --gtest_brief=1 --gtest_filter='external_faces_test/cuda.*:hashfight_map_test/cuda.*' > $O/dpp.racecheck.log 2>&1; echo "dpp racecheck rc=$?"; save
for m in auto sort sort_hash hash; do timeout 60 $W faces --generate 126 --numbering random --method $m --repetitions 5 > $O/faces_cli_$m.log 2>&1; echo "faces cli $m rc=$?"; grep -iE "faces|check|ms" $O/faces_cli_$m.log | head -8; done; save
timeout 150 $B --filter '^faces/' --commit $C --output $O/faces.json > $O/faces.log 2>&1; echo "faces bench rc=$?"; save
grep -E "^faces/" $O/faces.log | cut -c1-220
timeout 120 $W demo --json $O/demo.json --commit $C > $O/demo.log 2>&1; echo "demo rc=$?"; save
tail -30 $O/demo.log
