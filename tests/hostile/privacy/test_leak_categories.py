"""The leak categories printed for a blind PHI half: structure only, never a character of a value's letters
or digits, nor a word of the text around it."""

from __future__ import annotations

import pytest

from clauseguard.privacy.leak_categories import leaks, script, shape, table, where, word_before


@pytest.mark.parametrize(("value", "expected"), [
    ("03/14/1962", "99/99/9999"),
    ("14 Mar 1962", "99 Aa+ 9999"),
    ("14MAR1962", "99A+9999"),
    ("Sean O'Brien", "Aa+ A'Aa+"),
    ("DOE, Jane Q.", "A+, Aa+ A."),
    ("Nguyễn Văn An", "Aa+La ALa Aa"),
    ("王芳", "L+"),
    ("Ли Вэй", "L+ L+"),
    ("j.doe+tag@mail.co.uk", "a.a++a+@a+.a+.a+"),
    ("A1", "A9"),
    ("id\t7", "a+\\t9"),
    ("", ""),
])
def test_shape_keeps_classes_and_punctuation_only(value: str, expected: str) -> None:
    assert shape(value) == expected


def test_shape_shows_no_letter_or_digit_of_the_value() -> None:
    value = "Xochitl Quezada-Brightwater 7315"
    assert set(shape(value)) <= {"A", "a", "L", "9", "+", " ", "-"}


@pytest.mark.parametrize(("value", "expected"), [
    ("Jane Doe", "latin"), ("王芳", "cjk"), ("さくら", "kana"), ("민지", "hangul"), ("Ли Вэй", "cyrillic"),
    ("Νίκος", "greek"), ("12/03/1962", "none"), ("Ana 李", "cjk+latin"),
])
def test_script_names_the_scripts_of_the_letters(value: str, expected: str) -> None:
    assert script(value) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("VALUE is here", "line start"),
    ("DOB: VALUE", "after colon"),
    ("seen (born VALUE) today", "in brackets"),
    ("DOE, VALUE", "after comma"),
    ("Birth date ........ VALUE", "in text after ..."),
    ("spoke with VALUE", "in text"),
    ("row | VALUE | F", "in text after | + table"),
])
def test_where_says_where_the_value_sits_on_its_line(text: str, expected: str) -> None:
    assert where(text, text.index("VALUE")) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("DOB VALUE", "birth label"),
    ("Member ID: VALUE", "id label"),
    ("Patient: VALUE", "name label"),
    ("Mrs VALUE", "title"),
    ("62 y/o VALUE", "age"),
    ("seen 03/04/2024 VALUE", "date"),
    ("bed 12 VALUE", "digit run"),
    ("spoke to VALUE", "function word"),
    ("handover VALUE", "word"),
    ("VALUE", "none"),
])
def test_word_before_is_a_class_never_the_word(text: str, expected: str) -> None:
    assert word_before(text, text.index("VALUE"), []) == expected


def test_a_leak_and_its_table_hold_no_text_of_the_item() -> None:
    text = "Handover: Quillon Vantrease walked today.\nRef 2022/QV/118204 open, queue 7315 twice."
    item = {"text": text, "phi": [{"category": "other", "value": "walked today"},  # words the redactor keeps
                                  {"category": "other", "value": "queue 7315"},
                                  {"category": "name", "value": "Zzyzx"}]}  # not in the text: no leak
    found = leaks([item])
    printed = table(found)
    assert [leak.shape for leak in found] == ["a+ a+", "a+ 9999"]
    for word in ("Quillon", "Vantrease", "Handover", "walked", "today", "queue", "7315", "2022", "QV", "118204",
                 "Ref", "Zzyzx"):
        assert word not in printed
