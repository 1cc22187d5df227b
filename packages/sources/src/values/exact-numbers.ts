/**
 * Numbers read from text without a lossy step: decimal numerals compared and scaled exactly, and
 * text read as a FLOAT correctly rounded once. `Math.fround(Number(text))` rounds twice (to a double,
 * then to a float) and is off by one unit for a text just beside the midpoint of two floats; Java's
 * Float.parseFloat, which Paimon's readers compare with, rounds once.
 */

/** A decimal numeral: optional sign, digits with an optional fraction, optional exponent. */
const NUMERAL = /^([+-]?)(\d+\.?\d*|\.\d+)(?:[eE]([+-]?\d+))?$/;

/** The exact value of a numeral as sign × digits × 10^exponent, digits without leading zeros ('' for zero). */
export interface DecimalParts {
  readonly negative: boolean;
  readonly digits: string;
  readonly exponent: number;
}

export function decimalParts(text: string): DecimalParts | undefined {
  const m = NUMERAL.exec(text);
  if (m === null) return undefined;
  const [, sign = '', mantissa = '', exponentText = '0'] = m;
  const dot = mantissa.indexOf('.');
  const fraction = dot < 0 ? '' : mantissa.slice(dot + 1);
  const exponent = Number(exponentText) - fraction.length;
  if (!Number.isSafeInteger(exponent)) return undefined;
  return { negative: sign === '-', digits: mantissa.replace('.', '').replace(/^0+/, ''), exponent };
}

/** Whether two numerals have the same value (and, for zero, the same sign): `1.50` and `15e-1`. */
export function sameDecimal(a: string, b: string): boolean {
  const x = decimalParts(a);
  const y = decimalParts(b);
  if (x === undefined || y === undefined) return false;
  const [dx, ex] = trimZeros(x);
  const [dy, ey] = trimZeros(y);
  return x.negative === y.negative && dx === dy && (dx === '' || ex === ey);
}

function trimZeros({ digits, exponent }: DecimalParts): [string, number] {
  const significant = digits.replace(/0+$/, '');
  return [significant, exponent + digits.length - significant.length];
}

/**
 * The unscaled value of `text` at `scale` decimal places, or why it does not fit: more places than
 * `scale` (never rounded) or `precision` digits. Accepts an exponent (`1.5e3`).
 */
export function unscaledDecimal(text: string, precision: number, scale: number): bigint | 'not a number' | 'too many places' | 'too large' {
  const parts = decimalParts(text);
  if (parts === undefined) return 'not a number';
  const [digits, exponent] = trimZeros(parts);
  if (digits === '') return 0n;
  const shift = exponent + scale; // unscaled = digits × 10^shift
  if (shift < 0) return 'too many places';
  if (digits.length + shift > precision) return 'too large';
  const unscaled = BigInt(digits) * 10n ** BigInt(shift);
  return parts.negative ? -unscaled : unscaled;
}

/** Whether `text` is a decimal numeral (not a word such as `Infinity` or `NaN`). */
export function isNumeral(text: string): boolean {
  return NUMERAL.test(text);
}

/**
 * Text a DOUBLE or FLOAT reads: a numeral, or NaN / Infinity in Java's and Python's spellings. A
 * numeral beyond the largest double gives ±Infinity here; the converter refuses it as out of range.
 */
export function floatingText(text: string): number | undefined {
  if (NUMERAL.test(text)) return Number(text);
  if (/^[+-]?(infinity|inf)$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(text)) return NaN;
  return undefined;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

/**
 * The float nearest to the exact value of a numeral (ties to even), as Java's Float.parseFloat.
 * The double nearest to it is rounded to a float; that is wrong only when the double is exactly
 * halfway between two floats while the text is not, and then the text decides, compared exactly.
 */
export function float32FromText(text: string): number {
  const d = floatingText(text) ?? NaN;
  const f = Math.fround(d);
  if (f === d || !Number.isFinite(d)) return f;
  const other = float32Neighbour(f, d);
  // Beside the largest float the other side is infinity: the midpoint is then the largest + half its spacing.
  const [finite, beyond] = Number.isFinite(f) ? [f, other] : [other, f];
  const mid = Number.isFinite(beyond) ? (finite + beyond) / 2 : finite + (finite - float32Neighbour(finite, 0)) / 2;
  if (d !== mid) return f;
  const parts = decimalParts(text);
  if (parts === undefined) return f;
  const side = compareWithDouble(parts, Math.abs(mid)); // the text's magnitude against the midpoint's
  if (side === 0) return f;
  const fartherFromZero = Math.abs(other) > Math.abs(f) ? other : f;
  const closerToZero = fartherFromZero === f ? other : f;
  return side > 0 ? fartherFromZero : closerToZero;
}

/**
 * Whether the double `d` lies exactly halfway between two floats: rounding it to a float then
 * depends on the tie rule, so a decimal text that became `d` must be rounded from its own digits.
 */
export function isFloat32Midpoint(d: number): boolean {
  if (!Number.isFinite(d)) return false;
  const f = Math.fround(d);
  if (f === d) return false;
  // Past the largest float the tie is with infinity: the largest float plus half its spacing.
  if (!Number.isFinite(f)) return Math.abs(d) === FLOAT32_OVERFLOW_TIE;
  return (f + float32Neighbour(f, d)) / 2 === d;
}

/** 2^128 − 2^103: halfway between the largest float (2^128 − 2^104) and 2^128, where rounding overflows. */
const FLOAT32_OVERFLOW_TIE = 2 ** 128 - 2 ** 103;

/** The float next to the float `f` in the direction of `toward` (±Infinity past the largest). */
function float32Neighbour(f: number, toward: number): number {
  f32[0] = f;
  const bits = f === 0 ? (toward < 0 ? 0x80000000 : 0) : (u32[0] ?? 0); // the sign bit stays, the magnitude moves
  u32[0] = f === 0 || Math.abs(toward) > Math.abs(f) ? bits + 1 : bits - 1;
  return f32[0] ?? NaN;
}

/** Sign of |parts| − d for a positive finite double d, exactly. */
function compareWithDouble(parts: DecimalParts, d: number): number {
  f64[0] = d;
  const bits = u64[0] ?? 0n;
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  const binaryExponent = (biased === 0 ? 1 : biased) - 1075; // d = mantissa × 2^binaryExponent
  let left = BigInt(parts.digits === '' ? '0' : parts.digits);
  let right = mantissa;
  if (parts.exponent >= 0) left *= 10n ** BigInt(parts.exponent);
  else right *= 10n ** BigInt(-parts.exponent);
  if (binaryExponent >= 0) right <<= BigInt(binaryExponent);
  else left <<= BigInt(-binaryExponent);
  return left > right ? 1 : left < right ? -1 : 0;
}
