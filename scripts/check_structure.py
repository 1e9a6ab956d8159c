#!/usr/bin/env python3
"""Checks the Anvil source tree against the package layering of ARCHITECTURE.md.

The layering lives in the "Packages and their dependencies" section of
docs/ARCHITECTURE.md (next to this repository, in ../shared/docs). This script
encodes that section in `DIRECT_DEPS` and `PARTS` below and checks the C++
sources (`*.cc`, `*.h`, `*.inc`) of the top-level packages against it.

Contract:
  * Input: a source tree (`--root`, default: the repository holding this
    script). Only quoted includes (`#include "..."`) whose first path component
    is a package of the tree (or that resolve relative to the including file)
    are considered; <...> includes and third-party headers (absl/, onnx/, hwy/,
    google/, gtest/, gmock/, benchmark/, pybind11/) are ignored. Includes inside
    comments and string literals (raw strings included) are ignored.
  * Rules, each violation counted once:
      - include: a production file of package P includes a header of package Q
        that P may not use: Q is above P in the layer order ("up") or Q is not
        in the transitive closure of P's documented dependencies ("not
        allowed", e.g. a sibling such as constprop -> runtime). Sub-libraries
        the doc singles out are checked too: `shape:index_expr` (IndexExpr, only
        base) and `shape:einsum_equation` (the Einsum equation, a leaf, absl
        only); `kernels` may use shape but no part of einsum.
      - test include: the same rule for tests (`*_test.cc`, `*_test.h`,
        `*_test_util.*`, `*_benchmark*.cc`, anything under a `testing/`
        directory): tests live with the package they need, not below it.
      - include cycle: a strongly connected component of more than one logical
        unit in the file include graph (`foo.h`, `foo.cc` and `foo-inl.h` are
        one unit `foo`), one violation per component.
      - package cycle: a strongly connected component of the package graph
        built from production includes, one violation per component.
      - big file: a production file (not a test, benchmark or testdata) over
        1,000 lines.
      - big class: a class/struct defined at namespace level in a production
        file whose body spans more than 600 lines.
  * Allowlist (`--allow FILE`), one entry per line, `#` starts a comment:
        FROM -> TO        an include (or a group of includes) that is known;
                          it is neither reported nor part of any graph used for
                          cycle detection. FROM/TO are a file path, a package,
                          a part (`shape:einsum_equation`) or an fnmatch pattern.
        size PATH [MAX]   a known big file; with MAX it may not grow beyond.
        size PATH:CLASS [MAX]  the same for a class.
    Entries that match nothing are listed so that the list only shrinks
    (`--strict-allow` counts them as violations).
  * Output: a report on stdout whose last line is `structure: N violations`;
    exit status 1 if N > 0, 0 otherwise, 2 on a usage error. `--summary`
    prints only the counts per category; `--dot FILE` writes the package
    include graph (edge label = production includes, plus tests) as Graphviz.

Standard library only; the whole tree takes well under a second.
"""

import argparse
import bisect
import collections
import dataclasses
import fnmatch
import os
import re
import sys
import time
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

# ---------------------------------------------------------------------------
# The layering, from ARCHITECTURE.md "Packages and their dependencies".

# Low to high. A package may never include a package later in this tuple.
LAYER_ORDER = ('base', 'graph', 'shape', 'einsum', 'kernels', 'exec',
               'runtime', 'constprop', 'lower', 'python', 'tools')
# Above everything: may include any package.
TOP_PACKAGES = ('testdata', 'fuzz', 'examples')
PACKAGES = LAYER_ORDER + TOP_PACKAGES

