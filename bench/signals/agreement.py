"""Agreement between the first labeller (real_labels_v2.jsonl) and a blind second one (second_labels.jsonl).

    python bench/signals/agreement.py            # tables
    python bench/signals/agreement.py --json

The second reader labelled a sample, not the corpus: every prompt the first reader marked a signal
plus a seeded 450 of its ``none`` prompts (``second_label.py``). A sampled ``none`` therefore stands
for total_nones / 450 prompts; every figure called *weighted* multiplies those rows by that factor, so
it estimates the whole corpus (or the whole test half). *Raw* figures are over the 807 sampled
prompts as they are, where signals are over-represented (44 % instead of ~21 %). The detector's
figures post-stratify the sampled nones by (half, predicted) instead, which makes them exact
against the first labels (evaluate_v2.py's numbers) and estimates against the second.

The phrase-table detector (the shipped decision: ``mining.learned`` is off) is scored on the test half
against (a) the first labels, (b) the second labels, (c) only the prompts where both readers agree
on signal vs none. The text is read in place from ../shared and never copied.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent))

from evaluate_v2 import LANGS, load_items, load_labels  # noqa: E402
from prompt_corpus import SHARED  # noqa: E402

SECOND_FILE = HERE / "second_labels.jsonl"
LABELS = ("correction", "convention", "preference", "remember", "none")
BOOT = 1000


def load_second() -> dict[tuple[str, str], str]:
    out = {}
    for line in SECOND_FILE.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        out[(row["file"], row["uuid"])] = row["label"]
    return out


def kappa(rows: list[dict], binary: bool) -> float | None:
    """Cohen's kappa over weighted rows (``w``); binary collapses every signal label into one."""
    def cat(label: str) -> str:
        return ("signal" if label != "none" else "none") if binary else label
    total = sum(r["w"] for r in rows)
    if not total:
        return None
    agree = sum(r["w"] for r in rows if cat(r["first"]) == cat(r["second"])) / total
    first, second = defaultdict(float), defaultdict(float)
    for r in rows:
        first[cat(r["first"])] += r["w"]
        second[cat(r["second"])] += r["w"]
    chance = sum(first[c] * second[c] for c in first) / total ** 2
    return None if chance == 1 else round((agree - chance) / (1 - chance), 3)


def boot_ci(rows: list[dict], binary: bool, seed: int = 20) -> tuple[float, float] | None:
    """95 % percentile bootstrap, resampling signals and sampled nones separately (the sample's strata)."""
    if len(rows) < 10:
        return None
    rng = random.Random(seed)
    strata = [[r for r in rows if r["first"] != "none"], [r for r in rows if r["first"] == "none"]]
    values = []
    for _ in range(BOOT):
        draw = [r for s in strata for r in rng.choices(s, k=len(s))] if all(strata) else rng.choices(rows, k=len(rows))
        k = kappa(draw, binary)
        if k is not None:
            values.append(k)
    values.sort()
    return round(values[int(0.025 * len(values))], 3), round(values[int(0.975 * len(values)) - 1], 3)


def agreement(rows: list[dict]) -> dict:
    total = sum(r["w"] for r in rows)
    same = sum(r["w"] for r in rows if (r["first"] != "none") == (r["second"] != "none"))
    return {"n": len(rows), "weighted_n": round(total, 1),
            "binary_agree": round(same / total, 3) if total else None,
            "kappa_binary": kappa(rows, True), "kappa_5way": kappa(rows, False)}


def per_label(rows: list[dict]) -> dict:
    """Specific agreement per label: 2·both / (first + second), weighted (Fleiss' positive agreement)."""
    out = {}
    for label in LABELS:
        both = sum(r["w"] for r in rows if r["first"] == label and r["second"] == label)
        first = sum(r["w"] for r in rows if r["first"] == label)
        second = sum(r["w"] for r in rows if r["second"] == label)
        out[label] = {"first": round(first, 1), "second": round(second, 1),
                      "specific_agreement": round(2 * both / (first + second), 3) if first + second else None}
    return out


def confusion(rows: list[dict]) -> dict:
    """Raw counts over the sample: first label (row) × second label (column)."""
    table = {a: {b: 0 for b in LABELS} for a in LABELS}
    for r in rows:
        table[r["first"]][r["second"]] += 1
    return table


def pr(rows: list[dict], truth: str, weight: str = "wd") -> dict:
    """Weighted precision/recall of the detector's ``predicted`` against ``truth`` ('first' or 'second')."""
    tp = sum(r[weight] for r in rows if r[truth] != "none" and r["predicted"])
    fp = sum(r[weight] for r in rows if r[truth] == "none" and r["predicted"])
    fn = sum(r[weight] for r in rows if r[truth] != "none" and not r["predicted"])
    return {"n": len(rows), "tp": round(tp, 1), "fp": round(fp, 1), "fn": round(fn, 1),
            "precision": round(tp / (tp + fp), 3) if tp + fp else None,
            "recall": round(tp / (tp + fn), 3) if tp + fn else None}


def human_ceiling(rows: list[dict]) -> dict:
    """The first reader used as a detector, scored against the second (and the reverse)."""
    as_pred = [{**r, "predicted": r["first"] != "none"} for r in rows]
    back = [{**r, "predicted": r["second"] != "none"} for r in rows]
    return {"first_vs_second": pr(as_pred, "second", "w"), "second_vs_first": pr(back, "first", "w")}


