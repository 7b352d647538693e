import re, sys
for f in sys.argv[1:]:
    prev_sync = None; seq = ctx = mid = 0
    for l in open(f):
        if 'ra_pages=4096' not in l or 'ino=d ' not in l: continue
        if 'page_cache_sync_ra:' in l:
            prev_sync = int(re.search(r'req_count=(\d+)', l).group(1))
        elif 'page_cache_ra_order:' in l and prev_sync is not None:
            size = int(re.search(r' size=(\d+)', l).group(1)); order = int(re.search(r' order=(\d+)', l).group(1))
            if order == 0 and size == 128: seq += 1
            else:
                ctx += 1; mid += prev_sync < 32
            prev_sync = None
        elif 'page_cache_async_ra:' in l:
            prev_sync = None
    print(f, 'sequential restarts', seq, 'context restarts', ctx, f'({mid} inside a read)', f'ctx share {ctx/(seq+ctx):.2f}')
