#!/usr/bin/env python3
"""Writes into a rude script the answers a real cluster gave, as each request line's `expect`.

    regroup drive rude-admin --cluster real-kafka --trace /tmp/rude-admin.trace.jsonl
    python3 conformance/real_kafka/expects_from_trace.py conformance/real_kafka/rude-admin.jsonl \
        /tmp/rude-admin.trace.jsonl

The trace's scripted answers (`adminAnswered`, `scripted`) become the `expect.response` of the line
they answer, whole, except what a real cluster draws at random: the topic id of a topic it created.
Exits 1, changing nothing, if a request line has no answer or an answer is a failure.
"""
import json
import sys


def answers(trace_path):
    out = {}
    for text in open(trace_path, encoding="utf-8"):
        event = json.loads(text)
        if event.get("harness") != "adminAnswered":
            continue
        answer = event["answer"]
        if answer.get("answer") != "scripted":
            sys.exit(f"line {answer.get('line')}: no answer ({answer.get('reason')})")
        response = json.loads(answer["response"])
        for topic in response.get("topics", []):
            if isinstance(topic, dict) and topic.get("errorCode") == 0:
                topic.pop("topicId", None)
        out[answer["line"]] = response
    return out


def main():
    if len(sys.argv) != 3:
        print("usage: expects_from_trace.py SCRIPT.jsonl TRACE.jsonl", file=sys.stderr)
        sys.exit(2)
    script_path, trace_path = sys.argv[1:]
    got = answers(trace_path)
    lines = open(script_path, encoding="utf-8").read().splitlines()
    out = []
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            out.append(text)
            continue
        line = json.loads(text)
        if "request" in line:
            if number not in got:
                sys.exit(f"script line {number} has no answer in {trace_path}")
            line["expect"] = {"response": got[number]}
        out.append(json.dumps(line, separators=(",", ":")))
    with open(script_path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    print(f"{script_path}: {len(got)} expects written from {trace_path}")


if __name__ == "__main__":
    main()
