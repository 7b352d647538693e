"""validate's comparison of a metric the kernel decides per boot between two modes
(`[[validation.bimodal]]`, issue 22): the share of boots in the event mode (kernel k of n against
the engine's K of M, Fisher's exact test) and the metric's median among those boots."""

import json
import os

import pytest

import memtwin
from memtwin import validate

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MIB = 1 << 20
TOL = lambda x: max(0.10 * abs(x), 1 * MIB)  # noqa: E731  read_bytes' tolerance in the parent-stream scenarios
SPEC = validate.BimodalSpec("two-list", "wset 3", ["read_bytes"], "P's limit reclaim deactivates A", "read_bytes", 0.0, "test")


def row(sims, reals):
    first = validate.Row("two-list", "wset 3", "read_bytes", None, None, 0.10, 1 * MIB)
    return validate._bimodal_row(first, SPEC, sims, reals, sims, reals)


def test_fisher_exact_p_is_the_two_sided_hypergeometric_tail():
    # Fisher's tea-tasting table (3 of 4 against 1 of 4): p = 34/70
    assert validate.fisher_exact_p(3, 4, 1, 4) == pytest.approx(34 / 70, abs=1e-12)
    assert validate.fisher_exact_p(7, 12, 7, 12) == 1.0
    # all 12 kernel boots in the event mode, none of 48 engine boots: 1 / C(60, 12)
    assert validate.fisher_exact_p(12, 12, 0, 48) == pytest.approx(1 / 1399358844975, rel=1e-9)
    # the kernel's 7 of 12 against the engine's 48: p >= 0.05 from 13 to 41 (BIMODAL_ALPHA's doc)
    ok = [K for K in range(49) if validate.fisher_exact_p(7, 12, K, 48) >= validate.BIMODAL_ALPHA]
    assert ok == list(range(13, 42))
    with pytest.raises(ValueError):
        validate.fisher_exact_p(13, 12, 0, 48)


def test_a_bimodal_metric_fails_when_the_engine_never_enters_the_mode_the_kernel_always_does():
    r = row([0.0] * 48, [20.0 * MIB] * 12)
    assert (r.bimodal.k, r.bimodal.n, r.bimodal.K, r.bimodal.M) == (12, 12, 0, 48)
    assert not r.bimodal.share_ok and not r.ok and r.counts_as_bad
    # the engine always in it, the kernel never
    assert not row([20.0 * MIB] * 48, [0.0] * 12).ok


def test_a_bimodal_metric_fails_for_matching_shares_but_values_twice_apart():
    # 7 of 12 and 28 of 48 boots re-read; the engine re-reads twice what the kernel does when it does
    kernel = [8.0 * MIB, 9.0 * MIB, 10.0 * MIB, 10.0 * MIB, 11.0 * MIB, 12.0 * MIB, 9.5 * MIB] + [0.0] * 5
    engine = [2 * v for v in kernel[:7]] * 4 + [0.0] * 20
    r = row(engine, kernel)
    assert r.bimodal.share_ok and r.bimodal.p == 1.0
    assert not r.bimodal.value_ok(r.allowed_at) and not r.ok
    assert r.real == 10.0 * MIB and r.sim == 20.0 * MIB  # the medians among the boots that re-read


def test_a_bimodal_metric_passes_a_fair_case_whose_plain_median_would_flip():
    # the kernel's gap set (7 of 12 boots re-read A; MiB) against an engine re-reading as much in 26 of 48
    kernel = [9.56, 19.15, 18.55, 7.25, 26.89, 16.05, 0, 0, 4.21, 0, 0, 0]
    engine = [9.0, 25.0, 16.5, 0, 4.0, 18.0, 0, 0, 16.3, 0, 27.0, 0] * 2 + [7.0, 16.0, 0, 19.0, 0, 15.5, 0, 0, 26.0, 0, 5.0, 0] * 2
    r = row([v * MIB for v in engine], [v * MIB for v in kernel])
    b = r.bimodal
    assert (b.k, b.K) == (7, 26) and b.share_ok
    assert r.real == 16.05 * MIB and abs(r.sim - r.real) <= TOL(r.real) and r.ok
    # the rule for a recording set on the same values: the plain medians of all boots
    assert validate._median(kernel) == pytest.approx(5.73, abs=0.01)
    # an empty mode on one side: judged by the share, and by the medians of every boot
    quiet = row([0.0] * 42 + [25.0 * MIB] * 6, [0.0] * 12)
    assert quiet.bimodal.share_ok and not quiet.bimodal.conditional and quiet.ok and quiet.real == 0.0
    # ... which still hold the other mode's value: the kernel's boots all at 5 MiB, the engine's at 0
    assert not row([0.0] * 48, [5.0 * MIB] * 12).ok  # (and the share differs)
    assert not validate.Bimodal(SPEC, 0, 12, 0, 48, 1.0, [], [], [0.0] * 48, [5.0 * MIB] * 12).value_ok(TOL)


def test_a_bimodal_row_with_a_missing_value_fails():
    r = row([0.0] * 47 + [None], [0.0] * 12)
    assert r.bimodal is None and not r.ok


