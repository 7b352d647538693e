"""memtwin lab kernel build (memtwin.kernelbuild): the patch series of kernel/patches/ apply to
Debian's linux-source-6.1 (skipped, with the reason, when the package is not installed), the
cache key, the config fragment's errors, and how a patched lab kernel's run-time switches reach
the guest (its /init writes the sysctls from the variant's policies)."""

import json
import os
import shutil

import pytest

import memtwin
from memtwin import kernelbuild, kernelbuild_check, qemu, real
from memtwin.real import RealError

HAVE_SOURCE = os.path.isfile(kernelbuild.SOURCE_TARBALL) and shutil.which("patch") is not None


@pytest.mark.skipif(not HAVE_SOURCE, reason=f"{kernelbuild.SOURCE_TARBALL} (apt-get install linux-source-6.1) or patch is missing")
def test_every_patch_series_applies_to_debian_6_1_alone_and_together():
    lines = []
    assert kernelbuild_check.check(lines.append) == 0, "\n".join(lines)
    series = kernelbuild.available_patches()
    assert series == ["000-recharge", "003-percpu-release", "004-fadvise-dir"]
    assert sum(line.startswith("ok ") for line in lines) == len(series) + 1


def test_each_series_adds_its_sysctl_and_a_kernel_style_message():
    for pol, (name, sysctl) in kernelbuild.KNOBS.items():
        text = "".join(open(f).read() for f in kernelbuild.patch_files(name))
        assert f'.procname\t= "{sysctl.split("/")[1]}"' in text, (name, sysctl)
        assert "Signed-off-by:" in text and text.startswith("From ")
        subject = next(line for line in text.splitlines() if line.startswith("Subject:"))
        assert subject.startswith("Subject: [PATCH] mm"), subject


def test_a_patch_that_does_not_apply_is_named_with_its_file_and_hunk(tmp_path):
    (tmp_path / "mm").mkdir()
    (tmp_path / "mm" / "fadvise.c").write_text("nothing like the kernel's file\n")
    with pytest.raises(RealError) as e:
        kernelbuild.dry_run(["004-fadvise-dir"], str(tmp_path))
    msg = str(e.value)
    assert "kernel/patches/004-fadvise-dir/0001-" in msg and "mm/fadvise.c: hunk #1" in msg and "fix:" in msg


def test_unknown_series_says_which_exist():
    with pytest.raises(RealError) as e:
        kernelbuild.patch_files("999-nothing")
    assert "000-recharge" in str(e.value) and "004-fadvise-dir" in str(e.value)


def test_cache_key_follows_source_config_and_patch_contents():
    base = kernelbuild.build_key("6.1.192-2", "CONFIG_A=y\n", [])
    assert base == kernelbuild.build_key("6.1.192-2", "CONFIG_A=y\n", [])
    assert base != kernelbuild.build_key("6.1.192-3", "CONFIG_A=y\n", [])
    assert base != kernelbuild.build_key("6.1.192-2", "CONFIG_A=n\n", [])
    assert base != kernelbuild.build_key("6.1.192-2", "CONFIG_A=y\n", ["004-fadvise-dir"])
    assert kernelbuild.kernel_name([]) == "lab"
    assert kernelbuild.kernel_name(["000-recharge", "004-fadvise-dir"]) == "000-recharge+004-fadvise-dir"


def test_config_fragment_errors_name_the_line(tmp_path):
    frag = tmp_path / "extra.config"
    frag.write_text("CONFIG_KSM=y\n# a comment\nKSM=y\n")
    with pytest.raises(RealError) as e:
        kernelbuild.config_text(str(frag))
    assert f"{frag}:3:1" in str(e.value) and "CONFIG_NAME=y" in str(e.value)
    frag.write_text("CONFIG_KSM=y\n# CONFIG_SWAP is not set\n")
    assert kernelbuild.config_text(str(frag)).endswith("CONFIG_KSM=y\n# CONFIG_SWAP is not set\n")
    with pytest.raises(RealError):
        kernelbuild.config_text(str(tmp_path / "missing.config"))


