//! Values beyond what the engine can hold or run are refused while the scenario is built (so
//! `memtwin check` refuses them too), each with the key, `file:line:col`, the limit and a fix.

use memtwin_engine::Document;

fn base(machine: &str, files: &str, ops: &str) -> String {
    format!(
        r#"[scenario]
name = "limits"
[machine]
{machine}
[devices.sda]
read_bw = "100M"
{files}
[tasks.cat]
ops = [{ops}]
"#
    )
}

/// The one error of `text`, as the user sees it.
fn error(text: &str) -> String {
    let doc = Document::from_toml("limits.toml", text).unwrap_or_else(|e| panic!("parse: {e}"));
    let e = doc.resolve(None, &[]).expect_err("the scenario is refused");
    let s = e.to_string();
    assert_eq!(e.0.len(), 1, "{s}");
    s
}

fn ok(text: &str) {
    let doc = Document::from_toml("limits.toml", text).unwrap();
    doc.resolve(None, &[]).unwrap_or_else(|e| panic!("{e}"));
}

const FILE: &str = "[files.\"/f\"]\nsize = \"1M\"";
const READ: &str = "{ op = \"read\", file = \"/f\" }";

#[test]
fn ram_beyond_the_page_arena() {
    let e = error(&base("ram = \"1P\"", FILE, READ));
    assert!(e.starts_with("limits.toml:4:7: error: machine.ram is 1 PiB"), "{e}");
    assert!(e.contains("at most 2 TiB") && e.contains("fix: "), "{e}");
    ok(&base("ram = \"2T\"", FILE, READ));
}

#[test]
fn cpus_beyond_nr_cpus() {
    let e = error(&base("ram = \"1G\"\ncpus = 100000000", FILE, READ));
    assert!(e.starts_with("limits.toml:5:8: error: machine.cpus is 100000000"), "{e}");
    assert!(e.contains("8192"), "{e}");
    ok(&base("ram = \"1G\"\ncpus = 8192", FILE, READ));
}

#[test]
fn files_beyond_32_bit_page_indices() {
    let e = error(&base("ram = \"1G\"", "[files.\"/f\"]\nsize = \"16T\"", READ));
    assert!(e.starts_with("limits.toml:8:8: error: files.\"/f\".size is 16 TiB"), "{e}");
    assert!(e.contains("8 TiB"), "{e}");
    let e = error(&base("ram = \"1G\"", "[dirs.\"/d\"]\nfiles = { count = 2, size = \"9T\" }", "{ op = \"read\", file = \"/d/f1\" }"));
    assert!(e.contains("dirs.\"/d\".files.size is 9 TiB"), "{e}");
    let e = error(&base("ram = \"1G\"", FILE, "{ op = \"write\", file = \"/f\", offset = \"8T\", length = \"1M\" }"));
    assert!(e.contains("the write ends at byte") && e.starts_with("limits.toml:10:"), "{e}");
    let e = error(&base("ram = \"1G\"", FILE, "{ op = \"read\", file = \"/f\", offset = \"15E\" }"));
    assert!(e.contains("offset is 15360 PiB"), "{e}");
}

#[test]
fn durations_beyond_the_clock() {
    let e = error(&base("ram = \"1G\"", FILE, "{ op = \"sleep\", duration = \"100000000h\" }"));
    assert!(e.starts_with("limits.toml:10:") && e.contains("tasks.cat.ops[0].duration is \"100000000h\""), "{e}");
    assert!(e.contains("one year"), "{e}");
    let many = "{ op = \"repeat\", times = 200, ops = [{ op = \"sleep\", duration = \"8760h\" }] }";
    let e = error(&base("ram = \"1G\"", FILE, many));
    assert!(e.contains("slept more than") && e.contains("100 years"), "{e}");
}

#[test]
fn counts_that_would_overflow_or_explode() {
    let e = error(&base("ram = \"1G\"", FILE, "{ op = \"repeat\", times = 4611686018427387904, ops = [{ op = \"sleep\", duration = \"1s\" }, { op = \"sleep\", duration = \"1s\" }, { op = \"sleep\", duration = \"1s\" }, { op = \"sleep\", duration = \"1s\" }] }"));
    assert!(e.contains("times is 4611686018427387904") && e.contains("16000000 ops"), "{e}");
    let e = error(&base("ram = \"1G\"", FILE, "{ op = \"read\", file = \"/f\", pattern = \"random\", count = 1000000000000 }"));
    assert!(e.contains("count is 1000000000000"), "{e}");
    let e = error(&base("ram = \"1G\"", FILE, "{ op = \"read\", file = \"/f\", bufsize = \"4G\" }"));
    assert!(e.contains("bufsize is 4 GiB") && e.contains("MAX_RW_COUNT"), "{e}");
    let e = error(&base("ram = \"1G\"", "[files.\"/f\"]\nsize = \"1M\"\n[dirs.\"/d\"]\nfiles = { count = 16000001, size = \"4K\" }", READ));
    assert!(e.contains("files.count is 16000001") && e.contains("16000000 files"), "{e}");
    let e = error(&base("ram = \"1G\"", FILE, "{ op = \"mmap\", name = \"m\", size = \"2G\" }, { op = \"munmap\", name = \"m\" }"));
    assert!(e.contains("overcommit"), "{e}");
}

