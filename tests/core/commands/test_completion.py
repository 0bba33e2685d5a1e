"""What the console's autocomplete offers where the cursor is, from the catalog alone: in a qualified
position (`ns.`, `ns.layer.`, `alias.`) the names under the qualifier by prefix and never a keyword,
whichever mode the editor is in (after a dot it passes its member word, else the bare word)."""
from __future__ import annotations

import pytest

from rat_tui.core.commands.completion import Completions, chain_before

CATALOG = {"ecommerce.bronze.raw_orders": [("order_id", "long"), ("status", "string")],
           "ecommerce.bronze.raw_events": [("event_id", "long")],
           "ecommerce.silver.clean_orders": [("order_id", "long"), ("amount", "decimal(10,2)")],
           "ecommerce.gold.daily_revenue": [("day", "date")],
           "analytics.gold.customer_value": [("customer_id", "long")]}


def offered(before: str, replaced: str, statement: str = "") -> list[tuple[str, str, str]]:
    """(label, kind, value inserted) of every item offered."""
    return [(label, kind, value) for (label, kind), value in Completions(CATALOG).at(before, replaced,
                                                                                   statement or before)]


@pytest.mark.parametrize("typed", ["", "b", "s", "sil", "g", "SIL"])
def test_layers_complete_by_prefix_after_the_namespace(typed: str):
    layers = [layer for layer in ("bronze", "gold", "silver") if layer.startswith(typed.lower())]
    before = f"SELECT * FROM ecommerce.{typed}"
    # After the dot the editor replaces its member word, `ecommerce.s`...
    assert offered(before, f"ecommerce.{typed}") == [(layer, "layer", f"ecommerce.{layer}") for layer in layers]
    if typed:  # ...and once its list was closed, the bare word: the answer is the same names
        assert offered(before, typed) == [(layer, "layer", layer) for layer in layers]


@pytest.mark.parametrize("typed", ["", "raw_", "raw_o", "c"])
def test_tables_complete_by_prefix_after_the_layer(typed: str):
    tables = [t for t in ("raw_events", "raw_orders") if t.startswith(typed)]
    before = f"SELECT * FROM ecommerce.bronze.{typed}"
    assert offered(before, f"bronze.{typed}") == [(t, "table", f"bronze.{t}") for t in tables]
    if typed:
        assert offered(before, typed) == [(t, "table", t) for t in tables]


def test_a_qualified_position_never_offers_keywords_or_functions():
    for before, replaced in (("SELECT * FROM ecommerce.g", "g"), ("SELECT * FROM ecommerce.s", "s"),
                             ("SELECT * FROM ecommerce.zz", "zz"), ("SELECT o.s FROM ecommerce.bronze.raw_orders o",
                                                                    "s")):
        kinds = {kind for _, kind, _ in offered(before[:before.index(replaced) + len(replaced)], replaced, before)}
        assert kinds <= {"layer", "table", "string", "long", "date"}, (before, kinds)


def test_an_alias_offers_the_columns_of_the_statement():
    statement = "SELECT o.s FROM ecommerce.bronze.raw_orders o"
    assert offered("SELECT o.s", "o.s", statement) == [("status", "string", "o.status")]
    assert offered("SELECT o.s", "s", statement) == [("status", "string", "status")]


def test_columns_of_a_named_table_and_back_quoted_names():
    assert offered("SELECT ecommerce.silver.clean_orders.am", "clean_orders.am") == [
        ("amount", "decimal(10,2)", "clean_orders.amount")]
    assert chain_before("FROM `ecommerce`.`sil") == "ecommerce.sil"
    assert chain_before("SELECT sil") == ""


def test_a_bare_word_offers_names_before_keywords():
    items = offered("SELECT * FROM e", "e")
    assert items[0] == ("ecommerce", "namespace", "ecommerce")
    assert ("else", "keyword", "else") in items  # a bare word keeps its keywords (in the case typed)
    statement = "SELECT s FROM ecommerce.bronze.raw_orders"
    assert offered("SELECT s", "s", statement)[0] == ("status", "string", "status")
