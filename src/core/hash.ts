// A pure 64-bit FNV-1a hash over text (its UTF-8 bytes), in 16-bit limbs so every step is exact
// in JS numbers. No node:crypto in the core; this is for comparing states, not for security.

const utf8 = new TextEncoder();

export function fnv1a64(text: string): string {
  const bytes = utf8.encode(text);
  // Offset basis 0xcbf29ce484222325, least significant limb first.
  let h0 = 0x2325;
  let h1 = 0x8422;
  let h2 = 0x9ce4;
  let h3 = 0xcbf2;
  for (let index = 0; index < bytes.length; index++) {
    h0 ^= bytes[index]!;
    // Multiply by the prime 0x100000001b3 = 2^40 + 0x1b3, keeping 64 bits.
    const t0 = h0 * 0x1b3;
    let t1 = h1 * 0x1b3;
    let t2 = h2 * 0x1b3 + (h0 << 8);
    const t3 = h3 * 0x1b3 + (h1 << 8);
    t1 += t0 >>> 16;
    h0 = t0 & 0xffff;
    t2 += t1 >>> 16;
    h1 = t1 & 0xffff;
    h3 = (t3 + (t2 >>> 16)) & 0xffff;
    h2 = t2 & 0xffff;
  }
  return [h3, h2, h1, h0].map((limb) => limb.toString(16).padStart(4, "0")).join("");
}
