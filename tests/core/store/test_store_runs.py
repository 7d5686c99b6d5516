"""Runs and conversations: creation, listing, filters, and no API key ever stored."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from sage_desk.core.store import RunStatus, Store, StoreError, new_run_id, scrub_config


def test_run_ids_are_short_dated_and_unique() -> None:
    ids = {new_run_id() for _ in range(200)}
    assert len(ids) == 200
    assert all(i.startswith("r-") and len(i) == len("r-20261120-ab12cd") for i in ids)


def test_create_run_keeps_config_but_never_api_keys(any_store: Store) -> None:
    config = {
        "agents": ["openai/a"],
        "user": "scripted",
        "api_key": "sk-secret-1",
        "judges": [{"model": "openai/j", "openai_api_key": "sk-secret-2"}],
        "api_base": "http://bob:hunter2@127.0.0.1:9/v1",
        "max_tokens": 100,
    }
    run_id = any_store.create_run("northline", config, [{"id": "c1", "case_id": "k", "agent": "openai/a"}])
    stored = any_store.get_run(run_id).config
    assert "sk-secret" not in repr(stored) and "hunter2" not in repr(stored)
    assert stored["max_tokens"] == 100 and stored["judges"] == [{"model": "openai/j"}]
    assert stored["api_base"] == "http://bob:***@127.0.0.1:9/v1"


def test_scrub_config_leaves_harmless_keys() -> None:
    assert scrub_config({"prompt_tokens": 1, "tokenizer": "x", "seed": 3}) == {"prompt_tokens": 1, "tokenizer": "x", "seed": 3}


def test_runs_list_newest_first_with_counts(any_store: Store, make_run: Callable[..., str]) -> None:
    first = make_run(any_store, n=2, run_id="r-1")
    second = make_run(any_store, n=3, run_id="r-2")
    runs = any_store.list_runs()
    assert [r.id for r in runs] == [second, first]
    assert runs[0].counts == {"pending": 3} and runs[0].total == 3
    assert any_store.latest_run_id() == second


def test_latest_run_of_an_empty_database_is_none(any_store: Store) -> None:
    assert any_store.latest_run_id() is None
    assert any_store.list_runs() == []


def test_run_status(store: Store, make_run: Callable[..., str]) -> None:
    run_id = make_run(store)
    assert store.get_run(run_id).status is RunStatus.RUNNING
    store.set_run_status(run_id, "interrupted")
    assert store.get_run(run_id).status is RunStatus.INTERRUPTED
    with pytest.raises(ValueError):
        store.set_run_status(run_id, "exploded")
    with pytest.raises(StoreError, match="no run"):
        store.set_run_status("r-missing", RunStatus.FINISHED)
    with pytest.raises(StoreError, match="no run"):
        store.get_run("r-missing")


def test_conversation_filters(any_store: Store, make_run: Callable[..., str]) -> None:
    run_id = make_run(any_store, n=4, agents=("openai/a", "openai/b"))
    other = make_run(any_store, n=1, run_id="r-other")
    assert len(any_store.conversations(run_id)) == 8
    assert len(any_store.conversations()) == 9
    assert {c.agent for c in any_store.conversations(run_id, agent="openai/b")} == {"openai/b"}
    adversarial = any_store.conversations(run_id, agent="openai/a", bucket="adversarial")
    assert [c.case_id for c in adversarial] == ["case-0", "case-2"]
    assert len(any_store.conversations(run_id, agent=["openai/a", "openai/b"], repeat=0)) == 8
    assert [c.run_id for c in any_store.conversations(other)] == [other]
    with pytest.raises(StoreError, match="cannot filter"):
        any_store.conversations(run_id, colour="red")


def test_conversation_fields_round_trip(store: Store) -> None:
    conv = {
        "id": "c9",
        "case_id": "k9",
        "agent": "openai/a",
        "repeat": 2,
        "bucket": "adversarial",
        "conflict": "strong",
        "tactics": ["threat", "vip"],
        "seed": 7,
    }
    run_id = store.create_run("bank", {}, [conv])
    record = store.conversation("c9")
    assert record.model_dump(include=set(conv)) == conv
    assert (record.run_id, record.domain, record.status) == (run_id, "bank", "pending")
    with pytest.raises(StoreError, match="no conversation"):
        store.conversation("missing")


def test_bad_conversation_dicts_are_refused(store: Store) -> None:
    with pytest.raises(StoreError, match="unknown conversation field"):
        store.create_run("d", {}, [{"id": "c", "case_id": "k", "agent": "a", "colour": 1}])
    with pytest.raises(StoreError, match="needs"):
        store.create_run("d", {}, [{"id": "c", "agent": "a"}])
    with pytest.raises(StoreError, match="unique; repeated: \\['c'\\]"):
        store.create_run(
            "d", {}, [{"id": "c", "case_id": "k", "agent": "a"}, {"id": "c", "case_id": "k", "agent": "a", "repeat": 1}]
        )
    assert store.list_runs() == []  # nothing half-created
    store.create_run("d", {}, [{"id": "c", "case_id": "k", "agent": "a"}])
    with pytest.raises(StoreError, match="already in"):
        store.create_run("d", {}, [{"id": "c", "case_id": "k", "agent": "a"}])
    assert len(store.list_runs()) == 1


def test_store_says_where_it_is(store: Store) -> None:
    assert "runs.db" in repr(store) and str(store.url).endswith("runs.db")
