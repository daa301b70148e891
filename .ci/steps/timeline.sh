#!/usr/bin/env bash
# The HTML timeline as a person sees it: renders a failing run (the bug zoo's KAFKA-19233, blind in
# swarm-streams seed 4), the shrunk failure file of another (KAFKA-20442, seed 14) and a passing run
# with the release binary, then
# screenshots each page in headless Chromium. Skipped when chromium is not installed (Debian:
# `apt-get install chromium`). The PNGs land in target/timeline/ for a look.
set -euo pipefail
cd "$(dirname "$0")/../.."

chrome=""
for c in chromium chromium-browser google-chrome; do
  if command -v "$c" >/dev/null 2>&1; then chrome="$c"; break; fi
done
if [ -z "$chrome" ]; then
  echo "timeline: chromium not found, skipped"
  exit 0
fi
cargo build --quiet --release -p scenarios --bin regroup
regroup="${CARGO_TARGET_DIR:-target}/release/regroup"
out=target/timeline
rm -rf "$out"; mkdir -p "$out"
"$regroup" sweep swarm-streams --seeds 4 --kafka-bug kafka-19233 --out "$out" >/dev/null || true
"$regroup" sweep swarm-streams --seeds 14 --kafka-bug kafka-20442 --out "$out" >/dev/null || true
test -s "$out/swarm-streams-seed-4.json" && test -s "$out/swarm-streams-seed-14.json"
"$regroup" shrink "$out/swarm-streams-seed-14.json" >/dev/null
"$regroup" replay "$out/swarm-streams-seed-4.json" --html "$out/failing.html" >/dev/null 2>&1 || true
"$regroup" replay "$out/swarm-streams-seed-14.shrunk.json" --html "$out/shrunk.html" >/dev/null 2>&1 || true
"$regroup" run coordinator-crash-streams --html "$out/passing.html" >/dev/null
# The failing run shows where the fenced members' tasks left the coordinator's assignment.
grep -q 'fill="url(#diverged)"' "$out/failing.html"
for page in failing shrunk passing; do
  grep -q '>controller</text>' "$out/$page.html"
  timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --window-size=1600,1000 --screenshot="$out/$page.png" "file://$PWD/$out/$page.html" >/dev/null 2>&1
  # A real render, not a blank page: a PNG of some size.
  size=$(stat -c %s "$out/$page.png")
  head -c 8 "$out/$page.png" | od -An -tx1 | grep -q '89 50 4e 47'
  if [ "$size" -lt 20000 ]; then echo "timeline: $page.png is only $size bytes"; exit 1; fi
  echo "timeline: $page.png $size bytes"
done
