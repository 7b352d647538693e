# lab/validation/trace-wake-preempt-1130/summarize.py DIR...: the per-sleep-class table of README.md from
# each DIR/bt.out (trace_wake_preempt.bt) and DIR/traced.json (the recording)
import re,collections,json,os,sys
def parse(f):
    n=collections.Counter(); ws={}; hists=collections.defaultdict(dict); cur=None
    for l in open(f):
        if l.startswith('@'):
            m=re.match(r'@n\[(\d+), (\d), (\d+)\]: (\d+)',l)
            if m: n[(int(m[1]),int(m[2]),int(m[3]))]+=int(m[4]); cur=None; continue
            m=re.match(r'@wait_sum_us\[(\d+), (\d), (\d+)\]: (\d+)',l)
            if m: ws[(int(m[1]),int(m[2]),int(m[3]))]=int(m[4]); cur=None; continue
            m=re.match(r'@(\w+)\[(\d+)(?:, ([^\]]*))?\]:\s*$',l)
            cur=(m[1],int(m[2]),m[3]) if m else None
            continue
        if cur:
            m=re.match(r'\s*\[([^,]*), ([^\)\]]*)[\)\]]\s+(\d+)',l)
            if m and int(m[3]): hists[cur][m[1]]=int(m[3])
    return n,ws,hists
def med(h):
    # median bucket label of a log2 hist
    tot=sum(h.values()); acc=0
    for k,v in h.items():
        acc+=v
        if acc*2>=tot: return k
    return '-'
rows=[]
for d in sys.argv[1:]:
    n,ws,h=parse(d+'/bt.out')
    tot=collections.Counter()
    for k,v in n.items(): tot[k[0]]+=v
    pid=tot.most_common(1)[0][0]
    ld=[open(d+'/'+x).read().split()[0] for x in ('load-start.txt','load.txt') if os.path.exists(d+'/'+x)]
    j=json.load(open(d+'/traced.json')); v=list(j['variants'].values())[0]
    st=[s for s in v['steps'] if s['task']=='r'][0]
    print('##',os.path.basename(d),'loadavg',ld,'reader pid',pid,'wakes',tot[pid],'elapsed %.3f s'%st['metrics']['elapsed_s'],'run_delay %.3f s'%st['sched']['run_delay_s'],'runs',st['sched']['runs'],'entities %.2f'%st['sched'].get('background_entities',0))
    for sl,name in ((0,'<64us'),(1,'64us-1ms'),(2,'>=1ms')):
        ks=[k for k in n if k[0]==pid and k[1]==sl]
        if not ks: continue
        N=sum(n[k] for k in ks); W=sum(ws.get(k,0) for k in ks)
        inel=[k for k in ks if (k[2]//100)%10==0 and (k[2]//1000)%10==1]  # prot=1, celig=0
        el=[k for k in ks if (k[2]//100)%10==1 and (k[2]//1000)%10==1]   # prot=1, celig=1
        same=[k for k in ks if (k[2]//10000)%10==1]
        dly=[k for k in ks if (k[2]//100000)%10==1]
        f=lambda ks2:(sum(n[k] for k in ks2), sum(ws.get(k,0) for k in ks2)/max(1,sum(n[k] for k in ks2)))
        a,b,c,e=f(inel),f(el),f(same),f(dly)
        print('   sleep %-9s n %4d mean wait %5.0f us | running entity protected but ineligible: %4d (%3.0f%%) wait %5.0f us | protected and eligible: %4d wait %5.0f us | own group running: %4d | wakee delayed: %3d'%(name,N,W/N,a[0],100*a[0]/N,a[1],b[0],b[1],c[0],e[0]))
    for hn in ('vlag_sleep_pos','lag_run_pos'):
        for key,hh in h.items():
            if key[0]==hn and key[1]==pid: print('   ',hn,key[2] or '','median bucket',med(hh),'n',sum(hh.values()))
