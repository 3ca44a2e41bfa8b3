#!/usr/bin/env python3
"""Checks a table written by `warpdex demo --json FILE`: every row was checked and passed, with a
positive rate, and the baseline's fields agree with the ratio. Exit status 1 with a message otherwise."""
import json
import sys


def main(path: str) -> int:
    with open(path, encoding="utf-8") as file:
        record = json.load(file)
    rows = record.get("rows")
    if not rows:
        print(f"{path}: no rows", file=sys.stderr)
        return 1
    families = {row["family"] for row in rows}
    for row in rows:
        name = f'{row["family"]}: {row["operation"]}'
        if not (row["checked"] and row["passed"]):
            print(f"{path}: {name} did not pass its check ({row['check']})", file=sys.stderr)
            return 1
        if not row["value"] > 0 or not row["median_ms"] > 0:
            print(f"{path}: {name} has no positive rate", file=sys.stderr)
            return 1
        if row["baseline"] is not None:
            expected = row["value"] / row["baseline_value"]
            if abs(row["ratio"] - expected) > 1e-6 * expected:
                print(f"{path}: {name}: ratio {row['ratio']} is not value / baseline_value", file=sys.stderr)
                return 1
    print(f"{path}: {len(rows)} rows of {len(families)} families ({', '.join(sorted(families))}), all checked")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