# The documented direct dependencies ("P <- ..."); a package may include its
# own headers and anything in the transitive closure of this list. External
# libraries (abseil, protobuf, onnx, Highway) are not listed.
DIRECT_DEPS = {
    'base': (),
    'graph': ('base',),
    # "shape <- graph ... (shape never includes einsum)".
    'shape': ('graph',),
    'einsum': ('graph', 'shape'),
    # "kernels <- graph, shape, (einsum:equation), Highway": the equation
    # library lives in shape (shape:einsum_equation, below) so that the Einsum
    # shape rule reads it without shape including einsum.
    'kernels': ('graph', 'shape'),
    'exec': ('graph', 'shape', 'kernels'),
    # "runtime <- exec ... (links no passes)".
    'runtime': ('exec',),
    'constprop': ('exec',),
    'lower': ('exec', 'runtime'),
    # "python <- runtime, lower, passes": the passes are graph's, shape
    # inference, constprop and einsum-decompose.
    'python': ('runtime', 'lower', 'constprop', 'einsum'),
    'tools': tuple(p for p in LAYER_ORDER if p != 'tools'),
}

# Sub-libraries with a narrower rule than their package: name -> (path
# patterns, direct deps). Their files may include each other and their deps.
PARTS = {
    # "IndexExpr (only base)".
    'shape:index_expr': (('shape/index_expr.*', 'shape/index_expr_*.*'),
                         ('base',)),
    # "equation (leaf)", "//einsum:equation: a leaf library (absl only)",
    # which is //shape:einsum_equation in the tree.
    'shape:einsum_equation': (('shape/einsum_equation.*',), ()),
}

# First path components of includes that are never ours.
EXTERNAL_PREFIXES = frozenset((
    'absl', 'onnx', 'hwy', 'google', 'gtest', 'gmock', 'benchmark',
    'pybind11', 'Python.h', 'protobuf'))

SOURCE_SUFFIXES = ('.cc', '.h', '.inc')
SKIPPED_DIRS = frozenset(('external', 'node_modules', '__pycache__'))
MAX_FILE_LINES = 1000
MAX_CLASS_LINES = 600
EXAMPLES_PER_GROUP = 3

_TEST_NAME_RE = re.compile(
    r'(?:_test(?:_util)?\.(?:cc|h)|_test_util\.\w+|_benchmark(?:_\w+)?\.cc)$')


def _dependency_closure() -> Dict[str, Set[str]]:
  """Returns, per package and part, every package/part it may include."""
  deps = dict(DIRECT_DEPS)
  for part, (_, part_deps) in PARTS.items():
    deps[part] = part_deps
  closure: Dict[str, Set[str]] = {}

  def visit(name: str) -> Set[str]:
    if name in closure:
      return closure[name]
    closure[name] = set()  # The doc has no cycles; this ends any anyway.
    result = set()
    for dep in deps.get(name, ()):
      result.add(dep)
      result |= visit(dep)
    closure[name] = result
    return result

  for name in deps:
    visit(name)
  for top in TOP_PACKAGES:
    closure[top] = set(PACKAGES) | set(PARTS)
  return closure


ALLOWED = _dependency_closure()


def layer_rank(package: str) -> int:
  """Position of `package` in the layer order; top packages rank highest."""
  if package in LAYER_ORDER:
    return LAYER_ORDER.index(package)
  return len(LAYER_ORDER)


def part_of(path: str) -> Optional[str]:
  """Returns the part (`shape:einsum_equation`) a repository path belongs to."""
  for part, (patterns, _) in PARTS.items():
    if any(fnmatch.fnmatchcase(path, p) for p in patterns):
      return part
  return None


def is_test_file(path: str) -> bool:
  """Tests, test helpers and benchmarks."""
  parts = path.split('/')
  return 'testing' in parts[:-1] or bool(_TEST_NAME_RE.search(parts[-1]))


def is_production_file(path: str) -> bool:
  """Not a test, benchmark or testdata."""
  return not is_test_file(path) and 'testdata' not in path.split('/')[:-1] \
      and path.split('/')[0] != 'testdata'


def unit_of(path: str) -> str:
  """The logical unit of a file: foo.h, foo.cc and foo-inl.h are `foo`."""
  stem = path.rsplit('.', 1)[0]
  if stem.endswith('-inl'):
    stem = stem[:-len('-inl')]
  return stem


# ---------------------------------------------------------------------------
# Lexing: includes, and a copy of the text without comments and literals.

