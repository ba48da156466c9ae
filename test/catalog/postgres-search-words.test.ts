// The words the PostgreSQL catalogue indexes and queries (src/store/postgres/market-catalog.ts):
// the query is always a plain conjunction of quoted prefixes (no keyword can be tsquery syntax), at
// most searchWordsMax words; folding removes case and accents; the tsvector literal has every word
// at its positions with its field's weight. PostgreSQL itself parses both in market-catalog.test.ts.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  foldSearchText,
  searchWordsMax,
  searchWordsOf,
  tsQueryOf,
  tsVectorOf,
} from "../../src/store/postgres/market-search.js";

describe("PostgreSQL search words", () => {
  it("makes any keyword a conjunction of quoted prefixes of letters and digits, or nothing", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 200 }),
        fc.constantFrom("Market", "Creator"),
        (keyword, searchBy) => {
          const query = tsQueryOf({ keyword, searchBy: searchBy as "Market" | "Creator" });
          if (query === undefined) {
            assert.equal(searchWordsOf(keyword).length, 0);
            return;
          }
          const words = query.split(" & ");
          assert.ok(words.length >= 1 && words.length <= searchWordsMax);
          for (const word of words) assert.match(word, /^'[\p{L}\p{N}]+':\*$/u);
        },
      ),
    );
  });

  it("folds case and accents the way FTS5's remove_diacritics does for Latin text", () => {
    assert.equal(foldSearchText("Ôslo ZÜRICH São Ōsaka"), "oslo zurich sao osaka");
    assert.deepEqual(searchWordsOf("Bitcoin, 100k! (title:x) e-mail"), [
      "bitcoin",
      "100k",
      "title",
      "x",
      "e",
      "mail",
    ]);
    assert.deepEqual(searchWordsOf("比特币 年底会突破十万美元吗"), ["比特币", "年底会突破十万美元吗"]);
    assert.deepEqual(searchWordsOf("비트코인 가격"), ["비트코인", "가격"]);
    assert.equal(tsQueryOf({ keyword: '"(*', searchBy: "Market" }), undefined);
    assert.equal(
      tsQueryOf({ keyword: "Rain in PARIS", searchBy: "Market" }),
      "'rain':* & 'in':* & 'paris':*",
    );
  });

  it("puts every word at its positions with its field's weight", () => {
    assert.equal(
      tsVectorOf([
        { text: "Rain rain", weight: "A" },
        { text: "weather", weight: "B" },
        { text: "Rain tomorrow", weight: "C" },
      ]),
      "'rain':1A,2A,4C 'weather':3B 'tomorrow':5C",
    );
    assert.equal(tsVectorOf([{ text: "", weight: "A" }]), "");
  });
});
