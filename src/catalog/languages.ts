// The languages of the category tree (spec 000 `GET /markets/category-tree`): the seven tags a
// caller may ask for, and the choice from `Accept-Language` when it asks for none (rule 2).

export const supportedLanguages = ["en-US", "zh-CN", "vi-VN", "tr-TR", "es-ES", "pt-BR", "ko-KR"] as const;
export type Language = (typeof supportedLanguages)[number];
export const defaultLanguage: Language = "en-US";

/** An Accept-Language header longer than this is not parsed past this many characters. */
const acceptLanguageLengthMax = 1_024;

const byLowerCaseTag = new Map<string, Language>(supportedLanguages.map((tag) => [tag.toLowerCase(), tag]));
// One supported tag per primary language, so "zh", "pt-PT" or "en-GB" still find a tag we serve.
const byPrimarySubtag = new Map<string, Language>(
  supportedLanguages.map((tag) => [tag.slice(0, 2).toLowerCase(), tag]),
);

export function isLanguage(value: string): value is Language {
  return (supportedLanguages as readonly string[]).includes(value);
}

/**
 * The supported language with the highest q-weight in an Accept-Language header (RFC 9110 §12.5.4),
 * else en-US. An exact tag beats a same-language match at equal weight; among equals the earlier
 * entry wins; q=0 means "not this one"; malformed entries are skipped.
 */
export function negotiateLanguage(header: string | undefined): Language {
  if (header === undefined) return defaultLanguage;
  let best: { language: Language; weight: number; exact: boolean } | undefined;
  for (const entry of header.slice(0, acceptLanguageLengthMax).split(",")) {
    const [rawTag = "", ...parameters] = entry.split(";");
    const tag = rawTag.trim().toLowerCase();
    if (tag === "" || tag === "*") continue;
    let weight = 1;
    for (const parameter of parameters) {
      const match = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(parameter);
      if (match !== null) weight = Number(match[1]);
    }
    if (!(weight > 0 && weight <= 1)) continue;
    const exactLanguage = byLowerCaseTag.get(tag);
    const language = exactLanguage ?? byPrimarySubtag.get(tag.split("-")[0] ?? "");
    if (language === undefined) continue;
    const exact = exactLanguage !== undefined;
    if (best === undefined || weight > best.weight || (weight === best.weight && exact && !best.exact)) {
      best = { language, weight, exact };
    }
  }
  return best?.language ?? defaultLanguage;
}

/** Rule 3: the chosen language's name, else the en-US one, else the node's own name. */
export function displayName(
  name: string,
  names: Readonly<Record<string, string>>,
  language: Language,
): string {
  return names[language] ?? names[defaultLanguage] ?? name;
}
