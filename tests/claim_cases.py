"""The tests every paper's claims get (test_claims_<paper>.py), from its cases: per
figure a table on which every claim must be supported and one on which every claim must
be not supported. A paper's test module binds them at module level:

    test_every_claim_is_covered, test_claim_holds, test_claim_fails, test_claim_states_its_rule = \\
        claim_tests(CASES, claims_of, FIGURES)
"""
from __future__ import annotations

import pytest

from cclab.papers.claims import NOT_SUPPORTED, SUPPORTED


def claim_tests(cases: dict, claims_of, figures: dict) -> tuple:
    claims = [(figure, index) for figure, (holds, _) in cases.items() for index in range(len(claims_of(figure, holds)))]

    def test_every_claim_is_covered():
        assert set(cases) == set(figures)
        for figure, (holds, fails) in cases.items():
            assert len(claims_of(figure, holds)) == len(claims_of(figure, fails)) > 0

    @pytest.mark.parametrize("figure, index", claims)
    def test_claim_is_supported_where_it_must_hold(figure, index):
        claim = claims_of(figure, cases[figure][0])[index]
        assert claim.verdict == SUPPORTED, (claim.statement, claim.evidence)

    @pytest.mark.parametrize("figure, index", claims)
    def test_claim_is_not_supported_where_it_must_fail(figure, index):
        claim = claims_of(figure, cases[figure][1])[index]
        assert claim.verdict == NOT_SUPPORTED, (claim.statement, claim.evidence)

    @pytest.mark.parametrize("figure, index", claims)
    def test_claim_states_its_rule(figure, index):
        rule = claims_of(figure, cases[figure][0])[index].rule
        assert rule.metric and rule.threshold and rule.source

    return (test_every_claim_is_covered, test_claim_is_supported_where_it_must_hold,
            test_claim_is_not_supported_where_it_must_fail, test_claim_states_its_rule)
