// Exact money: every amount of USDT and every share count is a bigint of atoms (1e-8).
// Decimals are parsed and formatted only at the edges; nothing in between uses floating point.

export const ATOM_DECIMALS = 8;
export const ATOMS_PER_UNIT = 100_000_000n;

export type Atoms = bigint;

export type ParseResult = { ok: true; atoms: Atoms } | { ok: false; reason: "format" | "precision" };

const decimalPattern = /^(-)?(\d+)(?:\.(\d+))?$/;

/**
 * Parses a decimal string or a JSON number into atoms. More than 8 decimals is a precision error,
 * never rounded: DESIGN §6 says too many decimals is rejected.
 */
export function parseAtoms(value: string | number): ParseResult {
  const text = typeof value === "number" ? numberToPlainString(value) : value.trim();
  if (text === undefined) return { ok: false, reason: "format" };
  const match = decimalPattern.exec(text);
  if (!match) return { ok: false, reason: "format" };
  const [, sign, whole = "0", fraction = ""] = match;
  if (fraction.length > ATOM_DECIMALS) {
    // Trailing zeros beyond the 8th place carry no value, so "1.000000000" is still exact.
    if (!/^0*$/.test(fraction.slice(ATOM_DECIMALS))) return { ok: false, reason: "precision" };
  }
  const fractionAtoms = BigInt(fraction.slice(0, ATOM_DECIMALS).padEnd(ATOM_DECIMALS, "0"));
  const atoms = BigInt(whole) * ATOMS_PER_UNIT + fractionAtoms;
  return { ok: true, atoms: sign ? -atoms : atoms };
}

// JSON numbers arrive as binary doubles; their shortest round-trip decimal text is what the
// client meant (1e-7 is "0.0000001"), so we expand exponent notation instead of doing arithmetic.
function numberToPlainString(value: number): string | undefined {
  if (!Number.isFinite(value)) return undefined;
  const text = String(value);
  const exponent = /^(-)?(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!exponent) return text;
  const [, sign = "", whole = "", fraction = "", powerText = "0"] = exponent;
  const power = Number(powerText);
  const digits = whole + fraction;
  const pointAt = whole.length + power;
  let plain: string;
  if (pointAt <= 0) plain = `0.${"0".repeat(-pointAt)}${digits}`;
  else if (pointAt >= digits.length) plain = digits + "0".repeat(pointAt - digits.length);
  else plain = `${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
  return sign + plain;
}

/** Formats atoms as the shortest exact decimal string: 150000000n → "1.5", 0n → "0". */
export function formatAtoms(atoms: Atoms): string {
  const negative = atoms < 0n;
  const magnitude = negative ? -atoms : atoms;
  const whole = magnitude / ATOMS_PER_UNIT;
  const fraction = (magnitude % ATOMS_PER_UNIT).toString().padStart(ATOM_DECIMALS, "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

/**
 * Atoms as a JSON number, for the fields the spec types as number. Exact for every value below
 * 2^53 atoms (90 million USDT); beyond that the nearest double is the best a JSON number can say.
 */
export function atomsToNumber(atoms: Atoms): number {
  return Number(formatAtoms(atoms));
}

/** floor(a * b / c) for non-negative operands: the "round down" of DESIGN §2. */
export function mulDivDown(a: Atoms, b: Atoms, c: Atoms): Atoms {
  return (a * b) / c;
}

/** ceil(a * b / c) for non-negative operands: used where the platform must never under-collect. */
export function mulDivUp(a: Atoms, b: Atoms, c: Atoms): Atoms {
  return (a * b + c - 1n) / c;
}