# One pass over a file finds, in order: preprocessor directives (at a line
# start), comments, raw strings, strings and character literals. Whatever
# comes first wins, so an #include inside a comment or a raw string is never
# seen as a directive and a brace in a literal is never seen as code. The
# leading lookahead lets the engine skip ordinary code one character test at a
# time; a directive is matched from the newline before it (`lex` prepends one).
_TOKEN_RE = re.compile(
    r'(?=[\n/"\'RuUL])(?:'
    r'(?P<directive>\n[ \t]*\#(?:[^\n\\]|\\.)*)'
    r'|(?P<block>/\*.*?(?:\*/|\Z))'
    r'|(?P<line>//(?:[^\n\\]|\\.)*)'
    r'|(?P<raw>(?<![A-Za-z0-9_])(?:u8|u|U|L)?R"'
    r'(?P<delim>[^()\\ \t\n"]{0,16})\(.*?\)(?P=delim)")'
    r'|(?P<string>"(?:[^"\\\n]|\\.)*"?)'
    r'|(?P<char>(?<![A-Za-z0-9_])(?:u8|u|U|L)?\'(?:[^\'\\\n]|\\.)*\'?))',
    re.DOTALL)
_INCLUDE_RE = re.compile(r'\s*\#[ \t]*include[ \t]*"([^"\n]+)"')


def _blank(text: str) -> str:
  """Replaces every character but newlines with a space."""
  if '\n' not in text:
    return ' ' * len(text)
  return '\n'.join(' ' * len(line) for line in text.split('\n'))


def lex(text: str, want_code: bool) -> Tuple[List[Tuple[int, str]], str]:
  """Returns ([(line, quoted include)], code with comments/literals blanked).

  Preprocessor lines are blanked too. The code is '' unless `want_code`.
  """
  text = '\n' + text
  includes = []
  pieces = []
  last = 0
  line = 0
  line_counted_to = 0
  for match in _TOKEN_RE.finditer(text):
    if match.lastgroup == 'directive':
      include = _INCLUDE_RE.match(match.group())
      if include:
        # The match starts at the newline that ends the previous line.
        line += text.count('\n', line_counted_to, match.start() + 1)
        line_counted_to = match.start() + 1
        includes.append((line, include.group(1)))
    if want_code:
      pieces.append(text[last:match.start()])
      pieces.append(_blank(match.group()))
      last = match.end()
  if not want_code:
    return includes, ''
  pieces.append(text[last:])
  return includes, ''.join(pieces)[1:]


# ---------------------------------------------------------------------------
# Class sizes.

_NAMESPACE_HEAD_RE = re.compile(
    r'(?:^|[\s;])(?:inline\s+)?namespace(?:\s+[\w:]+)?\s*'
    r'(?:\[\[[^\]]*\]\]\s*)?$'
    r'|(?:^|\s)extern\s*$')
_CLASS_KEYWORD_RE = re.compile(r'\b(class|struct)\b')
_CLASS_TAIL_RE = re.compile(
    r'\s*(?:(?:\[\[.*?\]\]|alignas\s*\([^)]*\)|__attribute__\s*\(\(.*?\)\)'
    r'|[A-Z][A-Z0-9_]*_EXPORT)\s*)*'
    r'(?P<name>[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)\s*'
    r'(?:<[^;{}]*>\s*)?(?:final\s*)?(?::[^;{}]*)?$',
    re.DOTALL)


def _class_head(head: str) -> Optional[Tuple[str, int]]:
  """(name, keyword offset) if `head`, the text before a '{', opens a class."""
  keywords = list(_CLASS_KEYWORD_RE.finditer(head))
  if not keywords:
    return None
  keyword = keywords[-1]
  if re.search(r'\benum\s*$', head[:keyword.start()]):
    return None
  tail = _CLASS_TAIL_RE.match(head, keyword.end())
  if not tail:
    return None
  # A base clause may not contain a call or an assignment ("struct X f() {").
  rest = head[tail.end('name'):]
  if '(' in rest.split(':', 1)[0] or '=' in rest:
    return None
  return re.sub(r'\s+', '', tail.group('name')), keyword.start()


