import json, sys, statistics as st
keys = ['read_bytes','memcg.pgpgin','memcg.pgpgout','memcg.failcnt','vmstat.workingset_refault_file','vmstat.workingset_activate_file','vmstat.pgactivate','vmstat.pgdeactivate','vmstat.workingset_nodereclaim','vmstat.pgpgin','memcg.events.max','memcg.pgscan','memcg.pgsteal','sys_s','elapsed_s']
for f in sys.argv[1:]:
    res = json.load(open(f))
    print(f)
    for p in range(3):
        print(' pass', p+1)
        for k in keys:
            s = [r['sim'][p]['metrics'].get(k) for r in res]
            k2 = k
            rr = [r['real'][p]['metrics'].get(k2) for r in res]
            ms = st.median(s) if None not in s else None
            mr = st.median(rr) if None not in rr else None
            print(f'  {k:36s} twin {ms!s:>14} kernel {mr!s:>14}')
        # folio adds by order
        ad = {}
        for r in res:
            for o,c in r['real'][p].get('folio_events',{}).get('added',{}).items():
                ad.setdefault(o,[]).append(c)
        print('  kernel folio adds by order (median):', {o: st.median(v) for o,v in sorted(ad.items(), key=lambda x:int(x[0]))})
