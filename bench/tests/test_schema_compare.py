"""bench/micro/schema_compare.py: documents, Google Benchmark parsing, medians and ratios, the ledger section."""
import json

import pytest
from harness import compare, foreign_load, ledger
from micro import cpp_bench, documents, peers, schema_compare, schema_report

META = {"date": "2026-01-02 03:04 UTC", "run_id": "20260102T030400Z", "commit": "abc123", "cpu_model": "Test CPU",
        "nproc": 2, "kernel": "6.0", "os": "Debian", "python": "3.11", "build": "Release, g++ 12"}
SETTINGS = {"rounds": 3, "min_time_s": 0.5, "foreign_limit": 0.2, "max_retries": 2, "pinning": "pinned to CPU 0"}


def record(contender, document, rnd, ns, attempt=0, disturbed=False):
    return {"type": "measurement", "contender": contender, "document": document, "round": rnd, "attempt": attempt,
            "ns_per_doc": ns, "foreign_cores": 0.0, "disturbed": disturbed}


def rounds(times: dict[str, list[float]], document="small") -> list[dict]:
    return [record(name, document, rnd, ns) for name, values in times.items() for rnd, ns in enumerate(values)]


def test_documents_have_the_promised_sizes_and_are_valid_json():
    small, large = documents.small_document(), documents.large_document()
    assert 150 <= len(small) <= 250
    assert 60 * 1024 < len(large) <= 64 * 1024
    assert json.loads(small)["dimensions"] == {"width": 12.5, "height": 18.0, "unit": "cm"}
    items = json.loads(large)
    assert len(items) == len({json.dumps(i, sort_keys=True) for i in items})  # all different
    assert json.loads(documents.INVALID_ITEM)["price"] == -1


def test_committed_documents_match_the_generator():
    assert documents.read("item.json") == documents.small_document() + b"\n"
    assert documents.read("items_64k.json") == documents.large_document() + b"\n"


def test_committed_schemas_match_the_pydantic_models():
    pytest.importorskip("pydantic")
    for name, text in documents.schemas().items():
        assert documents.read(name) == text + b"\n"


GB_REPORT = {"context": {}, "benchmarks": [
    {"name": "slipstream/small", "run_type": "iteration", "cpu_time": 1.5, "real_time": 2.0, "time_unit": "us"},
    {"name": "valijson_rapidjson/small", "run_type": "iteration", "cpu_time": 9000.0, "time_unit": "ns"},
    {"name": "slipstream/large", "run_type": "iteration", "cpu_time": 0.5, "time_unit": "ms"},
    {"name": "slipstream/large_mean", "run_type": "aggregate", "cpu_time": 1.0, "time_unit": "ms"},
    {"name": "other_bench/small", "run_type": "iteration", "cpu_time": 1.0, "time_unit": "ns"},
]}


def test_parse_report_reads_cpu_time_per_document_in_ns():
    assert cpp_bench.parse_report(json.dumps(GB_REPORT)) == {
        ("slipstream", "small"): 1500.0, ("valijson (rapidjson)", "small"): 9000.0, ("slipstream", "large"): 500000.0}


def test_parse_report_raises_on_a_benchmark_error():
    report = {"benchmarks": [{"name": "valijson_nlohmann/small", "error_occurred": True,
                              "error_message": "the valid document was refused"}]}
    with pytest.raises(cpp_bench.BenchError, match="valijson_nlohmann/small: the valid document was refused"):
        cpp_bench.parse_report(json.dumps(report))


def test_cache_value_reads_the_build_type(tmp_path):
    (tmp_path / "CMakeCache.txt").write_text("CMAKE_BUILD_TYPE:STRING=Release\nCMAKE_CXX_COMPILER:FILEPATH=/usr/bin/c++\n")
    assert cpp_bench.cache_value(str(tmp_path), "CMAKE_BUILD_TYPE") == "Release"
    assert cpp_bench.cache_value(str(tmp_path), "MISSING") is None
    assert cpp_bench.cache_value(str(tmp_path / "nowhere"), "CMAKE_BUILD_TYPE") is None