def find_classes(code: str) -> List[Tuple[str, int, int]]:
  """Returns (name, first line, last line) of namespace-level classes.

  `code` is the output of `lex`: comments, literals and preprocessor lines
  blanked, so every brace left is a real one.
  """
  line_starts = [0] + [m.end() for m in re.finditer('\n', code)]
  # Stack of (kind, name, offset of the class keyword).
  stack: List[Tuple[str, str, int]] = []
  classes = []
  head_start = 0
  for match in re.finditer(r'[{};]', code):
    char = match.group()
    pos = match.start()
    if char == '{':
      head_base = max(head_start, pos - 2000)
      head = code[head_base:pos]
      at_namespace_level = all(kind == 'namespace' for kind, _, _ in stack)
      kind, name, start = 'block', '', pos
      if _NAMESPACE_HEAD_RE.search(head):
        kind = 'namespace'
      elif at_namespace_level:
        class_head = _class_head(head)
        if class_head:
          kind, name, start = 'class', class_head[0], head_base + class_head[1]
      stack.append((kind, name, start))
    elif char == '}':
      if stack:
        kind, name, start = stack.pop()
        if kind == 'class':
          first = bisect.bisect_right(line_starts, start)
          last = bisect.bisect_right(line_starts, pos)
          classes.append((name, first, last))
    head_start = match.end()
  return classes


# ---------------------------------------------------------------------------
# The tree.


@dataclasses.dataclass(frozen=True)
class Include:
  """One quoted include of a repository header."""
  source: str  # Including file, relative to the root.
  line: int
  spelled: str  # As written between the quotes.
  target: str  # Repository path it resolves to (may not exist).
  exists: bool

  @property
  def source_package(self) -> str:
    return self.source.split('/', 1)[0]

  @property
  def target_package(self) -> str:
    return self.target.split('/', 1)[0]

  def location(self) -> str:
    return f'{self.source}:{self.line}'


@dataclasses.dataclass
class SourceFile:
  path: str
  lines: int
  includes: List[Include]
  classes: List[Tuple[str, int, int]]


def walk_sources(root: str) -> List[str]:
  """Repository paths of the C++ sources of the top-level packages."""
  paths = []
  for package in PACKAGES:
    top = os.path.join(root, package)
    if not os.path.isdir(top) or os.path.islink(top):
      continue
    for directory, dirs, files in os.walk(top):
      dirs[:] = sorted(
          d for d in dirs
          if not d.startswith(('.', 'bazel-')) and d not in SKIPPED_DIRS
          and not os.path.islink(os.path.join(directory, d)))
      rel = os.path.relpath(directory, root).replace(os.sep, '/')
      for name in sorted(files):
        if name.endswith(SOURCE_SUFFIXES):
          paths.append(f'{rel}/{name}')
  return paths


def resolve(root: str, source: str, spelled: str,
            known: Set[str]) -> Optional[Tuple[str, bool]]:
  """Returns (repository path, exists) of a quoted include, None if external."""
  first = spelled.split('/', 1)[0]
  if first in EXTERNAL_PREFIXES:
    return None
  if spelled in known:
    return spelled, True
  local = os.path.normpath(
      os.path.join(os.path.dirname(source), spelled)).replace(os.sep, '/')
  if local in known:
    return local, True
  if first in PACKAGES and os.path.isdir(os.path.join(root, first)):
    return spelled, os.path.exists(os.path.join(root, spelled))
  return None


def scan_tree(root: str) -> List[SourceFile]:
  """Lexes every source file of the tree."""
  paths = walk_sources(root)
  known = set(paths)
  files = []
  for path in paths:
    with open(os.path.join(root, path), encoding='utf-8',
              errors='replace') as handle:
      text = handle.read()
    lines = text.count('\n') + (0 if not text or text.endswith('\n') else 1)
    # Only a file longer than the class limit can hold a too-big class.
    want_code = lines > MAX_CLASS_LINES and is_production_file(path)
    raw_includes, code = lex(text, want_code)
    includes = []
    for line, spelled in raw_includes:
      resolved = resolve(root, path, spelled, known)
      if resolved:
        includes.append(Include(path, line, spelled, resolved[0], resolved[1]))
    classes = find_classes(code) if want_code else []
    files.append(SourceFile(path, lines, includes, classes))
  return files


