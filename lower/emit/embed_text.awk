# Embeds a C++ source file in the emitter as the text of a C++ string literal (a sequence of raw
# string literals), for prelude.inc and vector_prelude.inc:
#
#   awk -f embed_text.awk [-v macro=NAME] FILE [INCLUDED...] > FILE.embed.inc
#
# The file's opening comment (its leading // lines) and "// clang-format on|off" lines are left
# out; every other line is indented by two spaces (the emitted units' layout). A line
# `#include "P"` becomes the text of the INCLUDED file whose path ends with P, treated the same
# way; when none matches, P is X-macro text (kernels/simd/vector_math.inc) and stays an include
# between the raw strings, under `macro` defined to stringify its argument.
function emit(path,    line, opening) {
  opening = 1
  while ((getline line < path) > 0) {
    if (opening && line ~ /^\/\//) continue
    opening = 0
    if (line ~ /^ *\/\/ clang-format (on|off)/) continue
    if (line ~ /^#include "/) {
      include(line)
      continue
    }
    print (line == "" ? "" : "  " line)
  }
  close(path)
}
function include(line,    p, k) {
  p = line
  sub(/^#include "/, "", p)
  sub(/".*$/, "", p)
  for (k = 2; k < ARGC; ++k) {
    if (substr(ARGV[k], length(ARGV[k]) - length(p) + 1) == p) {
      emit(ARGV[k])
      return
    }
  }
  if (macro == "") {
    print "embed_text.awk: " p " is not among the included files and no -v macro= is given" > "/dev/stderr"
    exit 1
  }
  print ")cc\""
  print "#define " macro "(...) #__VA_ARGS__"
  print "#include \"" p "\""
  print "#undef " macro
  print "R\"cc("
}
BEGIN {
  print "R\"cc("
  emit(ARGV[1])
  print ")cc\""
  exit 0
}
