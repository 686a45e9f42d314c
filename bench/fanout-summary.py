#!/usr/bin/env python3
"""One line per fanout-anchor results file (.jsonl): deliveries/s, p99 and server CPU per delivery of each scenario."""
import json,sys
for f in sys.argv[1:]:
    rows=[json.loads(l) for l in open(f)]
    out=[]
    for d in rows:
        key=f"{d['channels']}x{d['subs']//d['channels']}{'@'+str(d['rate']) if d['rate'] else ' closed'}"
        cpu_ns = d['server_cpu']/100*1e9/max(1,d['delivered_per_s'])
        out.append(f"{key}: deliv={d['delivered_per_s']/1000:.0f}k p99={d['p99_us']/1000:.2f}ms cpu/deliv={cpu_ns/1000:.1f}us")
    print(f.split('-')[-1], ' | '.join(out))