def build(shared: Path) -> tuple[list[dict], dict]:
    second = load_second()
    first_all = load_labels()
    nones_total = sum(1 for v in first_all.values() if v == "none")
    nones_sampled = sum(1 for k in second if first_all[k] == "none")
    w_none = nones_total / nones_sampled
    items = load_items(shared, "phrases")
    # the detector's figures post-stratify the sampled nones by (half, predicted): the prediction is known
    # for every prompt, so against the first labels they reproduce evaluate_v2.py exactly
    strata_all, strata_sampled = defaultdict(int), defaultdict(int)
    for item in items:
        if item["label"] == "none":
            stratum = (item["half"], item["predicted"])
            strata_all[stratum] += 1
            strata_sampled[stratum] += (item["file"], item["uuid"]) in second
    rows = []
    for item in items:
        key = (item["file"], item["uuid"])
        if key in second:
            none = item["label"] == "none"
            stratum = (item["half"], item["predicted"])
            rows.append({"half": item["half"], "lang": item["lang"], "repo": item["repo"],
                         "first": item["label"], "second": second[key], "predicted": item["predicted"],
                         "w": w_none if none else 1.0,
                         "wd": strata_all[stratum] / strata_sampled[stratum] if none else 1.0})
    meta = {"corpus": len(first_all), "nones_total": nones_total, "nones_sampled": nones_sampled,
            "signals_first": len(first_all) - nones_total, "none_weight": round(w_none, 3), "sample": len(rows)}
    return rows, meta


def report(shared: Path) -> dict:
    rows, meta = build(shared)
    raw = [{**r, "w": 1.0, "wd": 1.0} for r in rows]
    test = [r for r in rows if r["half"] == "test"]
    raw_test = [r for r in raw if r["half"] == "test"]
    agree_test = [r for r in test if (r["first"] != "none") == (r["second"] != "none")]
    return {
        "meta": meta,
        "all_weighted": {**agreement(rows), "kappa_binary_ci95": boot_ci(rows, True),
                         "kappa_5way_ci95": boot_ci(rows, False)},
        "all_raw": agreement(raw),
        "signals_only_5way": agreement([r for r in raw if r["first"] != "none" and r["second"] != "none"]),
        "per_label_weighted": per_label(rows),
        "confusion_raw": confusion(rows),
        "by_half": {h: agreement([r for r in rows if r["half"] == h]) for h in ("dev", "test")},
        "by_lang": {lang: agreement([r for r in rows if r["lang"] == lang]) for lang in LANGS
                    if any(r["lang"] == lang for r in rows)},
        "human_ceiling_weighted": human_ceiling(rows),
        "human_ceiling_test_weighted": human_ceiling(test),
        "phrases_test_weighted": {"first": pr(test, "first"), "second": pr(test, "second"),
                                  "both_agree": pr(agree_test, "first")},
        "phrases_test_raw_sample": {"first": pr(raw_test, "first"), "second": pr(raw_test, "second")},
        "phrases_test_by_lang_second": {lang: pr([r for r in test if r["lang"] == lang], "second") for lang in LANGS
                                        if any(r["lang"] == lang for r in test)},
    }


def _print(res: dict) -> None:
    m = res["meta"]
    print(f"corpus {m['corpus']} prompts, first reader: {m['signals_first']} signals, {m['nones_total']} none; "
          f"sample {m['sample']} = all signals + {m['nones_sampled']} nones (none weight {m['none_weight']})")
    a, r = res["all_weighted"], res["all_raw"]
    print(f"weighted (corpus estimate): agree {a['binary_agree']}  kappa binary {a['kappa_binary']} "
          f"{a['kappa_binary_ci95']}  5-way {a['kappa_5way']} {a['kappa_5way_ci95']}")
    print(f"raw sample: agree {r['binary_agree']}  kappa binary {r['kappa_binary']}  5-way {r['kappa_5way']}")
    s = res["signals_only_5way"]
    print(f"among the {s['n']} both call a signal: kind kappa {s['kappa_5way']}")
    print("confusion (raw counts; rows first reader, columns second):")
    print(" " * 12 + "".join(f"{b[:10]:>11}" for b in LABELS))
    for a_, row in res["confusion_raw"].items():
        print(f"{a_:<12}" + "".join(f"{row[b]:>11}" for b in LABELS))
    print("per label (weighted): first / second / specific agreement")
    for k, v in res["per_label_weighted"].items():
        print(f"  {k:<11}{v['first']:>8}{v['second']:>8}  {v['specific_agreement']}")
    print("slice        n   agree  k_bin  k_5way   (weighted)")
    for name, v in [*(("half=" + h, v) for h, v in res["by_half"].items()),
                    *(("lang=" + h, v) for h, v in res["by_lang"].items())]:
        print(f"{name:<11}{v['n']:>4}  {v['binary_agree']!s:>6} {v['kappa_binary']!s:>6} {v['kappa_5way']!s:>7}")
    for name, v in [("all", res["human_ceiling_weighted"]), ("test", res["human_ceiling_test_weighted"])]:
        f, b = v["first_vs_second"], v["second_vs_first"]
        print(f"human ceiling ({name}): first as detector vs second P {f['precision']} R {f['recall']}; "
              f"second vs first P {b['precision']} R {b['recall']}")
    print("phrase tables, test half (weighted):")
    for k, v in res["phrases_test_weighted"].items():
        print(f"  truth={k:<11} n {v['n']:>4}  tp {v['tp']:>6} fp {v['fp']:>6} fn {v['fn']:>6}  "
              f"P {v['precision']}  R {v['recall']}")
    print("phrase tables, test half by language against the second labels (weighted):")
    for k, v in res["phrases_test_by_lang_second"].items():
        print(f"  {k:<4} n {v['n']:>4}  P {v['precision']}  R {v['recall']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not args.shared.is_dir():
        print("no shared transcripts: nothing to compare")
        return
    res = report(args.shared)
    print(json.dumps(res, indent=1) if args.json else "", end="")
    if not args.json:
        _print(res)


if __name__ == "__main__":
    main()
