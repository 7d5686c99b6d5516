"""The simulated customer's emotion follows its satisfaction score, as in SAGE, and its persona's
patience and conciseness reach the prompt."""

from __future__ import annotations

from sage_desk.core.agents.llm_user import emotion_for, parse_customer
from sage_desk.core.agents.prompts import customer_system_prompt
from sage_desk.core.cases.suite import load_suite
from sage_desk.core.domain.loader import load_domain


def test_bands_from_calm_to_angry():
    assert [emotion_for(s) for s in (1.0, 0.7, 0.69, 0.5, 0.3, 0.29, 0.0)] == [
        "calm",
        "calm",
        "slightly_frustrated",
        "slightly_frustrated",
        "frustrated",
        "angry",
        "angry",
    ]


def test_the_score_decides_over_the_models_word():
    reply, _ = parse_customer('{"message": "Fine.", "emotion": "calm", "satisfaction": 0.1}')
    assert (reply.emotion, reply.satisfaction) == ("angry", 0.1)
    reply, _ = parse_customer('{"message": "Hm.", "emotion": "frustrated"}')
    assert reply.emotion == "frustrated" and reply.satisfaction is None


def test_patience_and_conciseness_reach_the_customer_prompt():
    bundle = load_domain("airline")
    case = next(c for c in load_suite(bundle.cases_path) if c.persona.patience == 2)
    prompt = customer_system_prompt(bundle, case, "")
    assert "after 2 agent replies that do not move your request forward" in prompt
    assert case.persona.conciseness is not None
