#!/usr/bin/python3
"""Decoder LLM generation, Anvil against ONNX Runtime 1.30: the `qwen2_0_5b` rows of
docs/figures/kernels.tsv (the kernels README's table).

    /usr/bin/python3 tools/bench_decoder_vs_ort.py MODEL_DIR [--rounds R] [--tokens N]
        [--processes P] [--cpu NAME] [--write] [--anvil-run PATH]

MODEL_DIR holds testdata/generate_decoder.py's qwen2_0_5b.onnx (int4: MatMulNBits,
GroupQueryAttention) and, when present, qwen2_0_5b_fp32.onnx (float32, the tied embedding read by
the LM head through a Transpose). For prompts of 64 and 512 tokens at 1 and 2 threads it runs
`anvil-run --generate` (bazel-bin/tools/anvil-run unless --anvil-run) and tools/ort_generate.js
alternately, P processes each (default 2), both with the cache bound as past and present,
greedy, N tokens (default 32), R rounds per process (default 2), and prints the rows from each
engine's best round: decode tokens/s, time to first token and each process's peak RSS (getrusage
of the child: the same measure for both). The float32 model
runs at prompt 64, 1 thread. --write replaces the `qwen2_0_5b` rows of docs/figures/kernels.tsv,
then `scripts/readme_tables.py` regenerates the README's table from it.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TSV = os.path.join(ROOT, "docs", "figures", "kernels.tsv")
ROW_PREFIX = "`qwen2_0_5b"


def peak_rss_run(argv):
    """Runs one engine: its JSON line, and its peak RSS in MB (the child's own ru_maxrss, the
    same measure for both engines)."""
    with tempfile.TemporaryFile(mode="w+") as err:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err, text=True)
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            err.seek(0)
            sys.exit(f"{' '.join(argv)} exited {code}: {err.read().strip()[-500:]}")
    line = [l for l in out.splitlines() if l.startswith("{")][-1]
    return json.loads(line), usage.ru_maxrss / 1024.0


def best(a, b):
    """The better of two runs of one engine: each figure its best (a shared host's slow spells
    last seconds to minutes, longer than one process's rounds)."""
    if a is None:
        return b
    merged = dict(a)
    merged["decode_tokens_per_s"] = max(a["decode_tokens_per_s"], b["decode_tokens_per_s"])
    merged["ttft_ms"] = min(a["ttft_ms"], b["ttft_ms"])
    return merged


def measure(anvil_run, model, prompt, threads, rounds, tokens, processes):
    """`processes` pairs of runs, Anvil then ONNX Runtime, alternating: each engine's best
    figures, and its first process's peak RSS."""
    common = ["--generate", str(tokens), "--prompt-len", str(prompt), "--rounds", str(rounds),
              "--threads", str(threads)]
    anvil = ort = None
    anvil_rss = ort_rss = None
    for _ in range(processes):
        a, a_rss = peak_rss_run([anvil_run, model, "--quiet"] + common)
        o, o_rss = peak_rss_run(["node", os.path.join(ROOT, "tools", "ort_generate.js"), model]
                                + common)
        anvil, ort = best(anvil, a), best(ort, o)
        anvil_rss = anvil_rss or a_rss
        ort_rss = ort_rss or o_rss
    return anvil, anvil_rss, ort, ort_rss


def rows_for(label, model_note, results, cpu):
    """TSV rows (kernel, case, Anvil, ONNX Runtime, CPU) for one model's measurements."""
    rows = []
    first = True
    for (prompt, threads), (anvil, anvil_rss, ort, ort_rss) in results:
        ratio = anvil["decode_tokens_per_s"] / ort["decode_tokens_per_s"]
        name = f"`{label}` decode" + (f" ({model_note})" if first else "")
        first = False
        rows.append([name, f"prompt {prompt}, {anvil['generated']} tokens, {threads} thread"
                     f"{'s' if threads > 1 else ''}: Anvil / ORT {ratio:.2f} in tokens/s",
                     f"{anvil['decode_tokens_per_s']:.2f} tokens/s",
                     f"{ort['decode_tokens_per_s']:.2f} tokens/s", cpu])
    for (prompt, threads), (anvil, anvil_rss, ort, ort_rss) in results:
        ratio = anvil["ttft_ms"] / ort["ttft_ms"]
        rows.append([f"`{label}` time to first token",
                     f"prompt {prompt}, {threads} thread{'s' if threads > 1 else ''}: "
                     f"Anvil / ORT {ratio:.2f}",
                     f"{anvil['ttft_ms']:.0f} ms", f"{ort['ttft_ms']:.0f} ms", cpu])
    (prompt, threads), (anvil, anvil_rss, ort, ort_rss) = max(results, key=lambda r: r[0])
    rows.append([f"`{label}` peak RSS",
                 f"prompt {prompt} + {anvil['generated']} tokens, {threads} thread"
                 f"{'s' if threads > 1 else ''}, each process's peak: Anvil / ORT "
                 f"{anvil_rss / ort_rss:.2f}", f"{anvil_rss:.0f} MB", f"{ort_rss:.0f} MB", cpu])
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model_dir")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--cpu", default="not recorded")
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--anvil-run", default=os.path.join(ROOT, "bazel-bin", "tools",
                                                            "anvil-run"))
    args = parser.parse_args()
    int4 = os.path.join(args.model_dir, "qwen2_0_5b.onnx")
    if not os.path.exists(int4):
        sys.exit(f"{int4} not found: /usr/bin/python3 testdata/generate_decoder.py "
                 f"{args.model_dir} qwen2_0_5b qwen2_0_5b_fp32")
    rows = []
    results = []
    for prompt in (64, 512):
        for threads in (1, 2):
            r = measure(args.anvil_run, int4, prompt, threads, args.rounds, args.tokens,
                        args.processes)
            print(f"qwen2_0_5b prompt {prompt} threads {threads}: decode "
                  f"{r[0]['decode_tokens_per_s']} / {r[2]['decode_tokens_per_s']} tokens/s, "
                  f"first token {r[0]['ttft_ms']} / {r[2]['ttft_ms']} ms, peak RSS "
                  f"{r[1]:.0f} / {r[3]:.0f} MB", file=sys.stderr)
            results.append(((prompt, threads), r))
    rows += rows_for("qwen2_0_5b", "int4 decoder: MatMulNBits, GroupQueryAttention", results,
                     args.cpu)
    fp32 = os.path.join(args.model_dir, "qwen2_0_5b_fp32.onnx")
    if os.path.exists(fp32):
        r = measure(args.anvil_run, fp32, 64, 1, args.rounds, args.tokens, args.processes)
        print(f"qwen2_0_5b_fp32 prompt 64 threads 1: decode {r[0]['decode_tokens_per_s']} / "
              f"{r[2]['decode_tokens_per_s']} tokens/s, first token {r[0]['ttft_ms']} / "
              f"{r[2]['ttft_ms']} ms, peak RSS {r[1]:.0f} / {r[3]:.0f} MB", file=sys.stderr)
        rows += rows_for("qwen2_0_5b_fp32", "float32, 2 GB external data, tied LM head",
                         [((64, 1), r)], args.cpu)
    text = "\n".join("\t".join(row) for row in rows)
    print(text)
    if args.write:
        lines = open(TSV).read().splitlines()
        kept = [l for l in lines if not l.startswith(ROW_PREFIX)]
        at = next((i for i, l in enumerate(lines) if l.startswith(ROW_PREFIX)), len(lines))
        at -= sum(1 for l in lines[:at] if l.startswith(ROW_PREFIX))
        kept[at:at] = text.splitlines()
        with open(TSV, "w") as f:
            f.write("\n".join(kept) + "\n")
        print(f"wrote {len(rows)} rows to {os.path.relpath(TSV, ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
