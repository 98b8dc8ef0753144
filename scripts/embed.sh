#!/bin/sh
# scripts/embed.sh NAME FILE - print a C source that holds FILE as a
# string: `const char NAME[]` (NUL-terminated) and `const size_t
# NAME_len`.  The Makefile embeds KEDA's ScaledObject CRD this way
# (src/crd.h), so `staffer lint` needs no file at run time.  Backslashes,
# quotes and question marks (trigraphs) are escaped; each line becomes
# one string literal.
set -eu
name=$1
file=$2
echo "/* Generated from $file by scripts/embed.sh; do not edit. */"
echo "#include <stddef.h>"
echo "#include \"crd.h\""
echo "const char $name[] ="
sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/^/"/' -e 's/$/\\n"/' "$file"
echo ";"
echo "const size_t ${name}_len = sizeof($name) - 1;"
