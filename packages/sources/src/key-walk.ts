/**
 * The guard of a planner's keyset walk (MySQL and PostgreSQL `splitRows`): each cut point must be
 * new. A walk whose statements read a key value other than the one written (a server that parses
 * literals another way than the planner wrote them) would otherwise find the same cuts again and
 * plan for ever; here it fails, naming the table, never a key value (a key is a cell of the source).
 */
export class KeyWalk {
  readonly cuts: string[][] = [];
  readonly #seen = new Set<string>();
  readonly #table: string;

  constructor(table: string) {
    this.#table = table;
  }

  /** Adds the next cut; a cut seen before throws a RangeError (the planner's refusal). */
  push(cut: readonly string[]): void {
    const key = JSON.stringify(cut);
    if (this.#seen.has(key)) throw new RangeError(`the keyset walk over ${this.#table} found a cut point it had passed (the server compares key values otherwise than they were written)`);
    this.#seen.add(key);
    this.cuts.push([...cut]);
  }
}
