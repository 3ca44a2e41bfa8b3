#!/usr/bin/env python3
"""Text for the dedup --lines benchmark: SIZE bytes of lines drawn Zipf (s = 1.1) from DISTINCT distinct
log-like lines of 40-220 bytes (about 115 on average), seeded. usage: dedup_lines_text.py OUT SIZE [DISTINCT] [SEED]"""
import random
import sys

out, size = sys.argv[1], int(float(sys.argv[2]))
distinct = int(sys.argv[3]) if len(sys.argv) > 3 else 4791
rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
words = ["GET", "POST", "/api/v1/items", "/static/app.js", "200", "404", "500", "user", "session", "timeout",
         "cache", "miss", "hit", "INFO", "WARN", "ERROR", "worker", "shard", "retry", "ms", "bytes", "ok"]
lines = []
for i in range(distinct):
    target = rng.randrange(40, 221)
    text = f"{i:05d} "
    while len(text) < target:
        text += rng.choice(words) + ("=" + str(rng.randrange(100000)) if rng.random() < 0.3 else "") + " "
    lines.append((text[:target] + "\n").encode())
weights = [1.0 / (k + 1) ** 1.1 for k in range(distinct)]
cumulative = []
total = 0.0
for w in weights:
    total += w
    cumulative.append(total)
written = 0
with open(out, "wb") as f:
    while written < size:
        batch = b"".join(rng.choices(lines, cum_weights=cumulative, k=65536))
        f.write(batch)
        written += len(batch)
