import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { displayName, isLanguage, negotiateLanguage } from "../../src/catalog/languages.js";

describe("Accept-Language negotiation", () => {
  it("takes the supported tag with the highest q-weight", () => {
    assert.equal(negotiateLanguage("fr-FR, ko-KR;q=0.5, zh-CN;q=0.8"), "zh-CN");
    assert.equal(negotiateLanguage("zh-CN;q=0.2,ko-KR;q=0.9"), "ko-KR");
    assert.equal(negotiateLanguage("vi-VN"), "vi-VN");
  });

  it("falls back to en-US when nothing supported is acceptable", () => {
    assert.equal(negotiateLanguage(undefined), "en-US");
    assert.equal(negotiateLanguage(""), "en-US");
    assert.equal(negotiateLanguage("fr, de;q=0.9, *;q=0.1"), "en-US");
    assert.equal(negotiateLanguage("zh-CN;q=0"), "en-US");
  });

  it("matches a tag by its primary language, an exact tag winning at equal weight", () => {
    assert.equal(negotiateLanguage("zh"), "zh-CN");
    assert.equal(negotiateLanguage("pt-PT;q=0.9, es;q=0.8"), "pt-BR");
    assert.equal(negotiateLanguage("en-GB, ko-KR"), "ko-KR");
    assert.equal(negotiateLanguage("TR-tr"), "tr-TR");
  });

  it("skips malformed weights instead of failing", () => {
    assert.equal(negotiateLanguage("zh-CN;q=abc, ko-KR;q=0.4"), "zh-CN");
    assert.equal(negotiateLanguage("zh-CN;q=2, ko-KR;q=0.4"), "zh-CN");
    assert.equal(negotiateLanguage(";;;,,,"), "en-US");
  });

  it("knows exactly the seven languages of the spec", () => {
    for (const tag of ["en-US", "zh-CN", "vi-VN", "tr-TR", "es-ES", "pt-BR", "ko-KR"])
      assert.ok(isLanguage(tag));
    for (const tag of ["en", "zh-cn", "fr-FR", ""]) assert.ok(!isLanguage(tag));
  });

  it("nameDisplay falls back language → en-US → name", () => {
    assert.equal(displayName("n", { "zh-CN": "中", "en-US": "E" }, "zh-CN"), "中");
    assert.equal(displayName("n", { "en-US": "E" }, "zh-CN"), "E");
    assert.equal(displayName("n", {}, "zh-CN"), "n");
  });
});