def test_the_engine_boots_of_a_bimodal_metric_are_fixed_by_the_set(tmp_path, monkeypatch):
    """bimodal_boot_plan: boot j at kernel.boot_seed base + j and recording j mod n's machine,
    4 n boots; validate runs exactly those, the same run after run, and the first n are the runs
    every other metric is compared with (as without the declaration)."""
    plan = validate.bimodal_boot_plan(3)
    assert plan == [(j, j % 3) for j in range(12)]
    assert validate.bimodal_boot_plan(3, base=48) == [(48 + j, j % 3) for j in range(12)]
    scn, _ = _set_scenario(tmp_path, [0, 4 * MIB, 1 * MIB], cpu=[5, 6, 7], bimodal=True)
    calls = []
    real_run = validate.run

    def spy(s, variant=None, sets=()):
        calls.append(list(sets))
        return real_run(s, variant=variant, sets=sets)

    monkeypatch.setattr(validate, "run", spy)
    rows, _, _ = validate.validate_file(str(scn), None, True, out=lambda *_: None)
    first = list(calls)
    assert first == [[f"kernel.boot_seed={j}", f"machine.cpu_slowdown={5 + j % 3}"] for j in range(12)]
    calls.clear()
    again, _, _ = validate.validate_file(str(scn), None, True, out=lambda *_: None)
    assert calls == first
    assert [(r.sims, r.reals) for r in again] == [(r.sims, r.reals) for r in rows]
    b = next(r for r in rows if r.bimodal)
    assert b.bimodal.M == 12 and b.bimodal.n == 3
    plain = next(r for r in rows if r.metric == "resident_pages" and r.step == "read 2")
    assert len(plain.sims) == 3  # not declared: the engine's runs 0..n-1, as before
    calls.clear()
    validate.validate_file(str(scn), None, True, out=lambda *_: None, boot_seed_base=48)
    assert [c[0] for c in calls] == [f"kernel.boot_seed={48 + j}" for j in range(12)]


def _set_scenario(tmp_path, reread, cpu=None, bimodal=True, entry=None):
    """host-first-reader as a recording set of len(reread) boots whose read 2 re-read those
    bytes, optionally at measured CPU factors, with read 2's read_bytes declared bimodal."""
    val = os.path.join(ROOT, "scenarios", "validation")
    with open(os.path.join(val, "host-first-reader.toml")) as f:
        text = f.read()
    with open(os.path.join(val, "real", "host-first-reader.json")) as f:
        doc = json.load(f)
    (tmp_path / "real").mkdir(exist_ok=True)
    names = []
    for i, rb in enumerate(reread):
        d = json.loads(json.dumps(doc))
        d["variants"]["default"]["steps"][1]["metrics"]["read_bytes"] = rb
        if cpu is not None:
            d["variants"]["default"]["real"]["machine"]["cpu"] = {"cpu_slowdown": cpu[i]}
        (tmp_path / "real" / f"b{i}.json").write_text(json.dumps(d))
        names.append(f'"real/b{i}.json"')
    text = text.replace('recorded = "real/host-first-reader.json"', f"recorded = [{', '.join(names)}]")
    if bimodal:
        text += entry if entry is not None else (
            '\n[[validation.bimodal]]\nstep = "read 2"\nmetrics = ["read_bytes"]\nevent = "the reader re-reads"\n'
            'by = "read_bytes"\nabove = 0\nwhy = "test"\n')
    scn = tmp_path / "v.toml"
    scn.write_text(text)
    return scn, text


def test_validate_prints_a_bimodal_comparison_in_words(tmp_path, capsys):
    from conftest import cli_run

    # every kernel boot re-reads 48-64 MiB, the engine never: the share differs
    scn, _ = _set_scenario(tmp_path, [48 * MIB, 64 * MIB, 56 * MIB])
    code, out, err = cli_run(capsys, "validate", "--recorded", scn)
    assert code == 1, out + err
    text = " ".join(out.split())
    assert "(its bimodal metrics: 12 boots, seeds 0-11" in text
    assert ("read 2 read_bytes (bimodal): the reader re-reads (read_bytes > 0) in 3/3 boots, engine 0/12; "
            "Fisher's exact p = 0.002: the shares differ (the rule: they agree unless p < 0.05)") in text, text
    assert "p >= 0.05" not in text, text
    assert "no boot of the engine in that mode: the medians of every boot, 58720256 (engine 0), out of 10% or 1048576" in text
    # no boot re-reads on either side: the shares agree, the medians of every boot too
    scn, _ = _set_scenario(tmp_path, [0, 0, 0])
    code, out, err = cli_run(capsys, "validate", "--recorded", scn)
    assert code == 0, out + err
    assert ("in 0/3 boots, engine 0/12; Fisher's exact p = 1.000: the shares agree (the rule: they agree unless p < 0.05)"
            in " ".join(out.split()))


