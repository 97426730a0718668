#!/usr/bin/env python3
"""The current numbers of each device, rendered from the benchmarks' JSON.

bench/data/<device>/ holds the JSON that `pp bench --json FILE` (tools/pp/
report.c) and `bench_cub --json FILE` (bench/cub_compare.cu) wrote on that
device, each with a "record" object added when it was filed: the commit
measured, the machine, the command, the date filed. bench/CURRENT-<device>.md
is rendered from them with a fixed layout; nobody types its numbers.

  bench/render.py record DEVICE FILE.json... [--commit REV] [--machine TEXT] [--command TEXT]
      files each JSON as bench/data/DEVICE/pp-bench-<backend>.json or
      bench_cub.json (replacing the one there), then renders DEVICE
  bench/render.py [DEVICE...]      renders bench/CURRENT-<device>.md (every device if none named)
  bench/render.py --check          exit status 1 if a CURRENT file is not what its JSON renders

DEVICE is a short name of lower-case letters, digits and dashes that says
the machine, e.g. nvidia-h200 or cpu-amd-epyc-avx512-2core. --commit
defaults to the checkout's HEAD (with "-dirty" if tracked files differ):
give the commit that was built and measured when that is not it.
Python 3, standard library only.
"""
import datetime
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, 'data')

# The orders of the tables (what is not listed sorts after, by name).
PRIMS = ['reduce', 'scan_inclusive', 'scan_exclusive', 'histogram_even', 'histogram_range', 'select_if',
         'select_flagged', 'unique', 'partition_if', 'sort_keys', 'sort_keys_copy', 'sort_pairs']
TYPES = ['i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64', 'f32', 'f64']


def rank(order, x):
    return (order.index(x), '') if x in order else (len(order), str(x))


def size(n):
    """2^k for a power of two, the number otherwise."""
    if n and n & (n - 1) == 0:
        return '2^%d' % (n.bit_length() - 1)
    return str(n)


def num(x, digits=4):
    """x with `digits` significant digits, '-' for none."""
    if x is None:
        return '-'
    if x == 0:
        return '0'
    if abs(x) >= 10 ** digits:
        return '%.0f' % x
    return ('%#.*g' % (digits, x)).rstrip('.') if abs(x) >= 1e-3 else '%.2e' % x


def fixed(x, places):
    return '-' if x is None else '%.*f' % (places, x)


def kind_of(doc):
    """'pp-bench-<backend>' or 'bench_cub' from a JSON document's shape."""
    if isinstance(doc.get('header'), dict) and 'rows' in doc:
        return 'pp-bench-' + doc['header'].get('backend', 'unknown')
    if 'rows' in doc and all('cub_ms' in r for r in doc['rows']):
        return 'bench_cub'
    raise ValueError('neither pp bench --json nor bench_cub --json output')


def git_commit():
    try:
        c = subprocess.run(['git', 'rev-parse', '--short=12', 'HEAD'], cwd=HERE, capture_output=True, text=True,
                           check=True).stdout.strip()
        dirty = subprocess.run(['git', 'status', '--porcelain', '--untracked-files=no'], cwd=HERE,
                               capture_output=True, text=True, check=True).stdout.strip()
        return c + ('-dirty' if dirty else '')
    except (OSError, subprocess.CalledProcessError):
        return None


def dump(doc):
    """JSON with one line per row (so that a refresh diffs row by row)."""
    rows = doc.get('rows', [])
    rest = {k: v for k, v in doc.items() if k != 'rows'}
    head = json.dumps(rest, indent=2, sort_keys=False)
    lines = ',\n'.join('    ' + json.dumps(r, sort_keys=False) for r in rows)
    return head[:-2] + ',\n  "rows": [\n' + lines + '\n  ]\n}\n'


def record(device, files, commit, machine, command):
    d = os.path.join(DATA, device)
    os.makedirs(d, exist_ok=True)
    for f in files:
        with open(f) as fh:
            doc = json.load(fh)
        kind = kind_of(doc)
        doc.pop('record', None)
        doc['record'] = {
            'commit': commit or git_commit(),
            'machine': machine,
            'command': command,
            'filed': datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ'),
        }
        out = os.path.join(d, kind + '.json')
        with open(out, 'w') as fh:
            fh.write(dump(doc))
        print('render: filed %s as %s' % (f, os.path.relpath(out, os.path.dirname(HERE))))


def provenance(doc, date):
    r = doc.get('record', {})
    parts = []
    if r.get('machine'):
        parts.append('machine: %s' % r['machine'])
    parts.append('commit %s' % (r.get('commit') or 'not recorded'))
    parts.append('measured %s' % date if date else 'filed %s' % r.get('filed', '-'))
    out = '; '.join(parts) + '.'
    if r.get('command'):
        out += '\nCommand: `%s`.' % r['command']
    return out


def render_pp(doc):
    h = doc['header']
    out = ['## pp bench, backend %s' % h.get('backend'), '',
           '%s, %s threads, parprim %s, repeat %s (`pp bench --json`: median and least of the timed runs; '
           'GB/s by the byte model below; "of copy": the time of pp_copy of half those bytes over the '
           "primitive's, same run)." % (h.get('device'), h.get('threads'), h.get('version'), h.get('repeat')),
           provenance(doc, h.get('date')), '',
           'Byte model: %s.' % h.get('byte_model', '-'), '',
           '| primitive | op | type | n | algorithm | median ms | min ms | GB/s | of copy | note |',
           '|---|---|---|---:|---|---:|---:|---:|---:|---|']
    rows = sorted(doc['rows'], key=lambda r: (rank(PRIMS, r['primitive']), rank(TYPES, r['type']), r['n'],
                                               str(r.get('op')), str(r.get('data')), str(r.get('algorithm'))))
    for r in rows:
        prim = r['primitive'] + ('[%s]' % r['data'] if r.get('data') else '')
        note = r.get('message') or ''
        if r.get('status') != 'ok':
            note = (r.get('status', '') + ': ' + note).strip(': ')
        out.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            prim, r.get('op') or '', r['type'], size(r['n']), r.get('algorithm') or '', num(r.get('median_ms')),
            num(r.get('min_ms')), fixed(r.get('gbps'), 1), fixed(r.get('copy_fraction'), 2),
            note.replace('|', '/')))
    return out


