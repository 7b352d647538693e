/* memtwin-guest: carries out a memtwin scenario's ops inside a QEMU guest (memtwin real --on qemu).
 *
 * Built on the host with `gcc -static -O2` and put into the guest's busybox initramfs with the op
 * script (/ops, written by python/memtwin/qemu.py from the engine's resolved plan). The guest's
 * /init loads the modules, mounts proc/sysfs/devtmpfs and the virtio disk, then runs
 *   memtwin-guest /ops
 * which sets up the cgroups and files, runs every task as a child process in its memcg (all
 * concurrently, each after its start offset), and prints each task's step snapshots on stdout (the
 * serial console) between @@BEGIN/@@END markers once every task has ended. The host computes the
 * step metrics from the raw snapshots exactly as the host runner does.
 *
 * Op script: one record per line, fields separated by single spaces, paths %-encoded (see qemu.py).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXLINE 65536

static char *lines[1 << 20];
static int nlines;
static char version[8] = "2";
static char top[512];
static char *snapfiles[16];
static int nsnap;
static int zswap_stats; /* ZSWAP 1: dump /sys/kernel/debug/zswap with every snapshot */
/* THROTTLE PATH: the vmscan:mm_vmscan_throttled histogram (hist:keys=reason, set by /init) dumped
 * with every snapshot (#throttled: its counts so far, per reason), and with every full (end)
 * snapshot each node's node_unreclaimable from /proc/zoneinfo (#zoneinfo) */
static char *throttle_hist;
static char *tracked[100000];
static int ntracked;
static unsigned char *wbuf;
static size_t wbuf_len = 1 << 20;

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("@@ERROR ");
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    va_end(ap);
    exit(1);
}

static int split(char *s, char **f, int max) {
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(s, " \n", &save); t && n < max; t = strtok_r(NULL, " \n", &save)) f[n++] = t;
    return n;
}

static char *unesc(const char *s) {
    char *o = malloc(strlen(s) + 1), *p = o;
    while (*s) {
        if (s[0] == '%' && isxdigit((unsigned char)s[1]) && isxdigit((unsigned char)s[2])) {
            char h[3] = {s[1], s[2], 0};
            *p++ = (char)strtol(h, NULL, 16);
            s += 3;
        } else {
            *p++ = *s++;
        }
    }
    *p = 0;
    return o;
}

static long long num(const char *s) { return strtoll(s, NULL, 10); }

static int write_file(const char *path, const char *val) {
    int fd = open(path, O_WRONLY);
    if (fd < 0) return -1;
    ssize_t n = write(fd, val, strlen(val));
    int e = errno;
    close(fd);
    errno = e;
    return n < 0 ? -1 : 0;
}

static void mkdirs(const char *path, int last) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p == '/') {
            *p = 0;
            mkdir(buf, 0755);
            *p = '/';
        }
    }
    if (last) mkdir(buf, 0755);
}

static void parent_dirs(const char *path) { mkdirs(path, 0); }

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------------ snapshots
 * A task's records go to its output buffer and are written to the console with one write() per
 * step (a tty write is not interleaved with another task's, so a step's record, @@STEP to @@ENDSTEP,
 * must be whole in the buffer when it is written). The buffer is sized before the tasks start
 * (size_obuf(): twice a full snapshot taken then, plus room for the lines that grow during the run)
 * and touched by each task before it joins its memcg, so nothing the recording does is charged to
 * the scenario's memcgs (THP is off, see main()). It was a fixed 8 MiB (with a 1 MiB read buffer:
 * 9.4 MiB of AnonPages a task that the engine's guest does not have, measured in
 * lab/measurements/guest-runner-memory). Should a step outgrow it, the buffer grows (mremap(), the
 * new pages charged to the task's memcg, which the engine does not have either) and the task
 * reports it (@@TASKMEM, memtwin.qemu: real.machine.runner_memory and a note). */

static char *obuf;
static size_t olen, ocap, opeak, ogrown;
static size_t obuf_fixed; /* OBUF N in the op script: the buffer's size, not measured (the tests' way to make it grow) */

static void oflush(void) {
    size_t off = 0;
    while (off < olen) {
        ssize_t w = write(1, obuf + off, olen - off);
        if (w <= 0) {
            if (errno == EINTR) continue;
            break;
        }
        off += w;
    }
    olen = 0;
}

/* room for `need` more bytes: the buffer grows (doubles) when a step outgrows it */
static void oroom(size_t need) {
    if (olen + need <= ocap) return;
    size_t cap = ocap ? ocap : 65536;
    while (cap < olen + need) cap *= 2;
    void *m = ocap ? mremap(obuf, ocap, cap, MREMAP_MAYMOVE) : mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        /* no memory for the record: write what there is (the step may then be cut in two) */
        oflush();
        if (need <= ocap) return;
        printf("@@ERROR output buffer: %s\n", strerror(errno));
        fflush(stdout);
        _exit(1);
    }
    ogrown += cap - ocap;
    obuf = m;
    ocap = cap;
}

static void oprintf(const char *fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(obuf + olen, ocap - olen, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if ((size_t)n < ocap - olen) {
            olen += (size_t)n;
            if (olen > opeak) opeak = olen;
            return;
        }
        oroom((size_t)n + 1);
    }
}

static void dump(const char *tag, const char *path) {
    oprintf("#%s\n", tag);
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        oprintf("!missing %s\n", strerror(errno));
        return;
    }
    ssize_t n;
    char last = '\n';
    for (;;) {
        oroom(4096);
        n = read(fd, obuf + olen, ocap - olen - 1);
        if (n <= 0) break;
        olen += n;
        last = obuf[olen - 1];
    }
    if (last != '\n') obuf[olen++] = '\n';
    if (olen > opeak) opeak = olen;
    close(fd);
}

/* The kswapd threads (kswapdN, one a node), found once before the tasks start: each snapshot prints
 * their CPU time so far (#kswapd: the sum of /proc/PID/schedstat's first field, ns on a CPU; without
 * schedstat, /proc/PID/stat utime + stime in USER_HZ ticks), for the host to compare kswapd's cost
 * per page scanned in the TCG guest with the engine's. */
static pid_t kswapd_pids[64];
static int nkswapd;

static void find_kswapd(void) {
    DIR *d = opendir("/proc");
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) && nkswapd < 64) {
        if (!isdigit((unsigned char)e->d_name[0])) continue;
        char p[300], comm[64] = "";
        snprintf(p, sizeof p, "/proc/%s/comm", e->d_name);
        int fd = open(p, O_RDONLY);
        if (fd < 0) continue;
        ssize_t n = read(fd, comm, sizeof comm - 1);
        close(fd);
        if (n > 0 && !strncmp(comm, "kswapd", 6) && isdigit((unsigned char)comm[6])) kswapd_pids[nkswapd++] = (pid_t)atoi(e->d_name);
    }
    closedir(d);
}

static void kswapd_cpu(void) {
    if (!nkswapd) return;
    long long ns = 0;
    int from_stat = 0;
    for (int i = 0; i < nkswapd; i++) {
        char p[64], buf[1024];
        snprintf(p, sizeof p, "/proc/%d/schedstat", (int)kswapd_pids[i]);
        int fd = open(p, O_RDONLY);
        ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
        if (fd >= 0) close(fd);
        if (n > 0) {
            buf[n] = 0;
            ns += atoll(buf);
            continue;
        }
        snprintf(p, sizeof p, "/proc/%d/stat", (int)kswapd_pids[i]);
        fd = open(p, O_RDONLY);
        n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
        if (fd >= 0) close(fd);
        if (n <= 0) return;
        buf[n] = 0;
        char *r = strrchr(buf, ')');
        unsigned long ut = 0, st = 0;
        if (!r || sscanf(r + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2) return;
        ns += (long long)(ut + st) * (1000000000LL / sysconf(_SC_CLK_TCK));
        from_stat = 1;
    }
    oprintf("#kswapd\n%s %lld\n", from_stat ? "stat" : "schedstat", ns);
}

/* The run-queue waits of the kernel threads a step's tasks wake (wake11): for kswapd (woken by
 * wakeup_kswapd()) and the CPU-bound kworkers (kworker/N:M, which run 6.1's zswap shrink worker, queued
 * by the store that finds the pool full) each snapshot prints `#kthwait`, one line a thread:
 * "COMM PID RUN_DELAY_NS PCOUNT" from /proc/PID/schedstat's second and third fields (CONFIG_SCHED_INFO:
 * sched_info_arrive() adds the time from the task's enqueue, its wake-up, to its switch-in, and counts
 * the switch-in), no tracing and no sched_schedstats needed. The threads are found anew at every
 * snapshot (kworkers come and go); the host pairs them by pid. This is the guest scheduler's wait only:
 * a vCPU the host does not run after the switch-in counts as the thread's run time, not as its wait
 * (lab/measurements/kswapd-direct). */
static void kthread_waits(void) {
    DIR *d = opendir("/proc");
    if (!d) return;
    struct dirent *e;
    oprintf("#kthwait\n");
    while ((e = readdir(d))) {
        if (!isdigit((unsigned char)e->d_name[0])) continue;
        char p[300], comm[64] = "", buf[256];
        snprintf(p, sizeof p, "/proc/%s/comm", e->d_name);
        int fd = open(p, O_RDONLY);
        if (fd < 0) continue;
        ssize_t n = read(fd, comm, sizeof comm - 1);
        close(fd);
        if (n <= 0) continue;
        comm[n] = 0;
        if (comm[n - 1] == '\n') comm[n - 1] = 0;
        int ks = !strncmp(comm, "kswapd", 6) && isdigit((unsigned char)comm[6]);
        int kw = !strncmp(comm, "kworker/", 8) && isdigit((unsigned char)comm[8]);
        if (!ks && !kw) continue;
        snprintf(p, sizeof p, "/proc/%s/schedstat", e->d_name);
        fd = open(p, O_RDONLY);
        n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
        if (fd >= 0) close(fd);
        if (n <= 0) continue;
        buf[n] = 0;
        unsigned long long run, delay, pcount;
        if (sscanf(buf, "%llu %llu %llu", &run, &delay, &pcount) != 3) continue;
        for (char *c = comm; *c; c++)
            if (*c == ' ') *c = '_';
        oprintf("%s %s %llu %llu\n", comm, e->d_name, delay, pcount);
    }
    closedir(d);
}

static long resident_pages(const char *path) {
    int fd = open(path, O_RDONLY | O_NOFOLLOW);
    if (fd < 0) return -1;
    struct stat st;
    long n = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        long pg = sysconf(_SC_PAGESIZE);
        size_t pages = (st.st_size + pg - 1) / pg;
        void *m = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
        if (m != MAP_FAILED) {
            unsigned char *vec = malloc(pages);
            if (mincore(m, st.st_size, vec) == 0)
                for (size_t i = 0; i < pages; i++) n += vec[i] & 1;
            free(vec);
            munmap(m, st.st_size);
        }
    }
    close(fd);
    return n;
}

