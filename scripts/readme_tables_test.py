#!/usr/bin/env python3
"""Unit tests of readme_tables.py on a small tree in a temporary directory.

Covers the results-file format, rendering with {floor:} and {files:} cells, the README markers
(one table, an end marker, no orphan results file), --check against a write, and the three
importers on outputs printed with the benchmarks' own printf formats. `python3
scripts/readme_tables.py --check` on the repository is the check that the READMEs are current.
"""

import io
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import readme_tables as rt  # pylint: disable=wrong-import-position

BENCH_ROW = "%-22s %-14s %7d %12.4f %12.4f %12.4f %8.2f %8.2f %10.2f  %s"


def bench_output(rows, triad=None, shares=(), compiles=()):
  lines = ["%-22s %-14s %7s %12s %12s %12s %8s %8s %10s" % (
      "model", "x", "threads", "interp ms", "compiled ms", "ort ms", "interp/ort", "comp/ort",
      "int/comp")]
  for model, x, threads, interp, comp, ort, paired in rows:
    lines.append(BENCH_ROW % (model, x, threads, interp, comp, ort, interp / ort, comp / ort,
                              paired, "outputs agree"))
  if triad is not None:
    lines += ["", f"memory bandwidth (1 thread): STREAM-style triad {triad} GB/s"]
    for shape, percent in shares:
      lines.append("  lngelu %-12s compiled %.2f GB/s effective = %.0f%% of the triad" % (
          shape, 10.0, percent))
  if compiles:
    lines += ["", "JIT compile per model (anvil-run --backend=compiled, first load cold, then "
              "cached):"]
    for model, seconds in compiles:
      lines.append("  %-12s %s; %s later loads from the cache" % (
          model, f"compile {seconds:.2f} s" if seconds else "cached", 3))
  return "\n".join(lines) + "\n"


