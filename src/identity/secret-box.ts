// Encrypts APP Secrets at rest with AES-256-GCM under the platform's master key. The verifier needs
// the secret itself (HMAC is symmetric), so hashing is not an option; a leaked database without the
// master key (a separate 0600 file, or PREDEX_MASTER_KEY) yields nothing usable.

import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const algorithm = "aes-256-gcm";
const formatVersion = "v1";
const ivBytes = 12;
export const masterKeyBytes = 32;

export interface SecretBox {
  /** `context` (the APP Key) is bound as associated data: a sealed secret moved to another row fails to open. */
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
}

export function createSecretBox(masterKey: Buffer): SecretBox {
  if (masterKey.length !== masterKeyBytes) throw new Error(`master key must be ${masterKeyBytes} bytes`);
  return {
    seal(plaintext, context) {
      const iv = randomBytes(ivBytes);
      const cipher = createCipheriv(algorithm, masterKey, iv);
      cipher.setAAD(Buffer.from(context, "utf8"));
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return [formatVersion, iv, cipher.getAuthTag(), ciphertext].map(encodePart).join(":");
    },
    open(sealed, context) {
      const [version, iv, tag, ciphertext] = sealed.split(":");
      if (version !== formatVersion || iv === undefined || tag === undefined || ciphertext === undefined) {
        throw new Error("sealed secret has an unknown format");
      }
      const decipher = createDecipheriv(algorithm, masterKey, Buffer.from(iv, "base64url"));
      decipher.setAAD(Buffer.from(context, "utf8"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertext, "base64url")),
        decipher.final(),
      ]).toString("utf8");
    },
  };
}

function encodePart(part: string | Buffer): string {
  return typeof part === "string" ? part : part.toString("base64url");
}