/* Folios charged to a memcg, by order (memtwin.real.memcg_folios does the same on the host):
 * /proc/kpagecgroup gives each PFN's page_cgroup_ino(), /proc/kpageflags its stable_page_flags()
 * (fs/proc/page.c); a large folio is a compound head and the tail PFNs after it. The buffers are
 * touched before the task joins its memcg (run_task), so the scan charges it nothing. */
#define KPF_UPTODATE 3
#define KPF_LRU 5
#define KPF_SLAB 7
#define KPF_ANON 12
#define KPF_COMPOUND_HEAD 15
#define KPF_COMPOUND_TAIL 16
#define KPF_PGTABLE 26
#define KBUF 1024 /* PFNs a pread(): 8 KiB of each file a call (the task touches both before it joins its memcg) */
static uint64_t kcg[KBUF], kfl[KBUF];
static int record_folios;

static long f_orders[64], f_file_pages, f_other_pages, f_cur = -1;
static int f_is_file;

static void folio_close(void) {
    if (f_cur < 0) return;
    if (f_is_file) {
        int o = 0;
        while ((1L << o) < f_cur) o++;
        f_orders[o]++;
        f_file_pages += f_cur;
    } else
        f_other_pages += f_cur;
    f_cur = -1;
}

/* A folio: a PFN charged to the memcg and, when it is a compound head, the KPF_COMPOUND_TAIL
 * PFNs after it (6.1's page_cgroup_ino() reads the page's own memcg_data, which only a head has). */
static void folios(const char *cgdir) {
    struct stat st;
    if (stat(cgdir, &st) < 0) return;
    int fc = open("/proc/kpagecgroup", O_RDONLY), ff = open("/proc/kpageflags", O_RDONLY);
    if (fc < 0 || ff < 0) {
        if (fc >= 0) close(fc);
        if (ff >= 0) close(ff);
        return;
    }
    memset(f_orders, 0, sizeof f_orders);
    f_file_pages = f_other_pages = 0;
    f_cur = -1;
    const uint64_t tail = 1ULL << KPF_COMPOUND_TAIL, head = 1ULL << KPF_COMPOUND_HEAD;
    const uint64_t not_file = 1ULL << KPF_ANON | 1ULL << KPF_SLAB | 1ULL << KPF_PGTABLE | tail;
    const uint64_t cached = 1ULL << KPF_LRU | 1ULL << KPF_UPTODATE;
    uint64_t ino = st.st_ino;
    for (off_t off = 0;; off += (off_t)sizeof kcg) {
        ssize_t nb = pread(fc, kcg, sizeof kcg, off);
        if (nb <= 0) break;
        long n = nb / 8, i = 0;
        int have = 0;
        if (f_cur >= 0) { /* a folio open at the end of the last chunk: its tails first */
            if (pread(ff, kfl, n * 8, off) != n * 8) memset(kfl, 0, sizeof kfl);
            have = 1;
            while (i < n && (kfl[i] & tail)) f_cur++, i++;
            if (i < n) folio_close();
        }
        for (; i < n; i++) {
            if (kcg[i] != ino) continue;
            if (!have) {
                if (pread(ff, kfl, n * 8, off) != n * 8) memset(kfl, 0, sizeof kfl);
                have = 1;
            }
            uint64_t fl = kfl[i];
            f_cur = 1;
            f_is_file = !(fl & not_file) && (fl & cached);
            if (fl & head)
                while (i + 1 < n && (kfl[i + 1] & tail)) f_cur++, i++;
            if (i + 1 < n) folio_close();
        }
        if (nb < (ssize_t)sizeof kcg) break;
    }
    close(fc);
    close(ff);
    folio_close();
    oprintf("#folios\nfile_pages %ld\nother_pages %ld\n", f_file_pages, f_other_pages);
    for (int o = 0; o < 64; o++)
        if (f_orders[o]) oprintf("order %d %ld\n", o, f_orders[o]);
}

/* #zoneinfo: "NODE VALUE" for each zone's `node_unreclaimable:` line of /proc/zoneinfo (mm/vmstat.c
 * zoneinfo_show_print(): pgdat->kswapd_failures >= MAX_RECLAIM_RETRIES, 4.12+, printed under every
 * zone of the node), the node taken from the zone's "Node N, zone NAME" header */
static void zoneinfo_unreclaimable(void) {
    oprintf("#zoneinfo\n");
    FILE *zf = fopen("/proc/zoneinfo", "r");
    if (!zf) {
        oprintf("!missing %s\n", strerror(errno));
        return;
    }
    char line[512];
    int node = -1, v;
    while (fgets(line, sizeof line, zf)) {
        if (sscanf(line, "Node %d,", &v) == 1) node = v;
        else if (node >= 0 && sscanf(line, " node_unreclaimable: %d", &v) == 1) oprintf("%d %d\n", node, v);
    }
    fclose(zf);
}

/* A snapshot of the running task (pid 0), or of task `pid`, a zombie killed by the OOM killer whose
 * step the parent ends for it: its /proc/PID/io and stat (a zombie keeps them until it is reaped);
 * its rusage (`killed_ru`, from wait4() once reaped) is printed by the caller. */
static void snap_of(const char *phase, const char *cgdir, int full, pid_t pid) {
    char p[1024];
    oprintf("@@%s\n#cgdir\n%s\n#t\n%.9f\n", phase, cgdir, now());
    if (pid) {
        snprintf(p, sizeof p, "/proc/%d/io", (int)pid);
        dump("io", p);
        snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
        dump("stat", p);
    } else {
        struct rusage ru, rc;
        getrusage(RUSAGE_SELF, &ru);
        getrusage(RUSAGE_CHILDREN, &rc);
        oprintf("#ru\n%ld %ld\n",
                (long)(ru.ru_utime.tv_sec + rc.ru_utime.tv_sec) * 1000000 + ru.ru_utime.tv_usec + rc.ru_utime.tv_usec,
                (long)(ru.ru_stime.tv_sec + rc.ru_stime.tv_sec) * 1000000 + ru.ru_stime.tv_usec + rc.ru_stime.tv_usec);
        dump("io", "/proc/self/io");
        dump("stat", "/proc/self/stat");
    }
    for (int i = 0; i < nsnap; i++) {
        snprintf(p, sizeof p, "%s/%s", cgdir, snapfiles[i]);
        char tag[128];
        snprintf(tag, sizeof tag, "cg %s", snapfiles[i]);
        dump(tag, p);
    }
    dump("vmstat", "/proc/vmstat");
    if (throttle_hist) dump("throttled", throttle_hist);
    kswapd_cpu();
    kthread_waits();
    if (zswap_stats) {
        static const char *zs[] = {"pool_limit_hit", "reject_reclaim_fail", "reject_alloc_fail", "reject_kmemcache_fail",
                                   "reject_compress_poor", "written_back_pages", "duplicate_entry", "pool_total_size",
                                   "stored_pages", "same_filled_pages"};
        oprintf("#zswap\n");
        for (size_t i = 0; i < sizeof zs / sizeof zs[0]; i++) {
            char zp[128], buf[64];
            snprintf(zp, sizeof zp, "/sys/kernel/debug/zswap/%s", zs[i]);
            int fd = open(zp, O_RDONLY);
            if (fd < 0) continue;
            ssize_t n = read(fd, buf, sizeof buf - 1);
            close(fd);
            if (n <= 0) continue;
            buf[n] = 0;
            oprintf("%s %s", zs[i], buf);
            if (buf[n - 1] != '\n') oprintf("\n");
        }
    }
    if (full) {
        dump("meminfo", "/proc/meminfo");
        if (throttle_hist) zoneinfo_unreclaimable();
        if (strcmp(version, "2") == 0) {
            snprintf(p, sizeof p, "%s/cgroup.stat", top);
            dump("cgstat", p);
        }
        oprintf("#res\n");
        for (int i = 0; i < ntracked; i++) {
            long n = resident_pages(tracked[i]);
            if (n > 0) oprintf("%d %ld\n", i, n);
        }
        if (record_folios) folios(cgdir);
    }
}

static void snap(const char *phase, const char *cgdir, int full) { snap_of(phase, cgdir, full, 0); }


/* Each task's step in progress, in memory shared with the parent (touched by the parent before the
 * tasks start, so charged to none of the scenario's memcgs): the step's name, its memcg and the
 * text of its start snapshot. Should the task be SIGKILLed (the OOM killer) the parent ends the
 * step for it with that text, a snapshot at its death and `#killed`, so that the recording has the
 * step as the engine has it (`oom_killed`). */
#define SLOT_A (64 << 10)
#define MAX_SLOTS 64
struct slot {
    volatile int in_step;
    char step[256];
    char cg[1024];
    size_t alen;
    char a[SLOT_A];
};
static struct slot *slots;

/* ------------------------------------------------------------------ ops */

