//! Seed 000 at its published scale, through the engine alone.

use memtwin_engine::{simulate, Document};

fn run(variant: &str) -> memtwin_engine::SimResult {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/seed000-memcg-reread.toml");
    let text = std::fs::read_to_string(path).unwrap();
    let doc = Document::from_toml("seed000-memcg-reread.toml", &text).unwrap();
    let scn = doc.resolve(Some(variant), &[]).unwrap();
    simulate(&scn, &mut |_, _| true).unwrap()
}

fn metric(r: &memtwin_engine::SimResult, step: &str, name: &str) -> f64 {
    let s = r.steps.iter().find(|s| s.name == step).unwrap();
    s.metrics.iter().find(|(n, _)| n == name).unwrap().1
}

#[test]
fn seed000_print() {
    for v in ["baseline", "recharge"] {
        let r = run(v);
        for s in &r.steps {
            let get = |n: &str| s.metrics.iter().find(|(m, _)| m == n).unwrap().1;
            eprintln!(
                "{v:9} {:7} elapsed {:7.3} user {:.3} sys {:.3} read {:>11} usage {:>9} refault {} hits {} miss {} pgscan {} pgsteal {}",
                s.name,
                get("elapsed_s"),
                get("user_s"),
                get("sys_s"),
                get("read_bytes"),
                get("memcg.usage_bytes"),
                get("memcg.workingset_refault_file"),
                get("pagecache_hit_pages"),
                get("pagecache_miss_pages"),
                get("memcg.pgscan"),
                get("memcg.pgsteal")
            );
        }
        eprintln!("{:?}", r.engine);
        let _ = metric(&r, "read 1", "elapsed_s");
    }
}
