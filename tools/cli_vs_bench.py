#!/usr/bin/env python3
"""Runs each family command of `warpdex` at the sizes of a benchmark row and the benchmark itself, then
prints both rates side by side: the CLI must report what the benchmark does (within 10%).

    tools/cli_vs_bench.py BUNDLE_DIR OUT_DIR     (on a GPU machine, after tools/gpu.sh build)

Writes OUT_DIR/cli_vs_bench.json and OUT_DIR/bench_cli_rows.json (the benchmark's record). Exit status 1
when a pair differs by more than 10%, a command fails, or a row is missing."""
import json
import pathlib
import re
import subprocess
import sys

# (CLI arguments, the operation as the CLI prints it, the benchmark row's name as a regular expression)
PAIRS = [
    (["split", "-m", "2", "--size-log2", "28"], "multisplit keys, bits m=2", r"^multisplit/keys/bits/m=2$"),
    (["split", "-m", "32", "--size-log2", "28"], "multisplit keys, bits m=32", r"^multisplit/keys/bits/m=32$"),
    (["split", "-m", "32", "--size-log2", "28", "--pairs"], "multisplit pairs, bits m=32",
     r"^multisplit/pairs/bits/m=32$"),
    (["search", "--keys-log2", "28", "--queries-log2", "26"], "lower_bound automatic",
     r"^search/auto/random/q=67108864/n=268435456$"),
    (["hash", "--size-log2", "26"], "slab_map build", r"^slab_map/build/n=67108864/util=60$"),
    (["hash", "--size-log2", "26"], "slab_map find present", r"^slab_map/find_present/n=67108864/util=60$"),
    (["hash", "--size-log2", "26"], "slab_map find absent", r"^slab_map/find_absent/n=67108864/util=60$"),
    (["hash", "--batch-log2", "10"], "slab_map insert_async, batches of 2^10", r"^hash/slab_map/latency/insert/n=2\^10$"),
    (["hash", "--batch-log2", "10"], "slab_map find_async, batches of 2^10", r"^hash/slab_map/latency/find/n=2\^10$"),
    (["hash", "--batch-log2", "14"], "slab_map insert_async, batches of 2^14", r"^hash/slab_map/latency/insert/n=2\^14$"),
    (["hash", "--batch-log2", "14", "--resident-log2", "22"], "slab_map insert_async stream, batches of 2^14",
     r"^hash/slab_map/stream/insert/n=2\^14/resident=2\^22$"),
    (["hash", "--batch-log2", "14", "--resident-log2", "22"], "slab_map find_async stream, batches of 2^14",
     r"^hash/slab_map/stream/find/n=2\^14/resident=2\^22$"),
    (["lsm", "--batch-log2", "16", "--batches", "2048", "--queries-log2", "10"], "lsm_map insert, batches of 2^16",
     r"^lsm/insert/b=2\^16/n=2\^27$"),
]
BENCH_FILTER = "|".join(pattern for _, _, pattern in PAIRS)
LINE = re.compile(r"^\s+warpdex (?P<operation>.+?)\s+(?P<value>[0-9.]+) (?P<unit>\S+)\s+\(median")


def main(bundle: str, out: str) -> int:
    out_dir = pathlib.Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    record = out_dir / "bench_cli_rows.json"
    commit = pathlib.Path(bundle, "COMMIT").read_text().strip()
    subprocess.run([f"{bundle}/warpdex-bench", "--filter", BENCH_FILTER, "--output", str(record), "--commit", commit],
                   check=True)
    rows = json.loads(record.read_text())["rows"]
    outputs = {}
    results = []
    failed = False
    for arguments, operation, pattern in PAIRS:
        key = " ".join(arguments)
        if key not in outputs:
            run = subprocess.run([f"{bundle}/warpdex", "--backend", "cuda", *arguments], capture_output=True, text=True)
            print(run.stdout, end="")
            if run.returncode != 0:
                print(f"warpdex {key}: exit {run.returncode}: {run.stderr.strip()}", file=sys.stderr)
                failed = True
            outputs[key] = run.stdout
        # The CLI prints rates below 1 G/s in M/s; the record holds G/s.
        cli = [float(m["value"]) / (1e3 if m["unit"].startswith("M") else 1) for line in outputs[key].splitlines()
               if (m := LINE.match(line)) and m["operation"].startswith(operation)]
        bench = [row["value"] for row in rows if re.search(pattern, row["name"])]
        if not cli or not bench:
            print(f"missing: {'CLI' if not cli else 'bench'} rate for {operation}", file=sys.stderr)
            failed = True
            continue
        ratio = cli[0] / bench[0]
        results.append({"cli": "warpdex " + key, "operation": operation, "cli_value": cli[0],
                        "bench_row": pattern, "bench_value": bench[0], "cli_over_bench": ratio})
        failed = failed or abs(ratio - 1) > 0.10
    print(f"\n{'operation':<36} {'CLI':>10} {'bench':>10} {'CLI/bench':>10}")
    for r in results:
        print(f"{r['operation']:<36} {r['cli_value']:>10.3f} {r['bench_value']:>10.3f} {r['cli_over_bench']:>10.3f}")
    (out_dir / "cli_vs_bench.json").write_text(json.dumps({"commit": commit, "pairs": results}, indent=2) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