def test_summarize_takes_medians_and_same_round_ratios():
    records = rounds({"slipstream": [1000, 2000, 1500], "pydantic": [4000, 5000, 9000],
                      "valijson (rapidjson)": [6000, 12000, 7500]})
    rows = {r.contender: r for r in schema_report.summarize(records, ["small"])["small"]}
    assert list(rows) == ["slipstream", "valijson (rapidjson)", "pydantic"]
    assert (rows["slipstream"].median_ns, rows["slipstream"].min_ns, rows["slipstream"].max_ns) == (1500, 1000, 2000)
    assert rows["slipstream"].speedup is None
    assert rows["pydantic"].speedup == 4.0          # ratios 4.0, 2.5, 6.0
    assert rows["valijson (rapidjson)"].speedup == 6.0  # ratios 6.0, 6.0, 5.0
    assert rows["pydantic"].median_ns == 5000


def test_summarize_keeps_the_last_attempt_and_counts_disturbed_rounds():
    records = rounds({"slipstream": [1000, 1000, 1000]}) + [
        record("pydantic", "small", 0, 9000, attempt=0, disturbed=True),
        record("pydantic", "small", 0, 3000, attempt=1, disturbed=True),
        record("pydantic", "small", 1, 3000), record("pydantic", "small", 2, 3000)]
    row = schema_report.summarize(records, ["small"])["small"][1]
    assert (row.contender, row.median_ns, row.max_ns, row.speedup, row.disturbed) == ("pydantic", 3000, 3000, 3.0, 1)
    assert row.notes == ["disturbed in 1/3 rounds"]


def test_summarize_reports_skipped_and_failed_contenders():
    records = rounds({"slipstream": [1000]}) + [
        {"type": "skipped", "contender": "jsonschema", "document": "small", "reason": "not installed"},
        {"type": "failed", "contender": "pydantic", "document": "small", "reason": "refused the valid document"}]
    rows = schema_report.summarize(records, ["small"])["small"]
    assert [(r.contender, r.status, r.notes) for r in rows[1:]] == [
        ("pydantic", "failed", ["refused the valid document"]), ("jsonschema", "skipped", ["not installed"])]


def test_misses_lists_targets_below_the_issue_4_ratios():
    records = rounds({"slipstream": [1000], "valijson (rapidjson)": [4000], "pydantic": [3000]}) + rounds(
        {"slipstream": [1000], "valijson (rapidjson)": [6000], "pydantic": [2000]}, document="large")
    summary = schema_report.summarize(records, ["small", "large"])
    assert schema_report.misses(summary) == ["small/valijson (rapidjson)", "large/pydantic"]


def section_text() -> str:
    records = rounds({"slipstream": [1000, 1200, 1100], "valijson (rapidjson)": [8000, 8400, 7700],
                      "pydantic": [5000, 4800, 5500], "jsonschema": [300000, 310000, 290000],
                      "slipstream parse only": [500, 600, 550]})
    summary = schema_report.summarize(records, ["small"])
    return schema_report.render_section(META, SETTINGS, summary, {"small": 211}, invocation="schema_compare.py",
                                        results_path="bench/results/x-schema.jsonl", commands=["bench --json"],
                                        contender_lines=["slipstream: x"], caveats=["noisy"])


def test_section_has_marker_method_table_and_verdict():
    text = section_text()
    assert text.startswith("## 2026-01-02 03:04 UTC — abc123 — JSON Schema parse + validate\n")
    assert "<!-- schema-bench-entry id=20260102T030400Z results=bench/results/x-schema.jsonl -->" in text
    assert "- Build: Release, g++ 12" in text
    assert "| slipstream | 1.100 | 1.000–1.200 | 191.8 | 1.00× (reference) |  |  |" in text
    assert "| valijson (rapidjson) | 8.000 | 7.700–8.400 | 26.4 | 7.00× | ≥ 5×: met |  |" in text
    assert "| pydantic | 5.000 | 4.800–5.500 | 42.2 | 5.00× | ≥ 3×: met |  |" in text
    assert "| jsonschema | 300.0 | 290.0–310.0 | 0.7 | 263.64× |  |  |" in text
    assert "| slipstream parse only | 0.550 | 0.500–0.600 | 383.6 | 0.50× |  | json::parse alone" in text
    assert "Targets (issue 4: at least 5× valijson and 3× pydantic v2 per document): all met." in text
    assert text.endswith("- noisy\n")