#[test]
fn devices_beyond_their_limits() {
    let t = base("ram = \"1G\"", FILE, READ).replace("read_bw = \"100M\"", "read_bw = 1\nread_ahead_kb = 100000000000");
    let doc = Document::from_toml("limits.toml", &t).unwrap();
    let e = doc.resolve(None, &[]).unwrap_err().to_string();
    assert!(e.contains("devices.sda.read_bw is 1 bytes per second"), "{e}");
    assert!(e.contains("devices.sda.read_ahead_kb is 100000000000"), "{e}");
}

#[test]
fn mounts_beyond_fs_mount_max() {
    let e = error(&base("ram = \"1G\"\nboot_superblocks = 9223372036854775807", FILE, READ));
    assert!(e.starts_with("limits.toml:5:20: error: machine.boot_superblocks is 9223372036854775807") && e.contains("fs.mount-max"), "{e}");
    let e = error(&base("ram = \"1G\"\nboot_superblocks = 99990", FILE, "{ op = \"repeat\", times = 20, ops = [{ op = \"mount\", path = \"/mnt/{i}\" }] }"));
    assert!(e.starts_with("limits.toml:11:") && e.contains("number 100001") && e.contains("fs.mount-max (100000)"), "{e}");
}

#[test]
fn kernel_reserved_is_blamed_where_it_is_written() {
    let e = error(&base("ram = \"1G\"\nkernel_reserved = \"1P\"", FILE, READ));
    assert!(e.starts_with("limits.toml:5:19: error: machine.kernel_reserved is not below machine.ram"), "{e}");
}

/// A run far longer than its sample interval (a year of sleep sampled every 100 ms) keeps at
/// most `MAX_SAMPLES` rows of time series, on a regular grid: it neither takes 300 million
/// rows of memory nor the time to fill them.
#[test]
fn a_year_long_run_keeps_a_bounded_time_series() {
    let doc = Document::from_toml("limits.toml", &base("ram = \"1G\"", FILE, "{ op = \"sleep\", duration = \"8760h\" }, { op = \"read\", file = \"/f\" }")).unwrap();
    let scn = doc.resolve(None, &[]).unwrap();
    let r = memtwin_engine::simulate(&scn, &mut |_, _| true).unwrap();
    let rows = &r.series.rows;
    assert!(rows.len() <= memtwin_engine::sched::MAX_SAMPLES + 1 && rows.len() > 1000, "{} rows", rows.len());
    let dt = rows[1][0] - rows[0][0];
    assert!(rows.windows(2).take(rows.len() - 2).all(|w| ((w[1][0] - w[0][0]) - dt).abs() < 1e-6 * dt), "a regular grid");
    assert!(rows[rows.len() - 2][0] > 0.99 * 8760.0 * 3600.0, "covering the whole run");
}

/// Building a scenario with as many files as the limits allow takes time linear in them: a
/// grep and a cp over 300 000 generated files, and an op naming one, resolve (the lookups by
/// path were linear scans, which made this hours). No wall-clock assertion: tests stay
/// deterministic; `memtwin bench --scale` measures the build's time.
#[test]
fn many_files_build_in_linear_time() {
    let files = "[files.\"/f\"]\nsize = \"1M\"\n[dirs.\"/d\"]\nfiles = { count = 300000, size = \"0\" }";
    let ops = "{ op = \"grep\", path = \"/d\" }, { op = \"cp\", src = \"/d\", dst = \"/e\" }, { op = \"read\", file = \"/e/f300000\" }";
    ok(&base("ram = \"1G\"", files, ops));
}

/// fadvise ops name their files at build time: a repeat of them over a big directory is
/// refused past `MAX_FADVISE_FILES` files in all, quickly, instead of listing them millions of
/// times.
#[test]
fn fadvise_of_big_directories_is_bounded() {
    let files = "[files.\"/f\"]\nsize = \"1M\"\n[dirs.\"/d\"]\nfiles = { count = 100000, size = \"0\" }";
    let ops = "{ op = \"repeat\", times = 1000000, ops = [{ op = \"fadvise\", path = \"/d\", advice = \"dontneed\" }] }";
    let doc = Document::from_toml("limits.toml", &base("ram = \"1G\"", files, ops)).unwrap();
    let e = doc.resolve(None, &[]).unwrap_err().to_string();
    assert!(e.contains("more than the engine's limit of 10000000 files"), "{e}");
    ok(&base("ram = \"1G\"", files, "{ op = \"fadvise\", path = \"/d\", advice = \"dontneed\" }, { op = \"fadvise\", path = \"/\", advice = \"willneed\", walk = true }"));
}
