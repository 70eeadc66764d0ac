# SPDX-License-Identifier: GPL-2.0-only
# promcheck.py FILE - FILE in the Prometheus text exposition format
# (version 0.0.4): every sample of a family after its HELP and TYPE, the
# family's samples together, labels well formed, values numbers; then
# prints each sample as "name{labels} value" with labels sorted, for the
# caller to grep.  Exit 1, saying where, at the first fault.
import re
import sys

NAME = r'[a-zA-Z_:][a-zA-Z0-9_:]*'
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE = re.compile(r'^(%s)(?:\{((?:%s)(?:,%s)*)?\})? (\S+)(?: -?\d+)?$'
                    % (NAME, LABEL, LABEL))
TYPES = {'counter', 'gauge', 'histogram', 'summary', 'untyped'}


def fail(no, why):
    print('%s:%d: %s' % (sys.argv[1], no, why))
    sys.exit(1)


def main():
    helped, typed, done, seen = set(), {}, set(), set()
    current = None
    out = []
    with open(sys.argv[1]) as f:
        text = f.read()
    if not text.endswith('\n'):
        fail(0, 'does not end with a newline')
    for no, line in enumerate(text.split('\n')[:-1], 1):
        if line.startswith('# HELP ') or line.startswith('# TYPE '):
            parts = line.split(' ', 3)
            if len(parts) < 4 or not re.match('^%s$' % NAME, parts[2]):
                fail(no, 'bad comment line')
            fam = parts[2]
            if fam in done:
                fail(no, '%s again after other families' % fam)
            if parts[1] == 'HELP':
                if fam in helped:
                    fail(no, 'second HELP for %s' % fam)
                helped.add(fam)
            else:
                if fam in typed or parts[3] not in TYPES:
                    fail(no, 'bad or second TYPE for %s' % fam)
                if fam in seen:
                    fail(no, 'TYPE of %s after its samples' % fam)
                typed[fam] = parts[3]
            if current and current != fam:
                done.add(current)
            current = fam
            continue
        if line.startswith('#') or not line:
            continue
        m = SAMPLE.match(line)
        if not m:
            fail(no, 'not a sample: %r' % line)
        fam = m.group(1)
        if fam not in typed or fam not in helped:
            fail(no, 'sample of %s without HELP and TYPE' % fam)
        if fam != current:
            fail(no, 'sample of %s among those of %s' % (fam, current))
        if typed[fam] == 'counter' and not fam.endswith('_total'):
            fail(no, 'counter %s does not end in _total' % fam)
        try:
            float(m.group(3))
        except ValueError:
            fail(no, 'value %r is not a number' % m.group(3))
        labels = sorted(re.findall(LABEL, m.group(2) or ''))
        key = '%s{%s}' % (fam, ','.join(labels))
        if key in seen:
            fail(no, 'a second sample %s' % key)
        seen.add(key)
        seen.add(fam)
        out.append('%s %s' % (key, m.group(3)))
    print('\n'.join(out))


main()
