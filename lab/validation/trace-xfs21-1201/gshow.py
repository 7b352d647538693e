import json,sys
for p in sys.argv[1:]:
    r=json.load(open(p)); v=next(iter(r['variants'].values()))
    cpu=v['real']['machine'].get('cpu',{})
    print(p.split('/')[-1], v['real']['kernel'], 'K', cpu.get('cpu_slowdown'), cpu.get('hot_read_ns_per_page'), v['real']['machine'].get('disk'))
    for s in v['steps']:
        m=s['metrics']
        print(f"  {s['name']}: MB {m['read_bytes']/1e6:.2f} el {m['elapsed_s']:.2f} sys {m['sys_s']:.2f} pgscan {m['memcg.pgscan']} pgsteal {m['memcg.pgsteal']} scan-steal {m['memcg.pgscan']-m['memcg.pgsteal']} failcnt {m['memcg.failcnt']} numa_hit {m['vmstat.numa_hit']}")