/* The ops' random numbers as the engine draws them (crates/memtwin-engine/src/types.rs Rng:
 * SplitMix64 from seed ^ 0x9E3779B97F4A7C15, a number below n as the high word of x * n), so
 * that a task alone in its scenario touches and reads the engine's pages in the engine's order. */
static uint64_t rng_state;
static uint64_t rnd(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static uint64_t below(uint64_t n) {
    return (uint64_t)(((unsigned __int128)rnd() * n) >> 64);
}

static int fill(int fd, long long off, long long len, long long bs) {
    long long pos = off, end = off + len;
    while (pos < end) {
        long long n = end - pos;
        if (n > bs) n = bs;
        if (n > (long long)wbuf_len) n = wbuf_len;
        ssize_t w = pwrite(fd, wbuf, n, pos);
        if (w <= 0) return -1;
        pos += w;
    }
    return 0;
}

static int enable_memory(const char *d) {
    char p[1024];
    if (strcmp(version, "2") != 0) return 0;
    snprintf(p, sizeof p, "%s/cgroup.subtree_control", d);
    return write_file(p, "+memory");
}

static struct {
    char *name;
    void *addr;
    size_t len;
    int fill; /* what a write puts in a page: -1 one byte (1 at its start), 0 every byte 1
               * (same-filled), N > 0 the first N bytes random and the rest zero */
} regions[64];
static int nregions;

/* splitmix64: the random bytes of page `pg` of a region, independent of the ops' rnd() */
static uint64_t mix64(uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* a write touch of page `pg` of region `r`: its data as the region's fill says (what zswap
 * stores, compresses or rejects), then the byte every touch writes */
static void write_page(int r, size_t pg) {
    volatile char *c = (volatile char *)regions[r].addr + pg * 4096;
    int f = regions[r].fill;
    if (f == 0) {
        memset((char *)c, 1, 4096);
    } else if (f > 0) {
        uint64_t seed = mix64(((uint64_t)r << 40) ^ pg), w;
        for (int i = 0; i < f; i += 8) {
            w = mix64(seed + (uint64_t)i);
            memcpy((char *)c + i, &w, f - i >= 8 ? 8 : (size_t)(f - i));
        }
    }
    c[0] = 1;
}

static int region_of(const char *name) {
    for (int i = 0; i < nregions; i++)
        if (regions[i].addr && !strcmp(regions[i].name, name)) return i;
    return -1;
}

#ifndef MADV_COLD
#define MADV_COLD 20
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
/* the op script's advice codes: 0 normal, 1 sequential, 2 random, 3 willneed, 4 dontneed,
 * 5 cold, 6 pageout */
static int madv_of(int a) {
    static const int m[] = {MADV_NORMAL, MADV_SEQUENTIAL, MADV_RANDOM, MADV_WILLNEED, MADV_DONTNEED, MADV_COLD, MADV_PAGEOUT};
    return a >= 0 && a < 7 ? m[a] : MADV_NORMAL;
}

static char *cur_cg;
static char *rbuf; /* the read buffer, touched before the task joins its memcg */
static size_t rbuf_len;

/* Let the task's new mappings have transparent huge pages: PR_SET_THP_DISABLE (see main) is
 * per process, so it is lifted for the whole task, and every writable private mapping the
 * program has at that point (its data and bss, heap, stack, its own large buffers, libc's) is
 * kept out with MADV_NOHUGEPAGE first: with THP "always" khugepaged (max_ptes_none 511)
 * collapses any 2 MiB range holding one page into a huge page charged to the task's memcg, which
 * added 2-6 MiB of anon to a step of two of three host-madv-pageout-thp runs (madthp63). Only
 * the scenario's own mappings, made after this, are eligible. */
static int thp_for_mappings(void) {
    static int done;
    if (done) return 0;
    long pg = sysconf(_SC_PAGESIZE);
    struct { void *p; size_t len; } own[] = {{obuf, ocap}, {lines, sizeof lines}, {wbuf, wbuf_len}, {rbuf, rbuf_len}};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
        if (!own[i].p) continue;
        uintptr_t a = ((uintptr_t)own[i].p + pg - 1) & ~(uintptr_t)(pg - 1);
        uintptr_t e = ((uintptr_t)own[i].p + own[i].len) & ~(uintptr_t)(pg - 1);
        if (e > a && madvise((void *)a, e - a, MADV_NOHUGEPAGE) < 0) return -1;
    }
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) return -1;
    char line[512];
    while (fgets(line, sizeof line, maps)) {
        unsigned long a, e;
        char perms[5];
        if (sscanf(line, "%lx-%lx %4s", &a, &e, perms) != 3 || perms[1] != 'w' || perms[3] != 'p') continue;
        /* (special mappings such as [vvar] refuse it with EINVAL: nothing to keep out there) */
        if (madvise((void *)a, e - a, MADV_NOHUGEPAGE) < 0 && errno != EINVAL) {
            fclose(maps);
            return -1;
        }
    }
    fclose(maps);
    if (prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0) < 0) return -1;
    done = 1;
    return 0;
}