class TreeTest(unittest.TestCase):
  """A temporary repository root with floors, a results file and a README."""

  def setUp(self):
    self.tmp = tempfile.TemporaryDirectory()
    self.root = self.tmp.name
    self.write("tools/conformance/floors.txt",
               "# comment\nrun 1063\nfold --pipeline=constprop{lazy=false} 1035\n")
    self.write("fuzz/regressions/t/a", "")
    self.write("fuzz/regressions/t/b", "")
    self.write("docs/figures/pkg.tsv",
               "#command: bench --x\n#cpu: Zen 9\n# Caption.\n#auto: 2 runs.\n"
               "what\tvalue\nrun\t{floor:run}\nlazy\t{floor:fold --pipeline=constprop{lazy=false}}\n"
               "files\t{files:fuzz/regressions/t} / {files:fuzz/regressions/none}\n")
    self.write("pkg/README.md", "# pkg\n\nText.\n\n<!-- figures:begin docs/figures/pkg.tsv -->\n"
               "old table\n<!-- figures:end -->\n\nMore text.\n")

  def tearDown(self):
    self.tmp.cleanup()

  def write(self, path, text):
    full = os.path.join(self.root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
      f.write(text)

  def read(self, path):
    with open(os.path.join(self.root, path), encoding="utf-8") as f:
      return f.read()

  def run_main(self, *args):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
      status = rt.main(["--root", self.root] + list(args))
    return status, out.getvalue(), err.getvalue()

  def test_writes_the_table_between_the_markers_and_check_agrees(self):
    status, out, _ = self.run_main("--check")
    self.assertEqual(status, 1)
    self.assertIn("-old table", out)
    self.assertEqual(self.run_main()[0], 0)
    text = self.read("pkg/README.md")
    self.assertTrue(text.startswith("# pkg\n\nText.\n\n<!-- figures:begin docs/figures/pkg.tsv -->\n"))
    self.assertTrue(text.endswith("<!-- figures:end -->\n\nMore text.\n"))
    self.assertIn("Measured with `bench --x` on Zen 9. Caption. 2 runs.\n\n", text)
    self.assertIn("| what | value |\n|---|---|\n| run | 1063 |\n| lazy | 1035 |\n"
                  "| files | 2 / 0 |\n", text)
    self.assertEqual(self.run_main("--check")[0], 0)
    self.assertEqual(self.run_main()[1], "")  # nothing left to rewrite

  def test_two_tables_in_one_readme_are_an_error(self):
    self.write("pkg/README.md", "<!-- figures:begin docs/figures/pkg.tsv -->\n<!-- figures:end -->\n"
               "<!-- figures:begin docs/figures/pkg.tsv -->\n<!-- figures:end -->\n")
    status, _, err = self.run_main("--check")
    self.assertEqual(status, 2)
    self.assertIn("pkg/README.md: 2 figures tables", err)

  def test_a_begin_without_end_and_a_missing_results_file_are_errors(self):
    self.write("pkg/README.md", "<!-- figures:begin docs/figures/pkg.tsv -->\n")
    self.assertIn("without '<!-- figures:end -->'", self.run_main("--check")[2])
    self.write("pkg/README.md", "<!-- figures:begin docs/figures/no.tsv -->\n<!-- figures:end -->\n")
    self.assertIn("results file docs/figures/no.tsv does not exist", self.run_main("--check")[2])

  def test_an_unknown_floor_is_an_error(self):
    self.write("docs/figures/pkg.tsv", "a\tb\nx\t{floor:run --nope}\n")
    status, _, err = self.run_main("--check")
    self.assertEqual(status, 2)
    self.assertIn("no line 'run --nope N'", err)

  def test_a_results_file_no_readme_shows_fails_the_check(self):
    self.run_main()
    self.write("docs/figures/orphan.tsv", "a\n1\n")
    status, _, err = self.run_main("--check")
    self.assertEqual(status, 1)
    self.assertIn("docs/figures/orphan.tsv is the results file of no README", err)

  def test_a_row_with_the_wrong_cell_count_names_its_line(self):
    self.write("docs/figures/pkg.tsv", "# c\na\tb\n1\n")
    self.assertIn("docs/figures/pkg.tsv:3: 1 cells, the header has 2", self.run_main()[2])

  def test_results_files_round_trip(self):
    text = self.read("docs/figures/pkg.tsv")
    self.assertEqual(rt.format_results(rt.parse_results(text, "pkg.tsv")), text)

  def test_an_import_needs_cpu_and_command(self):
    with redirect_stderr(io.StringIO()), self.assertRaises(SystemExit):
      rt.main(["--root", self.root, "--from-einsum", "x"])

  def test_bench_runs_give_medians_and_ranges(self):
    for name in ("runtime", "lower"):
      self.write(f"docs/figures/{name}.tsv", "# Hand caption.\n#auto: old\na\nb\n")
    self.write("runtime/README.md",
               "<!-- figures:begin docs/figures/runtime.tsv -->\n<!-- figures:end -->\n")
    self.write("lower/README.md",
               "<!-- figures:begin docs/figures/lower.tsv -->\n<!-- figures:end -->\n")
    runs = [
        bench_output([("mlp", "1,256", 1, 0.1, 0.08, 0.2, 1.2), ("mlp", "1,256", 2, 0.06, 0.05,
                      0.1, 1.1), ("matmul_1_256_256", "1,256", 1, 0.01, 0.01, 0.02, 1.0)],
                     triad=12.0, shares=[("8,128,768", 100)], compiles=[("mlp", 1.5)]),
        bench_output([("mlp", "1,256", 1, 0.3, 0.1, 0.2, 1.4), ("mlp", "1,256", 2, 0.05, 0.05,
                      0.1, 1.0), ("matmul_1_256_256", "1,256", 1, 0.01, 0.01, 0.04, 1.0)],
                     triad=11.0, shares=[("8,128,768", 90)], compiles=[("mlp", 0.5)]),
        bench_output([("mlp", "1,256", 1, 0.2, 0.09, 0.2, 1.3)], triad=13.0),
    ]
    for i, text in enumerate(runs):
      self.write(f"run{i}.txt", text)
    status, _, err = self.run_main("--from-bench", *(os.path.join(self.root, f"run{i}.txt")
                                                     for i in range(3)),
                                   "--cpu", "Zen 9", "--command", "tools/bench_vs_ort.sh")
    self.assertEqual((status, err), (0, ""))
    runtime = rt.parse_results(self.read("docs/figures/runtime.tsv"), "runtime")
    lower = rt.parse_results(self.read("docs/figures/lower.tsv"), "lower")
    self.assertEqual((runtime.cpu, runtime.command), ("Zen 9", "tools/bench_vs_ort.sh"))
    self.assertEqual(runtime.caption, ["Hand caption."])
    self.assertEqual(runtime.header[-1], "2 threads: interpreter / ORT")
    self.assertEqual(runtime.rows, [
        ["mlp", "1,256", "0.2", "0.2", "0.50-1.50", "0.50-0.60"],
        ["GEMM sweep", "1 MatMul", "-", "-", "0.25-0.50", "-"]])
    self.assertEqual(lower.rows, [
        ["mlp", "1,256", "0.2", "0.09", "0.2", "0.40-0.50", "1.20-1.40", "0.50"],
        ["GEMM sweep", "1 MatMul", "-", "-", "-", "0.25-0.50", "1.00", "-"]])
    self.assertEqual(lower.auto, [
        "3 runs: ms are the median over the runs of each run's best-round median, ratios their "
        "range over the runs.",
        "The STREAM-style triad (one core's DRAM bandwidth, same runs) measured 11.0-13.0 GB/s; "
        "the compiled lngelu chain reaches 90-100% of it at [8, 128, 768].",
        "A cold JIT compile takes 0.50-1.50 s per model."])
    self.assertIn("| mlp | 1,256 | 0.2 | 0.2 | 0.50-1.50 | 0.50-0.60 |", self.read("runtime/README.md"))

  def test_op_tables_replace_the_kernels_rows_of_their_models(self):
    ops = ["", "Per op type (tools/op_profile_vs_ort.sh, 1 thread, the rows' inputs):",
           "== ops zoo/net 1,3,8,8",
           "%-18s %6s %10s %6s %10s %11s" % ("op type", "nodes", "Anvil ms", "nodes", "ORT ms",
                                             "Anvil/ORT"),
           "%-18s %6s %10s %6s %10s %11s" % ("Conv", 3, "6.0000", 5, "9.0000", "0.67*"),
           "%-18s %6s %10s %6s %10s %11s" % ("FusedConv", 2, "2.0000", "-", "-", "-"),
           "%-18s %6s %10s %6s %10s %11s" % ("MaxPool", 1, "1.5000", 1, "0.5000", "3.00"),
           "%-18s %6s %10s %6s %10s %11s" % ("Relu", 1, "0.1000", 1, "0.2000", "0.50"),
           "%-18s %6s %10s %6s %10s %11s" % ("ReorderInput", "-", "-", 2, "0.3000", "-"),
           "-" * 67,
           "%-18s %6s %10s %6s %10s %11s" % ("sum of op times", 7, "9.6000", 9, "10.0000", "0.96"),
           "%-18s %6s %10s %6s %10s %11s" % ("end-to-end median", "", "9.7000", "", "10.1000",
                                             "0.96")]
    text = bench_output([("zoo/net", "1,3,8,8", 1, 9.7, 9.6, 10.1, 1.0)]) + "\n".join(ops) + "\n"
    for name in ("runtime", "lower"):
      self.write(f"docs/figures/{name}.tsv", "a\nb\n")
    self.write("docs/figures/kernels.tsv",
               "# Hand rows.\nkernel\tcase\tAnvil\tONNX Runtime\tCPU\n"
               "SGEMM\t1024^3\t250 GFLOP/s\t-\tZen 5\n"
               "`Old` in zoo/net\tstale\t1 ms\t1 ms\tZen 4\n")
    for name in ("runtime", "lower", "kernels"):
      self.write(f"{name}/README.md",
                 f"<!-- figures:begin docs/figures/{name}.tsv -->\n<!-- figures:end -->\n")
    self.write("run.txt", text)
    status, _, err = self.run_main("--from-bench", os.path.join(self.root, "run.txt"), "--cpu",
                                   "a Zen 3 guest", "--command", "tools/bench_vs_ort.sh --ops")
    self.assertEqual((status, err), (0, ""))
    kernels = rt.parse_results(self.read("docs/figures/kernels.tsv"), "kernels")
    self.assertEqual((kernels.cpu, kernels.command), ("", ""))  # the rows carry theirs
    self.assertEqual(kernels.rows, [
        ["SGEMM", "1024^3", "250 GFLOP/s", "-", "Zen 5"],
        ["`Conv, FusedConv` in zoo/net", "op type, 1 thread: Anvil / ORT 0.89", "8 ms (83%)",
         "9 ms (90%)", "Zen 3"],
        ["`MaxPool` in zoo/net", "op type, 1 thread: Anvil / ORT 3.00", "1.5 ms (16%)",
         "0.5 ms (5%)", "Zen 3"]])  # Relu and ReorderInput: under 5% on both sides

  def test_a_quantized_section_replaces_the_int8_rows_alone(self):
    head = "%-22s %-14s %7s %12s %12s %10s %12s %10s" % (
        "quantized model", "x", "threads", "anvil ms", "ort ms", "anvil/ort", "fp32 ms",
        "int8/fp32")
    row = "%-22s %-14s %7d %12.4f %12.4f %10.2f %12s %10s  %s"
    text = "\n".join([
        "", head,
        row % ("zoo/net_qdq", "1,3,8,8", 1, 3.0, 2.0, 1.5, "6.0000", "0.50", "outputs agree"),
        row % ("zoo/enc_dynq", "8,4,8", 2, 1.0, 2.0, 0.5, "-", "-", "outputs agree"),
        "", "memory bandwidth (1 thread): STREAM-style triad 12.0 GB/s", ""])
    self.write("docs/figures/kernels.tsv",
               "kernel\tcase\tAnvil\tONNX Runtime\tCPU\n"
               "SGEMM\t1024^3\t250 GFLOP/s\t-\tZen 5\n"
               "`zoo/old_qdq` (int8 model)\tstale\t1 ms\t1 ms\tZen 4\n")
    self.write("kernels/README.md",
               "<!-- figures:begin docs/figures/kernels.tsv -->\n<!-- figures:end -->\n")
    self.write("run.txt", text)
    status, _, err = self.run_main("--from-bench", os.path.join(self.root, "run.txt"), "--cpu",
                                   "a Zen 2 guest", "--command", "tools/bench_vs_ort.sh")
    self.assertEqual((status, err), (0, ""))
    kernels = rt.parse_results(self.read("docs/figures/kernels.tsv"), "kernels")
    self.assertEqual(kernels.rows, [
        ["SGEMM", "1024^3", "250 GFLOP/s", "-", "Zen 5"],
        ["`zoo/net_qdq` (int8 model)", "batch 1, 1 thread: Anvil / ORT 1.50, int8 / fp32 0.50",
         "3 ms", "2 ms", "Zen 2"],
        ["`zoo/enc_dynq` (int8 model)", "batch 8, 2 threads: Anvil / ORT 0.50", "1 ms", "2 ms",
         "Zen 2"]])
    with self.assertRaisesRegex(rt.FormatError, r"run.txt:3: zoo/net_qdq 1,3,8,8: OUTPUTS"):
      rt.parse_bench(text.replace("outputs agree", "OUTPUTS DIFFER: x", 1), "run.txt")

  def test_bench_outputs_that_differ_are_not_imported(self):
    text = bench_output([("mlp", "1,256", 1, 0.1, 0.1, 0.2, 1.0)]).replace(
        "outputs agree", "compiled OUTPUTS DIFFER: max 1")
    with self.assertRaisesRegex(rt.FormatError, r"run.txt:2: mlp 1,256: compiled OUTPUTS DIFFER"):
      rt.parse_bench(text, "run.txt")

  def test_constprop_rows_are_replaced_by_case_and_laziness(self):
    results = rt.parse_results(
        "case\tmodel\tlaziness\tpeak RSS\t× (in + out)\ttarget\tpool peak\tfold\twrite\t"
        "ORT peak / Anvil's\nchain\tdescribed by hand\ton\t9\t9\t9\t9\t9\t9\t9\n", "c.tsv")
    line = "%-14s %-5s %5.2f GiB %7.2f %7.2f %4.2f GiB %8.1f %7.1f %7s %8s"
    output = "\n".join([line % ("chain", "on", 0.27, 0.14, 1.05, 0.0, 0.0, 4.5, "30.80", "ok"),
                        line % ("gather", "on", 1.02, 0.82, 1.05, 0.0, 0.1, 9.0, "-", "ok")])
    rt.import_constprop(output, "out", results)
    self.assertEqual(results.rows, [
        ["chain", "described by hand", "on", "0.27 GiB", "0.14", "1.05", "0.00 GiB", "0.0 s",
         "4.5 s", "30.80"],
        ["gather", "-", "on", "1.02 GiB", "0.82", "1.05", "0.00 GiB", "0.1 s", "9.0 s", "-"]])

  def test_einsum_rows_are_replaced_by_equation(self):
    results = rt.parse_results(
        "equation\tsizes\tafter the rewrite\t(a) ms\t(b) ms\t(a)/(b)\t(c) ms\n"
        "`bsnh,btnh->bnts` (ORT #5897)\tB8\tby hand\t1\t1\t1\t1\n", "e.tsv")
    line = "%-18s %-20s %-40s %10.3f %10.3f %8.2f %10.3f %9.2f  %s"
    output = "\n".join([
        line % ("case", "equation", "ops after rewrite", 0, 0, 0, 0, 0, "outputs"),
        line % ("ort5897", "bsnh,btnh->bnts", "2 Transpose, 1 MatMul", 3.12, 1.79, 1.74, 1.45,
                0.46, "agree"),
        "%-18s   plan cost %.4g multiply-adds + intermediates" % ("", 1e6),
        line % ("outer", "i,j->ij", "Reshape, Mul", 2.84, 1.5, 1.89, 6.03, 2.1, "agree")])
    rt.import_einsum(output, "out", results)
    self.assertEqual(results.rows, [
        ["`bsnh,btnh->bnts` (ORT #5897)", "B8", "by hand", "3.12", "1.79", "1.74", "1.45"],
        ["`i,j->ij`", "-", "Reshape, Mul", "2.84", "1.5", "1.89", "6.03"]])


if __name__ == "__main__":
  unittest.main()
