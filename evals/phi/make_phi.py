#!/usr/bin/env python3
"""PHI corpus for clauseguard's redaction evaluation: the dev half, generated.

    build(seed: int = 0) -> list[dict]

Each item is

    {"id": "phi-0001", "field": "narrative" | "question", "text": "...",
     "phi": [{"category": "name", "value": "Sean O'Brien"}, ...],
     "clinical": ["type 2 diabetes", "metformin", "A1c 8.2%"]}

`phi` lists every identifier in `text`, each value verbatim as it appears there (an address also
lists its street line and, where it has one, its alphanumeric postcode as separate values, so a
partial redaction is still caught). `clinical` lists clinical terms, drug names, codes and
measurements in `text` that must survive redaction. Categories: name, phone, date_of_birth,
record_id, ssn, email, address, other.

Standard library only, deterministic for a given seed, no network. Every item is checked
mechanically as it is generated (see `check_item`); an item that fails is drawn again from the
same random stream, so the output depends only on the seed.

    python evals/phi/make_phi.py --check                 # build seed 0, run every check, print counts
    python evals/phi/make_phi.py --seed 0 --out FILE.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

CATEGORIES = ("name", "phone", "date_of_birth", "record_id", "ssn", "email", "address", "other")
HERE = Path(__file__).resolve().parent
TERMS_FILE = HERE / "clinical_terms.txt"

# --------------------------------------------------------------------------------------------
# Markup: templates are ordinary f-strings; identifiers and clinical terms are wrapped in
# control-character markers that `parse` strips while recording what they were.
#   P(cat, value)      an identifier occupying its span of the text
#   ALSO(cat, value)   a further value to list (a part of an identifier already in the text)
#   [[term]] or C(t)   a clinical term that must survive
# --------------------------------------------------------------------------------------------

_PS, _PM, _PE, _CS, _CE, _AS = "\x01", "\x02", "\x03", "\x04", "\x05", "\x06"
_TOKEN = re.compile("\x01([a-z_]+)\x02([^\x03]*)\x03|\x04([^\x05]*)\x05|\x06([a-z_]+)\x02([^\x03]*)\x03")
_MARK = re.compile(r"\[\[(.+?)\]\]")


def P(cat: str, value: str) -> str:
    assert cat in CATEGORIES, cat
    return f"{_PS}{cat}{_PM}{value}{_PE}"


def ALSO(cat: str, value: str) -> str:
    assert cat in CATEGORIES, cat
    return f"{_AS}{cat}{_PM}{value}{_PE}"


def C(term: str) -> str:
    return f"{_CS}{term}{_CE}"


def parse(marked: str):
    """(text, phi spans [(start, end, cat, value)], clinical spans [(start, end, term)], extra values)."""
    marked = _MARK.sub(lambda m: C(m.group(1)), marked)
    out: list[str] = []
    pos = 0
    last = 0
    phi_spans, clin_spans, extra = [], [], []
    for m in _TOKEN.finditer(marked):
        plain = marked[last:m.start()]
        out.append(plain)
        pos += len(plain)
        last = m.end()
        if m.group(1) is not None:
            val = m.group(2)
            phi_spans.append((pos, pos + len(val), m.group(1), val))
            out.append(val)
            pos += len(val)
        elif m.group(3) is not None:
            term = m.group(3)
            clin_spans.append((pos, pos + len(term), term))
            out.append(term)
            pos += len(term)
        else:
            extra.append((m.group(4), m.group(5)))
    out.append(marked[last:])
    text = "".join(out)
    assert not any(ch in text for ch in (_PS, _PM, _PE, _CS, _CE, _AS)), "unbalanced markup"
    return text, phi_spans, clin_spans, extra


def make_item(item_id: str, field: str, marked: str) -> dict:
    text, phi_spans, clin_spans, extra = parse(marked)
    phi, seen = [], set()
    for cat, val in [(s[2], s[3]) for s in phi_spans] + extra:
        if (cat, val) not in seen:
            seen.add((cat, val))
            phi.append({"category": cat, "value": val})
    clinical = []
    for _, _, term in clin_spans:
        if term not in clinical:
            clinical.append(term)
    return {"id": item_id, "field": field, "text": text, "phi": phi, "clinical": clinical,
            "_spans": phi_spans, "_clin_spans": clin_spans}


# --------------------------------------------------------------------------------------------
# Mechanical checks
# --------------------------------------------------------------------------------------------

def _occurrences(text: str, value: str, fold: bool):
    hay, needle = (text.casefold(), value.casefold()) if fold else (text, value)
    if fold and len(hay) != len(text):  # casefold changed lengths (e.g. German sharp s): be exact
        hay, needle = text, value
    start = hay.find(needle)
    while start != -1:
        yield start, start + len(needle)
        start = hay.find(needle, start + 1)


def _word_bounded(text: str, s: int, e: int) -> bool:
    before = text[s - 1] if s > 0 else " "
    after = text[e] if e < len(text) else " "
    return not (before.isalnum() or after.isalnum())


def check_item(item: dict, spans=None, clin_spans=None) -> list[str]:
    """Reasons the item is unusable; [] when it is sound.

    - every phi value is non-empty, single-line, trimmed, and occurs verbatim in the text;
    - every occurrence of a phi value (case-sensitive anywhere, or case-insensitive as a whole
      word) lies inside an identifier's span, so a scan for the value cannot fire on clinical text;
    - every clinical term occurs verbatim, and none of its occurrences overlaps an identifier;
    - no clinical term equals a phi value.
    """
    text = item["text"]
    spans = item.get("_spans") if spans is None else spans
    clin_spans = item.get("_clin_spans") if clin_spans is None else clin_spans
    problems = []
    if item["field"] not in ("narrative", "question"):
        problems.append(f"bad field {item['field']!r}")
    if not text.strip():
        problems.append("empty text")
    inside = [(s, e) for s, e, _, _ in spans] if spans is not None else None
    for entry in item["phi"]:
        cat, val = entry["category"], entry["value"]
        if cat not in CATEGORIES:
            problems.append(f"unknown category {cat!r}")
        if not val or val != val.strip() or "\n" in val or val[-1] in ",;:":
            problems.append(f"untidy value {val!r}")
            continue
        if val not in text:
            problems.append(f"phi value not verbatim in text: {val!r}")
            continue
        if inside is None:
            continue
        for fold in (False, True):
            for s, e in _occurrences(text, val, fold):
                if fold and not _word_bounded(text, s, e):
                    continue
                if not any(a <= s and e <= b for a, b in inside):
                    problems.append(f"{val!r} also occurs outside an identifier at {s}")
                    break
    values = {p["value"].casefold() for p in item["phi"]}
    for term in item["clinical"]:
        if term not in text:
            problems.append(f"clinical term not verbatim in text: {term!r}")
            continue
        if term.casefold() in values:
            problems.append(f"clinical term equals a phi value: {term!r}")
        if inside is not None:
            for s, e in _occurrences(text, term, False):
                if any(s < b and a < e for a, b in inside):
                    problems.append(f"clinical term {term!r} overlaps an identifier at {s}")
                    break
    return problems


def simulate_redaction(item: dict) -> list[str]:
    """Check a finished item without its spans: replace every phi value (longest first, every
    occurrence) with a placeholder, as a perfect redactor would. Afterwards no value may remain
    (case-sensitively, or case-insensitively as a whole word) and every clinical term must survive."""
    text = item["text"]
    for val in sorted({p["value"] for p in item["phi"]}, key=len, reverse=True):
        text = text.replace(val, "\x00")
    problems = []
    for p in item["phi"]:
        val = p["value"]
        if val in text:
            problems.append(f"{val!r} survives a perfect redaction")
        for s, e in _occurrences(text, val, True):
            if _word_bounded(text, s, e):
                problems.append(f"{val!r} survives (case-insensitively) a perfect redaction")
                break
    for term in item["clinical"]:
        if term not in text:
            problems.append(f"clinical term {term!r} does not survive a perfect redaction")
    return problems


def load_terms(path: Path = TERMS_FILE) -> list[str]:
    lines = [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines()]
    return [ln for ln in lines if ln and not ln.startswith("#")]


# --------------------------------------------------------------------------------------------
# Pools: people
# --------------------------------------------------------------------------------------------
# order "gf": given family; "fg": family given (rendered Western-order some of the time, as
# many records do). A family entry "A|B" is the masculine|feminine form.

CULTURES = {
    "irish": dict(order="gf", countries=["IE", "IE", "UK", "US"], fold=0.3, locale="en",
                  f=["Siobhán", "Aoife", "Niamh", "Saoirse", "Caoimhe", "Gráinne", "Róisín", "Sinéad", "Orlaith"],
                  m=["Seán", "Sean", "Cathal", "Oisín", "Donnchadh", "Ciarán", "Pádraig", "Tadhg", "Eoin"],
                  fam=["O'Brien", "O'Sullivan", "McCarthy", "Ó Súilleabháin|Ní Shúilleabháin", "O'Donoghue",
                       "Fitzgerald", "Ó Ceallaigh|Ní Cheallaigh", "Mac Giolla Phádraig", "O'Rourke", "Mac Lochlainn"]),
    "nigerian": dict(order="gf", countries=["NG", "NG", "UK", "US"], fold=0.0, locale="en",
                     f=["Chiamaka", "Adaeze", "Ngozi", "Folasade", "Yetunde", "Oluwakemi", "Ifeoma", "Blessing",
                        "Patience", "Comfort", "Favour", "Temitope"],
                     m=["Chukwuemeka", "Oluwaseun", "Babatunde", "Obinna", "Emeka", "Ikechukwu", "Godswill",
                        "Musa", "Olumide", "Chidi"],
                     fam=["Okonkwo", "Adeyemi", "Nwosu", "Okafor", "Olatunji", "Adebayo-Cole", "Chukwu",
                          "Oyelaran", "Ogunleye", "Abubakar", "Nnamdi-Obi", "Balogun", "Eze"]),
    "vietnamese": dict(order="fg", countries=["VN", "US", "US", "AU"], fold=0.45, locale="en", ref_given=True,
                       f=["Thị Mai", "Thị Thu Hà", "Ngọc Anh", "Thị Lan", "Minh Châu", "Thu Trang", "Thị Hồng"],
                       m=["Văn Hùng", "Minh Tuấn", "Quốc Bảo", "Đức Anh", "Văn Long", "Thanh Sơn", "Hữu Phước"],
                       fam=["Nguyễn", "Trần", "Lê", "Phạm", "Hoàng", "Huỳnh", "Võ", "Đặng", "Bùi"]),
    "arabic": dict(order="gf", countries=["AE", "SA", "US", "UK"], fold=0.0, locale="en",
                   f=["Fatima", "Layla", "Noor", "Mariam", "Huda", "Amal", "Rania", "Yasmin", "Salma"],
                   m=["Mohammed", "Abdulrahman", "Omar", "Khalid", "Youssef", "Tariq", "Hamza", "Faisal"],
                   fam=["Al-Farsi", "Al Otaibi", "El-Amin", "Abu-Khalil", "Haddad", "Al-Hashimi", "El Masry",
                        "Abdel-Rahman", "Al-Qahtani", "bin Salem Al-Harthy"]),
    "spanish": dict(order="gf", countries=["ES", "ES", "US"], fold=0.2, locale="es",
                    f=["María José", "Ana Sofía", "Lucía", "Carmen", "Guadalupe", "Marisol", "Inés", "Pilar"],
                    m=["José Luis", "Juan Carlos", "Alejandro", "Javier", "Santiago", "Jesús", "Francisco Javier"],
                    fam=["García López", "Pérez de León", "de la Fuente", "Rodríguez Sánchez", "Martín-Gómez",
                         "Hernández", "del Castillo Ruiz", "Fernández de Córdoba", "Ibáñez Soto"]),
    "polish": dict(order="gf", countries=["PL", "PL", "UK", "DE"], fold=0.25, locale="pl",
                   f=["Małgorzata", "Agnieszka", "Katarzyna", "Zofia", "Joanna", "Grażyna", "Ewa", "Marta"],
                   m=["Krzysztof", "Łukasz", "Grzegorz", "Paweł", "Tomasz", "Piotr", "Wojciech", "Jerzy"],
                   fam=["Wiśniewski|Wiśniewska", "Wójcik", "Zieliński|Zielińska", "Kowalczyk",
                        "Dąbrowski|Dąbrowska", "Szczepański|Szczepańska", "Brzęczyszczykiewicz",
                        "Nowak-Jeziorański|Nowak-Jeziorańska", "Lewandowski|Lewandowska", "Chmielewski|Chmielewska"]),
    "indian": dict(order="gf", countries=["IN", "IN", "US", "UK"], fold=0.0, locale="in",
                   f=["Priya", "Anjali", "Lakshmi", "Gurpreet Kaur", "Deepika", "Meenakshi", "Sunita", "Kavya"],
                   m=["Venkata Subramanian", "Rahul", "Sai Krishna", "Arjun", "Harpreet Singh", "Mohammed Irfan",
                      "Suresh", "Aniruddha"],
                   fam=["Iyer", "Raghunathan", "Sandhu", "Deshpande", "Reddy", "Narayanan", "Qureshi",
                        "Chatterjee", "Venkataraman", "Patil", "Bhattacharya"]),
    "chinese": dict(order="fg", countries=["CN", "US", "CA", "UK"], fold=0.0, locale="en",
                    f=["Fang", "Jing", "Xiuying", "Lan", "Jiahui", "Yuxuan", "Meiling", "Xiaoyan"],
                    m=["Wei", "Xiaoming", "Yang", "Zhiqiang", "Mingyu", "Haoran", "Jianguo", "Zihan"],
                    fam=["Zhang", "Wang", "Chen", "Liu", "Huang", "Xu", "Ouyang", "Zhao", "Guo", "Lin", "Zhou"]),
    "english_words": dict(order="gf", countries=["US", "US", "UK", "AU", "CA"], fold=0.0, locale="en",
                          f=["Hope", "Faith", "Grace", "Joy", "Dawn", "Summer", "Holly", "Ivy", "Iris", "Ruby",
                             "Pearl", "Charity", "Honor", "Destiny", "Autumn", "Rose"],
                          m=["Will", "Mark", "Frank", "Grant", "Chase", "Hunter", "Miles", "Rich", "Sonny", "Bill"],
                          fam=["Young", "White", "Black", "Brown", "Green", "Long", "Little", "King", "Cook",
                               "Sharp", "Wise", "Strong", "Hale", "Hardy", "Moody", "Sweet", "Bright", "Best",
                               "Love", "Hill", "Church", "Fields", "Price", "Page", "Lamb", "Fox", "Bird"]),
    "particles": dict(order="gf", countries=["NL", "DE", "FR", "US", "UK"], fold=0.1, locale="en",
                      f=["Anneke", "Marie-Claire", "Anne-Sophie", "Lucia", "Francesca", "Ingrid", "Maartje"],
                      m=["Jan-Willem", "Pieter", "Maximilian", "Jean-Baptiste", "Giuseppe", "Hans-Peter", "Luca"],
                      fam=["van der Berg", "de Vries", "ter Haar", "von Hohenberg", "d'Arcy", "D'Angelo",
                           "Dell'Orto", "Di Stefano", "van den Broek", "Le Goff", "de Souza"]),
    "korean": dict(order="fg", countries=["US", "US", "CA"], fold=0.0, locale="en",
                   f=["Ji-woo", "Seo-yeon", "Min-seo", "Ha-eun"], m=["Min-jun", "Seo-jun", "Do-hyun", "Jae-won"],
                   fam=["Kim", "Park", "Choi", "Jung", "Kang"]),
    "ghanaian": dict(order="gf", countries=["UK", "US"], fold=0.0, locale="en",
                     f=["Akosua", "Ama", "Efua", "Abena"], m=["Kwame", "Kofi", "Yaw", "Kwabena"],
                     fam=["Mensah", "Asante", "Boateng", "Owusu", "Acheampong"]),
    "turkish": dict(order="gf", countries=["DE", "UK", "US"], fold=0.2, locale="de",
                    f=["Ayşe", "Elif", "Zeynep", "Gülşen"], m=["Mehmet", "Emre", "Çağlar", "Oğuz"],
                    fam=["Yılmaz", "Öztürk", "Şahin", "Çelik", "Aydın"]),
    "filipino": dict(order="gf", countries=["US", "US", "CA"], fold=0.0, locale="en",
                     f=["Maria Cristina", "Ma. Lourdes", "Rowena"], m=["Jose Antonio", "Rommel", "Danilo"],
                     fam=["dela Cruz", "Bautista", "Villanueva", "Santos-Reyes"]),
    "french": dict(order="gf", countries=["FR", "FR", "CA"], fold=0.1, locale="fr",
                   f=["Élodie", "Margaux", "Sylvie", "Béatrice"], m=["Thibault", "Étienne", "Rémi", "Loïc"],
                   fam=["Lefèvre", "Dubois-Marchand", "Moreau", "Rousseau", "Le Bihan"]),
    "german": dict(order="gf", countries=["DE", "DE", "US"], fold=0.15, locale="de",
                   f=["Jürgen", "Käthe", "Ursula", "Annelie"], m=["Jörg", "Dieter", "Lukas", "Wolfgang"],
                   fam=["Müller", "Schröder", "Weiß", "Groß-Bölting", "Hoffmann"]),
}
# The sex of a given name, for titles and pronouns (names listed under "m" are masculine).
# Names written in another script, with the romanized form the record also shows.
SCRIPT_NAMES = [
    # (culture, sex, given, family, native rendering)
    ("chinese", "f", "Fang", "Wang", "王芳"),
    ("chinese", "m", "Wei", "Zhang", "张伟"),
    ("chinese", "m", "Xiaoming", "Li", "李晓明"),
    ("chinese", "f", "Jing", "Chen", "陈静"),
    ("russian", "f", "Olga", "Petrova", "Ольга Петрова"),
    ("russian", "m", "Dmitri", "Sokolov", "Дмитрий Соколов"),
    ("indian", "f", "Priya", "Sharma", "प्रिया शर्मा"),
    ("indian", "m", "Rajesh", "Kumar", "राजेश कुमार"),
    ("arabic", "f", "Fatima", "Al-Zahrani", "فاطمة الزهراني"),
    ("arabic", "m", "Mohammed", "Al-Harthy", "محمد الحارثي"),
    ("greek", "m", "Georgios", "Papadopoulos", "Γεώργιος Παπαδόπουλος"),
    ("korean", "m", "Min-jun", "Kim", "김민준"),
    ("japanese", "f", "Hanako", "Sato", "佐藤花子"),
]
SCRIPT_COUNTRIES = {"chinese": "CN", "russian": "DE", "indian": "IN", "arabic": "AE", "greek": "UK",
                    "korean": "US", "japanese": "JP"}

TITLES = {
    "en": {"m": ["Mr.", "Mr"], "f": ["Ms.", "Mrs.", "Ms", "Mrs", "Miss"]},
    "es": {"m": ["Sr.", "Mr."], "f": ["Sra.", "Ms."]},
    "fr": {"m": ["M.", "Mr"], "f": ["Mme", "Madame"]},
    "de": {"m": ["Herr", "Mr."], "f": ["Frau", "Mrs."]},
    "pl": {"m": ["Pan", "Mr."], "f": ["Pani", "Ms."]},
    "in": {"m": ["Mr.", "Shri"], "f": ["Mrs.", "Smt.", "Ms."]},
}


def fold_ascii(s: str) -> str:
    s = s.replace("Đ", "D").replace("đ", "d").replace("Ł", "L").replace("ł", "l").replace("ı", "i")
    return "".join(ch for ch in unicodedata.normalize("NFKD", s) if not unicodedata.combining(ch))


class Person:
    def __init__(self, g: "Gen", culture: str, sex: str, given: str, family: str, order: str,
                 locale: str, country: str, native: str | None = None, ref_given: bool = False):
        self.g, self.culture, self.sex = g, culture, sex
        self.given, self.family, self.order = given, family, order
        self.locale, self.country, self.native, self.ref_given = locale, country, native, ref_given
        self.dob: dt.date | None = None
        self.middle = g.r.choice("ABCDEFGHJKLMNPRSTW")

    # plain strings
    def full_s(self) -> str:
        return f"{self.family} {self.given}" if self.order == "fg" else f"{self.given} {self.family}"

    def first_token(self) -> str:
        return self.given.split()[0] if self.order == "gf" else self.given.split()[-1]

    # marked strings
    def full(self) -> str:
        return P("name", self.full_s())

    def formal(self) -> str:
        """SURNAME, Given (lab headers, claims)."""
        r = self.g.r.random()
        if r < 0.4:
            return P("name", f"{self.family.upper()}, {self.given.upper()}")
        if r < 0.7:
            return P("name", f"{self.family.upper()}, {self.given}")
        return P("name", f"{self.family}, {self.given} {self.middle}.")

    def lastfirst(self) -> str:
        return P("name", f"{self.family}, {self.given}")

    def given_only(self) -> str:
        return P("name", self.first_token() if self.order == "gf" else self.given)

    def family_only(self) -> str:
        return P("name", self.given.split()[-1] if self.ref_given else self.family)

    def titled(self) -> str:
        if self.dob and self.age() < 16:
            return self.given_only()
        titles = TITLES.get(self.locale, TITLES["en"])[self.sex]
        return f"{self.g.r.choice(titles)} {self.family_only()}"

    def initial(self) -> str:
        if self.order == "fg":
            return self.full()
        return P("name", f"{self.given[0]}. {self.family}")

    def with_native(self) -> str:
        if self.native:
            return f"{self.full()} ({P('name', self.native)})"
        return self.full()

    def ref(self) -> str:
        """A later mention: title and surname, surname alone, or the given name."""
        x = self.g.r.random()
        if x < 0.55:
            return self.titled()
        if x < 0.75:
            return self.family_only()
        return self.given_only()

    def age(self) -> int:
        ref, d = self.g.ref, self.dob
        return ref.year - d.year - ((ref.month, ref.day) < (d.month, d.day))

    @property
    def he(self):
        return "he" if self.sex == "m" else "she"

    @property
    def his(self):
        return "his" if self.sex == "m" else "her"

    @property
    def noun(self):
        if self.age() < 16:
            return "boy" if self.sex == "m" else "girl"
        return "man" if self.sex == "m" else "woman"

    def a_age(self) -> str:
        """'a 54-year-old' / 'an 8-year-old'."""
        n = self.age()
        return f"{'an' if n in (8, 11, 18) or 80 <= n <= 89 else 'a'} {n}-year-old"


# --------------------------------------------------------------------------------------------
# Pools: places, numbers
# --------------------------------------------------------------------------------------------

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]
MONTHS_ES = ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre",
             "octubre", "noviembre", "diciembre"]
MONTHS_FR = ["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre",
             "octobre", "novembre", "décembre"]
MONTHS_DE = ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September",
             "Oktober", "November", "Dezember"]
DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]

US_AREAS = ["212", "312", "415", "617", "713", "206", "305", "404", "503", "702", "919", "808", "907", "614"]
US_CITIES = [("Springfield", "IL", "627"), ("Dorchester", "MA", "021"), ("Tucson", "AZ", "857"),
             ("Bend", "OR", "977"), ("Dayton", "OH", "454"), ("El Paso", "TX", "799"), ("Fresno", "CA", "937"),
             ("Flushing", "NY", "113"), ("Hilo", "HI", "967"), ("Duluth", "MN", "558"), ("Macon", "GA", "312")]
US_STREETS = ["Maple", "Oak", "Cedar", "Elm", "Juniper", "Washington", "Lincoln", "Lakeview", "Hillcrest",
              "Sunset", "Magnolia", "Highland", "Prospect", "Kearny", "Willow Creek", "Cottonwood"]
US_SUFFIX = ["Street", "St", "St.", "Avenue", "Ave", "Ave.", "Road", "Rd", "Boulevard", "Blvd", "Lane", "Ln",
             "Drive", "Dr.", "Court", "Way", "Place", "Terrace"]
US_UNITS = ["Apt 3B", "Apt. 12", "Unit 4", "#5C", "Suite 210", "Apt 4-F", "Fl 2", "Apt 1107"]
UK_TOWNS = [("Leeds", "LS"), ("Manchester", "M"), ("Bristol", "BS"), ("Glasgow", "G"), ("Cardiff", "CF"),
            ("Belfast", "BT"), ("Norwich", "NR"), ("London", "SW"), ("London", "E"), ("London", "NW"),
            ("Sheffield", "S"), ("Newcastle upon Tyne", "NE")]
UK_STREETS = ["Kingsley Road", "Cromwell Road", "Station Road", "Victoria Street", "Mill Lane", "Church Street",
              "Park Avenue", "The Crescent", "Albert Terrace", "Queen's Drive", "Beechwood Close", "Orchard Way"]
PC_LETTERS = "ABDEFGHJLNPQRSTUWXYZ"
IE_PLACES = [("Dublin 4", "D04"), ("Dublin 8", "D08"), ("Dublin 6W", "D6W"), ("Cork", "T12"),
             ("Galway", "H91"), ("Ennis, Co. Clare", "V95"), ("Athlone, Co. Westmeath", "N37"),
             ("Letterkenny, Co. Donegal", "F92")]
IE_STREETS = ["Grand Canal Wharf", "Main Street", "Pearse Street", "Bóthar na Trá", "Father Griffin Road",
              "Rathmines Road Lower", "Shop Street"]
EIR = "ACDEFHKNPRTVWXY0123456789"
FR_CITIES = [("Lyon", "6900"), ("Paris", "750"), ("Bordeaux", "3300"), ("Marseille", "130"),
             ("Lille", "5900"), ("Toulouse", "3100"), ("Nantes", "4400"), ("Strasbourg", "6700")]
FR_STREETS = ["rue des Lilas", "avenue Victor-Hugo", "boulevard de la République", "allée des Tilleuls",
              "rue du Général-Leclerc", "impasse des Acacias", "chemin des Vignes", "place Bellecour"]
DE_CITIES = [("Berlin", "10"), ("München", "80"), ("Köln", "50"), ("Hamburg", "22"),
             ("Frankfurt am Main", "60"), ("Leipzig", "04"), ("Stuttgart", "70")]
DE_STREETS = ["Hauptstraße", "Lindenweg", "Bahnhofstraße", "Schillerstraße", "Am Markt", "Goethestr.",
              "Birkenallee", "Kirchgasse"]
IN_PLACES = [("Indiranagar", "Bengaluru", "Karnataka", "5600"), ("Mehdipatnam", "Hyderabad", "Telangana", "5000"),
             ("Adyar", "Chennai", "Tamil Nadu", "6000"), ("Andheri West", "Mumbai", "Maharashtra", "4000"),
             ("Kothrud", "Pune", "Maharashtra", "4110"), ("Vasant Vihar", "New Delhi", "Delhi", "1100"),
             ("Salt Lake", "Kolkata", "West Bengal", "7000")]
IN_BUILDINGS = ["Sai Krupa Apartments", "Lotus Residency", "Shanti Niketan", "Green Park Towers", "Ashirwad CHS"]
PL_CITIES = [("Warszawa", "0"), ("Kraków", "3"), ("Gdańsk", "8"), ("Wrocław", "5"), ("Poznań", "6")]
PL_STREETS = ["ul. Marszałkowska", "ul. Długa", "os. Tysiąclecia", "al. Jana Pawła II", "ul. Piotrkowska"]
ES_CITIES = [("Madrid", "280"), ("Sevilla", "410"), ("Barcelona", "080"), ("Valencia", "460"), ("Bilbao", "480")]
ES_STREETS = ["C/ Mayor", "Avda. de la Constitución", "Calle de Alcalá", "Carrer de Mallorca", "Plaza del Pilar"]
NG_ADDR = ["Plot {n}, Adeola Odeku Street, Victoria Island, Lagos", "No. {n} Okigwe Road, Owerri, Imo State",
           "Flat {u}, Block C, Gwarinpa Estate, Abuja", "{n} Awolowo Way, Ikeja, Lagos State",
           "House {n}, Rumuola Road, Port Harcourt"]
CN_ADDR = ["Room {r}, No. {n} Jianguo Road, Chaoyang District, Beijing {z}",
           "Flat {u}B, {n} Nathan Road, Tsim Sha Tsui, Kowloon, Hong Kong",
           "Apt {r}, Building 3, {n} Huaihai Middle Road, Xuhui District, Shanghai {z}"]
AE_ADDR = ["Villa {n}, Street 14, Al Barsha 2, Dubai", "Apartment {r}, Marina Heights Tower, Dubai Marina, Dubai",
           "Flat {u}, Al Nahda Building, Al Majaz 3, Sharjah"]
SA_ADDR = ["Building {n}, King Fahd Road, Al Olaya, Riyadh {z}", "Villa {n}, Prince Sultan Street, Al Rawdah, Jeddah {z}"]
VN_ADDR = ["Số {n} Ngõ {u} Phố Huế, Hai Bà Trưng, Hà Nội", "{n} Lê Lợi, Phường Bến Nghé, Quận 1, TP. Hồ Chí Minh",
           "{n}/{u} Trần Hưng Đạo, Phường 2, Quận 5, TP. HCM"]
AU_ADDR = [("Unit {u}/{n} Smith Street", "Fitzroy VIC 3065"), ("{n} Beach Road", "Bondi NSW 2026"),
           ("{n} Coronation Drive", "Milton QLD 4064")]
CA_PLACES = [("Ottawa", "ON", "K1P"), ("Toronto", "ON", "M5J"), ("Vancouver", "BC", "V6B"), ("Montréal", "QC", "H2X"),
             ("Halifax", "NS", "B3H")]
JP_ADDR = ["{n}-{u}-3 Jingumae, Shibuya-ku, Tokyo 150-0001", "{n}-{u} Nishiki 3-chome, Naka-ku, Nagoya 460-0003"]
NL_ADDR = [("Keizersgracht {n}-II", "1015 CJ", "Amsterdam"), ("Oudegracht {n}", "3511 AB", "Utrecht"),
           ("Witte de Withstraat {n}", "3012 BP", "Rotterdam")]

EMAIL_DOMAINS = {
    "US": ["gmail.com", "yahoo.com", "outlook.com", "icloud.com", "aol.com", "comcast.net"],
    "CA": ["gmail.com", "rogers.com", "outlook.com"], "UK": ["btinternet.com", "yahoo.co.uk", "hotmail.co.uk", "gmail.com"],
    "IE": ["eircom.net", "gmail.com", "hotmail.com"], "FR": ["orange.fr", "free.fr", "laposte.net"],
    "DE": ["web.de", "gmx.de", "t-online.de"], "PL": ["wp.pl", "onet.pl", "o2.pl"],
    "IN": ["rediffmail.com", "gmail.com", "yahoo.co.in"], "CN": ["qq.com", "163.com", "126.com"],
    "VN": ["yahoo.com.vn", "gmail.com"], "NG": ["yahoo.com", "gmail.com"], "AE": ["hotmail.com", "gmail.com"],
    "SA": ["hotmail.com", "gmail.com"], "ES": ["telefonica.net", "hotmail.es", "gmail.com"],
    "AU": ["bigpond.com", "gmail.com"], "JP": ["docomo.ne.jp", "gmail.com"], "NL": ["ziggo.nl", "gmail.com"],
}
CLINIC_DOMAINS = ["northgateortho.com", "riverbend-clinic.org", "example.org", "lakeshoremed.net",
                  "stcolumba-hospital.ie", "nhs.net", "kestrel-providers.org"]

LANGUAGES = {"vietnamese": "Vietnamese", "arabic": "Arabic", "spanish": "Spanish", "polish": "Polish",
             "chinese": "Mandarin", "korean": "Korean", "turkish": "Turkish", "french": "French",
             "indian": "Hindi", "nigerian": "Yoruba", "filipino": "Tagalog", "german": "German"}


# --------------------------------------------------------------------------------------------
# The generator of one item's identifiers
# --------------------------------------------------------------------------------------------

class Gen:
    cultures = CULTURES
    shared_surnames = {"irish", "nigerian", "english_words", "particles", "ghanaian", "turkish", "filipino",
                       "french", "german", "korean", "chinese", "indian"}
    script_names = SCRIPT_NAMES
    script_share = 0.07

    def __init__(self, rng: random.Random):
        self.r = rng
        start = dt.date(2023, 1, 2)
        self.ref = start + dt.timedelta(days=rng.randrange(900))  # the note's own date
        self.used_names: set[str] = set()

    # ---------- small helpers
    def d(self, n: int, lead_nonzero: bool = False) -> str:
        s = "".join(self.r.choice("0123456789") for _ in range(n))
        if lead_nonzero and s[0] == "0":
            s = self.r.choice("123456789") + s[1:]
        return s

    def pick(self, seq):
        return self.r.choice(seq)

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def date(self, d: dt.date, style: str | None = None) -> str:
        """A non-birth date (service, admission), always written in one of a few plain forms."""
        style = style or self.pick(["iso", "us", "long"])
        if style == "iso":
            return d.isoformat()
        if style == "us":
            return f"{d.month:02d}/{d.day:02d}/{d.year}"
        if style == "uk":
            return f"{d.day:02d}/{d.month:02d}/{d.year}"
        return f"{MONTHS[d.month - 1]} {d.day}, {d.year}"

    def service_date(self, back=(3, 120)) -> dt.date:
        return self.ref - dt.timedelta(days=self.r.randint(*back))

    # ---------- people
    def person(self, culture: str | None = None, sex: str | None = None, age=(18, 88),
               scripts: bool = True) -> Person:
        for _ in range(40):
            if scripts and culture is None and self.chance(self.script_share):
                cult, sx, given, family, native = self.pick(self.script_names)
                if sex and sx != sex:
                    continue
                p = Person(self, cult, sx, given, family, "gf", "en",
                           self.script_countries().get(cult, "US"), native=native)
            else:
                cult = culture or self.pick(sorted(self.cultures))
                spec = self.cultures[cult]
                sx = sex or self.pick(["f", "m"])
                given = self.pick(spec[sx])
                fam = self.pick(spec["fam"])
                if "|" in fam:
                    fam = fam.split("|")[0 if sx == "m" else 1]
                order = spec["order"]
                if order == "fg" and self.chance(0.3):
                    order = "gf"  # Western order, as many records write it
                if self.chance(spec.get("fold", 0)):
                    given, fam = fold_ascii(given), fold_ascii(fam)
                p = Person(self, cult, sx, given, fam, order, spec.get("locale", "en"),
                           self.pick(spec["countries"]), ref_given=spec.get("ref_given", False) and order == "fg")
            key = p.full_s()
            if key in self.used_names:
                continue
            self.used_names.add(key)
            lo, hi = age
            years = self.r.randint(lo, hi)
            born = self.ref - dt.timedelta(days=int(years * 365.25) + self.r.randrange(365))
            p.dob = born
            return p
        raise RuntimeError("could not draw a fresh person")

    def script_countries(self):
        return SCRIPT_COUNTRIES

    REL_SEX = {"daughter": "f", "son": "m", "wife": "f", "husband": "m", "mother": "f", "father": "m",
               "sister": "f", "brother": "m", "niece": "f", "nephew": "m", "grandmother": "f", "grandfather": "m",
               "partner": None, "carer": None, "neighbour": None, "aunt": "f", "uncle": "m"}

    def relative(self, p: Person, relations=None, same_culture: float = 0.7):
        """(relation, Person) consistent with the patient's age and the relation's sex."""
        a = p.age()
        if relations is None:
            if a < 16:
                relations = ["mother", "father", "grandmother", "grandfather", "aunt", "uncle"]
            else:
                relations = ["partner", "carer", "neighbour", "sister", "brother"]
                if a >= 20:
                    relations += ["wife", "husband", "partner"]
                if a >= 40:
                    relations += ["daughter", "son", "daughter", "son", "niece", "nephew"]
                if a <= 62:
                    relations += ["mother", "father"]
        rel = self.pick(relations)
        if rel in ("daughter", "son", "niece", "nephew"):
            ages = (18, max(19, a - 18))
        elif rel in ("mother", "father"):
            ages = (min(a + 18, 86), min(a + 40, 88))
        elif rel in ("grandmother", "grandfather"):
            ages = (min(a + 40, 86), min(a + 65, 88))
        else:
            ages = (max(18, a - 15), min(88, max(20, a + 15)))
        blood = rel not in ("partner", "carer", "neighbour", "wife", "husband")
        share = same_culture if not blood else max(same_culture, 0.92)
        cult = p.culture if p.culture in self.cultures and self.chance(share) else None
        for _ in range(20):
            q = self.person(culture=cult, sex=self.REL_SEX[rel], age=ages, scripts=False)
            if q.first_token() != p.first_token():
                break
        if (cult in self.shared_surnames and rel not in ("partner", "carer", "neighbour", "niece", "nephew")
                and q.order == p.order and self.chance(0.5) and not p.native):
            q.family = p.family
            self.used_names.add(q.full_s())
        return rel, q

    def clinician(self, **kw) -> Person:
        return self.person(age=(30, 66), **kw)

    def dr(self, p: Person) -> str:
        """A clinician in a labelled or credentialled position."""
        x = self.r.random()
        if x < 0.35:
            return f"{self.pick(['Dr.', 'Dr', 'Dr.'])} {p.full()}"
        if x < 0.55:
            return f"{self.pick(['Dr.', 'Dr'])} {p.family_only()}"
        if x < 0.85:
            return f"{p.full()}, {self.pick(['MD', 'DO', 'MBBS', 'MD, FACS', 'NP', 'PA-C', 'MD PhD'])}"
        return f"{p.initial()}, {self.pick(['MD', 'FRCS', 'DO'])}"

    # ---------- dates of birth
    DOB_STYLES = ["us0", "us", "us2", "eu", "dot", "iso", "isoslash", "long_us", "long_uk", "mon_us",
                  "dmy_dash", "compact", "ordinal", "ordinal_of", "eu2", "us_dash", "mon_dot"]

    def dob(self, p: Person, style: str | None = None) -> str:
        d = p.dob
        if style is None:
            locale_styles = {"es": ["es"], "fr": ["fr"], "de": ["de", "dot"], "pl": ["dot", "eu"]}
            extra = locale_styles.get(p.locale, [])
            style = self.pick(self.DOB_STYLES + extra * 3)
        m, day, y = d.month, d.day, d.year
        mon = MONTHS[m - 1]
        suffix = "th" if 11 <= day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
        v = {
            "us0": f"{m:02d}/{day:02d}/{y}", "us": f"{m}/{day}/{y}", "us2": f"{m}/{day}/{y % 100:02d}",
            "eu": f"{day:02d}/{m:02d}/{y}", "dot": f"{day:02d}.{m:02d}.{y}", "iso": d.isoformat(),
            "isoslash": f"{y}/{m:02d}/{day:02d}", "long_us": f"{mon} {day}, {y}", "long_uk": f"{day} {mon} {y}",
            "mon_us": f"{mon[:3]} {day} {y}", "dmy_dash": f"{day:02d}-{mon[:3]}-{y}",
            "compact": f"{day:02d}{mon[:3].upper()}{y}", "ordinal": f"{mon} {day}{suffix}, {y}",
            "ordinal_of": f"{day}{suffix} of {mon}, {y}", "eu2": f"{day:02d}-{m:02d}-{y % 100:02d}",
            "us_dash": f"{m:02d}-{day:02d}-{y}",
            "mon_dot": f"{'Sept' if m == 9 else mon[:3]}{'' if m == 5 else '.'} {day}, {y}",
            "es": f"{day} de {MONTHS_ES[m - 1]} de {y}", "fr": f"{day} {MONTHS_FR[m - 1]} {y}",
            "de": f"{day}. {MONTHS_DE[m - 1]} {y}",
        }[style]
        return P("date_of_birth", v)

    def dob_labelled(self, p: Person) -> str:
        lab = self.pick(["DOB:", "DOB", "D.O.B.", "dob", "Date of birth:", "Birth date:", "DoB", "b."])
        if p.locale == "es" and self.chance(0.4):
            lab = "fecha de nacimiento:"
        elif p.locale == "fr" and self.chance(0.4):
            lab = "née le" if p.sex == "f" else "né le"
        elif p.locale == "de" and self.chance(0.4):
            lab = "geb."
        return f"{lab} {self.dob(p)}"

    # ---------- phones
    def phone(self, country: str | None = None, ext: float = 0.12) -> str:
        return P("phone", self.phone_s(country, ext))

    def phone_s(self, country: str | None = None, ext: float = 0.12) -> str:
        c = country or self.pick(["US", "US", "UK", "IE", "NG", "IN", "FR", "DE", "ES", "PL", "VN", "CN",
                                  "AE", "AU", "CA", "JP", "SA"])
        d, pick = self.d, self.pick
        if c in ("US", "CA"):
            a = pick(US_AREAS) if c == "US" else pick(["613", "416", "604", "514", "902"])
            ln = f"01{d(2)}"
            s = pick([f"({a}) 555-{ln}", f"{a}-555-{ln}", f"{a}.555.{ln}", f"+1 {a} 555 {ln}",
                      f"+1-{a}-555-{ln}", f"1 ({a}) 555-{ln}", f"{a}555{ln}", f"+1{a}555{ln}",
                      f"{a} 555 {ln}", f"1-{a}-555-{ln}"])
            if self.chance(ext):
                s += pick([f" ext. {d(4, True)}", f" x{d(3, True)}", f" ext {d(2, True)}", f" #{d(3, True)}"])
            return s
        if c == "UK":
            k = pick(["mob", "ldn", "leeds", "mcr"])
            if k == "mob":
                t = f"900{d(3)}"
                return pick([f"07700 {t}", f"+44 7700 {t}", f"+44 (0)7700 {t}", f"07700{t}",
                             f"+447700{t}", f"07700 {t[:3]} {t[3:]}"])
            if k == "ldn":
                t = f"0{d(3)}"
                s = pick([f"020 7946 {t}", f"+44 20 7946 {t}", f"(020) 7946 {t}", f"0207 946 {t}"])
            else:
                code = "113" if k == "leeds" else "161"
                t = f"0{d(3)}"
                s = pick([f"0{code} 496 {t}", f"+44 {code} 496 {t}", f"(0{code}) 496{t}"])
            if self.chance(ext):
                s += pick([f" ext. {d(4, True)}", f" x{d(3, True)}"])
            return s
        if c == "IE":
            m = pick(["83", "85", "86", "87", "89"])
            return pick([f"+353 {m} {d(3)} {d(4)}", f"0{m} {d(3)} {d(4)}", f"0{m}-{d(7)}", f"(01) 6{d(2)} {d(4)}",
                         f"+353 1 6{d(2)} {d(4)}", f"+353{m}{d(7)}"])
        if c == "NG":
            m = pick(["803", "805", "806", "810", "813", "703", "802"])
            return pick([f"+234 {m} {d(3)} {d(4)}", f"0{m} {d(3)} {d(4)}", f"+234{m}{d(7)}", f"0{m}-{d(3)}-{d(4)}",
                         f"(+234) {m} {d(3)} {d(4)}"])
        if c == "IN":
            m = pick("6789") + d(4)
            return pick([f"+91 {m} {d(5)}", f"0{m} {d(5)}", f"+91-{m}-{d(5)}", f"{m}{d(5)}",
                         f"+91 80 4{d(3)} {d(4)}", f"+91-22-2{d(3)}-{d(4)}", f"(044) 2{d(3)} {d(4)}"])
        if c == "FR":
            a = pick(["6", "7", "1", "4"])
            g = [d(2) for _ in range(4)]
            return pick([f"+33 {a} {' '.join(g)}", f"0{a} {' '.join(g)}", f"0{a}.{'.'.join(g)}",
                         f"+33 (0){a} {' '.join(g)}", f"0{a}-{'-'.join(g)}", f"0{a}{''.join(g)}"])
        if c == "DE":
            return pick([f"+49 30 {d(8)}", f"030 {d(4)} {d(4)}", f"+49 (0)171 {d(7)}", f"0171/{d(7)}",
                         f"089 / {d(2)} {d(2)} {d(2)} {d(2)}", f"+49 221 {d(3)}-{d(4)}", f"0151 {d(4)} {d(4)}"])
        if c == "ES":
            return pick([f"+34 6{d(2)} {d(2)} {d(2)} {d(2)}", f"6{d(2)} {d(3)} {d(3)}", f"91 {d(3)} {d(2)} {d(2)}",
                         f"+34 93 {d(3)} {d(2)} {d(2)}", f"+34 6{d(8)}"])
        if c == "PL":
            return pick([f"+48 5{d(2)} {d(3)} {d(3)}", f"5{d(2)}-{d(3)}-{d(3)}", f"(22) {d(3)} {d(2)} {d(2)}",
                         f"+48 22 {d(3)} {d(2)} {d(2)}", f"+48 6{d(8)}"])
        if c == "VN":
            return pick([f"+84 91 {d(3)} {d(4)}", f"091 {d(3)} {d(2)} {d(2)}", f"0912.{d(3)}.{d(3)}",
                         f"+84 28 {d(4)} {d(4)}", f"(028) {d(4)} {d(4)}", f"+84 9{d(8)}"])
        if c == "CN":
            m = "1" + pick(["38", "39", "86", "58", "35"])
            return pick([f"+86 {m} {d(4)} {d(4)}", f"{m}-{d(4)}-{d(4)}", f"(010) {d(4)}-{d(4)}",
                         f"+86 10 {d(4)} {d(4)}", f"+86 21 {d(4)} {d(4)}", f"{m}{d(8)}"])
        if c == "AE":
            return pick([f"+971 50 {d(3)} {d(4)}", f"050 {d(3)} {d(4)}", f"+971-4-{d(3)}-{d(4)}", f"+97155{d(7)}",
                         f"04 {d(3)} {d(4)}"])
        if c == "SA":
            return pick([f"+966 5{d(1)} {d(3)} {d(4)}", f"05{d(1)} {d(3)} {d(4)}", f"+966 11 {d(3)} {d(4)}"])
        if c == "AU":
            return pick([f"+61 491 570 {d(3)}", f"0491 570 {d(3)}", f"(02) 5550 {d(4)}", f"+61 2 5550 {d(4)}",
                         f"04 9157 0{d(3)}"])
        if c == "NL":
            return pick([f"+31 6 {d(4)} {d(4)}", f"06-{d(8)}", f"020 {d(3)} {d(4)}", f"+31 (0)20 {d(3)} {d(4)}",
                         f"+31 30 {d(3)} {d(2)} {d(2)}"])
        if c == "JP":
            return pick([f"+81 90-{d(4)}-{d(4)}", f"090-{d(4)}-{d(4)}", f"03-{d(4)}-{d(4)}", f"+81 3 {d(4)} {d(4)}",
                         f"080 {d(4)} {d(4)}"])
        raise KeyError(c)

    def phone_label(self) -> str:
        return self.pick(["Tel:", "Phone:", "Ph", "phone", "cell", "mobile", "Mob:", "home", "tel.", "c:", "H:",
                          "contact no.", "Tel.", "Phone #"])

    # ---------- email
    def email(self, p: Person | None = None, written: float = 0.18, clinic: bool = False) -> str:
        return P("email", self.email_s(p, written, clinic))

    def email_s(self, p: Person | None = None, written: float = 0.18, clinic: bool = False) -> str:
        if p is None:
            p = self.person()
            self.used_names.discard(p.full_s())
        gv = fold_ascii(p.first_token()).lower().replace("'", "")
        fam = fold_ascii(p.family).lower()
        if " " in fam and self.chance(0.7):
            fam = fam.split()[-1]
        keep_apos = "'" in fam and self.chance(0.3)
        fam = fam.replace(" ", "") if keep_apos else fam.replace(" ", "").replace("'", "")
        fam = fam.replace(".", "")
        y = p.dob.year if p.dob else 1980
        local = self.pick([f"{gv}.{fam}", f"{gv}{fam}", f"{gv[0]}{fam}", f"{gv}_{fam}{y % 100:02d}",
                           f"{fam}.{gv}", f"{gv}.{fam}{self.r.randint(1, 99)}", f"{gv}{fam[0]}{y}",
                           f"{fam}{gv[0]}", f"{gv}-{fam}"])
        if clinic:
            dom = self.pick(CLINIC_DOMAINS)
            local = self.pick([f"{gv[0]}.{fam}", f"{gv}.{fam}", f"dr.{fam}"])
        else:
            dom = self.pick(EMAIL_DOMAINS.get(p.country, EMAIL_DOMAINS["US"]))
            if dom in ("qq.com",):
                local = self.d(10, True)
            if self.chance(0.05):
                local += "+portal"
        addr = f"{local}@{dom}"
        if self.chance(0.06):
            addr = addr.upper()
        if not clinic and self.chance(written):
            return self.written_email(local, dom)
        return addr

    def written_email(self, local: str, dom: str) -> str:
        style = self.pick(["dot", "paren", "bracket", "caps", "under"])
        parts = dom.split(".")
        if style == "dot":
            return f"{local.replace('.', ' dot ')} at {' dot '.join(parts)}"
        if style == "paren":
            return f"{local} (at) {' (dot) '.join(parts)}"
        if style == "bracket":
            return f"{local} [at] {' [dot] '.join(parts)}"
        if style == "caps":
            return f"{local.replace('.', ' DOT ')} AT {' DOT '.join(parts)}"
        return f"{local.replace('_', ' underscore ').replace('.', ' dot ').replace('-', ' dash ')} at {' dot '.join(parts)}"

    # ---------- addresses: one span for the whole address, with its street line and postcode also listed
    def address(self, country: str | None = None) -> str:
        full, parts = self.address_s(country)
        return P("address", full) + "".join(ALSO("address", x) for x in parts if x != full)

    def address_s(self, country: str | None = None):
        c = country or self.pick(["US", "US", "UK", "IE", "FR", "DE", "IN", "PL", "ES", "NG", "CN", "AE",
                                  "CA", "AU", "VN", "NL", "JP", "SA"])
        d, pick, n = self.d, self.pick, str(self.r.randint(2, 980))
        if c == "US":
            city, st, z3 = pick(US_CITIES)
            z = z3 + d(2)
            if self.chance(0.12):
                z += "-" + d(4)
            if self.chance(0.2):
                box = pick(["PO Box", "P.O. Box", "Post Office Box", "PO BOX"]) + " " + str(self.r.randint(10, 9999))
                return f"{box}, {city}, {st} {z}", [box]
            name = pick(US_STREETS)
            if self.chance(0.15):
                name = f"{self.r.randint(2, 99)}th"
            pre = pick(["", "", "", "N ", "S ", "E ", "W ", "NE "])
            street = f"{self.r.randint(3, 9899)} {pre}{name} {pick(US_SUFFIX)}"
            unit = pick(US_UNITS) if self.chance(0.45) else ""
            if self.chance(0.2):
                full = f"{street}{' ' + unit if unit else ''} {city} {st} {z}"
            else:
                full = f"{street}{', ' + unit if unit else ''}, {city}, {st} {z}"
            return full, [street]
        if c == "UK":
            town, area = pick(UK_TOWNS)
            pc = f"{area}{self.r.randint(1, 28)} {self.r.randint(0, 9)}{pick(PC_LETTERS)}{pick(PC_LETTERS)}"
            street = f"{n} {pick(UK_STREETS)}"
            flat = pick(["Flat 2, ", "Flat 14B, ", "", "", "Apartment 6, "])
            townw = town.upper() if self.chance(0.25) else town
            sep = pick([", ", ", ", " "])
            return f"{flat}{street}, {townw}{sep}{pc}", [street, pc]
        if c == "IE":
            place, key = pick(IE_PLACES)
            eir = f"{key} {''.join(pick(EIR) for _ in range(4))}"
            street = f"{n} {pick(IE_STREETS)}"
            apt = pick(["Apt 7, ", "", "", "Flat 3, "])
            return f"{apt}{street}, {place}, {eir}", [street, eir]
        if c == "FR":
            city, pre = pick(FR_CITIES)
            cp = pre + d(5 - len(pre))
            if city == "Paris":
                cp = "750" + f"{self.r.randint(1, 20):02d}"
            street = f"{n}{pick(['', '', ' bis', ' ter'])} {pick(FR_STREETS)}"
            extra = pick(["", "", "Bât. B, ", "Résidence Les Pins, appt 14, ", "3e étage, "])
            return f"{extra}{street}, {cp} {city}", [street]
        if c == "DE":
            city, pre = pick(DE_CITIES)
            plz = pre + d(3)
            street = f"{pick(DE_STREETS)} {n}{pick(['', '', 'a', 'b'])}"
            extra = pick(["", "", ", 2. OG", ", Hinterhaus", ", c/o Familie Schneider"])
            return f"{street}{extra}, {plz} {city}", [street]
        if c == "IN":
            loc, city, state, pre = pick(IN_PLACES)
            pin = pre + d(6 - len(pre))
            k = self.r.randrange(3)
            if k == 0:
                first = f"Flat No. {self.r.randint(101, 1204)}, {pick(IN_BUILDINGS)}"
                return f"{first}, {self.r.randint(1, 12)}th Cross, {loc}, {city} {pin}", [first]
            if k == 1:
                first = f"H.No. {self.r.randint(1, 16)}-{self.r.randint(1, 9)}-{self.r.randint(10, 999)}"
                return f"{first}, {loc}, {city}, {state} {pin}", [first]
            first = f"{pick('ABCD')}-{self.r.randint(1, 99)}/{self.r.randint(1, 40)}"
            return f"{first}, {loc}, {city} - {pin}", []
        if c == "PL":
            city, pre = pick(PL_CITIES)
            pc = f"{pre}{d(1)}-{d(3)}"
            street = f"{pick(PL_STREETS)} {n}/{self.r.randint(1, 90)}"
            return f"{street}, {pc} {city}", [street, pc]
        if c == "ES":
            city, pre = pick(ES_CITIES)
            cp = pre + d(2)
            street = f"{pick(ES_STREETS)} {n}"
            piso = pick([", 3º 2ª", ", 5ºB", ", bajo", ", 4t 1a", ""])
            return f"{street}{piso}, {cp} {city}", [street]
        if c in ("NG", "CN", "AE", "VN", "JP", "SA"):
            pool = {"NG": NG_ADDR, "CN": CN_ADDR, "AE": AE_ADDR, "VN": VN_ADDR, "JP": JP_ADDR, "SA": SA_ADDR}[c]
            tmpl = pick(pool)
            full = tmpl.format(n=n, u=self.r.randint(2, 40), r=self.r.randint(101, 2408),
                               z=("1" + d(5)) if c == "CN" else d(5))
            comps = full.split(", ")
            return full, ([", ".join(comps[:2])] if len(comps) >= 3 else [])
        if c == "CA":
            city, prov, fsa = pick(CA_PLACES)
            pc = f"{fsa} {self.r.randint(0, 9)}{pick('ABCEGHJKLMNPRSTVWXYZ')}{self.r.randint(0, 9)}"
            street = f"{n} {pick(['Elgin St', 'Queens Quay W', 'Robson Street', 'Rue Saint-Denis', 'Spring Garden Rd'])}"
            unit = pick(["", f"Unit {self.r.randint(2, 1900)}, ", f"{self.r.randint(2, 1900)}-"])
            if unit.endswith("-"):
                street = unit + street
                unit = ""
            return f"{unit}{street}, {city} {prov} {pc}", [street, pc]
        if c == "AU":
            line1, rest = pick(AU_ADDR)
            line1 = line1.format(u=self.r.randint(1, 30), n=n)
            return f"{line1}, {rest}", [line1]
        if c == "NL":
            line1, _, city = pick(NL_ADDR)
            line1 = line1.format(n=n)
            pc = str(self.r.randint(1011, 3599)) + " " + "".join(pick("ABCEGHJKLMNPRSTVWXZ") for _ in range(2))
            return f"{line1}, {pc} {city}", [line1, pc]
        raise KeyError(c)

    def address_label(self, p: Person | None = None) -> str:
        loc = p.locale if p else "en"
        if loc == "fr" and self.chance(0.4):
            return "Domicile :"
        if loc == "de" and self.chance(0.4):
            return "Anschrift:"
        if loc == "es" and self.chance(0.4):
            return "Dirección:"
        return self.pick(["Address:", "Addr:", "Home address:", "Mailing address:", "Lives at", "Resides at",
                          "Address on file:", "Residence:"])

    # ---------- record ids
    def record_id(self, kind: str | None = None) -> tuple[str, str]:
        """(label, marked value). The label is outside the value."""
        d, pick, r = self.d, self.pick, self.r
        kind = kind or pick(["mrn", "mrn", "member", "member", "claim", "card", "mbi", "nhs", "medicaid",
                             "account", "pa", "policy", "written"])
        L = "BCDFGHJKMNPQRTVWXY"
        if kind == "mrn":
            v = pick([d(8), "00" + d(6), f"{d(4)}-{d(4)}", "E" + d(7), f"{d(3)}-{d(2)}-{d(2)}", "MRN" + d(7),
                      d(7), f"{pick(L)}{pick(L)}{d(6)}"])
            return pick(["MRN:", "MRN", "MR#", "MR #", "Med Rec No.", "Hospital no.", "Chart #", "medical record"]), P("record_id", v)
        if kind == "member":
            v = pick([f"KHP{d(9)}", f"KHP-{d(3)}-{d(3)}-{d(3)}", f"{pick(L)}{pick(L)}{pick(L)} {d(4)} {d(4)}",
                      f"W{d(10)}", f"ALD/GRP/{d(7)}/{d(2)}", f"MBR-{d(4)}-{d(4)}", f"{pick(L)}{d(8)}0{d(1)}",
                      f"U{d(8)}{pick(['01', '02', '03'])}"])
            return pick(["Member ID:", "Member ID", "member id", "Member #", "Subscriber ID:", "Mbr ID",
                         "member number", "Policy holder ID"]), P("record_id", v)
        if kind == "claim":
            v = pick([f"{self.ref.year}-CLM-{d(7)}", f"CLM {self.ref.year % 100}-{d(3)}-{d(5)}", f"{d(2)}-{d(5)}-{d(2)}",
                      f"C{self.ref.strftime('%y%m%d')}{d(6)}", f"{d(13)}"])
            return pick(["Claim #:", "claim", "Claim no.", "claim number", "Claim ID"]), P("record_id", v)
        if kind == "card":
            v = pick([f"{pick(L)}{pick(L)}{pick(L)}{d(9)}", f"{pick(L)}{pick(L)}{pick(L)}-{d(3)}-{d(3)}-{d(3)}"])
            return pick(["ID card:", "ID card", "Card no.", "insurance card #"]), P("record_id", v)
        if kind == "mbi":
            a = "ACDEFGHJKMNPQRTUVWXY"
            an = a + "0123456789"
            v = (pick("123456789") + pick(a) + pick(an) + d(1) + pick(a) + pick(an) + d(1) + pick(a) + pick(a)
                 + d(1) + d(1))
            if self.chance(0.5):
                v = f"{v[:4]}-{v[4:7]}-{v[7:]}"
            return pick(["Medicare MBI", "MBI:", "Medicare number"]), P("record_id", v)
        if kind == "nhs":
            while True:
                nine = [int(x) for x in d(9, True)]
                check = 11 - sum(x * w for x, w in zip(nine, range(10, 1, -1))) % 11
                if check == 11:
                    check = 0
                if check != 10:
                    break
            s = "".join(map(str, nine)) + str(check)
            v = pick([f"{s[:3]} {s[3:6]} {s[6:]}", s, f"{s[:3]}-{s[3:6]}-{s[6:]}"])
            return pick(["NHS No.", "NHS number", "NHS no:", "NHS#"]), P("record_id", v)
        if kind == "medicaid":
            v = pick([d(8) + pick("ABCDEFGH"), f"{pick(L)}{pick(L)}{d(5)}{pick(L)}", d(12)])
            return pick(["Medicaid ID", "Medi-Cal BIC", "Medicaid #"]), P("record_id", v)
        if kind == "account":
            return pick(["Acct#", "Account no.", "Acct:", "HAR", "Encounter #"]), P("record_id", d(10))
        if kind == "pa":
            v = pick([f"PA-{self.ref.year}-{d(6)}", f"UM{d(8)}", f"AUTH {d(4)}-{d(5)}"])
            return pick(["Auth ref", "PA case", "Reference:", "UM case #"]), P("record_id", v)
        if kind == "policy":
            v = pick([f"POL-{d(8)}", f"{pick(L)}{pick(L)}/{d(6)}/{pick(L)}", f"GRP{d(5)}-{d(4)}"])
            return pick(["Policy no.", "Policy number", "Certificate #"]), P("record_id", v)
        if kind == "written":
            raw = pick([d(7), d(8), f"{pick(L)}{pick(L)}{pick(L)}{d(6)}"])
            words = []
            for ch in raw:
                words.append(pick(["zero", "oh"]) if ch == "0" else DIGITS[int(ch)] if ch.isdigit() else ch)
            sep = pick([" ", "-", ", "]) if raw.isdigit() else " "
            return pick(["member number", "MRN", "medical record number", "member ID"]), P("record_id", sep.join(words))
        raise KeyError(kind)

    # ---------- SSN
    def ssn(self) -> str:
        return P("ssn", self.ssn_s())

    def ssn_s(self) -> str:
        r = self.r
        while True:
            a = r.randint(1, 899)
            if a != 666:
                break
        s = f"{a:03d}{r.randint(1, 99):02d}{r.randint(1, 9999):04d}"
        style = self.pick(["dash", "dash", "dash", "plain", "space", "dot", "spaced_dash", "words", "words_grouped"])
        if style == "dash":
            return f"{s[:3]}-{s[3:5]}-{s[5:]}"
        if style == "plain":
            return s
        if style == "space":
            return f"{s[:3]} {s[3:5]} {s[5:]}"
        if style == "dot":
            return f"{s[:3]}.{s[3:5]}.{s[5:]}"
        if style == "spaced_dash":
            return f"{s[:3]} - {s[3:5]} - {s[5:]}"
        w = [DIGITS[int(x)] for x in s]
        if style == "words":
            return " ".join(w)
        return f"{' '.join(w[:3])}, {' '.join(w[3:5])}, {' '.join(w[5:])}"

    def ssn_label(self) -> str:
        return self.pick(["SSN", "SSN:", "SS#", "Social Security number", "soc sec no.", "social", "SSN (per intake)"])

    # ---------- other identifiers
    def other(self, kind: str | None = None) -> str:
        d, pick, r = self.d, self.pick, self.r
        kind = kind or pick(["url", "ip", "plate", "serial", "url", "ip"])
        if kind == "url":
            host = pick(["mychart.riverbend-health.org", "portal.kestrelhealth.com", "records.northgateortho.com",
                         "10.20.4.17:8080", "ehr.stcolumba-hospital.ie", "patient.lakeshoremed.net"])
            pid = d(8)
            path = pick([f"/patients/{pid}/chart", f"/emr?pid={pid}", f"/member?id=KHP{d(9)}",
                         f"/documents/view?patientId={pid}&doc=intake.pdf", f"/app/#/person/{pid}/summary",
                         f"/claims/{self.ref.year}-CLM-{d(7)}"])
            scheme = pick(["https://", "https://", "http://", ""]) if not host[0].isdigit() else "http://"
            return P("other", f"{scheme}{host}{path}")
        if kind == "ip":
            v = pick([f"10.{r.randint(0, 255)}.{r.randint(0, 255)}.{r.randint(1, 254)}",
                      f"192.168.{r.randint(0, 255)}.{r.randint(1, 254)}", f"172.{r.randint(16, 31)}.{r.randint(0, 255)}.{r.randint(1, 254)}",
                      f"203.0.113.{r.randint(1, 254)}", f"198.51.100.{r.randint(1, 254)}",
                      f"2001:db8:{r.randrange(65536):x}::{r.randrange(65536):x}"])
            return P("other", v)
        if kind == "plate":
            L = "ABCDEFGHJKLMNPRSTVWXYZ"
            v = pick([f"{r.randint(1, 9)}{pick(L)}{pick(L)}{pick(L)}{d(3)}",
                      f"{pick(L)}{pick(L)}{r.randint(10, 24)} {pick(L)}{pick(L)}{pick(L)}",
                      f"{pick(['B', 'M', 'K', 'HH'])}-{pick(L)}{pick(L)} {d(4, True)}",
                      f"{pick(L)}{pick(L)}-{d(3)}-{pick(L)}{pick(L)}", f"{pick(['KA', 'MH', 'DL', 'TN'])} {d(2)} {pick(L)}{pick(L)} {d(4)}",
                      f"{pick(L)}{pick(L)}{pick(L)}-{d(4)}", f"{d(3)} {pick(L)}{pick(L)}{pick(L)}"])
            return P("other", v)
        if kind == "serial":
            v = pick([f"OM5-{d(8)}", f"SN {pick('ABCDEFGHJK')}{d(1)}{pick('ABCDEFGHJK')}{d(3)}{pick('KMNPR')}",
                      f"{d(4)}X{d(4)}", f"PX{d(7)}", f"MMT-{d(4)}K{d(6)}"])
            if v.startswith("SN "):
                v = v[3:]
            return P("other", v)
        if kind == "licence":
            v = pick([f"D{d(3)}-{d(4)}-{d(4)}", f"{pick('ABCDEFG')}{d(7)}", f"{'ABCDEFGHJKLMNPRSTW'[r.randrange(18)]}{d(12)}"])
            return P("other", v)
        raise KeyError(kind)


# --------------------------------------------------------------------------------------------
# Clinical scenarios (dev). Each returns the clinical story with [[terms]] marked, the service
# as a handler would name it, an age range and, where the story needs it, a sex.
# --------------------------------------------------------------------------------------------

class Scn:
    def __init__(self, text, service, age=(18, 85), sex=None, condition=""):
        self.text, self.service, self.age, self.sex, self.condition = text, service, age, sex, condition


def _f(x, nd=1):
    return f"{x:.{nd}f}"


def sc_bariatric(g: Gen) -> Scn:
    bmi = _f(g.r.uniform(35.2, 52.9))
    a1c = _f(g.r.uniform(6.6, 10.4))
    months = g.pick(["six", "6", "seven", "twelve"])
    code = g.pick([("laparoscopic sleeve gastrectomy", "43775"), ("Roux-en-Y gastric bypass", "43644")])
    t = (f"[[BMI {bmi}]] with [[obstructive sleep apnea]] on [[CPAP]] and [[type 2 diabetes]] ([[A1c {a1c}%]]) "
         f"on [[metformin]] 1000 mg twice daily. Completed a {months}-month medically supervised weight-loss "
         f"program; [[psychological evaluation]] cleared on {g.date(g.service_date())}. Requesting "
         f"[[{code[0]}]] (CPT [[{code[1]}]]).")
    return Scn(t, f"[[{code[0]}]]", (22, 64), condition=f"[[BMI {bmi}]] and [[type 2 diabetes]]")


def sc_knee(g: Gen) -> Scn:
    weeks = g.r.randint(6, 16)
    side = g.pick(["right", "left"])
    t = (f"{side.capitalize()} knee pain for {g.r.randint(3, 9)} months with locking and catching; "
         f"[[McMurray test]] positive, effusion trace. [[MRI]] {g.date(g.service_date())}: complex tear of the "
         f"posterior horn of the [[medial meniscus]], [[Kellgren-Lawrence grade 2]]. Failed {weeks} weeks of "
         f"[[physical therapy]] and [[naproxen]] 500 mg BID. Plan: [[knee arthroscopy]] with "
         f"[[partial medial meniscectomy]] ([[29881]]), dx [[S83.211A]].")
    return Scn(t, "[[knee arthroscopy]]", (24, 70), condition="a [[medial meniscus]] tear")


def sc_cgm(g: Gen) -> Scn:
    tests = g.r.randint(4, 10)
    dev = g.pick([("[[Dexcom G7]]", "[[A9276]]"), ("[[FreeStyle Libre 3]]", "[[A9276]]"),
                  ("[[Omnipod 5]]", "[[E0784]]"), ("[[Tandem t:slim X2]]", "[[E0784]]")])
    t = (f"[[Type 1 diabetes]] ([[E10.65]]) for {g.r.randint(2, 6)} years, on [[multiple daily injections]] of "
         f"[[insulin glargine]] and [[insulin lispro]]; [[fingerstick]] testing {tests} times a day, "
         f"[[A1c {_f(g.r.uniform(7.1, 11.2))}%]], two episodes of [[hypoglycemia unawareness]] this quarter. "
         f"Requesting {dev[0]} ({dev[1]}).")
    return Scn(t, dev[0], (8, 70), condition="[[type 1 diabetes]]")


def sc_brca(g: Gen) -> Scn:
    t = (f"Family history: mother with [[breast cancer]] at {g.r.randint(35, 49)}, maternal aunt with "
         f"[[ovarian cancer]] at {g.r.randint(45, 66)}. No personal history of cancer. [[Genetic counseling]] "
         f"completed {g.date(g.service_date())}; requesting [[BRCA1]]/[[BRCA2]] full sequencing ([[81162]]), "
         f"dx [[Z80.3]].")
    return Scn(t, "[[BRCA1]]/[[BRCA2]] testing", (25, 60), sex="f", condition="a family history of [[breast cancer]]")


def sc_depression(g: Gen) -> Scn:
    t = (f"[[Major depressive disorder]], recurrent, moderate ([[F33.1]]); [[PHQ-9]] {g.r.randint(15, 24)}, "
         f"[[GAD-7]] {g.r.randint(10, 19)}. Tried [[sertraline]] 100 mg and [[Wellbutrin XL]] 300 mg with partial "
         f"response. No suicidal ideation. Requesting weekly [[cognitive behavioral therapy]] ([[90837]]).")
    return Scn(t, "[[psychotherapy]]", (16, 80), condition="[[major depressive disorder]]")


def sc_hearing(g: Gen) -> Scn:
    t = (f"Bilateral [[sensorineural hearing loss]] ([[H90.3]]), moderate to severe on [[audiogram]] "
         f"{g.date(g.service_date())}; word recognition {g.r.randint(52, 78)}%. History of [[Ménière's disease]] "
         f"on the left. Requesting bilateral [[behind-the-ear hearing aids]] ([[V5261]]).")
    return Scn(t, "[[hearing aids]]", (45, 88), condition="[[sensorineural hearing loss]]")


def sc_oxygen(g: Gen) -> Scn:
    t = (f"[[COPD]] ([[J44.9]]), [[GOLD 3]], [[FEV1 {g.r.randint(32, 49)}%]] predicted; resting "
         f"[[SpO2 {g.r.randint(84, 88)}%]] on room air, [[PaO2 {g.r.randint(48, 55)} mmHg]] on "
         f"{g.date(g.service_date())}. Maintained on [[Trelegy Ellipta]] and [[albuterol]] PRN. Requesting a "
         f"stationary [[oxygen concentrator]] ([[E1390]]) and portable system ([[E0431]]).")
    return Scn(t, "[[home oxygen]]", (50, 88), condition="[[COPD]]")


def sc_hbot(g: Gen) -> Scn:
    t = (f"[[Wagner grade 3]] [[diabetic foot ulcer]] of the right heel ([[E11.621]]) with [[osteomyelitis]] on "
         f"[[MRI]]; no measurable improvement after {g.r.randint(30, 60)} days of standard wound care including "
         f"offloading and [[debridement]]. [[Transcutaneous oximetry]] {g.r.randint(18, 35)} mmHg. Requesting "
         f"[[hyperbaric oxygen therapy]] ([[99183]], [[G0277]]) five sessions a week.")
    return Scn(t, "[[hyperbaric oxygen therapy]]", (40, 85), condition="a [[diabetic foot ulcer]]")


def sc_pt(g: Gen) -> Scn:
    t = (f"Status post right [[total knee arthroplasty]] on {g.date(g.service_date((40, 100)))}; ROM "
         f"{g.r.randint(0, 10)}-{g.r.randint(85, 110)} degrees, [[Berg Balance Scale]] {g.r.randint(36, 48)}/56, "
         f"[[WOMAC]] {g.r.randint(30, 60)}. {g.r.randint(8, 14)} visits used; requesting 12 additional "
         f"[[physical therapy]] visits ([[97110]], [[97530]], [[97140]]).")
    return Scn(t, "more [[physical therapy]] visits", (45, 85), condition="[[total knee arthroplasty]]")


def sc_crohns(g: Gen) -> Scn:
    drug = g.pick([("[[Skyrizi]]", "[[risankizumab]]"), ("[[Entyvio]]", "[[vedolizumab]]"), ("[[Stelara]]", "[[ustekinumab]]")])
    t = (f"[[Crohn's disease]] of the terminal ileum, [[Harvey-Bradshaw Index]] {g.r.randint(8, 16)}, "
         f"[[fecal calprotectin]] {g.r.randint(250, 1400)} mcg/g. Failed [[azathioprine]] and [[budesonide]]; "
         f"lost response to [[Humira]] ([[adalimumab]]). Requesting {drug[0]} ({drug[1]}).")
    return Scn(t, drug[0], (17, 70), condition="[[Crohn's disease]]")


def sc_parkinson(g: Gen) -> Scn:
    t = (f"[[Parkinson's disease]], [[Hoehn and Yahr stage 3]], on [[carbidopa-levodopa]] ([[Sinemet]]) "
         f"25/100 five times daily with wearing-off and [[dyskinesia]]; [[entacapone]] added without benefit. "
         f"Evaluated for [[deep brain stimulation]].")
    return Scn(t, "[[deep brain stimulation]]", (50, 84), condition="[[Parkinson's disease]]")


def sc_thyroid(g: Gen) -> Scn:
    t = (f"[[Hashimoto's thyroiditis]] on [[levothyroxine]] {g.pick(['75', '88', '100', '112'])} mcg; "
         f"[[TSH]] {_f(g.r.uniform(5.2, 11.8))} mIU/L, [[anti-TPO antibodies]] elevated. Neck "
         f"[[ultrasound]] shows a 1.8 cm nodule, [[TI-RADS 4]]; [[fine-needle aspiration]] planned.")
    return Scn(t, "[[fine-needle aspiration]]", (20, 80), condition="[[Hashimoto's thyroiditis]]")


def sc_bells(g: Gen) -> Scn:
    t = (f"Acute [[Bell's palsy]] on the {g.pick(['left', 'right'])}, [[House-Brackmann grade IV]], onset "
         f"{g.r.randint(1, 3)} days ago. Started [[prednisone]] 60 mg daily and [[valacyclovir]] 1 g TID; "
         f"eye care with [[artificial tears]]. [[Lyme disease]] serology pending.")
    return Scn(t, "[[facial nerve]] follow-up", (18, 80), condition="[[Bell's palsy]]")


def sc_down(g: Gen) -> Scn:
    t = (f"[[Down syndrome]] ([[trisomy 21]]) with repaired [[atrioventricular septal defect]]; "
         f"[[obstructive sleep apnea]] after [[adenotonsillectomy]]. Expressive language delay on the "
         f"[[Preschool Language Scale]]; requesting [[speech therapy]] ([[92507]]) twice weekly.")
    return Scn(t, "[[speech therapy]]", (3, 12), condition="[[Down syndrome]]")


def sc_dental(g: Gen) -> Scn:
    tooth = g.pick(["36", "46", "#19", "#30", "14"])
    t = (f"Tooth {tooth} extracted after a [[vertical root fracture]]; [[cone-beam CT]] shows adequate bone "
         f"height, no [[sinus lift]] needed. Requesting an [[endosteal implant]] ([[D6010]]) and "
         f"[[implant-supported crown]] ([[D6065]]).")
    return Scn(t, "the [[dental implant]]", (25, 80), condition="a [[vertical root fracture]]")


def sc_migraine(g: Gen) -> Scn:
    drug = g.pick(["[[Botox]] ([[onabotulinumtoxinA]])", "[[Aimovig]] ([[erenumab]])", "[[Ajovy]] ([[fremanezumab]])"])
    t = (f"[[Chronic migraine]] with {g.r.randint(15, 26)} headache days a month; failed [[topiramate]], "
         f"[[propranolol]] and [[amitriptyline]], each at least 8 weeks. [[MIDAS]] score {g.r.randint(21, 80)}. "
         f"Requesting {drug}.")
    return Scn(t, drug, (18, 70), condition="[[chronic migraine]]")


def sc_ms(g: Gen) -> Scn:
    t = (f"[[Relapsing-remitting multiple sclerosis]], [[EDSS]] {g.pick(['2.0', '3.5', '4.0'])}, two new "
         f"[[gadolinium-enhancing lesions]] on [[MRI]] {g.date(g.service_date())} despite [[Tecfidera]]. "
         f"[[JC virus]] antibody positive. Requesting [[Ocrevus]] ([[ocrelizumab]]).")
    return Scn(t, "[[Ocrevus]]", (20, 60), condition="[[relapsing-remitting multiple sclerosis]]")


def sc_afib(g: Gen) -> Scn:
    t = (f"[[Wolff-Parkinson-White syndrome]] treated with [[catheter ablation]] in {g.ref.year - g.r.randint(4, 15)}; "
         f"now paroxysmal [[atrial fibrillation]] on [[Holter monitor]], [[CHA2DS2-VASc]] {g.r.randint(2, 5)}. "
         f"On [[Eliquis]] ([[apixaban]]) 5 mg BID and [[metoprolol]]. Requesting [[Watchman]] "
         f"[[left atrial appendage closure]].")
    return Scn(t, "[[left atrial appendage closure]]", (45, 85), condition="[[atrial fibrillation]]")


def sc_alz(g: Gen) -> Scn:
    t = (f"[[Alzheimer's disease]], early stage; [[MoCA]] {g.r.randint(16, 24)}/30, [[amyloid PET]] positive, "
         f"[[APOE4]] heterozygous. On [[donepezil]] ([[Aricept]]) 10 mg. Requesting [[Leqembi]] ([[lecanemab]]) "
         f"with baseline [[MRI]] for [[ARIA]] monitoring.")
    return Scn(t, "[[Leqembi]]", (60, 85), condition="[[Alzheimer's disease]]")


def sc_gbs(g: Gen) -> Scn:
    t = (f"[[Guillain-Barré syndrome]] after a [[Campylobacter]] infection; areflexia and ascending weakness, "
         f"[[lumbar puncture]] with albuminocytologic dissociation. Treated with [[IVIG]] 2 g/kg over five days; "
         f"now requesting inpatient rehabilitation and [[occupational therapy]].")
    return Scn(t, "inpatient rehabilitation", (20, 80), condition="[[Guillain-Barré syndrome]]")


def sc_psoriasis(g: Gen) -> Scn:
    t = (f"[[Plaque psoriasis]] with [[PASI]] {g.r.randint(12, 28)} and [[BSA]] {g.r.randint(10, 30)}%, "
         f"[[psoriatic arthritis]] of the hands. Failed [[methotrexate]] 20 mg weekly and [[NB-UVB]] "
         f"[[phototherapy]]. Requesting [[Cosentyx]] ([[secukinumab]]).")
    return Scn(t, "[[Cosentyx]]", (18, 75), condition="[[plaque psoriasis]]")


def sc_addison(g: Gen) -> Scn:
    t = (f"[[Addison's disease]] on [[hydrocortisone]] 15 mg/day in divided doses and [[fludrocortisone]] "
         f"0.1 mg; one [[adrenal crisis]] in the last year. Also [[Graves' disease]] treated with "
         f"[[radioactive iodine]]. Requesting an [[emergency injection kit]] ([[Solu-Cortef]]).")
    return Scn(t, "a [[Solu-Cortef]] kit", (18, 80), condition="[[Addison's disease]]")


def sc_hip(g: Gen) -> Scn:
    t = (f"Fall at home; [[Garden III]] [[femoral neck fracture]] on the left, treated with "
         f"[[hemiarthroplasty]]. [[Charlson Comorbidity Index]] {g.r.randint(3, 7)}, [[DEXA]] T-score "
         f"-{_f(g.r.uniform(2.6, 3.9))}. Started [[Prolia]] ([[denosumab]]); requesting a [[skilled nursing facility]] stay.")
    return Scn(t, "a [[skilled nursing facility]] stay", (65, 89), condition="a [[femoral neck fracture]]")


def sc_sleep(g: Gen) -> Scn:
    t = (f"[[Epworth Sleepiness Scale]] {g.r.randint(12, 21)}; [[polysomnography]] {g.date(g.service_date())} "
         f"with [[AHI {g.r.randint(16, 58)}]] and nadir [[SpO2 {g.r.randint(72, 84)}%]]. [[CPAP]] titration "
         f"successful at 11 cm H2O. Requesting [[CPAP]] device ([[E0601]]) and supplies.")
    return Scn(t, "a [[CPAP]] machine", (25, 80), condition="[[obstructive sleep apnea]]")


def sc_hodgkin(g: Gen) -> Scn:
    t = (f"Classical [[Hodgkin lymphoma]], stage IIA ([[Ann Arbor]]), nodular sclerosis; [[PET-CT]] "
         f"[[Deauville score]] 4 after two cycles of [[ABVD]]. Plan escalation to [[BEACOPP]] and "
         f"consideration of [[Adcetris]] ([[brentuximab vedotin]]).")
    return Scn(t, "[[Adcetris]]", (18, 60), condition="[[Hodgkin lymphoma]]")


def tag(fns, *tags):
    for fn in fns:
        fn.tags = set(getattr(fn, "tags", set())) | set(tags)


tag([sc_cgm, sc_oxygen, sc_sleep, sc_hearing, sc_afib], "device")
tag([sc_crohns, sc_parkinson, sc_migraine, sc_ms, sc_psoriasis, sc_addison, sc_alz, sc_hodgkin, sc_cgm, sc_thyroid],
    "drug")
tag([sc_pt, sc_knee, sc_hip, sc_gbs, sc_parkinson, sc_ms, sc_down], "rehab")

DEV_SCENARIOS = [sc_bariatric, sc_knee, sc_cgm, sc_brca, sc_depression, sc_hearing, sc_oxygen, sc_hbot, sc_pt,
                 sc_crohns, sc_parkinson, sc_thyroid, sc_bells, sc_down, sc_dental, sc_migraine, sc_ms, sc_afib,
                 sc_alz, sc_gbs, sc_psoriasis, sc_addison, sc_hip, sc_sleep, sc_hodgkin]

PLANS = ["Kestrel PPO Plus", "Kestrel HMO Core", "Kestrel EPO Select", "Alder Individual Health",
         "Alder Group Health and Dental"]

# --------------------------------------------------------------------------------------------
# Templates (dev). Each takes a Gen and a scenario and returns (field, marked text).
# --------------------------------------------------------------------------------------------

def _patient(g: Gen, s: Scn, **kw) -> Person:
    return g.person(sex=s.sex, age=s.age, **kw)


def _sexword(p: Person) -> str:
    if p.age() < 16:
        return "boy" if p.sex == "m" else "girl"
    return g_pick_word(p)


def g_pick_word(p: Person) -> str:
    return p.g.pick(["male", "M", "man"]) if p.sex == "m" else p.g.pick(["female", "F", "woman"])


def t_soap(g: Gen, s: Scn):
    p = _patient(g, s)
    doc = g.clinician()
    lab, mrn = g.record_id("mrn")
    hdr = g.pick([
        f"Patient: {p.full()} | {g.dob_labelled(p)} | {lab} {mrn}",
        f"Pt: {p.full()}   {g.dob_labelled(p)}   {lab} {mrn}",
        f"Name: {p.formal()}  Sex: {p.sex.upper()}  {g.dob_labelled(p)}  {lab} {mrn}",
    ])
    relation, rel = g.relative(p)
    lines = [hdr, f"Visit date: {g.date(g.ref)}", "",
             f"S: {p.full() if g.chance(0.3) else p.given_only()} is {p.a_age()} {_sexword(p)} seen for follow-up. {s.text}",
             f"O: BP {g.r.randint(112, 150)}/{g.r.randint(68, 94)}, HR {g.r.randint(58, 98)}, afebrile.",
             f"A/P: Supports the request for {s.service}; paperwork sent to {g.pick(PLANS)}."]
    if g.chance(0.6):
        lines.append(f"Accompanied by {p.his} {relation}, {rel.full()}, reachable on {g.phone(p.country)}.")
    lines.append(f"Electronically signed: {g.dr(doc)} {g.date(g.ref)}")
    return "narrative", "\n".join(lines)


def t_pa_letter(g: Gen, s: Scn):
    p = _patient(g, s)
    doc = g.clinician()
    lab, mid = g.record_id("member")
    fax = g.phone(p.country if p.country in ("US", "CA", "UK") else "US", ext=0)
    body = [f"Re: Prior authorization request for {s.service}",
            f"Patient: {p.full()}", f"Date of birth: {g.dob(p)}", f"{lab} {mid}", "",
            "To the Medical Director,", "",
            f"I am writing on behalf of my patient, {p.titled()}, {p.a_age()} {p.noun} under my care "
            f"since {g.ref.year - g.r.randint(1, 9)}. {s.text}",
            (f"In my opinion the request is medically necessary. {p.ref()} understands the risks and wishes to proceed."
             if p.age() >= 16 else f"In my opinion the request is medically necessary; {p.his} parents agree."),
            f"Please direct questions to my office at {g.phone(p.country)} or fax {fax}"
            + (f", or email {g.email(doc, clinic=True)}." if g.chance(0.5) else "."), "",
            "Sincerely,", g.dr(doc)]
    return "narrative", "\n".join(body)


def t_handler_call(g: Gen, s: Scn):
    p = _patient(g, s, scripts=False) if s.age[1] < 18 else _patient(g, s)
    relation, caller = g.relative(p)
    lab, mid = g.record_id(g.pick(["member", "card", "policy"]))
    handler = g.person(age=(22, 60))
    when = f"{g.r.randint(8, 17)}:{g.r.randint(0, 59):02d}"
    lines = [f"Inbound call {when}. Caller identified as {caller.full()}, {relation} of member {p.full()} "
             f"({lab} {mid}; DOB verified {g.dob(p)}).",
             f"Caller asked whether {s.service} is covered under {g.pick(PLANS)}. Clinical summary read from the "
             f"provider's notes: {s.text}",
             f"Callback number {g.phone(caller.country)}."]
    if g.chance(0.6):
        lines.append(f"Letter to be emailed to {g.email(caller)} at the caller's request.")
    lines.append(f"Handler: {P('name', handler.first_token() + ' ' + handler.family[0] + '.')}" if g.chance(0.5)
                 else f"- {handler.full()}, claims handler")
    return "narrative", "\n".join(lines)


def t_discharge(g: Gen, s: Scn):
    p = _patient(g, s)
    att, pcp = g.clinician(), g.clinician()
    lab, mrn = g.record_id("mrn")
    alab, acct = g.record_id("account")
    adm = g.service_date((6, 30))
    relation, spouse = g.relative(p)
    lines = ["DISCHARGE SUMMARY",
             f"Name: {p.formal()}    {lab} {mrn}    {alab} {acct}",
             f"Admitted: {g.date(adm, 'us')}    Discharged: {g.date(adm + dt.timedelta(days=g.r.randint(2, 5)), 'us')}",
             f"Attending: {g.dr(att)}", "",
             f"Hospital course: {p.ref()} is {p.a_age()} {p.noun}. {s.text}",
             f"Disposition: home with {p.his} {relation} {spouse.given_only()}. "
             f"{g.address_label(p)} {g.address(p.country)}.",
             f"Follow-up with {g.dr(pcp)} in two weeks; clinic phone {g.phone(p.country)}."]
    return "narrative", "\n".join(lines)


def t_uk_referral(g: Gen, s: Scn):
    p = _patient(g, s)
    p.country = "UK"
    gp, cons = g.clinician(), g.clinician()
    lab, nhs = g.record_id("nhs")
    lines = [f"Dear Dr {gp.family_only()},", "",
             f"Re: {p.full()}, DOB {g.dob(p, g.pick(['eu', 'long_uk', 'dot', 'dmy_dash']))}, {lab} {nhs}",
             f"{g.address('UK')}", f"Tel: {g.phone('UK')}", "",
             f"Thank you for referring this {p.age()}-year-old {p.noun}. {s.text}",
             f"I have explained the options to {p.titled()} and we will write to {p.his} insurer, "
             f"{g.pick(['Alder Individual Health', 'Alder Group Health and Dental'])}, for pre-authorisation.", "",
             "Yours sincerely,", "", f"{cons.full()} {g.pick(['FRCS', 'MRCP', 'FRCS (Orth)', 'FRCP'])}",
             "Consultant", f"cc: {p.full()} (patient)"]
    return "narrative", "\n".join(lines)


def t_pharmacy_form(g: Gen, s: Scn):
    p = _patient(g, s)
    doc = g.clinician()
    lab, mid = g.record_id("member")
    lines = [f"PRIOR AUTHORIZATION REQUEST - {s.service}",
             f"Patient name: {p.lastfirst()} | DOB {g.dob(p)} | {lab} {mid}",
             f"Patient phone: {g.phone(p.country)}",
             f"Prescriber: {doc.full()}, {g.pick(['MD', 'DO', 'NP'])} | Ph {g.phone('US')} | Fax {g.phone('US', ext=0)}",
             f"Clinical information: {s.text}",
             f"Is the patient currently on therapy? No. Urgent? {g.pick(['Yes', 'No'])}."]
    if g.chance(0.4):
        lines.insert(3, f"Ship to: {g.address(p.country)}")
    return "narrative", "\n".join(lines)


def t_appeal(g: Gen, s: Scn):
    p = _patient(g, s, scripts=False)
    lab, claim = g.record_id("claim")
    mlab, mid = g.record_id("member")
    writer = p
    if p.age() < 16:
        _, writer = g.relative(p, ["mother", "father"])
        opening = (f"My name is {writer.full()}. I am writing for my {'son' if p.sex == 'm' else 'daughter'} "
                   f"{p.full()}, born {g.dob(p)}, to appeal the denial of {lab} {claim} for {s.service}. "
                   f"{p.his.capitalize()} {mlab.rstrip(':').lower()} is {mid}.")
    else:
        opening = (f"My name is {p.full()} and I was born on {g.dob(p)}. I am appealing the denial of {lab} {claim} "
                   f"for {s.service}. My {mlab.rstrip(':').lower()} is {mid}.")
    lines = ["To whom it may concern,", "", opening,
             f"My doctor, {g.dr(g.clinician())}, wrote: {s.text}",
             f"You can reach me at {g.phone(writer.country)} or {g.email(writer)}. My address is {g.address(p.country)}."]
    if g.chance(0.5):
        lines.append(f"Your form asked for my Social Security number, it is {g.ssn()}.")
    lines += ["", "Thank you,", writer.full()]
    return "narrative", "\n".join(lines)


def t_home_visit(g: Gen, s: Scn):
    p = _patient(g, s)
    nurse = g.clinician()
    relation, rel = g.relative(p)
    lines = [f"Home health visit {g.date(g.ref)} at {g.address(p.country)}. Key safe code given by "
             f"{p.his} {relation} {rel.given_only()}.",
             f"{p.given_only()} was seated in the kitchen, alert and oriented x3. {s.text}",
             f"Transport to the next appointment arranged with {rel.full()} (vehicle {g.other('plate')})."
             if g.chance(0.7) else f"Caregiver {rel.full()} present throughout.",
             f"Visit by {nurse.full()}, {g.pick(['RN', 'LPN', 'RN, BSN', 'PT', 'OT'])}."]
    return "narrative", "\n".join(lines)


def t_portal(g: Gen, s: Scn):
    p = _patient(g, s)
    lab, mrn = g.record_id("mrn")
    lines = [f"Records for {p.full()} ({lab} {mrn}) uploaded through {g.other('url')} on {g.date(g.ref)} from "
             f"IP {g.other('ip')}.",
             f"Attached summary: {s.text}",
             f"Portal account email: {g.email(p, written=0)}."]
    if g.chance(0.4):
        lines.append(f"Device on file: pump serial {g.other('serial')}.")
    return "narrative", "\n".join(lines)


def t_lab_header(g: Gen, s: Scn):
    p = _patient(g, s)
    doc = g.clinician()
    lab, mrn = g.record_id("mrn")
    dob = g.dob(p, g.pick(["us0", "iso", "compact", "dmy_dash"]))
    lines = [f"{p.formal()}    {p.sex.upper()}    {dob}    {lab} {mrn}",
             f"Ordering provider: {doc.formal()} {g.pick(['MD', 'DO'])}",
             f"Collected {g.date(g.ref, 'us')} 07:{g.r.randint(10, 59)}",
             f"[[HbA1c]] {_f(g.r.uniform(5.6, 11.0))} %   [[TSH]] {_f(g.r.uniform(0.4, 6.0), 2)} mIU/L   "
             f"[[eGFR]] {g.r.randint(28, 110)} mL/min/1.73m2   [[LDL]] {g.r.randint(60, 190)} mg/dL",
             f"Clinical notes: {s.text}"]
    return "narrative", "\n".join(lines)


def t_interpreter(g: Gen, s: Scn):
    cults = [c for c in LANGUAGES if c in CULTURES]
    cult = g.pick(cults)
    p = g.person(culture=cult, sex=s.sex, age=s.age, scripts=False)
    interp = g.person(culture=cult, age=(25, 65), scripts=False)
    if p.age() < 16:
        r1, one = g.relative(p, ["mother"], same_culture=1.0)
        r2, two = g.relative(p, ["father", "grandmother", "uncle"], same_culture=1.0)
    else:
        r1, one = g.relative(p, ["wife" if p.sex == "m" else "husband", "sister", "brother"], same_culture=1.0)
        r2, two = g.relative(p, ["son", "daughter", "niece", "nephew"] if p.age() >= 40 else ["sister", "brother", "mother"],
                             same_culture=1.0)
    lines = [f"Visit conducted with {LANGUAGES[cult]} interpreter {interp.full()} by phone.",
             f"{p.full()} attended with {p.his} {r1} {one.given_only()} and "
             f"{r2} {two.full()}, who prefers to be contacted on {g.phone(two.country)}.",
             s.text,
             f"Explained the plan to {p.ref()} through the interpreter; questions answered."]
    return "narrative", "\n".join(lines)


def t_email_forward(g: Gen, s: Scn):
    kid = s.age[1] < 18
    p = _patient(g, s, scripts=False)
    sender = g.relative(p, ["mother", "father"])[1] if kid else p
    lab, claim = g.record_id("claim")
    who = f"my {g.pick(['son', 'daughter'])} {p.given_only()}'s" if kid else "my"
    lines = [f"From: {sender.full()} <{g.email(sender, written=0)}>",
             f"Sent: {g.date(g.ref, 'long')} {g.r.randint(7, 22)}:{g.r.randint(0, 59):02d}",
             f"Subject: {lab.rstrip(':').replace('#', '').strip()} {claim}", "",
             f"Hello, I am writing about {who} request for {s.service}. The clinic notes say: {s.text}",
             f"Please call me on {g.phone(sender.country)} if anything else is needed.", "", sender.given_only()]
    return "narrative", "\n".join(lines)


def t_telehealth(g: Gen, s: Scn):
    p = _patient(g, s)
    lines = [f"Telehealth visit (video). {p.titled()} located at home: {g.address(p.country)}.",
             f"Identity verified with date of birth {g.dob(p)} and address.",
             f"Callback {g.phone(p.country)} if disconnected.",
             s.text,
             f"Total time {g.r.randint(15, 45)} minutes."]
    return "narrative", "\n".join(lines)


def t_fax(g: Gen, s: Scn):
    p = _patient(g, s)
    doc = g.clinician()
    lab, mid = g.record_id(g.pick(["member", "medicaid", "mbi"]))
    lines = ["FAX - CONFIDENTIAL", "To: Utilization Management",
             f"From: office of {g.dr(doc)}   Phone: {g.phone('US')}   Fax: {g.phone('US', ext=0)}",
             f"RE: {p.formal()}, {lab} {mid}, {g.dob_labelled(p)}",
             f"Pages: {g.r.randint(3, 14)} including cover", "",
             f"Urgent review requested for {s.service}. {s.text}"]
    return "narrative", "\n".join(lines)


def t_pt_note(g: Gen, s: Scn):
    p = _patient(g, s)
    ther = g.clinician()
    relation, rel = g.relative(p)
    lines = [f"Progress note, visit {g.r.randint(6, 11)} of 12.",
             f"{p.titled()} reports less pain on stairs; {p.he} attended with {p.his} {relation}, "
             f"{rel.full()}.",
             s.text,
             f"Home exercise program reviewed. Next visit booked; reminder texts to {g.phone(p.country)}.",
             f"Therapist: {ther.full()}, {g.pick(['PT, DPT', 'PT', 'MSc PT', 'OTR/L'])}"]
    return "narrative", "\n".join(lines)


def t_social_work(g: Gen, s: Scn):
    p = _patient(g, s, scripts=False)
    p.country = "US"
    relation, partner = g.relative(p)
    lab, mcd = g.record_id("medicaid")
    lines = [f"Social work note. {p.given_only()} lives with {p.his} {relation} {partner.full()} at "
             f"{g.address('US')}.",
             f"Medicaid application in progress; {g.ssn_label()} {g.ssn()} and {lab} {mcd} copied to the file.",
             f"Clinical background: {s.text}",
             f"The {relation} can be reached on {g.phone('US')}."]
    return "narrative", "\n".join(lines)


def t_dictation(g: Gen, s: Scn):
    p = _patient(g, s, scripts=False)
    doc = g.clinician()
    lab, rid = g.record_id("written")
    lines = [f"Dictated by {g.dr(doc)}, transcribed {g.date(g.ref, 'long')}.",
             f"This is a note for {p.full()}, date of birth {g.dob(p, g.pick(['long_us', 'ordinal', 'ordinal_of', 'long_uk']))}, "
             f"{lab} {rid}.",
             f"{s.text}",
             f"The patient asked that the letter go to {g.email(p, written=1.0)}."]
    if g.chance(0.5):
        lines.append(f"{g.pick(['Social security', 'Social security number', 'SSN'])} for the disability form is {P('ssn', g.pick([' '.join(DIGITS[int(x)] for x in g.d(9)), '-'.join([' '.join(DIGITS[int(x)] for x in g.d(3)), ' '.join(DIGITS[int(x)] for x in g.d(2)), ' '.join(DIGITS[int(x)] for x in g.d(4))])]))}.")
    return "narrative", "\n".join(lines)


def t_script_names(g: Gen, s: Scn):
    cult, sx, given, family, native = g.pick([x for x in g.script_names if not s.sex or x[1] == s.sex])
    p = Person(g, cult, sx, given, family, "gf", "en", g.script_countries().get(cult, "US"), native=native)
    p.dob = g.ref - dt.timedelta(days=int(g.r.randint(*s.age) * 365.25) + g.r.randrange(365))
    lab, mrn = g.record_id(g.pick(["mrn", "member"]))
    lines = [f"Registration: {p.with_native()} (name as on passport), {g.dob_labelled(p)}, {lab} {mrn}.",
             f"Preferred contact {g.phone(p.country)}.",
             s.text]
    return "narrative", "\n".join(lines)


def t_intake(g: Gen, s: Scn):
    p = _patient(g, s, scripts=False)
    p.country = g.pick(["US", "US", p.country])
    relation, rel = g.relative(p)
    split_given = p.given if p.order == "gf" else p.given
    lines = ["NEW PATIENT INTAKE",
             f"Last name: {P('name', p.family)}    First name: {P('name', split_given)}    Sex: {p.sex.upper()}",
             f"Date of birth: {g.dob(p)}    {g.ssn_label()} {g.ssn()}",
             f"Driver's license: {g.other('licence')}" if g.chance(0.6) else f"Vehicle: {g.other('plate')}",
             f"Home: {g.address(p.country)}",
             f"Phone (home): {g.phone(p.country)}    (cell): {g.phone(p.country)}",
             f"Emergency contact: {rel.full()} ({relation}) {g.phone(rel.country)}",
             f"Email: {g.email(p)}",
             f"Reason for visit: {s.text}"]
    return "narrative", "\n".join(lines)


def t_dme_delivery(g: Gen, s: Scn):
    p = _patient(g, s)
    relation, rel = g.relative(p)
    driver = g.person(age=(22, 60))
    lines = [f"DME delivery ticket. Equipment for {s.service}, serial {g.other('serial')}, delivered to "
             f"{p.titled()} at {g.address(p.country)} on {g.date(g.ref)}.",
             f"Driver {driver.given_only()} (van {g.other('plate')}); received and signed by {p.his} {relation} "
             f"{rel.full()}.",
             f"Order notes: {s.text}",
             f"Set-up confirmed by phone {g.phone(p.country)}; remote monitoring via {g.other(g.pick(['url', 'ip']))}."]
    return "narrative", "\n".join(lines)


def t_clinical_only(g: Gen, s: Scn):
    age = g.r.randint(*s.age)
    sex = s.sex or g.pick(["f", "m"])
    w = ("girl" if sex == "f" else "boy") if age < 16 else ("woman" if sex == "f" else "man")
    lines = [f"{age}-year-old {w}. {s.text}",
             g.pick(["Plan discussed; the patient agrees.", "No contraindications documented.",
                     "Request supported by the treating specialist.", "Records attached."])]
    return "narrative", " ".join(lines)


# ---------- questions

def q_covered(g: Gen, s: Scn):
    p = _patient(g, s)
    lab, mid = g.record_id("member")
    return "question", (f"Is {s.service} covered for {p.full()} ({lab.rstrip(':').lower()} {mid}) under "
                        f"{g.pick(PLANS)} as of {g.date(g.ref, 'iso')}?")


def q_called(g: Gen, s: Scn):
    p = _patient(g, s)
    return "question", (f"Member {p.titled()} called from {g.phone(p.country)} - does the plan pay for "
                        f"{s.service}, and is prior authorization needed?")


def q_claim(g: Gen, s: Scn):
    p = _patient(g, s)
    lab, claim = g.record_id("claim")
    return "question", (f"Can you confirm whether {lab.rstrip(':').lower()} {claim} for {p.formal()}, "
                        f"{g.dob_labelled(p)}, was correctly denied for {s.service}?")


def q_email(g: Gen, s: Scn):
    p = _patient(g, s)
    return "question", (f"{p.full()} wants to know if {s.service} is covered and what the waiting period is; "
                        f"please reply to {g.email(p)}.")


def q_unlabelled(g: Gen, s: Scn):
    p = _patient(g, s)
    if p.order == "gf" and not p.native:
        return "question", (f"Does the policy cover {s.service} here? {p.given_only()} {P('name', p.family)} "
                            f"was born {g.dob(p)} and has {s.condition}.")
    return "question", f"Does the policy cover {s.service} for {p.full()}, born {g.dob(p)}, who has {s.condition}?"


def q_card(g: Gen, s: Scn):
    lab, card = g.record_id("card")
    return "question", f"For {lab} {card}: what is the annual cap on {s.service}, and does a waiting period apply?"


def q_address(g: Gen, s: Scn):
    p = _patient(g, s)
    return "question", (f"Delivery for {p.titled()} at {g.address(p.country)} - is {s.service} covered "
                        f"on {g.pick(PLANS)}, and can we ship before approval?")


def q_ssn(g: Gen, s: Scn):
    p = _patient(g, s, scripts=False)
    return "question", (f"Subscriber {p.full()}, {g.ssn_label()} {g.ssn()}: is {s.service} a covered benefit "
                        f"for {p.his} plan?")


def q_clinical_only(g: Gen, s: Scn):
    age = g.r.randint(*s.age)
    return "question", g.pick([
        f"Is {s.service} covered for a {age}-year-old with {s.condition}?",
        f"What criteria must be documented before {s.service} is approved for {s.condition}?",
        f"Does prior authorization apply to {s.service} when the member has {s.condition}?"])


t_dme_delivery.needs = "device"
t_pharmacy_form.needs = "drug"
t_pt_note.needs = "rehab"

DEV_TEMPLATES = [
    (t_soap, 3), (t_pa_letter, 3), (t_handler_call, 3), (t_discharge, 2), (t_uk_referral, 2), (t_pharmacy_form, 2),
    (t_appeal, 2), (t_home_visit, 2), (t_portal, 2), (t_lab_header, 2), (t_interpreter, 2), (t_email_forward, 2),
    (t_telehealth, 2), (t_fax, 2), (t_pt_note, 1), (t_social_work, 2), (t_dictation, 2), (t_script_names, 2),
    (t_intake, 2), (t_dme_delivery, 2), (t_clinical_only, 4),
    (q_covered, 2), (q_called, 2), (q_claim, 2), (q_email, 2), (q_unlabelled, 2), (q_card, 1), (q_address, 1),
    (q_ssn, 2), (q_clinical_only, 3),
]


# --------------------------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------------------------

def generate(seed: int, templates, scenarios, n: int, first_id: int = 1, gen_cls=Gen, terms=None) -> list[dict]:
    """n items from weighted templates and scenarios, each checked; deterministic in seed."""
    rng = random.Random(seed)
    deck: list = []
    items: list[dict] = []
    scn_deck: list = []
    terms_set = {t.casefold() for t in terms} if terms else set()
    while len(items) < n:
        if not deck:
            deck = [t for t, w in templates for _ in range(w)]
            rng.shuffle(deck)
        tmpl = deck.pop()
        for attempt in range(60):
            if not scn_deck:
                scn_deck = list(scenarios)
                rng.shuffle(scn_deck)
            scn_fn = scn_deck.pop()
            needs = getattr(tmpl, "needs", None)
            if needs and needs not in getattr(scn_fn, "tags", ()):
                scn_deck.append(scn_fn)
                scn_fn = rng.choice(sorted((s for s in scenarios if needs in getattr(s, "tags", ())),
                                           key=lambda f: f.__name__))
            g = gen_cls(rng)
            scn = scn_fn(g)
            field, marked = tmpl(g, scn)
            item = make_item(f"phi-{first_id + len(items):04d}", field, marked)
            problems = check_item(item)
            if terms_set:
                problems += [f"phi value is a listed clinical term: {p['value']!r}" for p in item["phi"]
                             if p["value"].casefold() in terms_set]
            if not problems:
                break
        else:
            raise RuntimeError(f"template {tmpl.__name__} keeps failing: {problems}")
        items.append(item)
    return [{k: v for k, v in it.items() if not k.startswith("_")} for it in items]


def build(seed: int = 0) -> list[dict]:
    """The dev half: 320 items."""
    terms = load_terms() if TERMS_FILE.exists() else None
    return generate(seed, DEV_TEMPLATES, DEV_SCENARIOS, 320, terms=terms)


# --------------------------------------------------------------------------------------------
# Whole-corpus checks and the command line
# --------------------------------------------------------------------------------------------

def check_corpus(items: list[dict], terms: list[str] | None = None, require_terms_listed: bool = True) -> list[str]:
    problems = []
    ids = [it["id"] for it in items]
    if len(set(ids)) != len(ids):
        problems.append("duplicate ids")
    if len(items) < 300:
        problems.append(f"only {len(items)} items")
    for it in items:
        if set(it) != {"id", "field", "text", "phi", "clinical"}:
            problems.append(f"{it['id']}: keys {sorted(it)}")
        for pr in check_item(it, spans=None, clin_spans=None) + simulate_redaction(it):
            problems.append(f"{it['id']}: {pr}")
    cats = Counter(p["category"] for it in items for p in it["phi"])
    for c in CATEGORIES:
        if cats[c] < 15:
            problems.append(f"category {c} has only {cats[c]} values")
    none = sum(1 for it in items if not it["phi"])
    if none < 0.08 * len(items):
        problems.append(f"only {none} items without PHI")
    if terms is not None:
        if len(terms) < 400:
            problems.append(f"clinical_terms.txt has {len(terms)} terms")
        if len(set(terms)) != len(terms):
            dup = [t for t, k in Counter(terms).items() if k > 1]
            problems.append(f"duplicate terms {dup[:5]}")
        fold = {t.casefold() for t in terms}
        if require_terms_listed:  # every word-only clinical term of the corpus is listed (any case)
            missing = sorted({c for it in items for c in it["clinical"]
                              if not any(ch.isdigit() for ch in c) and c.casefold() not in fold})
            if missing:
                problems.append(f"clinical terms used but not listed: {missing[:20]}")
        bad = sorted({p["value"] for it in items for p in it["phi"] if p["value"].casefold() in fold})
        if bad:
            problems.append(f"phi values that are listed clinical terms: {bad[:10]}")
    return problems


def summary(items: list[dict]) -> dict:
    cats = Counter(p["category"] for it in items for p in it["phi"])
    return {"items": len(items), "narrative": sum(it["field"] == "narrative" for it in items),
            "question": sum(it["field"] == "question" for it in items),
            "without_phi": sum(not it["phi"] for it in items),
            "phi_values": {c: cats[c] for c in CATEGORIES},
            "clinical_terms": sum(len(it["clinical"]) for it in items)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", help="write the items as JSON to this file")
    ap.add_argument("--check", action="store_true", help="run every mechanical check and print counts")
    args = ap.parse_args(argv)
    items = build(args.seed)
    if args.out:
        Path(args.out).write_text(json.dumps(items, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    if args.check:
        problems = check_corpus(items, load_terms())
        if build(args.seed) != items:
            problems.append("build is not deterministic")
        print(json.dumps(summary(items), indent=1))
        for pr in problems:
            print("PROBLEM:", pr)
        print("ok" if not problems else f"{len(problems)} problems")
        return 1 if problems else 0
    if not args.out:
        json.dump(items, sys.stdout, ensure_ascii=False, indent=1)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