@pytest.mark.parametrize("entry, words", [
    ('[[validation.bimodal]]\nstep = "read 2"\nmetrics = ["read_bytes"]\nby = "read_bytes"\nabove = 0\nwhy = "w"\n', "lacks event"),
    ('[[validation.bimodal]]\nstep = "read 2"\nmetrics = ["read_bytes"]\nevent = "e"\nby = "read_bytes"\nabove = 0\nwhy = "w"\nx = 1\n',
     "unknown key(s) x"),
    ('[[validation.bimodal]]\nstep = "read 2"\nmetrics = ["nope"]\nevent = "e"\nby = "read_bytes"\nabove = 0\nwhy = "w"\n',
     "'nope' is not a metric of [validation.tolerance]"),
    ('[[validation.bimodal]]\nstep = "read 2"\nmetrics = ["read_bytes"]\nevent = "e"\nby = "read_bytes"\nabove = "0"\nwhy = "w"\n',
     "above must be a number"),
    ('[[validation.bimodal]]\nstep = "read 2"\nmetrics = []\nevent = "e"\nby = "read_bytes"\nabove = 0\nwhy = "w"\n', "non-empty array"),
    ('[[validation.bimodal]]\nvariant = "x"\nstep = "read 2"\nmetrics = ["read_bytes"]\nevent = "e"\nby = "read_bytes"\nabove = 0\nwhy = "w"\n',
     "no variant 'x'"),
    ('[[validation.bimodal]]\nstep = "read 9"\nmetrics = ["read_bytes"]\nevent = "e"\nby = "read_bytes"\nabove = 0\nwhy = "w"\n',
     "bimodal names step 'read 9'"),
    ('[[validation.bimodal]]\nstep = "read 2"\nmetrics = ["read_bytes"]\nevent = "e"\nby = "read_bytes"\nabove = 0\nwhy = "w"\n'
     '[[validation.bimodal]]\nstep = "read 2"\nmetrics = ["read_bytes"]\nevent = "e"\nby = "read_bytes"\nabove = 0\nwhy = "w"\n',
     "declared bimodal twice"),
])
def test_a_bad_bimodal_entry_is_refused_with_its_place_and_the_fix(tmp_path, capsys, entry, words):
    from conftest import cli_run

    scn, text = _set_scenario(tmp_path, [0, 0], entry="\n" + entry)
    code, out, err = cli_run(capsys, "validate", "--recorded", scn)
    assert code == 2 and words in err and "fix:" in err and "Traceback" not in err, err
    if "bimodal names step" not in words:
        # the entry's file and line
        line = text.count("\n", 0, text.index("[[validation.bimodal]]")) + 1
        assert f"{scn}:" in err and any(f":{n}:" in err for n in range(line, line + 18)), err


def test_a_bimodal_metric_needs_a_recording_set(tmp_path, capsys):
    from conftest import cli_run

    val = os.path.join(ROOT, "scenarios", "validation")
    text = open(os.path.join(val, "host-first-reader.toml")).read().replace(
        'recorded = "real/host-first-reader.json"', f'recorded = "{os.path.join(val, "real", "host-first-reader.json")}"')
    scn = tmp_path / "one.toml"
    scn.write_text(text + '\n[[validation.bimodal]]\nstep = "read 2"\nmetrics = ["read_bytes"]\nevent = "e"\nby = "read_bytes"\n'
                   'above = 0\nwhy = "w"\n')
    code, out, err = cli_run(capsys, "validate", "--recorded", scn)
    assert code == 2 and "it needs a recording set" in err and "fix:" in err, err


def test_a_scenario_without_bimodal_metrics_runs_the_engine_once_per_recording(tmp_path, monkeypatch):
    scn, _ = _set_scenario(tmp_path, [0, 4 * MIB, 1 * MIB], bimodal=False)
    calls = []
    real_run = validate.run
    monkeypatch.setattr(validate, "run", lambda s, variant=None, sets=(): calls.append(list(sets)) or real_run(s, variant=variant, sets=sets))
    rows, _, _ = validate.validate_file(str(scn), None, True, out=lambda *_: None)
    assert calls == [[f"kernel.boot_seed={i}"] for i in range(3)] and not any(r.bimodal for r in rows)
    assert memtwin.load(str(scn)).doc.table("validation").get("bimodal") is None


def test_format_rows_counts_the_engine_runs_of_the_plain_rows():
    """A bimodal row has the engine's 4 n boots, the other rows its n runs: the table's note gives
    the plain rows' count and each bimodal row's range says its own."""
    bim = row([0.0] * 24 + [20.0 * MIB] * 24, [0.0] * 6 + [20.0 * MIB] * 6)
    plain = validate.Row("two-list", "wset 3", "resident_pages", 5.0, 5.0, 0.10, 256, sims=[5.0] * 12, reals=[5.0] * 12)
    text = validate.format_rows([bim, plain])
    assert "medians of 12 engine runs and 12 recordings" in text, text
    assert "wset 3 read_bytes: engine 0 to 20971520 (48 boots), real 0 to 20971520" in text
    assert "in 6/12 boots, engine 24/48; Fisher's exact p = 1.000: the shares agree" in " ".join(text.split())
