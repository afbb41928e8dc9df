"""docs/constraints.md is exactly the rule table atbx prints."""
import os

from atbx_case import run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_constraints_doc_matches_rule_table(atbx):
    result = run(atbx, "rules", "--markdown")
    assert result.returncode == 0, result.stderr
    with open(os.path.join(ROOT, "docs", "constraints.md")) as f:
        documented = f.read()
    assert documented == result.stdout, ("docs/constraints.md is stale: regenerate it with "
                                         "`atbx rules --markdown > docs/constraints.md`")


def test_rules_text_lists_every_rule_once(atbx):
    result = run(atbx, "rules")
    assert result.returncode == 0
    ids = [line.split("\t")[0] for line in result.stdout.splitlines()]
    assert len(ids) == len(set(ids))
    assert "pa.device.block_ids_in_range" in ids
