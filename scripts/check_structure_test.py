#!/usr/bin/env python3
"""Tests for check_structure.py: each rule fires on a small fake tree.

Run as `python3 scripts/check_structure_test.py`.
"""

import contextlib
import io
import os
import sys
import tempfile
import textwrap
import unittest

sys.dont_write_bytecode = True  # Leave no __pycache__ in the source tree.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import check_structure  # pylint: disable=g-import-not-at-top


def _class_source(name: str, body_lines: int) -> str:
  """A namespace-level class whose definition spans body_lines + 2 lines."""
  body = ''.join(f'  int field{i}_ = 0;\n' for i in range(body_lines))
  return (f'namespace anvil {{\n\nclass {name} {{\n{body}}};\n\n'
          '}  // namespace anvil\n')


class StructureTestCase(unittest.TestCase):
  """Builds a fake tree per test and runs the check on it."""

  def setUp(self):
    super().setUp()
    self._temp = tempfile.TemporaryDirectory()
    self.root = self._temp.name

  def tearDown(self):
    self._temp.cleanup()
    super().tearDown()

  def write(self, path: str, text: str = '') -> None:
    full = os.path.join(self.root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, 'w', encoding='utf-8') as handle:
      handle.write(textwrap.dedent(text))

  def check(self, allow_text: str = '') -> check_structure.Report:
    allow = check_structure.Allowlist.parse(allow_text)
    return check_structure.check(self.root, allow)

  def run_main(self, *args: str):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
      status = check_structure.main(['--root', self.root, *args])
    return status, out.getvalue()

  @staticmethod
  def pairs(violations):
    return sorted((v.source_name, v.target_name, v.kind) for v in violations)


class IncludeRuleTest(StructureTestCase):

  def test_clean_tree_passes(self):
    self.write('base/status.h')
    self.write('graph/ir.h', '#include "base/status.h"\n#include "absl/x.h"\n')
    self.write('runtime/session.cc', '#include "graph/ir.h"\n')
    report = self.check()
    self.assertEqual(report.violations(), 0)
    status, out = self.run_main()
    self.assertEqual(status, 0)
    self.assertTrue(out.endswith('structure: 0 violations\n'))

  def test_up_going_include_fires(self):
    self.write('graph/ir.h')
    self.write('base/status.cc', '// x\n#include "graph/ir.h"\n')
    report = self.check()
    self.assertEqual(self.pairs(report.includes), [('base', 'graph', 'up')])
    self.assertEqual(report.includes[0].include.line, 2)
    status, out = self.run_main()
    self.assertEqual(status, 1)
    self.assertIn('base -> graph  [up]', out)
    self.assertIn('base/status.cc:2', out)
    self.assertTrue(out.endswith('structure: 1 violations\n'))

  def test_sibling_outside_allowed_deps_fires(self):
    self.write('runtime/session.h')
    self.write('constprop/fold.cc', '#include "runtime/session.h"\n')
    report = self.check()
    self.assertEqual(self.pairs(report.includes),
                     [('constprop', 'runtime', 'not allowed')])

  def test_einsum_equation_is_in_shape_and_einsum_is_above_it(self):
    self.write('shape/einsum_equation.h')
    self.write('einsum/planner.h')
    self.write('kernels/einsum.cc', '#include "shape/einsum_equation.h"\n')
    self.write('kernels/bad.cc', '#include "einsum/planner.h"\n')
    self.write('shape/einsum_dims.h', '#include "shape/einsum_equation.h"\n')
    self.write('shape/bad.h', '#include "einsum/planner.h"\n')
    report = self.check()
    self.assertEqual(self.pairs(report.includes), [
        ('kernels', 'einsum', 'not allowed'),
        ('shape', 'einsum', 'up'),
    ])

  def test_leaf_parts_include_only_their_deps(self):
    self.write('base/macros.h')
    self.write('graph/ir.h')
    self.write('shape/einsum_equation.h')
    self.write('shape/einsum_equation.cc',
               '#include "shape/einsum_equation.h"\n#include "base/macros.h"\n')
    self.write('shape/index_expr.h', '#include "base/macros.h"\n')
    self.write('shape/index_expr_parse.cc',
               '#include "shape/index_expr.h"\n#include "graph/ir.h"\n')
    self.write('shape/tensor_info.cc',
               '#include "shape/index_expr.h"\n#include "graph/ir.h"\n')
    report = self.check()
    self.assertEqual(self.pairs(report.includes), [
        ('shape:einsum_equation', 'base', 'not allowed'),
        ('shape:index_expr', 'graph', 'not allowed'),
    ])

  def test_includes_in_comments_and_strings_are_ignored(self):
    self.write('graph/ir.h')
    self.write('base/doc.cc', textwrap.dedent('''\
        // #include "graph/ir.h"
        /*
        #include "graph/ir.h"
        */
        const char* kText = R"cc(
        #include "graph/ir.h"
        )cc";
        #include <graph/ir.h>
        '''))
    self.assertEqual(self.check().violations(), 0)

  def test_top_packages_may_include_anything(self):
    self.write('tools/opt.h')
    self.write('fuzz/fuzzer.cc', '#include "tools/opt.h"\n')
    self.assertEqual(self.check().violations(), 0)


