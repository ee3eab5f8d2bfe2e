import re, sys
# Insert `.maxnreg N` after the parameter list of every entry whose name matches the pattern.
src, dst, pat, n = sys.argv[1], sys.argv[2], re.compile(sys.argv[3]), sys.argv[4]
lines = open(src).read().split('\n')
out, pending, count = [], False, 0
for l in lines:
    m = re.match(r'\.visible \.entry (\w+)\(', l)
    if m:
        pending = bool(pat.search(m.group(1)))
    if pending and l.strip() == '{':
        out.append(f'.maxnreg {n}')
        pending = False
        count += 1
    out.append(l)
open(dst, 'w').write('\n'.join(out))
print(f'{count} entries capped at {n}', file=sys.stderr)
