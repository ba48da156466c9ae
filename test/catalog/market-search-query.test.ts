import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { ftsQueryOf, searchTokensMax } from "../../src/store/sqlite/market-catalog.js";

describe("the FTS5 query built from a keyword", () => {
  it("quotes every word as a required prefix term in the asked columns", () => {
    assert.equal(
      ftsQueryOf({ keyword: "Bitcoin 100k", searchBy: "Market" }),
      '{title description tags} : ("Bitcoin"* AND "100k"*)',
    );
    assert.equal(ftsQueryOf({ keyword: "alice", searchBy: "Creator" }), '{creator_name} : ("alice"*)');
  });

  it("leaves nothing for a keyword without letters or digits", () => {
    assert.equal(ftsQueryOf({ keyword: '" * ( ) : ^ -', searchBy: "Market" }), undefined);
  });

  it("keeps at most searchTokensMax words", () => {
    const query = ftsQueryOf({
      keyword: Array.from({ length: 40 }, (_, index) => `w${index}`).join(" "),
      searchBy: "Market",
    });
    assert.equal(query?.match(/\*/g)?.length, searchTokensMax);
  });

  it("is always valid FTS5 syntax, whatever the keyword", () => {
    const db = new Database(":memory:");
    db.exec("CREATE VIRTUAL TABLE s USING fts5(title, description, tags, creator_name, market_id UNINDEXED)");
    const search = db.prepare("SELECT count(*) FROM s WHERE s MATCH ?").pluck();
    for (const keyword of [
      '"a',
      "a OR b",
      "NEAR(a b, 2)",
      "title:x",
      "a AND",
      "x*y",
      "-a +b",
      "{a}",
      "ÉCOLE",
      "東京 2026",
      "a\u0000b",
    ]) {
      const query = ftsQueryOf({ keyword, searchBy: "Market" });
      if (query !== undefined) assert.doesNotThrow(() => search.get(query), keyword);
    }
    db.close();
  });
});
