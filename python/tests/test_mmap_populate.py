"""MAP_POPULATE (the mmap op's `populate`, issue 20): 6.1 mm/gup.c `__mm_populate()` ->
`populate_vma_page_range()` faults every page of the new mapping in at mmap time, with FOLL_WRITE
only for a private writable mapping (`(vm_flags & (VM_WRITE | VM_SHARED)) == VM_WRITE`): a shared
mapping's pages are read from the file and mapped (major faults at the mmap, none after), a private
one's are each copied to an anonymous page (copy on write at population)."""

import memtwin

SCN = """[scenario]
name = "populate"
[machine]
ram = "512M"
[kernel]
profile = "linux-6.1"
cgroup = "v2"
[devices.sda]
read_bw = "500M"
[files."/f"]
size = "4M"
[cgroups.A]
[tasks.t]
cgroup = "A"
ops = [
  {{ op = "mmap", name = "m", file = "/f", shared = {shared}, populate = {populate}, step = "map" }},
  {{ op = "touch", name = "m", access = "read", step = "touch" }},
]
"""


def run(tmp_path, shared, populate):
    p = tmp_path / "s.toml"
    p.write_text(SCN.format(shared=str(shared).lower(), populate=str(populate).lower()))
    return memtwin.run(str(p)).steps


def test_a_shared_mapping_is_read_and_mapped_at_mmap_time(tmp_path):
    s = run(tmp_path, True, True)
    m, t = s.loc["map"], s.loc["touch"]
    assert m["memcg.pgmajfault"] > 0 and m.read_bytes == 4 << 20, (m["memcg.pgmajfault"], m.read_bytes)
    assert m["memcg.file_mapped_bytes"] == 4 << 20 and m["memcg.anon_bytes"] == 0
    # every PTE is present: the touch faults nothing and reads nothing
    assert t["memcg.pgfault"] == 0 and t["memcg.pgmajfault"] == 0 and t.read_bytes == 0
    # without populate the mapping is empty until the touch faults it in
    s0 = run(tmp_path, True, False)
    assert s0.loc["map"]["memcg.pgfault"] == 0 and s0.loc["map"].read_bytes == 0
    assert s0.loc["touch"]["memcg.pgmajfault"] > 0 and s0.loc["touch"].read_bytes == 4 << 20


def test_a_private_mapping_is_populated_by_write_faults(tmp_path):
    s = run(tmp_path, False, True)
    m = s.loc["map"]
    # FOLL_WRITE: each of the 1024 pages read from the file, then copied to an anonymous page
    assert m["memcg.anon_bytes"] == 4 << 20 and m.read_bytes == 4 << 20, (m["memcg.anon_bytes"], m.read_bytes)
    assert s.loc["touch"]["memcg.pgfault"] == 0