# ---------------------------------------------------------------------------
# Allowlist.


@dataclasses.dataclass
class AllowEntry:
  line: int
  text: str
  kind: str  # 'include' or 'size'.
  source: str = ''
  target: str = ''
  max_lines: Optional[int] = None
  used: bool = False


def _name_matches(pattern: str, path: str) -> bool:
  """Whether an allowlist side matches a file path."""
  if pattern == path or fnmatch.fnmatchcase(path, pattern):
    return True
  if pattern == path.split('/', 1)[0]:
    return True
  if ':' in pattern and part_of(path) == pattern:
    return True
  return pattern.endswith('/') and path.startswith(pattern)


class Allowlist:
  """Known violations, see the module docstring for the format."""

  def __init__(self, entries: Sequence[AllowEntry] = ()):
    self.entries = list(entries)

  @classmethod
  def parse(cls, text: str) -> 'Allowlist':
    entries = []
    for number, raw in enumerate(text.splitlines(), 1):
      line = raw.split('#', 1)[0].strip()
      if not line:
        continue
      if '->' in line:
        source, target = (s.strip() for s in line.split('->', 1))
        if not source or not target:
          raise ValueError(f'allowlist line {number}: expected FROM -> TO')
        entries.append(AllowEntry(number, line, 'include', source, target))
        continue
      words = line.split()
      if words[0] == 'size' and len(words) in (2, 3):
        max_lines = None
        if len(words) == 3:
          if not words[2].isdigit():
            raise ValueError(f'allowlist line {number}: MAX must be a number')
          max_lines = int(words[2])
        entries.append(AllowEntry(number, line, 'size', words[1],
                                  max_lines=max_lines))
        continue
      raise ValueError(f'allowlist line {number}: cannot parse {raw!r}')
    return cls(entries)

  def allows_include(self, include: Include) -> bool:
    allowed = False
    for entry in self.entries:
      if (entry.kind == 'include'
          and _name_matches(entry.source, include.source)
          and (_name_matches(entry.target, include.target)
               or entry.target == include.spelled)):
        entry.used = True
        allowed = True
    return allowed

  def size_limit(self, name: str) -> Optional[Tuple[AllowEntry, Optional[int]]]:
    """(entry, MAX or None) if `name` (path or path:Class) is allowlisted."""
    for entry in self.entries:
      if entry.kind == 'size' and (entry.source == name or
                                   fnmatch.fnmatchcase(name, entry.source)):
        return entry, entry.max_lines
    return None

  def unused(self) -> List[AllowEntry]:
    return [e for e in self.entries if not e.used]


# ---------------------------------------------------------------------------
# Graph algorithms.


