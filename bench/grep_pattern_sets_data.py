#!/usr/bin/env python3
"""The data of bench/results/2026-11-28-nvidia-h200-grep-pattern-sets.json: English-like text of >= SIZE bytes
(a 16 MiB unit of Zipf-weighted lines repeated) as DIR/text.txt and pattern files DIR/p<K>.txt of K = 10 .. 10^5
patterns: half words of the text, half random strings of 6-12 letters. usage: grep_pattern_sets_data.py DIR SIZE"""
import os, random, sys
out, size = sys.argv[1], int(sys.argv[2])
rng = random.Random(20261128)
common = ("the of and to a in is it you that he was for on are with as I his they be at one have this from or "
          "had by not word but what some we can out other were all there when up use your how said an each she "
          "which do their time if will way about many then them write would like so these her long make thing "
          "see him two has look more day could go come did number sound no most people my over know water than "
          "call first who may down side been now find any new work part take get place made live where after "
          "back little only round man year came show every good me give our under name very through just form "
          "sentence great think say help low line differ turn cause much mean before move right boy old too same").split()
syll = ["ba", "ce", "di", "fo", "gu", "ha", "je", "ki", "lo", "mu", "na", "pe", "qui", "ro", "sa", "te", "vi",
        "wo", "xa", "ye", "zu", "str", "an", "en", "in", "on", "un", "er", "al", "ti", "ch", "sh", "th", "ou"]
vocab = set()
while len(vocab) < 80000:
    vocab.add("".join(rng.choice(syll) for _ in range(rng.randint(1, 5))))
vocab = sorted(vocab)
rng.shuffle(vocab)
words = common + vocab
import itertools
cum = list(itertools.accumulate(1.0 / (i + 1) ** 0.9 for i in range(len(words))))
lines = []
total = 0
while total < 16 << 20:
    n = rng.randint(4, 18)
    line = " ".join(rng.choices(words, cum_weights=cum, k=n))
    line = line[0].upper() + line[1:] + "."
    lines.append(line)
    total += len(line) + 1
unit = ("\n".join(lines) + "\n").encode()
used = sorted(set(w for w in (" ".join(lines)).replace(".", " ").split() if len(w) >= 2))
with open(os.path.join(out, "text.txt"), "wb") as f:
    written = 0
    while written < size:
        f.write(unit)
        written += len(unit)
for k in [10, 100, 1000, 10000, 100000]:
    pats = set(rng.sample(used, min(k // 2, len(used))))
    while len(pats) < k:
        pats.add("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(6, 12))))
    with open(os.path.join(out, f"p{k}.txt"), "w") as f:
        f.write("\n".join(sorted(pats, key=lambda _: rng.random())) + "\n")
print(f"text {written} bytes, {len(used)} distinct words used")
