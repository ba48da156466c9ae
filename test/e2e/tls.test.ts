// With PREDEX_TLS_CERT_FILE and PREDEX_TLS_KEY_FILE the public-facing listeners speak HTTPS and the
// session cookie is marked Secure. The certificate is a throwaway self-signed one for 127.0.0.1.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { signRequest } from "../../src/sdk/signer.js";
import { startTestPlatform, type TestPlatform } from "./harness.js";
import { exchangeWire, wireRequest } from "./raw-http.js";

const certDir = mkdtempSync(join(tmpdir(), "predex-tls-"));
let opensslAvailable = true;
try {
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"]
      .concat(["-addext", "subjectAltName=IP:127.0.0.1"])
      .concat(["-keyout", join(certDir, "key.pem"), "-out", join(certDir, "cert.pem")]),
    { stdio: "ignore" },
  );
} catch {
  opensslAvailable = false;
}

describe("TLS listeners", { skip: opensslAvailable ? false : "openssl is not installed" }, () => {
  let platform: TestPlatform;
  before(async () => {
    platform = await startTestPlatform({
      env: { PREDEX_TLS_CERT_FILE: join(certDir, "cert.pem"), PREDEX_TLS_KEY_FILE: join(certDir, "key.pem") },
    });
  });
  after(async () => {
    await platform?.close();
    rmSync(certDir, { recursive: true, force: true });
  });

  it("serves the signed host over HTTPS and marks the session cookie Secure", async () => {
    assert.match(platform.addresses.gateway, /^https:/);
    assert.match(platform.addresses.admin, /^http:/, "the loopback admin listener stays plain HTTP");
    const partner = await platform.createPartner();
    const body = Buffer.from(
      JSON.stringify({ userEmail: "tls@example.com", merchantId: partner.merchantId, marchantUserId: "tls" }),
    );
    const signed = signRequest(partner, { method: "POST", path: "/user/register", body });
    const setCookie = await new Promise<string[]>((resolve, reject) => {
      const outgoing = request(
        new URL(signed.pathAndQuery, platform.addresses.gateway),
        { method: "POST", headers: signed.headers, ca: readFileSync(join(certDir, "cert.pem")) },
        (response) => {
          response.resume();
          response.on("end", () =>
            response.statusCode === 200
              ? resolve(response.headers["set-cookie"] ?? [])
              : reject(new Error(`${response.statusCode}`)),
          );
        },
      );
      outgoing.on("error", reject);
      outgoing.end(body);
    });
    assert.match(setCookie[0] ?? "", /; Secure/);
  });

  it("serves a request that offers Upgrade: h2c over HTTPS as the plain request it is", async () => {
    const { host } = new URL(platform.addresses.public);
    const offer = [
      "connection: Upgrade, HTTP2-Settings",
      "upgrade: h2c",
      "http2-settings: AAMAAABkAARAAAAAAAIAAAAA",
    ];
    const wire = Buffer.concat([
      wireRequest(["GET /time HTTP/1.1", `host: ${host}`, ...offer]),
      wireRequest(["GET /time HTTP/1.1", `host: ${host}`, "connection: close"]),
    ]);
    const exchange = await exchangeWire(
      platform.addresses.public,
      wire,
      5_000,
      readFileSync(join(certDir, "cert.pem")),
    );
    assert.deepEqual(
      exchange.responses.map((response) => [response.status, /^\d+$/.test(response.body)]),
      [
        [200, true],
        [200, true],
      ],
    );
  });
});
