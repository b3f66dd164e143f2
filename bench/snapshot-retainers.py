"""What keeps the largest ArrayBuffers of a V8 heap snapshot alive (a diagnostic for
memory-sampler.mjs's MEM_SAMPLER_SNAPSHOT_AB): the total of their backing stores, and, grouped, the
chains of retainers (nearest first) of each one of at least MIN_BYTES, to a depth of DEPTH.
Usage: python3 bench/snapshot-retainers.py FILE.heapsnapshot [MIN_BYTES] [DEPTH]"""
import collections
import json
import sys

snap = json.load(open(sys.argv[1]))
min_bytes = int(sys.argv[2]) if len(sys.argv) > 2 else 256 * 1024
depth = int(sys.argv[3]) if len(sys.argv) > 3 else 7
meta = snap['snapshot']['meta']
nf, ef = meta['node_fields'], meta['edge_fields']
ntypes, etypes = meta['node_types'][0], meta['edge_types'][0]
N, E, S = snap['nodes'], snap['edges'], snap['strings']
NL, EL = len(nf), len(ef)
i_type, i_name, i_size, i_edges = nf.index('type'), nf.index('name'), nf.index('self_size'), nf.index('edge_count')
e_type, e_name, e_to = ef.index('type'), ef.index('name_or_index'), ef.index('to_node')
count = len(N) // NL
retainers = collections.defaultdict(list)
first_edge = 0
for n in range(count):
    for k in range(N[n * NL + i_edges]):
        at = first_edge + k * EL
        kind = etypes[E[at + e_type]]
        if kind == 'weak':
            continue
        name = E[at + e_name]
        label = S[name] if kind in ('property', 'internal', 'context', 'shortcut') else f'[{name}]'
        retainers[E[at + e_to] // NL].append((n, label))
    first_edge += N[n * NL + i_edges] * EL


def describe(n):
    return f"{ntypes[N[n * NL + i_type]]}:{S[N[n * NL + i_name]][:40]}"


big = [n for n in range(count) if N[n * NL + i_size] >= min_bytes]
print(f'{len(big)} nodes of >= {min_bytes} B, {sum(N[n * NL + i_size] for n in big) / 1048576:.1f} MiB')
chains = collections.Counter()
sizes = collections.Counter()
for n in big:
    chain, node, seen = [describe(n)], n, {n}
    for _ in range(depth):
        parents = [(p, l) for p, l in retainers.get(node, []) if p not in seen]
        if not parents:
            break
        p, label = parents[0]
        chain.append(f'.{label} <- {describe(p)}')
        seen.add(p)
        node = p
    key = ' '.join(chain)
    chains[key] += 1
    sizes[key] += N[n * NL + i_size]
for key, c in chains.most_common(15):
    print(f'{c:5d} {sizes[key] / 1048576:7.1f} MiB  {key}')
