# test_includes.sh — the include directions of the library's folders (issue [16]): every
# folder of the core (graphs/*/) and plots/ says in its README.md which folders it may
# include ("May include: base, ir"); each quoted #include of its .c and .h files must
# resolve, by basename as the compiler's include path does, to a header of one of those
# folders. Beside that: no .c file directly in graphs/; only the umbrella graphs/dlbench.h
# includes plots/dlbplot.h (outside plots/ itself), and nothing in graphs/ or plots/
# includes the umbrella; basenames are unique (premake 4.3 flattens object names).
# usage: bash tests/sh/test_includes.sh [path/to/dlbench]   (the argument is not used)
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1

folders=$(ls -d graphs/*/ plots/ | sed 's|/$||')
# header basename -> folder, for every header of the library (and build/gen's protobuf code)
declare -A home
for f in graphs/*/*.h plots/*.h; do home[${f##*/}]=${f%/*}; done
home[onnx.pb-c.h]=build/gen
home[dlbench.h]=graphs

[ "$(echo "$folders" | wc -w)" -ge 7 ] && t_ok "the core has its concept folders" \
  || t_fail "the core has its concept folders" "found: $folders"

for d in $folders; do
  allow=$(sed -n 's/^May include: *//p' "$d/README.md" 2>/dev/null | tr -d ' ' | tr ',' ' ')
  if [ -z "$allow" ]; then t_fail "$d: README.md says what it may include" "no 'May include:' line"; continue; fi
  bad=""
  # every "..." include of the folder's files, as FILE:HEADER lines, from one sed
  files=$(ls "$d"/*.c "$d"/*.h 2>/dev/null)
  while IFS=: read -r f inc; do
      to=${home[$inc]:-}
      if [ -z "$to" ]; then bad="$bad $f:$inc(unknown)"; continue; fi
      ok=0
      for a in $allow; do
        case $a in build/*) [ "$to" = "$a" ] && ok=1 ;; plots) [ "$to" = plots ] && ok=1 ;;
                   *) [ "$to" = "graphs/$a" ] && ok=1 ;; esac
      done
      [ $ok = 1 ] || bad="$bad $f:$inc($to)"
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/; T; F; p' ${files:-/dev/null} | sed -n 'N; s/\n/:/p')
  [ -z "$bad" ] && t_ok "$d includes only: $allow" || t_fail "$d includes only: $allow" "$bad"
done

loose=$(ls graphs/*.c 2>/dev/null | tr '\n' ' ')
[ -z "$loose" ] && t_ok "no .c file directly in graphs/" || t_fail "no .c file directly in graphs/" "$loose"

who=$(grep -l '#include *"dlbplot.h"' graphs/*.h graphs/*/*.[ch] 2>/dev/null | tr '\n' ' ')
[ "$who" = "graphs/dlbench.h " ] && t_ok "only graphs/dlbench.h includes dlbplot.h in the core" \
  || t_fail "only graphs/dlbench.h includes dlbplot.h in the core" "$who"

who=$(grep -l '#include *"dlbench.h"' graphs/*/*.[ch] plots/*.[ch] 2>/dev/null | tr '\n' ' ')
[ -z "$who" ] && t_ok "no core or plots file includes the umbrella dlbench.h" \
  || t_fail "no core or plots file includes the umbrella dlbench.h" "$who"

# (each basename by the shell: `xargs -n1 basename` started a process a file, ~90)
dups=$(for f in graphs/*/*.c plots/*.c proc/*.c host/*.c; do [ -e "$f" ] && echo "${f##*/}"; done | sort | uniq -d | tr '\n' ' ')
[ -z "$dups" ] && t_ok "source basenames are unique" || t_fail "source basenames are unique" "$dups"

# the test must be able to fail: a made-up include from plots/ into a core folder is refused
allow=$(sed -n 's/^May include: *//p' plots/README.md | tr -d ' ' | tr ',' ' ')
case " $allow " in *" ir "*) t_fail "plots may not include ir (self-check)" "$allow" ;;
                   *) t_ok "plots may not include ir (self-check)" ;; esac
t_done
