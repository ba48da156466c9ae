// The gateway benchmark's baseline: the signed host's app built over a running platform's
// dependencies, with a verifier that identifies the partner by `x-ca-key` and checks no
// signature. It exists only here, in bench/: no production configuration can turn signature
// checks off. Listens on loopback only.

import type { AddressInfo } from "node:net";
import type { PlatformDeps } from "../../src/api/deps.js";
import { buildPartnerApp } from "../../src/api/partner/app.js";
import type { GatewayVerdict, GatewayVerifier } from "../../src/gateway/verifier.js";
import type { AuthenticatedPartner } from "../../src/identity/service.js";
import type { Platform } from "../../src/server.js";

export interface UnsignedGateway {
  readonly baseUrl: string;
  close(): Promise<void>;
}

export async function startUnsignedGateway(platform: Platform): Promise<UnsignedGateway> {
  const deps: PlatformDeps = { ...platform.deps, gatewayVerifier: identifyOnly(platform.deps) };
  const app = await buildPartnerApp(deps, {});
  await app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}`, close: () => app.close() };
}

function identifyOnly(deps: PlatformDeps): GatewayVerifier<AuthenticatedPartner> {
  const identify = async (appKey: unknown): Promise<GatewayVerdict<AuthenticatedPartner>> => {
    const partner = typeof appKey === "string" ? await deps.identity.lookupAppKey(appKey) : undefined;
    return partner === undefined
      ? { ok: false, rejection: { kind: "invalid_key" } }
      : { ok: true, appKey: partner };
  };
  return {
    verify: (request) => identify(request.headers["x-ca-key"]),
    verifyUpgrade: (request) => identify(request.headers["x-ca-key"]),
  };
}
