// PostgreSQL's own full text for the catalogue (the SQLite adapter's is FTS5: ftsQueryOf in
// src/store/sqlite/market-catalog.ts). The words are cut and folded here, in TypeScript, by the same
// function for the index and for the query, with the SQLite catalogue's rules (FTS5 unicode61,
// remove_diacritics): a word is a run of letters and digits, case and accents folded; a query word
// matches as a prefix; every query word is required. The tsvector is built from those words (title
// weight A, tags B, description C, with positions, so ts_rank weighs them) instead of a generated
// to_tsvector() column, because PostgreSQL's parser cuts differently (hosts, paths, e-mails,
// hyphenated words are tokens of their own), depends on the database's locale, and unaccent() is not
// immutable: the same market would be found by different keywords on SQLite and on PostgreSQL.
// Chinese, Japanese and Thai have no spaces, so a run of their characters is one word, found by its
// beginning — exactly as on SQLite (docs/decisions.md, "Catalogue: categories, lists, search, hotScore").

import {
  type IndexedMarket,
  type MarketSearchQuery,
  type SearchBy,
  searchableTextsOf,
} from "../market-catalog.js";
import { raw, sql } from "../sql.js";
import { preparePostgres } from "./statements.js";

/** Words of a search taken into account; the rest of a long query is ignored (as on SQLite). */
export const searchWordsMax = 16;
/** Characters of one search word kept (as on SQLite). */
const searchWordLengthMax = 64;
/** Characters of one indexed word kept: a lexeme must stay under 2 KB. */
const indexedWordLengthMax = 256;
/** tsvector positions stop at 16,383; later words are indexed at the last position. */
const positionMax = 16_383;
/** ts_rank's weights for D, C, B, A: title (A) ten times a description word (C), tags (B) five times. */
const rankWeights = "{0, 0.1, 0.5, 1.0}";

/** Case and accents folded: "Ôslo" and "oslo" are one word, as FTS5's remove_diacritics makes them. */
export function foldSearchText(text: string): string {
  return text.normalize("NFKD").replace(/\p{M}/gu, "").normalize("NFC").toLowerCase();
}

/** The words of a text as the index and the query both cut them: runs of letters and digits. */
export function searchWordsOf(text: string): string[] {
  return foldSearchText(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The caller's keyword as a tsquery that cannot be a syntax error: only letters and digits are
 * kept, each word a required prefix ('rai':* finds rain). Undefined when nothing searchable is left.
 */
export function tsQueryOf(query: MarketSearchQuery): string | undefined {
  const words = searchWordsOf(query.keyword)
    .slice(0, searchWordsMax)
    .map((word) => `'${[...word].slice(0, searchWordLengthMax).join("")}':*`);
  return words.length === 0 ? undefined : words.join(" & ");
}

/**
 * A tsvector literal of weighted fields, each word at its position (so ts_rank counts and weighs
 * it). Words hold letters and digits only, so quoting them cannot break out of the literal.
 */
export function tsVectorOf(fields: readonly { text: string; weight: "A" | "B" | "C" | "D" }[]): string {
  const positions = new Map<string, string[]>();
  let position = 0;
  for (const field of fields) {
    for (const word of searchWordsOf(field.text)) {
      position = Math.min(position + 1, positionMax);
      const lexeme = [...word].slice(0, indexedWordLengthMax).join("");
      let found = positions.get(lexeme);
      if (found === undefined) {
        found = [];
        positions.set(lexeme, found);
      }
      found.push(`${position}${field.weight}`);
    }
  }
  return [...positions].map(([lexeme, at]) => `'${lexeme}':${at.join(",")}`).join(" ");
}

/** A market's two tsvector literals: what Market searches (weighted), and the creator's name. */
export function searchVectorsOf(market: IndexedMarket): { words: string; creatorWords: string } {
  const texts = searchableTextsOf(market);
  return {
    words: tsVectorOf([
      { text: texts.title, weight: "A" },
      { text: texts.tags, weight: "B" },
      { text: texts.description, weight: "C" },
    ]),
    creatorWords: tsVectorOf([{ text: texts.creatorName, weight: "A" }]),
  };
}

/** Market searches the weighted words; Creator the creator's name. Best match first, then newest. */
function searchStatementsOn(column: "words" | "creator_words") {
  const matching = sql<{ match: string }>`FROM market_search s JOIN markets m ON m.market_id = s.market_id
     WHERE s.${raw(column)} @@ ${"match"}::tsquery AND m.status <> 'draft'`;
  return {
    page: preparePostgres(
      `predex-catalog-search-${column}`,
      sql<{
        match: string;
        limit: number;
        offset: number;
      }>`SELECT s.market_id, count(*) OVER () AS total ${matching}
       ORDER BY ts_rank('${raw(rankWeights)}', s.${raw(column)}, ${"match"}::tsquery) DESC, s.market_id DESC
       LIMIT ${"limit"} OFFSET ${"offset"}`,
    ),
    count: preparePostgres(
      `predex-catalog-search-count-${column}`,
      sql<{ match: string }>`SELECT count(*) AS total ${matching}`,
    ),
  };
}

export const searchStatements: Readonly<Record<SearchBy, ReturnType<typeof searchStatementsOn>>> = {
  Market: searchStatementsOn("words"),
  Creator: searchStatementsOn("creator_words"),
};
