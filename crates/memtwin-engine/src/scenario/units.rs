//! Sizes, durations and bandwidths as people write them in scenarios.

/// `memparse()` (lib/cmdline.c): an integer with an optional binary suffix K, M, G, T, P, E
/// (either case, with an optional trailing `B` or `iB`), or a decimal with a suffix
/// (`1.5G`). Returns bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err("the size is empty".into());
    }
    if t.starts_with('-') {
        return Err(format!("\"{s}\" is negative"));
    }
    let lower = t.to_ascii_lowercase();
    let body = lower.strip_suffix("ib").or_else(|| lower.strip_suffix('b')).unwrap_or(&lower);
    let (num, mult) = match body.chars().last() {
        Some(c @ ('k' | 'm' | 'g' | 't' | 'p' | 'e')) => {
            let shift = match c {
                'k' => 10,
                'm' => 20,
                'g' => 30,
                't' => 40,
                'p' => 50,
                _ => 60,
            };
            (&body[..body.len() - 1], 1u64 << shift)
        }
        _ => (body, 1u64),
    };
    let num = num.trim().replace('_', "");
    if let Ok(n) = num.parse::<u64>() {
        return n.checked_mul(mult).ok_or_else(|| format!("\"{s}\" is too large"));
    }
    match num.parse::<f64>() {
        Ok(f) if f.is_finite() && f >= 0.0 => {
            let v = f * mult as f64;
            if v > u64::MAX as f64 / 2.0 {
                Err(format!("\"{s}\" is too large"))
            } else {
                Ok(v.round() as u64)
            }
        }
        _ => Err(format!("\"{s}\" is not a size")),
    }
}

/// A duration: a number with `ns`, `us`, `ms`, `s`, `min` or `h`. Returns nanoseconds.
pub fn parse_duration(s: &str) -> Result<u64, String> {
    let t = s.trim();
    if t.starts_with('-') {
        return Err(format!("\"{s}\" is negative"));
    }
    let units: [(&str, f64); 6] = [("ns", 1.0), ("us", 1e3), ("ms", 1e6), ("min", 60e9), ("h", 3600e9), ("s", 1e9)];
    for (suffix, mult) in units {
        if let Some(num) = t.strip_suffix(suffix) {
            return match num.trim().parse::<f64>() {
                Ok(f) if f.is_finite() && f >= 0.0 => Ok((f * mult).round() as u64),
                _ => Err(format!("\"{s}\" is not a duration")),
            };
        }
    }
    Err(format!("\"{s}\" has no time unit"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_in_the_kernels_forms() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("20M"), Ok(20 << 20));
        assert_eq!(parse_size("20m"), Ok(20 << 20));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("128K"), Ok(128 << 10));
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_size("1_000"), Ok(1000));
        assert!(parse_size("-20M").unwrap_err().contains("negative"));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("").is_err());
        assert!(parse_size("99999999999E").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("5ms"), Ok(5_000_000));
        assert_eq!(parse_duration("1.5s"), Ok(1_500_000_000));
        assert_eq!(parse_duration("100us"), Ok(100_000));
        assert_eq!(parse_duration("2min"), Ok(120_000_000_000));
        assert!(parse_duration("5").is_err());
        assert!(parse_duration("-1s").is_err());
    }
}