def cub_derived(r):
    """vs CUB, GB/s and fraction of a copy, as bench_cub computes them."""
    ratio = r.get('vs_cub', r['cub_ms'] / r['parprim_ms'] if r['parprim_ms'] else None)
    gbps = r.get('gbps', r['bytes'] / (r['parprim_ms'] * 1e-3) / 1e9 if r['parprim_ms'] and r['bytes'] else None)
    frac = r.get('copy_fraction', gbps / r['copy_gbs'] if gbps and r.get('copy_gbs') else None)
    return ratio, gbps, frac


def render_cub(doc):
    rows = doc['rows']
    out = ['## bench_cub: parprim against CUB', '',
           '%s, parprim %s, CUB %s, median of %s (`bench_cub --json`: CUDA events, parprim and CUB runs '
           'alternated; "of copy": parprim\'s bytes per second over a device-to-device copy\'s in the same run).'
           % (doc.get('device'), doc.get('version', '-'), doc.get('cub_version', '-'), doc.get('repeat')),
           provenance(doc, doc.get('date')), '']
    sizes = sorted({r['n'] for r in rows})
    keys = []
    for r in rows:
        k = (r['primitive'], r['type'])
        if k not in keys:
            keys.append(k)
    cell = {}
    for r in rows:
        ratio, gbps, frac = cub_derived(r)
        s = '-' if ratio is None else '%.3fx' % ratio
        if frac is not None and r['n'] >= 1 << 24 and 'sort' not in r['primitive'] and r['bytes']:
            s += ' (%.2f)' % frac
        if not r.get('checked', True):
            s += ' (results differ)'
        cell[(r['primitive'], r['type'], r['n'])] = s
    out += ['parprim / CUB (CUB ms over parprim ms); in brackets, for the memory-bound primitives from 2^24, '
            "parprim's fraction of a copy:", '',
            '| primitive | type | ' + ' | '.join(size(n) for n in sizes) + ' |',
            '|---|---|' + '---:|' * len(sizes)]
    for p, t in keys:
        out.append('| %s | %s | %s |' % (p, t, ' | '.join(cell.get((p, t, n), '') for n in sizes)))
    out += ['', 'Every row:', '',
            '| primitive | type | n | parprim ms | CUB ms | vs CUB | GB/s | of copy | target | checked |',
            '|---|---|---:|---:|---:|---:|---:|---:|---:|---|']
    for r in rows:
        ratio, gbps, frac = cub_derived(r)
        tgt = r.get('target') or 0
        out.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            r['primitive'], r['type'], size(r['n']), num(r['parprim_ms']), num(r['cub_ms']),
            '-' if ratio is None else '%.3fx' % ratio, fixed(gbps, 0), fixed(frac, 2),
            '>= %.2fx' % tgt if tgt > 0 else '', 'yes' if r.get('checked', True) else 'NO'))
    return out


def render(device):
    d = os.path.join(DATA, device)
    docs = []
    for name in sorted(os.listdir(d)):
        if name.endswith('.json'):
            with open(os.path.join(d, name)) as fh:
                docs.append((name, json.load(fh)))
    out = ['# Current numbers: %s' % device, '',
           'Rendered by `bench/render.py` from `bench/data/%s/` (%s); do not edit: refresh as'
           % (device, ', '.join('`%s`' % n for n, _ in docs)),
           'bench/RESULTS.md says. What each number means and how it was reached is in bench/studies/.', '']
    for name, doc in docs:
        kind = kind_of(doc)
        out += (render_cub(doc) if kind == 'bench_cub' else render_pp(doc)) + ['']
    return '\n'.join(out).rstrip('\n') + '\n'


def devices():
    if not os.path.isdir(DATA):
        return []
    return sorted(x for x in os.listdir(DATA) if os.path.isdir(os.path.join(DATA, x)))


def target(device):
    return os.path.join(HERE, 'CURRENT-%s.md' % device)


def main(argv):
    if argv and argv[0] == 'record':
        args, opts = [], {'--commit': None, '--machine': None, '--command': None}
        it = iter(argv[1:])
        for a in it:
            if a in opts:
                opts[a] = next(it, None)
            else:
                args.append(a)
        if len(args) < 2 or not re.fullmatch(r'[a-z0-9][a-z0-9-]*', args[0]):
            sys.exit('usage: render.py record DEVICE FILE.json... [--commit REV] [--machine TEXT] [--command TEXT]'
                     ' (DEVICE: lower-case letters, digits, dashes)')
        record(args[0], args[1:], opts['--commit'], opts['--machine'], opts['--command'])
        argv = [args[0]]
    check = '--check' in argv
    names = [a for a in argv if a != '--check'] or devices()
    stale = 0
    for dev in names:
        text = render(dev)
        if check:
            try:
                with open(target(dev)) as fh:
                    same = fh.read() == text
            except OSError:
                same = False
            if not same:
                print('render: %s is not what bench/data/%s/ renders' % (os.path.basename(target(dev)), dev))
                stale += 1
        else:
            with open(target(dev), 'w') as fh:
                fh.write(text)
            print('render: wrote %s' % os.path.relpath(target(dev), os.path.dirname(HERE)))
    return 1 if stale else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