/* returns 0, or -1 with errno set */
static int do_op(char **f, int n) {
    const char *k = f[2];
    if (!strcmp(k, "read")) {
        char *path = unesc(f[3]);
        long long off = num(f[4]), len = num(f[5]), bs = num(f[6]), count = num(f[10]);
        int rand_pat = !strcmp(f[7], "rand"), adv = atoi(f[8]), scan = atoi(f[9]);
        int fd = open(path, O_RDONLY);
        free(path);
        if (fd < 0) return -1;
        if (adv == 1) posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
        if (adv == 2) posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
        struct stat st;
        fstat(fd, &st);
        long long end = len < 0 ? st.st_size : (off + len < st.st_size ? off + len : st.st_size);
        char *buf = rbuf;
        if (rand_pat) {
            long long slots = (end - off) / bs;
            if (slots < 1) slots = 1;
            for (long long i = 0; i < count; i++) {
                ssize_t r = pread(fd, buf, bs, off + (long long)below(slots) * bs);
                if (r < 0) { int e = errno; close(fd); errno = e; return -1; }
                if (scan && r > 0) (void)memmem(buf, r, "data", 4);
            }
        } else {
            long long pos = off;
            while (pos < end) {
                long long want = end - pos < bs ? end - pos : bs;
                ssize_t r = pread(fd, buf, want, pos);
                if (r < 0) { int e = errno; close(fd); errno = e; return -1; }
                if (r == 0) break;
                if (scan) (void)memmem(buf, r, "data", 4);
                pos += r;
            }
        }
        close(fd);
    } else if (!strcmp(k, "write")) {
        char *path = unesc(f[3]);
        parent_dirs(path);
        int fd = open(path, O_WRONLY | (atoi(f[8]) ? O_CREAT : 0) | (n > 9 && atoi(f[9]) ? O_TRUNC : 0), 0644);
        free(path);
        if (fd < 0) return -1;
        if (fill(fd, num(f[4]), num(f[5]), num(f[6])) < 0) { int e = errno; close(fd); errno = e; return -1; }
        if (atoi(f[7]) && fsync(fd) < 0) { int e = errno; close(fd); errno = e; return -1; }
        close(fd);
    } else if (!strcmp(k, "fsync")) {
        char *path = unesc(f[3]);
        int fd = open(path, O_RDONLY);
        free(path);
        if (fd < 0) return -1;
        fsync(fd);
        close(fd);
    } else if (!strcmp(k, "stat")) {
        char *path = unesc(f[3]);
        struct stat st;
        int r = stat(path, &st);
        free(path);
        if (r < 0) return -1;
    } else if (!strcmp(k, "fadv")) {
        int adv = atoi(f[3]);
        long long off = num(f[4]), len = num(f[5]);
        for (int i = 7; i < n; i++) {
            char *path = unesc(f[i]);
            int fd = open(path, O_RDONLY);
            free(path);
            if (fd < 0) {
                if (errno == ENOENT) continue;
                return -1;
            }
            posix_fadvise(fd, off, len, adv);
            close(fd);
        }
    } else if (!strcmp(k, "fadvdir")) {
        char *path = unesc(f[4]);
        int fd = open(path, O_RDONLY | O_DIRECTORY);
        free(path);
        if (fd < 0) return -1;
        posix_fadvise(fd, 0, 0, atoi(f[3]));
        close(fd);
    } else if (!strcmp(k, "sleep")) {
        long long ns = num(f[3]);
        struct timespec ts = {ns / 1000000000LL, ns % 1000000000LL};
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
    } else if (!strcmp(k, "move")) {
        char p[1024], pid[32];
        char *d = unesc(f[3]);
        snprintf(p, sizeof p, "%s/cgroup.procs", d);
        snprintf(pid, sizeof pid, "%d", getpid());
        if (write_file(p, pid) < 0) { free(d); return -1; }
        cur_cg = d;
    } else if (!strcmp(k, "mkdir")) {
        char *d = unesc(f[3]);
        int r = mkdir(d, 0755);
        if (r == 0 && atoi(f[4])) enable_memory(d);
        free(d);
        if (r < 0) return -1;
    } else if (!strcmp(k, "rmdir")) {
        char *d = unesc(f[3]);
        int r = rmdir(d);
        free(d);
        if (r < 0) return -1;
    } else if (!strcmp(k, "exec")) {
        pid_t p = fork();
        if (p == 0) {
            execl("/bin/busybox", "true", (char *)NULL);
            _exit(127);
        }
        int st;
        waitpid(p, &st, 0);
    } else if (!strcmp(k, "mmap")) {
        /* mmap NAME SIZE THP: an anonymous private mapping; THP = 1 lets it have transparent
         * huge pages (the program runs with PR_SET_THP_DISABLE, see main) */
        if (n < 6) { errno = EINVAL; return -1; }
        int fillv = n >= 7 ? atoi(f[6]) : -1;
        if (fillv > 4096 || fillv < -1) { errno = EINVAL; return -1; }
        int slot = -1;
        for (int i = 0; i < nregions; i++) {
            if (regions[i].addr && !strcmp(regions[i].name, f[3])) { errno = EEXIST; return -1; }
            if (!regions[i].addr && slot < 0) slot = i;
        }
        if (slot < 0) {
            if (nregions >= (int)(sizeof regions / sizeof regions[0])) { errno = ENOMEM; return -1; }
            slot = nregions++;
        }
        if (atoi(f[5]) && thp_for_mappings() < 0) return -1;
        size_t len = (size_t)num(f[4]);
        void *a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (a == MAP_FAILED) return -1;
        free(regions[slot].name);
        regions[slot].name = strdup(f[3]);
        regions[slot].addr = a;
        regions[slot].len = len;
        regions[slot].fill = fillv;
    } else if (!strcmp(k, "fmmap")) {
        /* fmmap NAME PATH OFFSET LEN SHARED EXEC POPULATE ADVICE: a file mapping; exec
         * mappings are PROT_READ|PROT_EXEC, others PROT_READ|PROT_WRITE */
        if (n < 11) { errno = EINVAL; return -1; }
        int slot = -1;
        for (int i = 0; i < nregions; i++) {
            if (regions[i].addr && !strcmp(regions[i].name, f[3])) { errno = EEXIST; return -1; }
            if (!regions[i].addr && slot < 0) slot = i;
        }
        if (slot < 0) {
            if (nregions >= (int)(sizeof regions / sizeof regions[0])) { errno = ENOMEM; return -1; }
            slot = nregions++;
        }
        int shared = atoi(f[7]), ex = atoi(f[8]), populate = atoi(f[9]), adv = atoi(f[10]);
        char *path = unesc(f[4]);
        int fd = open(path, ex || !shared ? O_RDONLY : O_RDWR);
        free(path);
        if (fd < 0) return -1;
        size_t len = (size_t)num(f[6]);
        int prot = ex ? (PROT_READ | PROT_EXEC) : (PROT_READ | PROT_WRITE);
        void *a = mmap(NULL, len, prot, (shared ? MAP_SHARED : MAP_PRIVATE) | (populate ? MAP_POPULATE : 0), fd, (off_t)num(f[5]));
        close(fd);
        if (a == MAP_FAILED) return -1;
        free(regions[slot].name);
        regions[slot].name = strdup(f[3]);
        regions[slot].addr = a;
        regions[slot].len = len;
        regions[slot].fill = -1;
        if (adv && madvise(a, len, madv_of(adv)) < 0) return -1;
    } else if (!strcmp(k, "mtouch")) {
        /* mtouch NAME WRITE OFFSET LEN PATTERN COUNT STRIDE_PAGES: PATTERN 0 sequential,
         * 1 random (COUNT pages), 2 strided; LEN -1 = to the end */
        if (n < 10) { errno = EINVAL; return -1; }
        int r = region_of(f[3]);
        if (r < 0) { errno = ENOENT; return -1; }
        int wr = atoi(f[4]), pat = atoi(f[7]);
        long long off = num(f[5]), len = num(f[6]), count = num(f[8]), stride = num(f[9]);
        size_t pages = regions[r].len / 4096;
        size_t first = off / 4096;
        size_t end = len < 0 ? pages : (size_t)((off + len + 4095) / 4096);
        if (end > pages) end = pages;
        if (first > end) first = end;
        size_t np = end - first;
        volatile char *c = regions[r].addr;
        volatile char sink = 0;
        if (np == 0) return 0;
        if (pat == 1) {
            for (long long i = 0; i < count; i++) {
                size_t pg = first + below(np);
                if (wr) write_page(r, pg); else sink += c[pg * 4096];
            }
        } else {
            size_t st = pat == 2 && stride > 0 ? (size_t)stride : 1;
            for (size_t pg = first; pg < end; pg += st) {
                if (wr) write_page(r, pg); else sink += c[pg * 4096];
            }
        }
        (void)sink;
    } else if (!strcmp(k, "madv")) {
        /* madv NAME ADVICE OFFSET LEN (LEN -1 = to the end) */
        if (n < 7) { errno = EINVAL; return -1; }
        int r = region_of(f[3]);
        if (r < 0) { errno = ENOENT; return -1; }
        long long off = num(f[5]), len = num(f[6]);
        if (len < 0 || off + len > (long long)regions[r].len) len = regions[r].len - off;
        if (madvise((char *)regions[r].addr + off, len, madv_of(atoi(f[4]))) < 0) return -1;
    } else if (!strcmp(k, "msync") || !strcmp(k, "mlock") || !strcmp(k, "munlock")) {
        if (n < 4) { errno = EINVAL; return -1; }
        int r = region_of(f[3]);
        if (r < 0) { errno = ENOENT; return -1; }
        int rc;
        if (!strcmp(k, "msync")) rc = msync(regions[r].addr, regions[r].len, MS_SYNC);
        else if (!strcmp(k, "mlock")) rc = mlock(regions[r].addr, regions[r].len);
        else rc = munlock(regions[r].addr, regions[r].len);
        if (rc < 0) return -1;
    } else if (!strcmp(k, "touch") || !strcmp(k, "munmap")) {
        if (n < 4) { errno = EINVAL; return -1; }
        int r = -1;
        for (int i = 0; i < nregions; i++)
            if (regions[i].addr && !strcmp(regions[i].name, f[3])) r = i;
        if (r < 0) { errno = ENOENT; return -1; }
        if (!strcmp(k, "touch")) {
            for (size_t pg = 0; pg < regions[r].len / 4096; pg++) write_page(r, pg);
        } else {
            if (munmap(regions[r].addr, regions[r].len) < 0) return -1;
            regions[r].addr = NULL;
        }
    } else if (!strcmp(k, "mount")) {
        char *path = unesc(f[3]);
        if (atoi(f[4])) mkdirs(path, 1);
        int r = mount("tmpfs", path, "tmpfs", 0, NULL);
        free(path);
        if (r < 0) return -1;
    } else {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ tasks */


/* The tasks' start line, in memory shared with the parent (touched by it before the tasks fork):
 * each task, its buffers touched, counts itself `ready` and waits for `go`; the parent, once every
 * task is ready (or after 60 s), prints each node's free memory (@@SETUPMEM: the guest with the
 * scenario's task processes set up and none of their ops run, memtwin.qemu
 * real.machine.node_mem_kB_after_task_setup) and sets `t0`, from which the tasks' start offsets run,
 * and `go`. */
struct start_line {
    volatile int ready, go;
    volatile double t0;
};
static struct start_line *start_line;

static void node_mem(const char *tag) {
    for (int nd = 0; nd < 64; nd++) {
        char np[128], line[256];
        snprintf(np, sizeof np, "/sys/devices/system/node/node%d/meminfo", nd);
        FILE *nf = fopen(np, "r");
        if (!nf) break;
        while (fgets(line, sizeof line, nf))
            if (strstr(line, "MemFree:") || strstr(line, "MemTotal:")) printf("@@%s %s", tag, line);
        fclose(nf);
    }
}

static void run_task(int ti, int first, int last, char *cgdir, double start) {
    char p[1024], pid[32];
    /* everything the task needs is allocated and touched before it joins its memcg */
    int nops = last - first;
    char ***fs = calloc(nops + 1, sizeof *fs);
    int *ns = calloc(nops + 1, sizeof *ns);
    long long maxbs = 4096; /* the largest read op's buffer (the op's bufsize), a page at least */
    for (int i = 0; i < nops; i++) {
        char *line = strdup(lines[first + i]);
        int cap = 2;
        for (char *c = line; *c; c++) cap += *c == ' ';
        fs[i] = malloc(cap * sizeof **fs);
        ns[i] = split(line, fs[i], cap);
        if (ns[i] > 6 && !strcmp(fs[i][2], "read") && num(fs[i][6]) > maxbs) maxbs = num(fs[i][6]);
    }
    rbuf = malloc(maxbs);
    if (!rbuf) die("task %d: no memory for its %lld-byte read buffer (the largest read op's bufsize)", ti, maxbs);
    rbuf_len = (size_t)maxbs;
    memset(rbuf, 1, maxbs);
    memset(obuf, 0, ocap);
    memset(kcg, 0, sizeof kcg);
    memset(kfl, 0, sizeof kfl);
    snprintf(p, sizeof p, "%s/cgroup.procs", cgdir);
    snprintf(pid, sizeof pid, "%d", getpid());
    __sync_fetch_and_add(&start_line->ready, 1);
    while (!start_line->go) {
        struct timespec w = {0, 1000000};
        nanosleep(&w, NULL);
    }
    __sync_synchronize();
    double d = start_line->t0 + start - now();
    if (d > 0) {
        struct timespec ts = {(time_t)d, (long)((d - (time_t)d) * 1e9)};
        nanosleep(&ts, NULL);
    }
    if (write_file(p, pid) < 0) {
        oprintf("@@ERROR task %d: cannot join %s: %s\n", ti, cgdir, strerror(errno));
        oflush();
        _exit(1);
    }
    cur_cg = cgdir;
    char step_cg[1024];
    int in_step = 0;
    for (int i = 0; i < nops; i++) {
        char **f = fs[i];
        const char *step = f[1];
        if (!in_step) {
            snprintf(step_cg, sizeof step_cg, "%s", cur_cg);
            in_step = 1;
            oprintf("@@STEP %d %s\n", ti, step);
            size_t mark = olen;
            snap("A", step_cg, 0);
            if (slots && olen >= mark && olen - mark <= SLOT_A) {
                struct slot *sl = &slots[ti];
                snprintf(sl->step, sizeof sl->step, "%s", step);
                snprintf(sl->cg, sizeof sl->cg, "%s", step_cg);
                memcpy(sl->a, obuf + mark, olen - mark);
                sl->alen = olen - mark;
                __sync_synchronize();
                sl->in_step = 1;
            }
        }
        if (do_op(f, ns[i]) < 0) {
            oprintf("@@ERROR task %d step %s: op %s failed on the guest kernel: %s\n", ti, step, f[2], strerror(errno));
            oflush();
            _exit(1);
        }
        if (i + 1 == nops || strcmp(fs[i + 1][1], step) != 0) {
            snap("B", step_cg, 1);
            oprintf("@@ENDSTEP\n");
            if (slots) slots[ti].in_step = 0;
            __sync_synchronize();
            oflush();
            in_step = 0;
        }
    }
    /* what the task's own buffers took (touched before it joined its memcg, none of the engine's
     * memory): the output buffer's size, its most used, what it grew by in steps (charged to the
     * memcg), and the read buffer's size, in bytes */
    char m[160];
    int mn = snprintf(m, sizeof m, "@@TASKMEM %d obuf %zu peak %zu grown %zu rbuf %zu\n", ti, ocap - ogrown, opeak, ogrown, rbuf_len);
    if (write(1, m, (size_t)mn) < 0) {}
}

/* The output buffer's size (see oflush()): a full snapshot of the first task's memcg taken now into
 * a scratch buffer (unmapped again), with room for a resident-pages line of every tracked file
 * (cold now) and for 16 KiB of lines that come and go (kworkers), twice (a step's start and end
 * snapshots). Mapped here, untouched: each task touches its copy before it joins its memcg. */
static void size_obuf(const char *cgdir) {
    olen = opeak = 0;
    snap_of("B", cgdir, 1, 0);
    size_t snap = opeak, pg = (size_t)sysconf(_SC_PAGESIZE);
    munmap(obuf, ocap);
    size_t cap = obuf_fixed ? obuf_fixed : 2 * (snap + 24 * (size_t)ntracked + (16 << 10));
    cap = (cap + pg - 1) / pg * pg;
    obuf = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (obuf == MAP_FAILED) die("mmap of the output buffer: %s", strerror(errno));
    ocap = cap;
    olen = opeak = ogrown = 0;
    printf("@@OBUF snapshot %zu buffer %zu\n", snap, cap);
}

/* The guest's CPU speed, for the engine's `[machine] cpu_slowdown` (QEMU/TCG emulates the CPUs, tens of
 * times slower than the host, while QEMU's throttle serves the disk at its rate in the host's time):
 * the wall time per 4 KiB page of 128 KiB reads of a 16 MiB memfd already in memory (shmem: a page
 * lookup and a copy per page, the syscall per 32 pages), best of 5 passes, printed as @@CALIB; then
 * 1-byte reads of each of its pages (a syscall and a lookup, no copy), printed as @@CALIB2. Runs
 * before the scenario's tasks, in the root cgroup; the memfd is closed (freed) before they start. */
static void calibrate_cpu(void) {
    const size_t len = 16 << 20, bs = 128 << 10;
    int fd = memfd_create("memtwin-calib", 0);
    if (fd < 0) { printf("@@CALIB none memfd_create: %s\n", strerror(errno)); return; }
    for (size_t off = 0; off < len; off += wbuf_len < len - off ? wbuf_len : len - off)
        if (pwrite(fd, wbuf, wbuf_len < len - off ? wbuf_len : len - off, off) < 0) { printf("@@CALIB none pwrite: %s\n", strerror(errno)); close(fd); return; }
    static char rb[128 << 10];
    double best = 0;
    for (int pass = 0; pass < 6; pass++) {
        double t = now();
        for (size_t off = 0; off < len; off += bs)
            if (pread(fd, rb, bs, off) != (ssize_t)bs) { printf("@@CALIB none pread: %s\n", strerror(errno)); close(fd); return; }
        t = now() - t;
        if (pass > 0 && (best == 0 || t < best)) best = t; /* pass 0 warms up */
    }
    /* the same pages read one byte each: the syscall and the page lookup without the 4 KiB copy
     * (TCG emulates a copy's loads and stores at a cost of its own, unlike the kernel's other code) */
    double small = 0;
    for (int pass = 0; pass < 6; pass++) {
        double t = now();
        for (size_t off = 0; off < len; off += 4096)
            if (pread(fd, rb, 1, off) != 1) { printf("@@CALIB none pread: %s\n", strerror(errno)); close(fd); return; }
        t = now() - t;
        if (pass > 0 && (small == 0 || t < small)) small = t;
    }
    close(fd);
    printf("@@CALIB hot_read_ns_per_page %.1f\n", best * 1e9 / (len / 4096));
    printf("@@CALIB2 small_read_ns_per_call %.1f\n", small * 1e9 / (len / 4096));
}

static double thread_cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The guest's CPU time per read request, for the engine's `[machine] submit_io_slowdown` (iso23): the
 * calibration file read again with O_DIRECT in `bs` requests (one request each: no page cache, no
 * readahead), the reading thread's CPU time (CLOCK_THREAD_CPUTIME_ID) per request, best of 3 passes
 * after one: the syscall, the direct I/O's bio set-up and page pinning, blk-mq's submission, the
 * virtio notify (under TCG an MMIO write that exits to QEMU's device emulation in the vCPU's own
 * thread: the readers' largest single cost outside reclaim in lab/measurements/guest-cpu-profile)
 * and the completion's wake-up and unpinning; the task's sleep while the disk serves it is not CPU
 * time. Printed as @@CALIBIO with the passes' wall time per request beside it. */
/* The same requests with the device busy: REQ_BUSY processes at once, each reading its own slice of
 * the file with O_DIRECT (two passes, the second counted), each process's CPU time summed over all
 * the requests: how a request's CPU time grows when QEMU's device emulation serves many at once (the
 * vCPU's MMIO exit waits for QEMU's global lock while the main loop completes the others). Printed as
 * @@CALIBIOBUSY; only documents (the engine takes @@CALIBIO's figure). */
#define REQ_BUSY 16
static void calibrate_request_busy(const char *p, size_t len, size_t bs) {
    int pfd[2];
    if (pipe(pfd) < 0) { printf("@@CALIBIOBUSY none pipe: %s\n", strerror(errno)); return; }
    size_t slice = len / REQ_BUSY / bs * bs;
    double t = now();
    for (int w = 0; w < REQ_BUSY; w++) {
        pid_t pid = fork();
        if (pid < 0) break;
        if (pid == 0) {
            close(pfd[0]);
            double res[2] = {-1, 0};
            int fd = open(p, O_RDONLY | O_DIRECT);
            void *buf = NULL;
            if (fd >= 0 && !posix_memalign(&buf, 4096, bs)) {
                memset(buf, 0, bs);
                int ok = 1;
                for (int pass = 0; pass < 2 && ok; pass++) {
                    double c = thread_cpu();
                    for (size_t off = w * slice; off < (w + 1) * slice && ok; off += bs)
                        ok = pread(fd, buf, bs, off) == (ssize_t)bs;
                    res[0] = ok ? thread_cpu() - c : -1;
                    res[1] = slice / bs;
                }
            }
            if (write(pfd[1], res, sizeof res) != sizeof res) _exit(1);
            _exit(0);
        }
    }
    close(pfd[1]);
    double cpu = 0, reqs = 0, res[2];
    int got = 0, bad = 0;
    while (read(pfd[0], res, sizeof res) == sizeof res) {
        got++;
        if (res[0] < 0) bad++; else cpu += res[0], reqs += res[1];
    }
    close(pfd[0]);
    while (wait(NULL) > 0) {}
    t = now() - t;
    if (got != REQ_BUSY || bad || reqs == 0) { printf("@@CALIBIOBUSY none %d of %d readers reported, %d failed\n", got, REQ_BUSY, bad); return; }
    printf("@@CALIBIOBUSY readers %d direct_read_cpu_ns_per_request %.1f wall_s %.3f\n", REQ_BUSY, cpu * 1e9 / reqs, t);
}

static void calibrate_request(const char *p, size_t len, size_t bs) {
    int fd = open(p, O_RDONLY | O_DIRECT);
    if (fd < 0) { printf("@@CALIBIO none open O_DIRECT %s: %s\n", p, strerror(errno)); return; }
    void *buf = NULL;
    if (posix_memalign(&buf, 4096, bs)) { printf("@@CALIBIO none posix_memalign\n"); close(fd); return; }
    memset(buf, 0, bs); /* fault the buffer in before the timed passes */
    double cpu = 0, wall = 0;
    for (int pass = 0; pass < 4; pass++) {
        double c = thread_cpu(), t = now();
        for (size_t off = 0; off < len; off += bs)
            if (pread(fd, buf, bs, off) != (ssize_t)bs) {
                printf("@@CALIBIO none pread O_DIRECT %s: %s\n", p, strerror(errno));
                free(buf); close(fd); return;
            }
        c = thread_cpu() - c, t = now() - t;
        if (pass > 0 && (cpu == 0 || c < cpu)) cpu = c, wall = t; /* pass 0 warms up */
    }
    free(buf);
    close(fd);
    printf("@@CALIBIO direct_read_cpu_ns_per_request %.1f direct_read_wall_ns_per_request %.1f request_bytes %zu\n",
           cpu * 1e9 / (len / bs), wall * 1e9 / (len / bs), bs);
    calibrate_request_busy(p, len, bs);
}

/* The same two reads of a regular file on the scenario's disk (/s, the file system the tasks read),
 * and its cold read: calibrate_cpu()'s memfd is shmem, whose read path (shmem_file_read_iter():
 * shmem_get_folio() locks and unlocks each folio) is not filemap_read()'s (filemap_get_pages()
 * batches), and a cold read adds the allocation, page cache insertion, charge, LRU add, readahead
 * and bio of each page (the engine's CpuCost add_page, charge, submit_io). 16 MiB written and
 * fsync()ed first; hot: 128 KiB reads, best of 5 passes after one; small: 1-byte reads of each
 * page, best of 5; cold: POSIX_FADV_DONTNEED then 128 KiB reads at the disk's read_ahead_kb, best
 * of 3 (QEMU's throttle serves the disk at the scenario's read_bw, so a cold pass takes at least
 * its transfer time). The file is removed before the tasks. Printed as one @@CALIBF line. */
static void calibrate_file(void) {
    const size_t len = 16 << 20, bs = 128 << 10;
    const char *p = "/s/.memtwin-calib";
    int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) { printf("@@CALIBF none create %s: %s\n", p, strerror(errno)); return; }
    static char rb[128 << 10];
    double hot = 0, small = 0, cold = 0;
    const char *why = NULL;
    for (size_t off = 0; off < len && !why; off += wbuf_len < len - off ? wbuf_len : len - off)
        if (pwrite(fd, wbuf, wbuf_len < len - off ? wbuf_len : len - off, off) < 0) why = "pwrite";
    if (!why && fsync(fd) < 0) why = "fsync";
    if (!why) printf("@@SETUPW %zu %.9f\n", len, now());
    for (int pass = 0; pass < 6 && !why; pass++) {
        double t = now();
        for (size_t off = 0; off < len && !why; off += bs)
            if (pread(fd, rb, bs, off) != (ssize_t)bs) why = "pread";
        t = now() - t;
        if (pass > 0 && (hot == 0 || t < hot)) hot = t;
    }
    for (int pass = 0; pass < 6 && !why; pass++) {
        double t = now();
        for (size_t off = 0; off < len && !why; off += 4096)
            if (pread(fd, rb, 1, off) != 1) why = "pread";
        t = now() - t;
        if (pass > 0 && (small == 0 || t < small)) small = t;
    }
    for (int pass = 0; pass < 3 && !why; pass++) {
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        double t = now();
        for (size_t off = 0; off < len && !why; off += bs)
            if (pread(fd, rb, bs, off) != (ssize_t)bs) why = "pread";
        t = now() - t;
        if (cold == 0 || t < cold) cold = t;
    }
    int e = errno;
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    if (why) { unlink(p); printf("@@CALIBF none %s %s: %s\n", why, p, strerror(e)); return; }
    printf("@@CALIBF hot_read_ns_per_page %.1f small_read_ns_per_call %.1f cold_read_ns_per_page %.1f\n",
           hot * 1e9 / (len / 4096), small * 1e9 / (len / 4096), cold * 1e9 / (len / 4096));
    calibrate_request(p, len, bs);
    unlink(p);
}

/* xfs21b (issue 21): the CPU cost of the buffered read path by component, for a reader whose file is
 * cached in large folios (6.1 XFS: page_cache_ra_order()), measured apart from the tasks. A 32 MiB
 * file on the scenario's disk (/s), written, fsync()ed and dropped; then three rounds of: a cold
 * pass (POSIX_FADV_DONTNEED before it, 128 KiB reads at the disk's read_ahead_kb, in the program's
 * own memcg: no limit, no reclaim), three hot passes of the same pages (now in the folios readahead
 * gave them), and the POSIX_FADV_DONTNEED that removes them (truncate's removal of each folio:
 * filemap_remove_folio(), the uncharge, the free of its pages). Each timed with the calling thread's
 * CPU time (CLOCK_THREAD_CPUTIME_ID, sum_exec_runtime), best round of each; /proc/vmstat's numa_hit
 * across the cold pass counts its allocations (one a folio: zone_statistics() per rmqueue()), so
 * pages / allocations is the mean folio size it read in. Then anonymous first-touch faults of a 32
 * MiB MADV_NOHUGEPAGE region (do_anonymous_page(): the page's allocation and clear_page(), charge,
 * rmap, LRU add), best of 3, and huge-page first-touch faults of a 32 MiB MADV_HUGEPAGE region (per
 * 4 KiB: clear_page()), best of 3, with thp_fault_alloc's count (transparent_hugepage/enabled set to
 * madvise for them and put back). Opt-in (a READPATH line: the runner's MEMTWIN_READPATH_PROBE=1), so a
 * validation recording's guest does nothing more before its tasks. Nothing the engine runs at is taken from this line unless validate
 * says so; printed as one @@CALIBRP line, or @@CALIBRP none WHY. */
static long vmstat_field(const char *name) {
    FILE *f = fopen("/proc/vmstat", "r");
    if (!f) return -1;
    char k[128];
    long v, r = -1;
    while (fscanf(f, "%127s %ld", k, &v) == 2)
        if (!strcmp(k, name)) { r = v; break; }
    fclose(f);
    return r;
}

static void calibrate_readpath(void) {
    const size_t len = 32 << 20, bs = 128 << 10, pages = len / 4096;
    const char *p = "/s/.memtwin-calib-rp";
    int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) { printf("@@CALIBRP none create %s: %s\n", p, strerror(errno)); return; }
    static char rb[128 << 10];
    const char *why = NULL;
    for (size_t off = 0; off < len && !why; off += wbuf_len < len - off ? wbuf_len : len - off)
        if (pwrite(fd, wbuf, wbuf_len < len - off ? wbuf_len : len - off, off) < 0) why = "pwrite";
    if (!why && fsync(fd) < 0) why = "fsync";
    if (!why) printf("@@SETUPW %zu %.9f\n", len, now());
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    double cold = 0, hot = 0, drop = 0, coldw = 0;
    long allocs = -1;
    for (int round = 0; round < 3 && !why; round++) {
        long n0 = vmstat_field("numa_hit");
        double c = thread_cpu(), t = now();
        for (size_t off = 0; off < len && !why; off += bs)
            if (pread(fd, rb, bs, off) != (ssize_t)bs) why = "pread";
        c = thread_cpu() - c, t = now() - t;
        long n1 = vmstat_field("numa_hit");
        if (cold == 0 || c < cold) cold = c, coldw = t, allocs = n0 >= 0 && n1 >= 0 ? n1 - n0 : -1;
        for (int pass = 0; pass < 3 && !why; pass++) {
            double h = thread_cpu();
            for (size_t off = 0; off < len && !why; off += bs)
                if (pread(fd, rb, bs, off) != (ssize_t)bs) why = "pread";
            h = thread_cpu() - h;
            if (hot == 0 || h < hot) hot = h;
        }
        double d = thread_cpu();
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        d = thread_cpu() - d;
        if (drop == 0 || d < drop) drop = d;
    }
    int e = errno;
    close(fd);
    unlink(p);
    if (why) { printf("@@CALIBRP none %s %s: %s\n", why, p, strerror(e)); return; }
    double fault = 0;
    for (int round = 0; round < 3; round++) {
        char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) { printf("@@CALIBRP none mmap: %s\n", strerror(errno)); return; }
        madvise(m, len, MADV_NOHUGEPAGE);
        double c = thread_cpu();
        for (size_t off = 0; off < len; off += 4096) m[off] = 1;
        c = thread_cpu() - c;
        munmap(m, len);
        if (fault == 0 || c < fault) fault = c;
    }
    /* huge-page first-touch faults (MADV_HUGEPAGE, 2 MiB aligned): clear_huge_page() of 512 pages
     * a fault, almost all of it clear_page() (the host's M12 method); thp_fault_alloc counts the
     * faults that got a huge page */
    double thp = 0;
    long thps = -1;
    /* the scenario's transparent_hugepage/enabled (the init set it) becomes madvise for these faults
     * and is put back after them */
    char thp_was[128] = "";
    FILE *tf = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (tf) {
        if (fgets(thp_was, sizeof thp_was, tf)) {
            char *b = strchr(thp_was, '['), *e = b ? strchr(b, ']') : NULL;
            if (b && e) { memmove(thp_was, b + 1, e - b - 1); thp_was[e - b - 1] = 0; } else thp_was[0] = 0;
        }
        fclose(tf);
    }
    if (thp_was[0]) {
        tf = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "w");
        if (tf) { fputs("madvise", tf); fclose(tf); }
    }
    for (int round = 0; round < 3; round++) {
        char *m = mmap(NULL, len + (2 << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) { printf("@@CALIBRP none mmap: %s\n", strerror(errno)); return; }
        char *a = (char *)(((uintptr_t)m + (2 << 20) - 1) & ~(uintptr_t)((2 << 20) - 1));
        madvise(a, len, MADV_HUGEPAGE);
        long t0 = vmstat_field("thp_fault_alloc");
        double c = thread_cpu();
        for (size_t off = 0; off < len; off += 2 << 20) a[off] = 1;
        c = thread_cpu() - c;
        long t1 = vmstat_field("thp_fault_alloc");
        munmap(m, len + (2 << 20));
        if (thp == 0 || c < thp) thp = c, thps = t0 >= 0 && t1 >= 0 ? t1 - t0 : -1;
    }
    if (thp_was[0]) {
        tf = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "w");
        if (tf) { fputs(thp_was, tf); fclose(tf); }
    }
    printf("@@CALIBRP cold_read_cpu_ns_per_page %.1f cold_read_wall_ns_per_page %.1f hot_read_cpu_ns_per_page %.1f "
           "drop_cpu_ns_per_page %.1f cold_allocs %ld pages %zu anon_fault_cpu_ns_per_page %.1f thp_fault_cpu_ns_per_page %.1f thp_faults %ld\n",
           cold * 1e9 / pages, coldw * 1e9 / pages, hot * 1e9 / pages, drop * 1e9 / pages, allocs, pages, fault * 1e9 / pages,
           thp * 1e9 / pages, thps);
}

