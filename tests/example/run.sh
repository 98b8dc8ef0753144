#!/bin/sh
# tests/example/run.sh - the decision model as a library (docs/library.md):
#   1. build/example/model, built by `make test` from tests/example/model.c
#      with -Iinclude only, prints tests/example/model.out;
#   2. build/libstaffer-model.a needs nothing from outside but libm: no
#      stdio, no allocation, no threads, no clock (the model's contract in
#      include/staffer/model.h);
#   3. the public headers include nothing but each other and the C library.
# Prints `N passed, N failed` last; exits non-zero on failure.
set -u
cd "$(dirname "$0")/../.."
passed=0
failed=0
ok() { echo "ok   - $1"; passed=$((passed + 1)); }
bad() { echo "FAIL - $1"; failed=$((failed + 1)); }

if out=$(build/example/model 2>&1) &&
	[ "$out" = "$(cat tests/example/model.out)" ]; then
	ok "example: output as tests/example/model.out"
else
	bad "example: output differs from tests/example/model.out:"
	printf '%s\n' "$out"
fi

# symbols the archive uses and none of its members defines
lib=build/libstaffer-model.a
undef=$(nm -u "$lib" | awk 'NF == 2 { print $2 }' | sort -u)
defined=$(nm --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sort -u)
outside=$(printf '%s\n' "$undef" | grep -vxF -e "$(printf '%s\n' "$defined")" || true)
libm="exp expm1 log log1p pow sqrt floor ceil fabs fmax fmin fmod lgamma round trunc isnan isinf"
other=
for s in $outside; do
	case " $libm " in *" $s "*) ;; *) other="$other $s" ;; esac
done
if [ -z "$other" ]; then
	ok "libstaffer-model.a: only libm from outside ($(echo $outside))"
else
	bad "libstaffer-model.a uses more than libm:$other"
fi

if grep -h '#include' include/staffer/*.h tests/example/model.c |
	grep -v -e '#include <std[a-z]*\.h>' -e '#include <math\.h>' \
		-e '#include "[a-z]*\.h"' -e '#include <staffer/[a-z]*\.h>' |
	grep . ; then
	bad "include/staffer/ or the example includes something else"
else
	ok "include/staffer/: only each other and the C library"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