def test_lab_config_builds_in_what_the_guest_init_uses():
    text = kernelbuild.config_text(None)
    for opt in ("CONFIG_VIRTIO_BLK=y", "CONFIG_VIRTIO_PCI=y", "CONFIG_EXT4_FS=y", "CONFIG_DEVTMPFS=y", "CONFIG_TMPFS=y",
                "CONFIG_MEMCG=y", "CONFIG_CGROUP_WRITEBACK=y", "CONFIG_SWAP=y", "CONFIG_PSI=y", "CONFIG_NUMA=y",
                "CONFIG_LRU_GEN=y", "CONFIG_TRANSPARENT_HUGEPAGE=y", "CONFIG_TASK_IO_ACCOUNTING=y",
                "CONFIG_ADVISE_SYSCALLS=y", "CONFIG_BLK_DEV_INITRD=y", "CONFIG_SERIAL_8250_CONSOLE=y"):
        assert opt in text, opt
    assert "CONFIG_MODULES=n" in text  # the guest's /init loads nothing from a lab build


SEED000 = os.path.join(os.path.dirname(__file__), "..", "..", "scenarios", "validation", "qemu61p-seed000-recharge.toml")
KNOBS = {pol: sysctl for pol, (_, sysctl) in kernelbuild.KNOBS.items()}


def test_a_policy_no_kernel_has_runs_on_a_lab_kernel_with_its_patch():
    scn = memtwin.load(SEED000)
    plan = scn.doc.plan("recharge", [])
    assert "in no kernel" in real.unsupported(plan) and "--patch 000-recharge" in real.unsupported(plan)
    assert real.unsupported(plan, {"memcg_percpu_release_on_offline": "vm/x"}) is not None
    assert real.unsupported(plan, KNOBS) is None
    qemu.check_plan(plan, KNOBS)
    with pytest.raises(RealError):
        qemu.check_plan(plan)


@pytest.mark.parametrize("variant,want", [("baseline", 0), ("recharge", 1)])
def test_guest_init_sets_the_lab_kernels_switches_from_the_policies(variant, want):
    plan = memtwin.load(SEED000).doc.plan(variant, [])
    init = qemu.guest_init(plan, 128, KNOBS)
    assert f"echo {want} > /proc/sys/vm/memcg_recharge_pagecache" in init
    assert "echo 0 > /proc/sys/vm/memcg_release_percpu_on_offline" in init
    assert "echo 0 > /proc/sys/vm/fadvise_dontneed_dir" in init
    assert init.index("memcg_recharge_pagecache") < init.index("/memtwin-guest /ops")
    assert "@SYSCTL@" not in qemu.guest_init(plan, 128) and "/proc/sys/vm" not in qemu.guest_init(plan, 128)


DIRSCN = os.path.join(os.path.dirname(__file__), "..", "..", "scenarios", "validation", "qemu61-dir-eviction-sync.toml")


def test_directory_fadvise_is_the_kernels_own_on_a_lab_kernel_with_004():
    plan = memtwin.load(DIRSCN).doc.plan("clean-12", [])
    walked = [l for l in qemu.op_script(plan)[0].splitlines() if " fadv" in l]
    assert walked and all(" fadv 4 " in l for l in walked), "without the patch: DONTNEED on every file below"
    own = [l for l in qemu.op_script(plan, KNOBS)[0].splitlines() if " fadv" in l]
    assert own and all(" fadvdir 4 /s/data/2" in l for l in own), own
    assert "echo 1 > /proc/sys/vm/fadvise_dontneed_dir" in qemu.guest_init(plan, 128, KNOBS)


def test_kernel_name_not_built_says_how_to_build_it(tmp_path):
    with pytest.raises(RealError) as e:
        qemu._kernel_and_modules("000-recharge+004-fadvise-dir", str(tmp_path))
    msg = str(e.value)
    assert "memtwin lab kernel build --patch 000-recharge --patch 004-fadvise-dir" in msg


