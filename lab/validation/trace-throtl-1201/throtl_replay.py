"""The engine's blk-throttle rule for one direction, ported line by line from
crates/memtwin-engine/src/blk_throttle.rs (`ThrotlGrp::throtl_bio`, `within_bps_limit`, `trim_slice`,
`update_slice`; timer.rs `calc_wheel_index`) at HZ 250, for blk_replay.py (throtl21, 2026-12-01). `trim_all`
is the engine's pre-v6.15 trim (profile `throtl_trim_keeps_one_slice` false).

A first use of it replayed race669's quiet raw traces (lab/validation/trace-race-v669-1130/raw-*.txt.xz), which
hold no throttle state: the held bios' submission times (taken from the reader's page-cache adds) and the
trace clock's jiffy phase (taken from kthrotld's queue times) had to be guessed, and that replay disagreed with
most of the kernel's holds. The blk tracer's notes (blk_notes.py) log both, and on them the rule agrees with
every hold (README.md): so that disagreement is the guesses', and that replay is not kept.
"""

HZ = 250
JNS = 1_000_000_000 // HZ
SLICE = HZ // 10  # DFL_THROTL_SLICE
LVL_BITS, LVL_CLK_SHIFT, LVL_DEPTH = 6, 3, 9


def lvl_start(n):
    return ((1 << LVL_BITS) - 1) << ((n - 1) * LVL_CLK_SHIFT)


def calc_wheel_index(expires, clk):
    """timer.rs calc_wheel_index()."""
    delta = max(expires - clk, 0)
    lvl = 0
    while lvl + 1 < LVL_DEPTH and delta >= lvl_start(lvl + 1):
        lvl += 1
    cutoff = lvl_start(LVL_DEPTH)
    if delta >= cutoff:
        expires = clk + cutoff - (1 << ((LVL_DEPTH - 1) * LVL_CLK_SHIFT))
    shift = lvl * LVL_CLK_SHIFT
    return ((expires >> shift) + 1) << shift


def allowed(bps, j):
    return bps * j // HZ


class Grp:
    """blk_throttle.rs ThrotlGrp (one direction), v6.15+ trim (keeps one slice)."""

    def __init__(self, trim_all=False):
        self.ss = self.se = self.bd = self.qu = 0
        self.trim_all = trim_all

    def used(self, j):
        return not (self.ss <= j <= self.se)

    def set_end(self, e):
        self.se = -(-e // SLICE) * SLICE

    def extend(self, e):
        if self.se < e:
            self.set_end(e)

    def update(self, j, queued):
        if self.used(j) and not queued:
            self.bd, self.ss, self.se = 0, j, j + SLICE
        else:
            self.extend(j + SLICE)

    def within(self, j, b, bps):
        el = j - self.ss
        rnd = -(-(el or SLICE) // SLICE) * SLICE
        al = allowed(bps, rnd)
        if self.bd + b <= al:
            return 0
        wait = max((self.bd + b - al) * HZ // bps, 1)
        return wait + rnd - el

    def trim(self, j, bps):
        if self.used(j):
            return
        self.set_end(j + SLICE)
        el = (j - self.ss) // SLICE * SLICE
        if self.trim_all:
            if el == 0:
                return
        else:
            if el < 2 * SLICE:
                return
            el -= SLICE
        t = allowed(bps, el)
        if self.bd < t:
            trimmed, self.bd = self.bd, 0
        else:
            self.bd -= t
            trimmed = t
        if trimmed:
            self.ss += el

    def bio(self, b, now, bps):
        queued = self.qu > now
        t = max(now, self.qu)
        j = t // JNS
        while True:
            self.update(j, queued)
            w = self.within(j, b, bps)
            self.extend(j + w)
            if w == 0:
                break
            j = calc_wheel_index(j + w, j)
            t = j * JNS
            queued = True
        self.bd += b
        self.trim(j, bps)
        self.qu = t
        return t
