//! Floating proportions (lib/flex_proportions.c, 3.5+): what fraction of a domain's recent
//! events one member had, with the past halved every period.
//!
//! The writeback code counts write completions this way (`wb_domain->completions`, one
//! [`FpropLocal`] per writeback domain member) and gives each wb its share of the dirty
//! thresholds (`__wb_calc_thresh()`). The kernel's counters are per-CPU; the engine keeps exact
//! counts (`percpu_counter_sum()` where the kernel reads `percpu_counter_read_positive()`, whose
//! per-CPU batch error the engine does not model).

/// `struct fprop_global`: the domain's events (halved each period) and its period count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FpropGlobal {
    /// `events`.
    pub events: u64,
    /// `period`.
    pub period: u32,
}

/// `struct fprop_local_percpu`: one member's events, as of its own last period.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FpropLocal {
    /// `events`.
    pub events: u64,
    /// `period`: the global period these events are aged to.
    pub period: u32,
}

impl FpropGlobal {
    /// `fprop_new_period()`: age every event by `periods` periods (halving per period);
    /// false, and nothing changes, when at most one event is left (the caller stops its
    /// period timer then).
    pub fn new_period(&mut self, periods: u32) -> bool {
        if self.events <= 1 {
            return false;
        }
        self.events = if periods < 64 { self.events >> periods } else { 0 };
        self.period += periods;
        true
    }

    /// `fprop_reflect_period_percpu()`: `pl`'s events aged to the current period.
    pub fn reflect(&self, pl: &FpropLocal) -> FpropLocal {
        if pl.period >= self.period {
            return *pl;
        }
        let d = self.period - pl.period;
        FpropLocal { events: if d < 64 { pl.events >> d } else { 0 }, period: self.period }
    }

    /// `__fprop_add_percpu()`: `nr` events of member `pl` (`__fprop_add_percpu_max()` with the
    /// default `max_prop_frac` of `FPROP_FRAC_BASE`, bdi max_ratio 100, adds them all).
    pub fn add(&mut self, pl: &mut FpropLocal, nr: u64) {
        *pl = self.reflect(pl);
        pl.events += nr;
        self.events += nr;
    }

    /// `fprop_fraction_percpu()`: (numerator, denominator) of `pl`'s share, made at most 1
    /// with a denominator above 0.
    pub fn fraction(&self, pl: &FpropLocal) -> (u64, u64) {
        let num = self.reflect(pl).events;
        let mut den = self.events;
        if den <= num {
            den = if num > 0 { num } else { 1 };
        }
        (num, den)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// lib/flex_proportions.c (3.5+): a member's share survives aging (both halve); a member
    /// with no events has share 0 over a denominator of 1; a member that stopped loses its
    /// share as others add events.
    #[test]
    fn fractions_age_as_fprop_new_period_and_reflect_do() {
        let mut g = FpropGlobal::default();
        let (mut a, mut b) = (FpropLocal::default(), FpropLocal::default());
        assert_eq!(g.fraction(&a), (0, 1));
        g.add(&mut a, 4096);
        assert_eq!(g.fraction(&a), (4096, 4096));
        assert_eq!(g.fraction(&b), (0, 4096));
        for _ in 0..6 {
            assert!(g.new_period(1));
        }
        assert_eq!(g.events, 64);
        assert_eq!(g.fraction(&a), (64, 64));
        g.add(&mut b, 192);
        assert_eq!(g.fraction(&a), (64, 256));
        assert_eq!(g.fraction(&b), (192, 256));
        // Aging stops at one event left (the domain's timer is then switched off).
        let mut n = 0;
        while g.new_period(1) {
            n += 1;
        }
        assert_eq!((n, g.events), (8, 1));
        assert!(!g.new_period(3));
        assert_eq!(g.reflect(&a).events, 0);
    }
}