class TestPlacementTest(StructureTestCase):

  def test_test_in_lower_package_fires_separately(self):
    self.write('exec/node_executor.h')
    self.write('kernels/ops/add_test.cc', '#include "exec/node_executor.h"\n')
    self.write('kernels/testing/util.h', '#include "exec/node_executor.h"\n')
    self.write('kernels/gemm_benchmark.cc', '#include "exec/node_executor.h"\n')
    report = self.check()
    self.assertEqual(report.includes, [])
    self.assertEqual(self.pairs(report.test_includes),
                     [('kernels', 'exec', 'up')] * 3)
    _, out = self.run_main()
    self.assertIn('Tests below the package they need: 3', out)

  def test_test_in_the_package_it_needs_passes(self):
    self.write('kernels/tensor.h')
    self.write('exec/node_executor_test.cc', '#include "kernels/tensor.h"\n')
    self.assertEqual(self.check().violations(), 0)


class CycleTest(StructureTestCase):

  def test_header_cycle_fires(self):
    self.write('graph/a.h', '#include "graph/b.h"\n')
    self.write('graph/b.h', '#include "graph/c.h"\n')
    self.write('graph/c.h', '#include "graph/a.h"\n')
    report = self.check()
    self.assertEqual(len(report.file_cycles), 1)
    members, edges = report.file_cycles[0]
    self.assertEqual(members, ['graph/a', 'graph/b', 'graph/c'])
    self.assertEqual([(a, b) for a, b, _ in edges],
                     [('graph/a', 'graph/b'), ('graph/b', 'graph/c'),
                      ('graph/c', 'graph/a')])

  def test_cc_and_header_pair_is_one_unit(self):
    self.write('lower/ir/expr.h')
    self.write('lower/ir/expr.cc',
               '#include "lower/ir/expr.h"\n#include "lower/ir/printer.h"\n')
    self.write('lower/ir/printer.h', '#include "lower/ir/expr.h"\n')
    self.write('lower/ir/printer.cc', '#include "lower/ir/printer.h"\n')
    report = self.check()
    self.assertEqual([m for m, _ in report.file_cycles],
                     [['lower/ir/expr', 'lower/ir/printer']])
    self.write('lower/ir/expr.cc', '#include "lower/ir/expr.h"\n')
    self.assertEqual(self.check().file_cycles, [])

  def test_long_chain_does_not_recurse(self):
    count = 20000  # Far deeper than Python's recursion limit.
    graph = {f'n{i}': {f'n{(i + 1) % count}'} for i in range(count)}
    graph['tail'] = {'n0'}
    components = check_structure.strongly_connected_components(graph)
    self.assertEqual(len(components), 1)
    self.assertEqual(len(components[0]), count)
    cycle = check_structure.shortest_cycle(graph, components[0])
    self.assertEqual(len(cycle), count + 1)

  def test_package_cycle_fires(self):
    self.write('shape/dims.h', '#include "einsum/equation.h"\n')
    self.write('einsum/equation.h')
    self.write('einsum/planner.h', '#include "shape/dims.h"\n')
    report = self.check()
    self.assertEqual([m for m, _ in report.package_cycles],
                     [['einsum', 'shape']])
    self.assertEqual(len(report.file_cycles), 0)

  def test_test_includes_make_no_package_cycle(self):
    self.write('kernels/tensor.h')
    self.write('exec/executor.h', '#include "kernels/tensor.h"\n')
    self.write('kernels/add_test.cc', '#include "exec/executor.h"\n')
    report = self.check()
    self.assertEqual(report.package_cycles, [])
    self.assertEqual(len(report.test_includes), 1)


