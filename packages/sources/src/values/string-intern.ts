/**
 * The strings of one column's short text cells kept by their bytes: a column of few distinct values
 * (a status, a country, a currency) decodes each distinct value once and hands the same string out
 * again, instead of a call into the Buffer decoder and a new string per cell (about 70 ns a cell on
 * the benchmark machine against about 20 for a kept one, and less garbage).
 *
 * A direct-mapped table of SLOTS entries, each the bytes (at most MAX_BYTES) and the string decoded
 * from them; a cell's entry is found by a hash of its bytes and used only when its bytes are equal,
 * byte for byte, so a kept string is always what decoding the cell gives. A column whose cells are
 * mostly distinct (a note, an id) would only pay the hash and the copy: every WINDOW cells the
 * share of cells found is looked at, and below a quarter the column is decoded directly for the next
 * PAUSE cells before it is tried again (twice as many after each window that fails again, up to
 * MAX_PAUSE; back to PAUSE after one that does not).
 */
const SLOTS = 1024;
const MAX_BYTES = 32;
const WINDOW = 1024;
const PAUSE = 32 * 1024;
const MAX_PAUSE = 1024 * 1024;

export class StringIntern {
  readonly #bytes = new Uint8Array(SLOTS * MAX_BYTES);
  /** Bytes kept per slot; -1: empty. */
  readonly #lengths = new Int16Array(SLOTS).fill(-1);
  readonly #strings: string[] = new Array<string>(SLOTS).fill('');
  #seen = 0;
  #found = 0;
  /** Cells still to decode directly before trying again. */
  #paused = 0;
  /** The next pause, should the next window fail. */
  #pause = PAUSE;

  /** The string of `b[s, e)`: the kept one when the same bytes were seen, else `decode`'s (and kept). */
  get(b: Uint8Array, s: number, e: number, decode: (b: Uint8Array, s: number, e: number) => string): string {
    const length = e - s;
    if (length > MAX_BYTES) return decode(b, s, e);
    if (this.#paused > 0) {
      this.#paused--;
      return decode(b, s, e);
    }
    let hash = 0x811c9dc5;
    for (let i = s; i < e; i++) hash = Math.imul(hash ^ (b[i] as number), 0x01000193);
    const slot = (hash >>> 0) & (SLOTS - 1);
    const at = slot * MAX_BYTES;
    const kept = this.#bytes;
    let same = this.#lengths[slot] === length;
    for (let i = 0; same && i < length; i++) same = kept[at + i] === b[s + i];
    if (++this.#seen === WINDOW) {
      if (this.#found + (same ? 1 : 0) < WINDOW / 4) {
        this.#paused = this.#pause;
        this.#pause = Math.min(MAX_PAUSE, 2 * this.#pause);
      } else this.#pause = PAUSE;
      this.#seen = 0;
      this.#found = 0;
    } else if (same) this.#found++;
    if (same) return this.#strings[slot] as string;
    const text = decode(b, s, e);
    for (let i = 0; i < length; i++) kept[at + i] = b[s + i] as number;
    this.#lengths[slot] = length;
    this.#strings[slot] = text;
    return text;
  }
}