/* The guest's cross-CPU wake-up latency, for the engine's `[machine] wakeup_latency`: a task on the last
 * CPU sleeps in read() on a pipe (its CPU idle), one on CPU 0 writes a byte and the sleeper notes how
 * long after the write it ran (CLOCK_MONOTONIC, shared memory); 1 ms apart, WAKE_ROUNDS times, after
 * WAKE_WARM rounds not counted. Under QEMU/TCG an idle vCPU is a host thread asleep, and waking it
 * waits for a host CPU: this is how long a kernel thread woken on another CPU (kswapd by
 * wakeup_kswapd()) waits before it runs. Printed as @@WAKE followed by the sorted latencies in ns;
 * @@WAKE none WHY when it could not be measured (one CPU). */
#define WAKE_ROUNDS 200
#define WAKE_WARM 10
static int cmp_long(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* `tag`: the line's marker (@@WAKE before the tasks); `gap_us`: the writer's pause between rounds;
 * `busy`: the writer spins through the pause (its CPU busy, as a reader's is while it wakes kswapd)
 * instead of sleeping; `busy` 2: it also spins after its write, counting its loop's turns until the
 * sleeper has run (a flag in the shared page), and prints, as @@TAG_PROG, those turns at the loop's
 * best pace (the fastest of 5 runs of 2^20 turns): how far the waker got while the woken task waited,
 * in time at its undisturbed pace (a reader's pages before kswapd runs). The variants after the
 * tasks (--reclaim-trace: @@WAKEPOST, @@WAKEBUSY, @@WAKEGAP) only document how the wake-up latency
 * depends on when and how it is taken. */
static void calibrate_wakeup_as(const char *tag, long gap_us, int busy) {
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 2) { printf("@@%s none one CPU\n", tag); return; }
    int to[2], back[2];
    if (pipe(to) < 0 || pipe(back) < 0) { printf("@@%s none pipe: %s\n", tag, strerror(errno)); return; }
    double *t0 = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (t0 == MAP_FAILED) { printf("@@%s none mmap: %s\n", tag, strerror(errno)); return; }
    long *lat = (long *)(t0 + 1);
    volatile long *woke = (volatile long *)((char *)t0 + 4096 - sizeof(long));
    static long sorted[WAKE_ROUNDS], turns[WAKE_ROUNDS];
    double turn_ns = 0;
    if (busy == 2) {
        /* The pace of one turn of the busy loop below (*woke is still 0 here): the best of 5
         * runs of up to 2^20 turns. now() is read once every 65,536 turns, so a run the vCPU
         * stalled in can end early at its 2 s cap and count fewer turns; the best of 5 then
         * still holds a stall. Diagnostic only (the WAKEPROG line, review6 L8): nothing the
         * engine runs at is taken from it. */
        for (int r = 0; r < 5; r++) {
            double t = now();
            long n = 0;
            while (!*woke && n < (1L << 20))
                if ((++n & 0xffff) == 0 && now() - t > 2.0) break;
            t = now() - t;
            if (turn_ns == 0 || t * 1e9 / n < turn_ns) turn_ns = t * 1e9 / n;
        }
    }
    pid_t c = fork();
    if (c < 0) { printf("@@%s none fork: %s\n", tag, strerror(errno)); return; }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(c == 0 ? (int)ncpu - 1 : 0, &set);
    sched_setaffinity(0, sizeof set, &set);
    char b = 0;
    if (c == 0) {
        /* Only the ends this side uses stay open: a parent that stops writing then gives EOF here,
         * and this side's exit gives the parent EOF, so neither can wait on the other for ever. */
        close(to[1]); close(back[0]);
        for (int i = 0; i < WAKE_WARM + WAKE_ROUNDS; i++) {
            if (read(to[0], &b, 1) != 1) _exit(1);
            double t = now();
            *woke = 1;
            if (i >= WAKE_WARM) lat[i - WAKE_WARM] = (long)((t - *t0) * 1e9);
            if (write(back[1], &b, 1) != 1) _exit(1);
        }
        _exit(0);
    }
    close(to[0]); close(back[1]);
    int ok = 1;
    for (int i = 0; i < WAKE_WARM + WAKE_ROUNDS && ok; i++) {
        if (busy) {
            double until = now() + gap_us / 1e6;
            while (now() < until) {}
        } else {
            struct timespec ts = {gap_us / 1000000, (gap_us % 1000000) * 1000};
            nanosleep(&ts, NULL);
        }
        *woke = 0;
        *t0 = now();
        ok = write(to[1], &b, 1) == 1;
        if (ok && busy == 2) {
            long n = 0;
            while (!*woke)
                if ((++n & 0xffff) == 0 && now() - *t0 > 2.0) { ok = 0; break; } /* the sleeper never ran */
            if (i >= WAKE_WARM) turns[i - WAKE_WARM] = n;
        }
        ok = ok && read(back[0], &b, 1) == 1;
    }
    int st = 0;
    if (!ok) kill(c, SIGKILL); /* a failed round: the child may be blocked in read() */
    close(to[1]); close(back[0]);
    waitpid(c, &st, 0);
    CPU_ZERO(&set);
    for (long i = 0; i < ncpu; i++) CPU_SET(i, &set);
    sched_setaffinity(0, sizeof set, &set);
    if (!ok || !WIFEXITED(st) || WEXITSTATUS(st)) { printf("@@%s none the ping-pong failed\n", tag); munmap(t0, 4096); return; }
    memcpy(sorted, lat, sizeof sorted);
    munmap(t0, 4096);
    qsort(sorted, WAKE_ROUNDS, sizeof sorted[0], cmp_long);
    printf("@@%s", tag);
    for (int i = 0; i < WAKE_ROUNDS; i++) printf(" %ld", sorted[i]);
    printf("\n");
    if (busy == 2) {
        qsort(turns, WAKE_ROUNDS, sizeof turns[0], cmp_long);
        printf("@@%s_PROG", tag);
        for (int i = 0; i < WAKE_ROUNDS; i++) printf(" %ld", (long)(turns[i] * turn_ns));
        printf("\n");
    }
}

static void calibrate_wakeup(void) { calibrate_wakeup_as("WAKE", 1000, 0); }

/* The guest's vCPU stalls, for the engine's `[machine] vcpu_stall` (zswap20, issue 20): one process
 * pinned to each CPU spins on clock_gettime(CLOCK_MONOTONIC) for STALL_PROBE_NS and notes every gap
 * of at least STALL_MIN_NS between two consecutive reads, all CPUs at once. Under QEMU/TCG (no
 * icount) the guest's clock follows the host's, so a vCPU whose host thread does not run (the host
 * preempted it, another helper's load) sees the time it lost as one gap; the probe's own loop reads
 * the clock every few hundred ns, so gaps below STALL_MIN_NS (the tick's handler, an interrupt) are
 * not counted. Printed as one line per CPU: @@STALL CPU PROBE_NS READS MIN_NS GAP... (gaps in ns, in
 * the order seen, at most STALL_MAX); @@STALL none WHY when it could not be measured. Checked with a
 * host-side SIGSTOP of the QEMU process: a 30 ms stop every 0.5 s is seen by both CPUs as ~30 ms gaps
 * (zswap20's commit message). `tag` is STALL before the tasks and STALLPOST after them, every CPU's probe
 * at once; STALL1 (`one_at_a_time`), before the tasks, each CPU's probe alone, the other vCPUs idle: the
 * stalls of a vCPU whose QEMU has one busy vCPU, as a single task's run has, not all of them. */
#define STALL_PROBE_NS 2000000000L
#define STALL_MIN_NS 100000L
#define STALL_MAX 1000
static void calibrate_stall_as(const char *tag, int one_at_a_time) {
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 1 || ncpu > 64) { printf("@@%s none %ld CPUs\n", tag, ncpu); return; }
    struct res { long reads, n, gap[STALL_MAX]; } *r;
    size_t len = (size_t)ncpu * sizeof *r;
    r = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (r == MAP_FAILED) { printf("@@%s none mmap: %s\n", tag, strerror(errno)); return; }
    memset(r, 0, len);
    pid_t pid[64];
    int ok = 1;
    for (long c = 0; c < ncpu; c++) {
        if (one_at_a_time && c > 0) {
            int st = 0;
            if (waitpid(pid[c - 1], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) ok = 0;
            pid[c - 1] = 0;
        }
        pid[c] = fork();
        if (pid[c] < 0) { ok = 0; ncpu = c; break; }
        if (pid[c] == 0) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET((int)c, &set);
            if (sched_setaffinity(0, sizeof set, &set) < 0) _exit(1);
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            long t0 = ts.tv_sec * 1000000000L + ts.tv_nsec, prev = t0, reads = 0;
            for (;;) {
                clock_gettime(CLOCK_MONOTONIC, &ts);
                long t = ts.tv_sec * 1000000000L + ts.tv_nsec;
                reads++;
                if (t - prev >= STALL_MIN_NS && r[c].n < STALL_MAX) r[c].gap[r[c].n++] = t - prev;
                prev = t;
                if (t - t0 >= STALL_PROBE_NS) break;
            }
            r[c].reads = reads;
            _exit(0);
        }
    }
    for (long c = 0; c < ncpu; c++) {
        int st = 0;
        if (pid[c] == 0) continue;
        if (waitpid(pid[c], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) ok = 0;
    }
    if (!ok) { printf("@@%s none a probe process failed\n", tag); munmap(r, len); return; }
    for (long c = 0; c < ncpu; c++) {
        printf("@@%s %ld %ld %ld %ld", tag, c, STALL_PROBE_NS, r[c].reads, STALL_MIN_NS);
        for (long i = 0; i < r[c].n; i++) printf(" %ld", r[c].gap[i]);
        printf("\n");
    }
    munmap(r, len);
}

static int wake_post; /* WAKEPOST 1 (--reclaim-trace): the wake-up latency again after the tasks, three ways */
/* STALLPROBE 1 (memtwin real --vcpu-stall-probe, review15 L3): the vCPU stall probes, @@STALL and
 * @@STALL1 before the tasks, @@STALLPOST after them (~8 s a boot with the vCPUs spinning); off
 * by default: nothing but a scenario's [machine] vcpu_stall consumes them. */
static int stall_probe;
static int readpath_probe; /* xfs21b: calibrate_readpath(), asked by a READPATH line (MEMTWIN_READPATH_PROBE=1) */

int main(int argc, char **argv) {
    if (argc < 2) die("usage: memtwin-guest OPS");
    /* No transparent huge pages for this program and its task children (inherited over fork): its
     * buffers (obuf, rbuf; lines: 8 MiB) are touched before a task joins its memcg, but khugepaged
     * may collapse them into a 2 MiB page later, and collapse_huge_page() charges the new page to
     * the memcg the task is in by then (seen on Debian's 6.1: rss_huge 2097152 in the 20M memcg
     * of qemu61-tight-ra8192, 512 of its 5094 pages). The scenario's memcgs must hold only what
     * the ops charge. */
    if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) < 0) die("prctl(PR_SET_THP_DISABLE): %s", strerror(errno));
    FILE *in = fopen(argv[1], "r");
    if (!in) die("cannot open %s: %s", argv[1], strerror(errno));
    static char buf[MAXLINE * 16];
    while (fgets(buf, sizeof buf, in)) {
        if (nlines >= (int)(sizeof lines / sizeof lines[0])) die("op script too long");
        buf[strcspn(buf, "\n")] = 0;
        lines[nlines++] = strdup(buf);
    }
    fclose(in);
    wbuf = malloc(wbuf_len);
    for (size_t i = 0; i < wbuf_len;) {
        ssize_t r = getrandom(wbuf + i, wbuf_len - i, 0);
        if (r <= 0) {
            for (; i < wbuf_len; i++) wbuf[i] = (unsigned char)(i * 2654435761u >> 13);
            break;
        }
        i += r;
    }
    struct {
        int first, last;
        char *cg;
        double start;
        unsigned long mask;
        uint64_t seed;
    } tasks[4096];
    int ntasks = 0;
    char *f[4096];
    /* setup records, in order */
    for (int i = 0; i < nlines; i++) {
        char *line = strdup(lines[i]);
        int n = split(line, f, 4096);
        if (n == 0) { free(line); continue; }
        if (!strcmp(f[0], "V")) {
            snprintf(version, sizeof version, "%s", f[1]);
        } else if (!strcmp(f[0], "TOP")) {
            char *t = unesc(f[1]);
            snprintf(top, sizeof top, "%s", t);
        } else if (!strcmp(f[0], "SNAP")) {
            snapfiles[nsnap++] = strdup(f[1]);
        } else if (!strcmp(f[0], "ZSWAP")) {
            zswap_stats = atoi(f[1]);
        } else if (!strcmp(f[0], "THROTTLE")) {
            throttle_hist = unesc(f[1]);
        } else if (!strcmp(f[0], "MKCG")) {
            char *d = unesc(f[1]);
            if (mkdir(d, 0755) < 0 && errno != EEXIST) die("setup: mkdir %s: %s", d, strerror(errno));
            /* cgroup v2: only a parent gets +memory in its subtree_control (a cgroup with controllers
             * enabled for its children cannot hold processes) */
            if (atoi(f[2]) && enable_memory(d) < 0) die("setup: +memory in %s: %s", d, strerror(errno));
        } else if (!strcmp(f[0], "SET")) {
            char *d = unesc(f[1]);
            if (write_file(d, f[2]) < 0) die("setup: writing %s to %s: %s", f[2], d, strerror(errno));
        } else if (!strcmp(f[0], "TMPFS")) {
            char *d = unesc(f[1]);
            /* an optional third field: the mount's options (e.g. huge=always, mm/shmem.c) */
            char *opts = n > 2 ? unesc(f[2]) : NULL;
            mkdirs(d, 1);
            if (mount("tmpfs", d, "tmpfs", 0, opts) < 0) die("setup: mount tmpfs at %s (%s): %s", d, opts ? opts : "", strerror(errno));
        } else if (!strcmp(f[0], "OBUF")) {
            obuf_fixed = (size_t)num(f[1]);
        } else if (!strcmp(f[0], "WAKEPOST")) {
            wake_post = atoi(f[1]);
        } else if (!strcmp(f[0], "READPATH")) {
            readpath_probe = atoi(f[1]);
        } else if (!strcmp(f[0], "STALLPROBE")) {
            stall_probe = atoi(f[1]);
        } else if (!strcmp(f[0], "FOLIOS")) {
            record_folios = atoi(f[1]);
        } else if (!strcmp(f[0], "TRACK")) {
            tracked[ntracked++] = unesc(f[1]);
        } else if (!strcmp(f[0], "FILE")) {
            char *p = unesc(f[1]);
            parent_dirs(p);
            int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, (mode_t)num(f[3]));
            if (fd < 0) die("setup: create %s: %s", p, strerror(errno));
            if (fill(fd, 0, num(f[2]), 1 << 20) < 0) die("setup: write %s: %s", p, strerror(errno));
            if (fsync(fd) < 0) die("setup: fsync %s: %s", p, strerror(errno));
            /* when the file's writeback completions ended (the global writeback domain's
             * completions the tasks start against: memtwin.qemu setup_writes()) */
            printf("@@SETUPW %lld %.9f\n", (long long)num(f[2]), now());
            posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
            close(fd);
            if (num(f[4])) chown(p, (uid_t)num(f[4]), (gid_t)-1);
        } else if (!strcmp(f[0], "TASK")) {
            tasks[ntasks].cg = unesc(f[2]);
            tasks[ntasks].start = num(f[3]) / 1e9;
            tasks[ntasks].mask = strtoul(f[4], NULL, 16);
            tasks[ntasks].seed = (uint64_t)num(f[5]) ^ 0x9E3779B97F4A7C15ull;
            tasks[ntasks].first = i + 1;
            tasks[ntasks].last = i + 1;
            ntasks++;
        } else if (!strcmp(f[0], "O")) {
            if (!ntasks) die("op script: op before TASK");
            tasks[ntasks - 1].last = i + 1;
        }
        free(line);
    }
    calibrate_cpu();
    calibrate_file();
    if (readpath_probe) calibrate_readpath();
    calibrate_wakeup();
    if (stall_probe) {
        calibrate_stall_as("STALL", 0);
        calibrate_stall_as("STALL1", 1);
    }
    find_kswapd();
    if (ntasks) size_obuf(tasks[0].cg);
    /* start cold: sync, drop every tracked file's pages again, count what is left */
    sync();
    long left = 0;
    for (int i = 0; i < ntracked; i++) {
        int fd = open(tracked[i], O_RDONLY);
        if (fd >= 0) {
            posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
            close(fd);
        }
        long n = resident_pages(tracked[i]);
        if (n > 0) left += n;
    }
    printf("@@COLD %ld\n", left);
    node_mem("NODEMEM");
    fflush(stdout);
    start_line = mmap(NULL, sizeof *start_line, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (start_line == MAP_FAILED) die("mmap of the start line: %s", strerror(errno));
    memset(start_line, 0, sizeof *start_line);
    if (ntasks <= MAX_SLOTS) {
        size_t len = (size_t)ntasks * sizeof *slots;
        void *m = mmap(NULL, len ? len : 1, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) die("mmap of the step slots: %s", strerror(errno));
        memset(m, 0, len);
        slots = m;
    }
    pid_t pids[4096];
    for (int t = 0; t < ntasks; t++) {
        pid_t p = fork();
        if (p < 0) die("fork: %s", strerror(errno));
        if (p == 0) {
            if (tasks[t].mask) {
                cpu_set_t set;
                CPU_ZERO(&set);
                for (int c = 0; c < 64; c++)
                    if (tasks[t].mask >> c & 1) CPU_SET(c, &set);
                sched_setaffinity(0, sizeof set, &set);
            }
            rng_state = tasks[t].seed;
            run_task(t, tasks[t].first, tasks[t].last, tasks[t].cg, tasks[t].start);
            _exit(0);
        }
        pids[t] = p;
    }
    /* every task set up (or 60 s): the guest's free memory with the task processes, then go */
    for (double until = now() + 60; start_line->ready < ntasks && now() < until;) {
        /* a task that died in its set-up never gets ready: stop waiting (review9 L1) */
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid != 0) break;
        struct timespec w = {0, 1000000};
        nanosleep(&w, NULL);
    }
    node_mem("SETUPMEM");
    printf("@@SETUPREADY %d %d\n", start_line->ready, ntasks);
    fflush(stdout);
    start_line->t0 = now();
    printf("@@START %.9f\n", start_line->t0);
    __sync_synchronize();
    start_line->go = 1;
    int bad = 0;
    fflush(stdout);
    for (int left = ntasks; left > 0;) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT) < 0) {
            if (errno == EINTR) continue;
            die("waitid: %s", strerror(errno));
        }
        int t = 0;
        while (t < ntasks && pids[t] != si.si_pid) t++;
        struct slot *sl = slots && t < ntasks ? &slots[t] : NULL;
        int killed = t < ntasks && si.si_code == CLD_KILLED && si.si_status == SIGKILL && sl && sl->in_step && sl->alen;
        if (killed) {
            /* SIGKILLed in a step (the OOM killer): end the step for it, from the zombie */
            oprintf("@@STEP %d %s\n", t, sl->step);
            oroom(sl->alen);
            memcpy(obuf + olen, sl->a, sl->alen);
            olen += sl->alen;
            snap_of("B", sl->cg, 1, si.si_pid);
        }
        struct rusage ru;
        int st;
        memset(&ru, 0, sizeof ru);
        if (wait4(si.si_pid, &st, 0, &ru) < 0) die("wait4: %s", strerror(errno));
        if (t >= ntasks) continue;
        left--;
        if (killed) {
            oprintf("#ru\n%ld %ld\n#killed\n1\n@@ENDSTEP\n",
                    (long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec,
                    (long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec);
            oflush();
            printf("@@KILLED %d\n", t);
            fflush(stdout);
        } else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            printf("@@ERROR task %d ended abnormally (wait status %d)\n", t, st);
            bad = 1;
        }
    }
    fflush(stdout);
    if (stall_probe) calibrate_stall_as("STALLPOST", 0);
    if (wake_post) {
        fflush(stdout);
        calibrate_wakeup_as("WAKEPOST", 1000, 0);
        calibrate_wakeup_as("WAKEBUSY", 1000, 1);
        calibrate_wakeup_as("WAKEGAP", 10000, 0);
        calibrate_wakeup_as("WAKEPROG", 10000, 2);
    }
    printf("@@DONE\n");
    fflush(stdout);
    return bad;
}