class SizeTest(StructureTestCase):

  def test_big_production_file_fires(self):
    self.write('graph/big.cc', '// line\n' * 1001)
    self.write('graph/ok.cc', '// line\n' * 1000)
    self.write('graph/big_test.cc', '// line\n' * 2000)
    self.write('graph/testdata/gen.cc', '// line\n' * 2000)
    self.write('graph/testing/helper.cc', '// line\n' * 2000)
    report = self.check()
    self.assertEqual(report.big_files, [('graph/big.cc', 1001, None)])

  def test_big_class_fires(self):
    self.write('lower/ir/parser.cc', _class_source('Parser', 600))
    self.write('lower/ir/small.cc', _class_source('Small', 598))
    report = self.check()
    self.assertEqual(report.big_classes,
                     [('lower/ir/parser.cc:Parser', 3, 602, None)])

  def test_braces_in_comments_and_literals_do_not_confuse(self):
    tricky = textwrap.dedent('''\
        namespace anvil {
        // A comment with a closing brace }
        /* and } a block { comment } */
        struct Header {
          const char* open = "{ not a brace";
          const char* close = "}}}";
          char brace = '}';
          char quote = '\\'';
          const char* raw = R"x(}" ) }})x";
          int digits = 1'000'000;
        ''')
    body = ''.join(f'  int f{i} = 0;  // }}\n' for i in range(600))
    tail = '};\n\nstruct After { int x; };\n}  // namespace anvil\n'
    self.write('graph/tricky.h', tricky + body + tail)
    report = self.check()
    self.assertEqual([(k, first, size) for k, first, size, _ in
                      report.big_classes],
                     [('graph/tricky.h:Header', 4, 608)])

  def test_enum_class_functions_and_nested_classes_are_not_counted(self):
    lines = ['namespace anvil {', 'enum class Kind {']
    lines += [f'  k{i},' for i in range(700)]
    lines += ['};', 'struct Foo* MakeFoo() {']
    lines += ['  struct Local { int x; };'] + ['  int y = 0;'] * 700
    lines += ['  return nullptr;', '}', '}  // namespace anvil']
    self.write('graph/misc.cc', '\n'.join(lines) + '\n')
    report = self.check()
    self.assertEqual(report.big_classes, [])


class AllowlistTest(StructureTestCase):

  def make_violations(self):
    self.write('graph/ir.h')
    self.write('base/status.cc', '#include "graph/ir.h"\n')
    self.write('graph/a.h', '#include "graph/b.h"\n')
    self.write('graph/b.h', '#include "graph/a.h"\n')
    self.write('graph/big.cc', '// line\n' * 1200)
    self.write('graph/cls.cc', _class_source('Big', 700))

  def test_allowlist_suppresses_violations(self):
    self.make_violations()
    self.assertEqual(self.check().violations(), 4)
    allow = textwrap.dedent('''\
        # Known violations.
        base/status.cc -> graph/ir.h
        graph/b.h -> graph/a.h   # breaks the cycle
        size graph/big.cc 1200
        size graph/cls.cc:Big
        ''')
    report = self.check(allow)
    self.assertEqual(report.violations(), 0)
    self.assertEqual(report.unused_allow, [])

  def test_allowlist_by_package_pair(self):
    self.make_violations()
    report = self.check('base -> graph\n')
    self.assertEqual(report.includes, [])

  def test_size_entry_with_max_still_fires_when_exceeded(self):
    self.write('graph/big.cc', '// line\n' * 1200)
    report = self.check('size graph/big.cc 1100\n')
    self.assertEqual(report.big_files, [('graph/big.cc', 1200, 1100)])

  def test_unused_entries_are_listed_and_strict_counts_them(self):
    self.write('base/a.h')
    allow_path = os.path.join(self.root, 'allow.txt')
    with open(allow_path, 'w', encoding='utf-8') as handle:
      handle.write('base -> graph\n')
    status, out = self.run_main('--allow', allow_path)
    self.assertEqual(status, 0)
    self.assertIn('match nothing', out)
    status, out = self.run_main('--allow', allow_path, '--strict-allow')
    self.assertEqual(status, 1)

  def test_bad_allowlist_line_is_an_error(self):
    with self.assertRaises(ValueError):
      check_structure.Allowlist.parse('nonsense here\n')


class OutputTest(StructureTestCase):

  def test_summary_and_dot(self):
    self.write('graph/ir.h')
    self.write('base/status.cc', '#include "graph/ir.h"\n')
    self.write('shape/dims.h', '#include "graph/ir.h"\n')
    dot_path = os.path.join(self.root, 'packages.dot')
    status, out = self.run_main('--summary', '--dot', dot_path)
    self.assertEqual(status, 1)
    self.assertIn('up-going includes: 1', out)
    self.assertNotIn('base/status.cc', out)
    self.assertTrue(out.endswith('structure: 1 violations\n'))
    with open(dot_path, encoding='utf-8') as handle:
      dot = handle.read()
    self.assertIn('"base" -> "graph" [label="1", color=red', dot)
    self.assertIn('"shape" -> "graph" [label="1"]', dot)

  def test_skips_bazel_and_hidden_dirs(self):
    self.write('graph/ir.h')
    self.write('base/bazel-out/x.cc', '#include "graph/ir.h"\n')
    self.write('base/.cache/x.cc', '#include "graph/ir.h"\n')
    self.write('base/external/x.cc', '#include "graph/ir.h"\n')
    self.assertEqual(self.check().violations(), 0)


if __name__ == '__main__':
  unittest.main()