def test_section_is_invisible_to_bench_compare_and_appends_only(tmp_path):
    text = section_text()
    assert compare.parse_ratios(text) == {}
    path = tmp_path / "BENCHMARKS.md"
    old = ledger.HEADER.encode() + b"\n## earlier\n\n<!-- bench-entry id=run1 results=r.jsonl -->\n"
    path.write_bytes(old)
    ledger.append_section(str(path), text)
    new = path.read_bytes()
    assert new.startswith(old) and new.endswith(text.encode())
    assert [eid for eid, _ in ledger.entries(new.decode())] == ["run1"]


def test_measure_checks_both_verdicts_before_timing(tmp_path):
    for doc_file, schema_file in documents.DOCUMENTS.values():
        (tmp_path / doc_file).write_bytes(b'{"id": 1}')
        (tmp_path / schema_file).write_bytes(b"{}")
    accept_all = peers.Peer("lenient", "accepts everything", (), lambda doc, schema: lambda body: True)
    with pytest.raises(ValueError, match="lenient accepted the invalid small document"):
        peers.measure(accept_all, 0.001, str(tmp_path))
    strict = peers.Peer("strict", "", (), lambda doc, schema: lambda body: body == b'{"id": 1}')
    times = peers.measure(strict, 0.001, str(tmp_path))
    assert sorted(times) == ["large", "small"] and all(ns > 0 for ns in times.values())


def test_main_runs_rounds_and_appends_a_section(tmp_path, monkeypatch):
    build = tmp_path / "build"
    build.mkdir()
    (build / "CMakeCache.txt").write_text("CMAKE_BUILD_TYPE:STRING=Release\n")
    cpp = {("slipstream", "small"): 1000.0, ("valijson (rapidjson)", "small"): 7000.0,
           ("slipstream", "large"): 300000.0, ("valijson (rapidjson)", "large"): 2000000.0}
    monkeypatch.setattr(cpp_bench, "run", lambda build_dir, min_time: cpp)
    monkeypatch.setattr(peers, "measure", lambda peer, min_time: {"small": 4000.0, "large": 1500000.0})
    idle = foreign_load.MachineTimes(busy=0, total=0)  # no foreign load, so no retries on a busy test machine
    monkeypatch.setattr(foreign_load, "read_machine", lambda: idle)
    ledger_path = tmp_path / "BENCHMARKS.md"
    ledger_path.write_text(ledger.HEADER)
    code = schema_compare.main(["--build-dir", str(build), "--no-build", "--rounds", "3", "--cpu", "-1",
                                "--append-ledger", "--ledger", str(ledger_path), "--results-dir", str(tmp_path / "r"),
                                "--check-targets"])
    assert code == 0
    text = ledger_path.read_text()
    assert text.startswith(ledger.HEADER)
    assert "| valijson (rapidjson) | 7.000 | 7.000–7.000 | 30.1 | 7.00× | ≥ 5×: met |  |" in text
    assert "| pydantic | 1,500 | 1,500–1,500 | 43.6 | 5.00× | ≥ 3×: met |  |" in text
    jsonl = next((tmp_path / "r").glob("*-schema.jsonl")).read_text().splitlines()
    measured = [json.loads(line) for line in jsonl if '"measurement"' in line]
    assert len(measured) == 3 * (len(cpp) + 4)  # 3 rounds x (4 C++ rows + 2 peers x 2 documents)


def test_main_refuses_a_ledger_entry_from_a_debug_build_or_few_rounds(tmp_path):
    build = tmp_path / "build"
    build.mkdir()
    (build / "CMakeCache.txt").write_text("CMAKE_BUILD_TYPE:STRING=Debug\n")
    args = ["--build-dir", str(build), "--no-build", "--append-ledger", "--ledger", str(tmp_path / "L.md")]
    assert schema_compare.main(args + ["--rounds", "2"]) == 2
    assert schema_compare.main(args + ["--rounds", "3"]) == 2
    assert not (tmp_path / "L.md").exists()