def strongly_connected_components(
    graph: Dict[str, Iterable[str]]) -> List[List[str]]:
  """Tarjan's algorithm without recursion; components of 2+ nodes, sorted."""
  index: Dict[str, int] = {}
  lowlink: Dict[str, int] = {}
  on_stack: Set[str] = set()
  stack: List[str] = []
  components = []
  counter = 0
  nodes = sorted(set(graph) | {t for ts in graph.values() for t in ts})
  successors = {n: sorted(graph.get(n, ())) for n in nodes}
  for start in nodes:
    if start in index:
      continue
    work = [(start, 0)]
    while work:
      node, child = work.pop()
      if child == 0:
        index[node] = lowlink[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
      recurse = False
      children = successors[node]
      while child < len(children):
        succ = children[child]
        child += 1
        if succ not in index:
          work.append((node, child))
          work.append((succ, 0))
          recurse = True
          break
        if succ in on_stack:
          lowlink[node] = min(lowlink[node], index[succ])
      if recurse:
        continue
      if lowlink[node] == index[node]:
        component = []
        while True:
          member = stack.pop()
          on_stack.discard(member)
          component.append(member)
          if member == node:
            break
        if len(component) > 1:
          components.append(sorted(component))
      if work:
        parent = work[-1][0]
        lowlink[parent] = min(lowlink[parent], lowlink[node])
  return sorted(components, key=lambda c: (-len(c), c))


def shortest_cycle(graph: Dict[str, Iterable[str]],
                   component: Sequence[str]) -> List[str]:
  """A shortest cycle through component[0] inside the component."""
  members = set(component)
  start = component[0]
  parents = {start: None}
  queue = collections.deque([start])
  while queue:
    node = queue.popleft()
    for succ in sorted(graph.get(node, ())):
      if succ not in members:
        continue
      if succ == start:
        path = [node]
        while parents[path[-1]] is not None:
          path.append(parents[path[-1]])
        return list(reversed(path)) + [start]
      if succ not in parents:
        parents[succ] = node
        queue.append(succ)
  return list(component) + [start]


# ---------------------------------------------------------------------------
# The checks.


@dataclasses.dataclass
class IncludeViolation:
  include: Include
  source_name: str  # Package or part of the including file.
  target_name: str  # Package or part of the included header.
  kind: str  # 'up' or 'not allowed'.
  is_test: bool


@dataclasses.dataclass
class Report:
  """Everything the check found."""
  files: int = 0
  lines: int = 0
  includes: List[IncludeViolation] = dataclasses.field(default_factory=list)
  test_includes: List[IncludeViolation] = dataclasses.field(
      default_factory=list)
  # Each cycle: (members, [(from, to, example Include)]).
  file_cycles: List[Tuple[List[str], List[Tuple[str, str, Include]]]] = \
      dataclasses.field(default_factory=list)
  package_cycles: List[Tuple[List[str], List[Tuple[str, str, int]]]] = \
      dataclasses.field(default_factory=list)
  big_files: List[Tuple[str, int, Optional[int]]] = dataclasses.field(
      default_factory=list)
  big_classes: List[Tuple[str, int, int, Optional[int]]] = dataclasses.field(
      default_factory=list)
  unused_allow: List[AllowEntry] = dataclasses.field(default_factory=list)
  # Package graph: (from, to) -> [production count, test count, violations].
  package_edges: Dict[Tuple[str, str], List[int]] = dataclasses.field(
      default_factory=dict)
  strict_allow: bool = False

  def counts(self) -> Dict[str, int]:
    counts = collections.OrderedDict()
    counts['up-going includes'] = len(self.includes)
    counts['test includes'] = len(self.test_includes)
    counts['include cycles'] = len(self.file_cycles)
    counts['package cycles'] = len(self.package_cycles)
    counts['big files'] = len(self.big_files)
    counts['big classes'] = len(self.big_classes)
    if self.strict_allow:
      counts['unused allowlist entries'] = len(self.unused_allow)
    return counts

  def violations(self) -> int:
    return sum(self.counts().values())


def check_include(include: Include,
                  is_test: bool) -> Optional[IncludeViolation]:
  """Returns the violation `include` is, or None if the layering allows it."""
  source_pkg = include.source_package
  target_pkg = include.target_package
  if source_pkg not in PACKAGES or target_pkg not in PACKAGES:
    return None
  source_part = None if is_test else part_of(include.source)
  target_part = part_of(include.target)
  if source_part:
    if target_part == source_part:
      return None
    allowed = ALLOWED[source_part]
    source_name = source_part
  else:
    if target_pkg == source_pkg:
      return None
    allowed = ALLOWED.get(source_pkg, set())
    source_name = source_pkg
  if target_pkg in allowed or (target_part and target_part in allowed):
    return None
  target_name = target_part or target_pkg
  if source_part and target_pkg == source_pkg:
    kind = 'not allowed'
  elif layer_rank(target_pkg) > layer_rank(source_pkg):
    kind = 'up'
  else:
    kind = 'not allowed'
  return IncludeViolation(include, source_name, target_name, kind, is_test)


def check(root: str, allow: Optional[Allowlist] = None,
          strict_allow: bool = False) -> Report:
  """Runs every rule over the tree at `root`."""
  allow = allow or Allowlist()
  files = scan_tree(root)
  report = Report(files=len(files), lines=sum(f.lines for f in files),
                  strict_allow=strict_allow)
  unit_graph: Dict[str, Set[str]] = collections.defaultdict(set)
  unit_examples: Dict[Tuple[str, str], Include] = {}
  package_graph: Dict[str, Set[str]] = collections.defaultdict(set)
  package_counts: Dict[Tuple[str, str], int] = collections.Counter()

  for source in files:
    is_test = is_test_file(source.path)
    for include in source.includes:
      violation = check_include(include, is_test)
      edge = (include.source_package, include.target_package)
      if edge[0] != edge[1] and edge[1] in PACKAGES:
        counts = report.package_edges.setdefault(edge, [0, 0, 0])
        counts[1 if is_test else 0] += 1
        if violation:
          counts[2] += 1
      if allow.allows_include(include):
        continue
      if violation:
        (report.test_includes if is_test else report.includes).append(
            violation)
      if include.exists:
        units = (unit_of(include.source), unit_of(include.target))
        if units[0] != units[1]:
          unit_graph[units[0]].add(units[1])
          unit_examples.setdefault(units, include)
      if not is_test and edge[0] != edge[1] and edge[1] in PACKAGES:
        package_graph[edge[0]].add(edge[1])
        package_counts[edge] += 1

    if is_production_file(source.path):
      limit = None
      if source.lines > MAX_FILE_LINES:
        allowed = allow.size_limit(source.path)
        if allowed:
          allowed[0].used = True
          limit = allowed[1]
        if not allowed or (limit is not None and source.lines > limit):
          report.big_files.append((source.path, source.lines, limit))
      for name, first, last in source.classes:
        size = last - first + 1
        if size <= MAX_CLASS_LINES:
          continue
        key = f'{source.path}:{name}'
        allowed = allow.size_limit(key)
        limit = None
        if allowed:
          allowed[0].used = True
          limit = allowed[1]
        if not allowed or (limit is not None and size > limit):
          report.big_classes.append((key, first, size, limit))

  for component in strongly_connected_components(unit_graph):
    cycle = shortest_cycle(unit_graph, component)
    edges = [(a, b, unit_examples[(a, b)]) for a, b in zip(cycle, cycle[1:])]
    report.file_cycles.append((component, edges))
  for component in strongly_connected_components(package_graph):
    members = set(component)
    edges = sorted((a, b, n) for (a, b), n in package_counts.items()
                   if a in members and b in members)
    report.package_cycles.append((component, edges))
  report.big_files.sort(key=lambda f: -f[1])
  report.big_classes.sort(key=lambda c: -c[2])
  report.unused_allow = allow.unused()
  return report


# ---------------------------------------------------------------------------
# Output.


def _format_include_groups(violations: Sequence[IncludeViolation],
                           out: List[str]) -> None:
  groups: Dict[Tuple[str, str, str], List[IncludeViolation]] = \
      collections.defaultdict(list)
  for violation in violations:
    groups[(violation.source_name, violation.target_name,
            violation.kind)].append(violation)
  order = sorted(groups.items(), key=lambda g: (-len(g[1]), g[0]))
  for (source, target, kind), group in order:
    files = len({v.include.source for v in group})
    out.append(f'  {source} -> {target}  [{kind}]  {len(group)} include(s) '
               f'in {files} file(s)')
    for violation in group[:EXAMPLES_PER_GROUP]:
      out.append(f'      {violation.include.location()}  '
                 f'"{violation.include.spelled}"')
    if len(group) > EXAMPLES_PER_GROUP:
      out.append(f'      ... {len(group) - EXAMPLES_PER_GROUP} more')


def format_report(report: Report, root: str, seconds: float,
                  summary: bool) -> str:
  """The text report; its last line is `structure: N violations`."""
  out = [f'structure check of {root}: {report.files} files, '
         f'{report.lines} lines, {seconds:.2f} s']
  if summary:
    for name, count in report.counts().items():
      out.append(f'  {name}: {count}')
  else:
    out.append('')
    out.append(f'== Includes that go up or outside the allowed deps '
               f'(production): {len(report.includes)} ==')
    _format_include_groups(report.includes, out)
    out.append('')
    out.append(f'== Tests below the package they need: '
               f'{len(report.test_includes)} ==')
    _format_include_groups(report.test_includes, out)
    out.append('')
    out.append(f'== Include cycles (units: foo.h + foo.cc): '
               f'{len(report.file_cycles)} ==')
    for members, edges in report.file_cycles:
      shown = ', '.join(members[:8]) + (' ...' if len(members) > 8 else '')
      out.append(f'  {len(members)} units: {shown}')
      for _, target, include in edges:
        out.append(f'      {include.location()} -> {target}'
                   f'  ("{include.spelled}")')
    out.append('')
    out.append(f'== Package cycles (production includes): '
               f'{len(report.package_cycles)} ==')
    for members, edges in report.package_cycles:
      out.append(f'  {" <-> ".join(members)}')
      for source, target, count in edges:
        out.append(f'      {source} -> {target}: {count}')
    out.append('')
    out.append(f'== Production files over {MAX_FILE_LINES} lines: '
               f'{len(report.big_files)} ==')
    for path, lines, limit in report.big_files:
      note = f'  (allowlisted up to {limit})' if limit is not None else ''
      out.append(f'  {lines:6d}  {path}{note}')
    out.append('')
    out.append(f'== Classes over {MAX_CLASS_LINES} lines: '
               f'{len(report.big_classes)} ==')
    for key, first, size, limit in report.big_classes:
      note = f'  (allowlisted up to {limit})' if limit is not None else ''
      path, name = key.rsplit(':', 1)
      out.append(f'  {size:6d}  {name}  {path}:{first}{note}')
  if report.unused_allow:
    out.append('')
    out.append(f'== Allowlist entries that match nothing (remove them): '
               f'{len(report.unused_allow)} ==')
    for entry in report.unused_allow:
      out.append(f'  line {entry.line}: {entry.text}')
  out.append('')
  out.append(f'structure: {report.violations()} violations')
  return '\n'.join(out) + '\n'


def format_dot(report: Report) -> str:
  """The package include graph as Graphviz; red edges break the layering."""
  out = ['digraph anvil_packages {', '  rankdir=BT;',
         '  node [shape=box, fontname="Helvetica"];']
  present = sorted({p for edge in report.package_edges for p in edge},
                   key=lambda p: (layer_rank(p), p))
  for package in present:
    out.append(f'  "{package}";')
  for (source, target), (production, tests, bad) in sorted(
      report.package_edges.items()):
    label = str(production) if production else '0'
    if tests:
      label += f' (+{tests} test)'
    attrs = [f'label="{label}"']
    if bad:
      attrs.append('color=red')
      attrs.append('fontcolor=red')
    if not production:
      attrs.append('style=dashed')
    out.append(f'  "{source}" -> "{target}" [{", ".join(attrs)}];')
  out.append('}')
  return '\n'.join(out) + '\n'


def default_root() -> str:
  """The repository that holds this script."""
  return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv: Optional[Sequence[str]] = None) -> int:
  parser = argparse.ArgumentParser(
      description='Check the source tree against the layering of '
      'ARCHITECTURE.md.')
  parser.add_argument('--root', default=default_root(),
                      help='repository root (default: %(default)s)')
  parser.add_argument('--allow', metavar='FILE',
                      help='allowlist of known violations')
  parser.add_argument('--strict-allow', action='store_true',
                      help='count allowlist entries that match nothing')
  parser.add_argument('--summary', action='store_true',
                      help='print only the counts per category')
  parser.add_argument('--dot', metavar='FILE',
                      help='write the package include graph as Graphviz dot')
  args = parser.parse_args(argv)

  root = os.path.abspath(args.root)
  if not os.path.isdir(root):
    parser.error(f'--root {root}: not a directory')
  allow = Allowlist()
  if args.allow:
    try:
      with open(args.allow, encoding='utf-8') as handle:
        allow = Allowlist.parse(handle.read())
    except (OSError, ValueError) as error:
      parser.error(f'--allow: {error}')

  started = time.monotonic()
  report = check(root, allow, args.strict_allow)
  seconds = time.monotonic() - started
  if args.dot:
    with open(args.dot, 'w', encoding='utf-8') as handle:
      handle.write(format_dot(report))
  sys.stdout.write(format_report(report, root, seconds, args.summary))
  return 1 if report.violations() else 0


if __name__ == '__main__':
  sys.exit(main())
