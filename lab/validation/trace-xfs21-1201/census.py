"""Cycles of the twin's traced run (twin-trace-xfs21.patch, MEMTWIN_RATRACE=1): per pass, the cycles from one
synchronous miss (S) to the next, and for each: its order-8 window (the asynchronous window of 2048 pages),
whether that window's read was still in flight when the next window's (order 9, 4096 pages) charges began
(its reclaim then meets the window's folios locked and keeps them: shrink_folio_list()'s folio_trylock()),
where the reader restarted (pages into the order-8 window), and whether a window met the previous cycle's
folios still cached (F: an add failed, page_cache_ra_order() fell back to do_page_cache_ra())."""
import sys, statistics
def cycles(path):
    passes=[]; cur=None
    for ln in open(path):
        t=ln.split()
        if t[0]=='S':
            idx=int(t[2])
            if idx==0: passes.append([])
            cur={'s':idx,'t':int(t[1]),'read':0,'F':0,'o8':None,'o8done':None,'o9t':None,'o9rt':None}
            passes[-1].append(cur)
        elif cur is None: continue
        elif t[0]=='B':
            cur['read']+=int(t[3])-int(t[2])
            if cur['o8'] is not None and int(t[2])==cur['o8'] and cur['o8done'] is None: cur['o8done']=int(t[4])
        elif t[0]=='A':
            start,size=int(t[5]),int(t[6])
            if size==2048 and cur['o8'] is None: cur['o8']=start
            elif size==4096 and cur['o9t'] is None: cur['o9t']=int(t[1])
        elif t[0]=='R':
            if cur['o9t'] is not None and cur['o9rt'] is None: cur['o9rt']=int(t[1])
        elif t[0]=='F': cur['F']+=1
    return passes
for path in sys.argv[1:]:
    for p,cs in enumerate(cycles(path),1):
        n=len(cs); locked=0; short=0; offs=[]
        for i,c in enumerate(cs):
            if c['o8done'] is not None and c['o9rt'] is not None and c['o8done']>c['o9rt']: locked+=1
            if c['F']: short+=1
            if i+1<n and c['o8'] is not None: offs.append(cs[i+1]['s']-c['o8'])
        reads=sum(c['read'] for c in cs)
        from collections import Counter
        oc=Counter(offs).most_common(4)
        print(f"{path.split('/')[-1]:8s} pass {p}: {n} cycles, {reads} pages read; order-8 window in flight at the order-9 charges' first reclaim: {locked}; a window meeting cached folios (F): {short}; restart pages into the order-8 window (count): {', '.join(f'{o} ({k})' for o,k in oc)}")