def test_a_built_kernel_is_found_by_name(tmp_path):
    d = tmp_path / "kernels" / "abc"
    d.mkdir(parents=True)
    with open(qemu.GUEST_SRC, "rb"):
        pass
    img = d / "bzImage"
    img.write_bytes(b"\0" * 0x202 + b"HdrS" + b"\0" * 64)
    meta = {"name": "004-fadvise-dir", "patches": ["004-fadvise-dir"], "source": "linux-source-6.1 x", "key": "abc",
            "built": "2026-11-25T09:00:00Z", "build_s": 1.0, "knobs": {"fadvise_directory": "vm/fadvise_dontneed_dir"}}
    (d / "meta.json").write_text(json.dumps(meta))
    assert qemu.kernel_knobs("004-fadvise-dir", str(tmp_path)) == {"fadvise_directory": "vm/fadvise_dontneed_dir"}
    k, mods, origin = qemu._kernel_and_modules("004-fadvise-dir", str(tmp_path))
    assert k == str(img) and mods is None and "lab build 004-fadvise-dir" in origin
    assert qemu.kernel_knobs(str(img), str(tmp_path)) == {}, "a path is not a lab build"


def test_reproduce_shows_the_patched_kernels_figures_beside_the_seeds():
    from memtwin import reproduce
    from memtwin.report import compare_table

    runs = reproduce.patched_runs(reproduce.default_scenarios_dir())
    assert {"seed000-memcg-reread", "seed003-dying-cgroups"} <= set(runs)
    p = runs["seed000-memcg-reread"]
    assert p.value("recharge", "read 2", "read_bytes") == 0.0
    assert p.value("baseline", "read 2", "read_bytes") == float(1 << 30)
    assert p.value("recharge", "read 2", "elapsed_s") is None, "TCG times are not shown"
    d = runs["seed003-dying-cgroups"]
    assert d.value("release", "after 1000 dying", "meminfo.Percpu_kB") < d.value("baseline", "after 1000 dying", "meminfo.Percpu_kB") / 4
    scn = memtwin.load(os.path.join(reproduce.default_scenarios_dir(), "seed000-memcg-reread.toml"))
    sec = reproduce._run_section(scn.path if hasattr(scn, "path") else "seed000", scn)
    sec.patched = p
    text = compare_table(sec.results, ["read_bytes"], scn.published, p.value)
    assert "patched kernel" in text and "1073741824" in text
    html = reproduce._section_html(sec)
    assert "<th>patched kernel</th>" in html and "td class=\"num kern\"" in html


def test_the_build_tree_reverts_the_series_it_had_before_applying_others(tmp_path, monkeypatch):
    if shutil.which("patch") is None:
        pytest.skip("patch is not installed")
    tree, pdir = tmp_path / "tree", tmp_path / "patches"
    (tree / "mm").mkdir(parents=True)
    (tree / "mm" / "a.c").write_text("one\ntwo\nthree\n")
    (tree / "mm" / "b.c").write_text("alpha\nbeta\n")
    for name, f, old, new in (("000-x", "a.c", "one\ntwo\nthree\n", "one\nTWO\nthree\n"), ("004-y", "b.c", "alpha\nbeta\n", "alpha\nBETA\n")):
        (pdir / name).mkdir(parents=True)
        import difflib
        diff = "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/mm/{f}", f"b/mm/{f}"))
        (pdir / name / "0001-change.patch").write_text(diff)
    monkeypatch.setattr(kernelbuild, "PATCH_DIR", str(pdir))
    log = open(tmp_path / "log", "w")
    kernelbuild._set_patches(str(tree), ["000-x"], log)
    assert (tree / "mm" / "a.c").read_text() == "one\nTWO\nthree\n"
    kernelbuild._set_patches(str(tree), ["004-y"], log)
    assert (tree / "mm" / "a.c").read_text() == "one\ntwo\nthree\n", "000-x reverted"
    assert (tree / "mm" / "b.c").read_text() == "alpha\nBETA\n"
    kernelbuild._set_patches(str(tree), ["000-x", "004-y"], log)
    kernelbuild._set_patches(str(tree), [], log)
    assert (tree / "mm" / "a.c").read_text() == "one\ntwo\nthree\n" and (tree / "mm" / "b.c").read_text() == "alpha\nbeta\n"
    (pdir / "000-x" / "0001-change.patch").write_text((pdir / "000-x" / "0001-change.patch").read_text().replace("-two\n", "-deux\n"))
    with pytest.raises(RealError) as e:
        kernelbuild._set_patches(str(tree), ["000-x"], log)
    assert "0001-change.patch" in str(e.value) and "mm/a.c: hunk #1" in str(e.value)
